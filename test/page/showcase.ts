import { addressed, type Script } from './bot.js';

/**
 * The rich conversation of the page's screenshot (docs/sandbox-page.png), on an IM thread: Markdown,
 * an image attachment, a header and footer, quick replies (TEXT and CONTACT), a list picker, a
 * webhook that fails once and is retried, a duplicate answerId, a hand-over with its targets, and an
 * answer into the thread after it (not delivered). test/page/showcase.test.ts plays it.
 */

export const showcaseSteps = {
  first: 'Hi! Where is my order?',
  press: 'Change delivery',
  pick: 'tue-pm',
  person: 'Can I talk to a person?',
} as const;

export const showcaseScript: Script = (message, bot) => {
  const to = addressed(message);
  const id = (suffix: string) => `showcase-${message.questionId}-${suffix}`;
  if (message.text === showcaseSteps.first) {
    // The first delivery meets a busy bot: the sandbox retries it.
    if (bot.attempt === 1) return { answers: [], status: 503 };
    return [
      {
        ...to,
        answerId: id('a'),
        code: 'SUCCESS',
        text: 'Your order 4211 has shipped. It should arrive tomorrow. Track it: https://example.com/track/4211',
        formattedText:
          '**Your order 4211 has shipped.** It should arrive *tomorrow*.\n\n' +
          '- carrier: Parcelways\n- weight: 1.2 kg\n\nTrack it [on the carrier\u2019s site](https://example.com/track/4211).',
        attachments: [{ url: bot.imageUrl, name: 'parcel-4211.svg', type: 'image/svg+xml' }],
        quickRepliesHeaderFooter: { header: [{ text: 'Order 4211' }], footer: [{ text: 'Replies within 5 minutes' }] },
        quickReplies: [
          { type: 'TEXT', text: showcaseSteps.press },
          { type: 'CONTACT', text: 'Share my phone number' },
        ],
      },
    ];
  }
  if (message.quickReply?.text === showcaseSteps.press) {
    return [
      {
        ...to,
        answerId: id('a'),
        code: 'SUCCESS',
        text: 'When would suit you?',
        messageListPicker: {
          header: { text: 'Delivery slots' },
          title: 'Pick a slot',
          sections: [
            {
              title: 'Tomorrow',
              items: [
                { identifier: 'tue-am', title: 'Morning', subTitle: '8:00 to 12:00' },
                { identifier: 'tue-pm', title: 'Afternoon', subTitle: '12:00 to 18:00' },
              ],
            },
            { title: 'Later', items: [{ identifier: 'wed', title: 'Wednesday', subTitle: 'all day' }] },
          ],
          footer: { text: 'Times are local' },
        },
      },
    ];
  }
  if (message.listItem?.identifier === showcaseSteps.pick) {
    const booked = { ...to, answerId: id('a'), code: 'SUCCESS', text: 'Booked: tomorrow afternoon.' };
    // A retry of the same answer: the answerId was delivered, so this one is not (chatbot rule 6).
    return [booked, booked];
  }
  if (message.text === showcaseSteps.person) {
    return [
      { ...to, answerId: id('a'), code: 'SWITCH_TO_HUMAN', text: 'Passing you to a colleague.', skillIds: [12n], userIds: [7n, 9n] },
      // An answer into the thread after the hand-over: the thread is with agents, so it is not delivered.
      { ...to, answerId: id('b'), code: 'SUCCESS', text: 'Anything else I can do?' },
    ];
  }
  return [{ ...to, answerId: id('a'), code: 'SUCCESS', text: `You said: ${message.text}` }];
};
