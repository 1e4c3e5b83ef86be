import { describe, expect, it } from 'vitest';
import {
  askedQuestion,
  call,
  customerSays,
  errorMessage,
  messages,
  replyBody,
  sandbox,
  sendGreeting,
  sendReply,
  startConversation,
  type MessageView,
} from './helpers.js';

/**
 * The sandbox as a platform (docs/sandbox.md, "Answers are checked against the state"): customers,
 * threads and questions, bot answers checked against the questions they answer, hand-over to agents.
 */

const conversation = (sb: { url: string }, sessionId: string) =>
  call(sb, `/_sandbox/conversations/${sessionId}`, { token: null, tenant: null }).then(
    (r) => r.json as { conversation: Record<string, unknown>; events: Record<string, unknown>[]; next: bigint | null },
  );

const release = (sb: { url: string }, sessionId: string) =>
  call(sb, `/_sandbox/conversations/${sessionId}/release`, { body: {}, token: null, tenant: null });

const lastMessage = async (sb: { url: string }): Promise<MessageView> => (await messages(sb)).at(-1) as MessageView;

describe('conversations and questions', () => {
  it('starts a conversation for a new client on WEB by default, with the identifiers the sandbox made', async () => {
    const sb = await sandbox();
    const started = await startConversation(sb);
    expect(started).toEqual({
      tenant: 'sandbox',
      sessionId: expect.stringMatching(/^s-[0-9a-f]{12}$/),
      coreClientId: 1001n,
      clientId: null,
      channel: 'WEB',
    });
    const second = await startConversation(sb);
    expect(second.coreClientId).toBe(1002n);
    expect(second.sessionId).not.toBe(started.sessionId);
  });

  it.each([
    { channel: 'WEB', type: 'TEXT' },
    { channel: 'IM', type: 'TEXT' },
    { channel: 'EMAIL', type: 'EMAIL' },
    { channel: 'email', type: 'EMAIL' },
  ])(
    'numbers the questions of a $channel thread 1, 2, ... with questionIds unique in the tenant, of type $type',
    async ({ channel, type }) => {
      const sb = await sandbox();
      const { sessionId } = await startConversation(sb, { channel });
      const first = await customerSays(sb, sessionId, 'One');
      const second = await customerSays(sb, sessionId, 'Two');
      const other = await customerSays(sb, (await startConversation(sb)).sessionId, 'Elsewhere');
      expect([first.questionIndex, second.questionIndex, other.questionIndex]).toEqual([1n, 2n, 1n]);
      expect(new Set([first.questionId, second.questionId, other.questionId]).size).toBe(3);
      expect([first.type, second.type]).toEqual([type, type]);
      // Without --bot-url nothing is sent, and the answer says why.
      expect(first).toMatchObject({ deliveryId: null, noWebhook: 'no bot is connected (start the sandbox with --bot-url)' });
    },
  );

  it.each([
    ['WEB', 'WEB'],
    ['im', 'IM'],
    ['Im', 'IM'],
    ['eMAIL', 'EMAIL'],
    [null, 'WEB'],
  ])('starts a conversation on the channel %j in any case, as %s', async (channel, expected) => {
    const sb = await sandbox();
    const started = await startConversation(sb, { channel });
    expect(started.channel).toBe(expected);
    expect(sb.conversation(started.sessionId)?.channel).toBe(expected);
  });

  it('continues the client named by coreClientId or clientId, and makes one it does not know', async () => {
    const sb = await sandbox();
    const made = await startConversation(sb, { coreClientId: 42n, clientId: 'ext-42' });
    expect(made).toMatchObject({ coreClientId: 42n, clientId: 'ext-42' });
    expect((await startConversation(sb, { clientId: 'ext-42' })).coreClientId).toBe(42n);
    expect((await startConversation(sb, { coreClientId: 42n })).clientId).toBe('ext-42');
    const other = await startConversation(sb, { coreClientId: 7n });
    const clash = await call(sb, '/_sandbox/conversations', { body: { coreClientId: 7n, clientId: 'ext-42' }, token: null, tenant: null });
    expect(clash.status).toBe(400);
    expect(errorMessage(clash)).toContain('two different clients');
    expect(other.clientId).toBeNull();
  });

  it.each([
    { body: { channel: 'SMS' }, problem: 'channel: "SMS" is not a channel: use WEB, IM or EMAIL (in any case)' },
    // Only the ASCII letters are folded: the dotless ı of "ım" is not an I.
    { body: { channel: 'ım' }, problem: 'channel: "ım" is not a channel: use WEB, IM or EMAIL (in any case)' },
    { body: { channel: '' }, problem: 'channel: "" is not a channel' },
    { body: { channel: 5n }, problem: 'channel: 5 is not a channel' },
    { body: { channel: ['IM'] }, problem: 'channel: an array is not a channel' },
    { body: { coreClientId: -1n }, problem: 'coreClientId: must be an integer from 0 to 9223372036854775807' },
    { body: { coreClientId: '42' }, problem: 'coreClientId: must be an integer' },
    { body: { clientId: '' }, problem: 'clientId: must be a non-empty string' },
    { body: { chanel: 'IM' }, problem: 'chanel: unknown field' },
  ])('refuses to start a conversation with $body: 400', async ({ body, problem }) => {
    const sb = await sandbox();
    const result = await call(sb, '/_sandbox/conversations', { body, token: null, tenant: null });
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toContain(problem);
  });

  it('answers 404 to a conversation in a tenant it does not serve, and to an unknown session', async () => {
    const sb = await sandbox();
    const tenant = await call(sb, '/_sandbox/conversations', { body: { tenant: 'initech' }, token: null, tenant: null });
    expect(tenant.status).toBe(404);
    expect(errorMessage(tenant)).toContain("no tenant 'initech'");
    const session = await call(sb, '/_sandbox/conversations/s-nope/messages', { body: { text: 'Hi' }, token: null, tenant: null });
    expect(session.status).toBe(404);
    expect(errorMessage(session)).toContain("no conversation with sessionId 's-nope'");
  });

  it.each([
    { body: {}, problem: 'send one of text, press or pick' },
    { body: { text: 'a', press: 'b' }, problem: 'send one of text, press or pick, not text and press' },
    { body: { text: '' }, problem: 'text: must be a non-empty string' },
    { body: { text: 'x'.repeat(4001) }, problem: 'text: 4001 characters, limit 4000' },
  ])('refuses a customer message $problem: 400', async ({ body, problem }) => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    const result = await call(sb, `/_sandbox/conversations/${sessionId}/messages`, { body, token: null, tenant: null });
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toContain(problem);
  });

  it('takes a customer message of exactly 4000 characters', async () => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    expect((await customerSays(sb, sessionId, 'x'.repeat(4000))).questionIndex).toBe(1n);
  });
});

describe('answers are checked against the questions they answer', () => {
  it('answers 404 naming a questionId the tenant does not have, and records the answer as not delivered', async () => {
    const sb = await sandbox();
    const result = await sendReply(sb, replyBody({ coreClientId: undefined, questionId: 999_999n }));
    expect(result.status).toBe(404);
    expect(errorMessage(result)).toContain("no question with questionId 999999 in tenant 'sandbox'");
    expect(await lastMessage(sb)).toMatchObject({ delivered: false, notDelivered: 'unknown question', status: 404n });
  });

  it('answers 404 to a sessionId it does not have, and to a questionIndex the thread does not have', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const noThread = await sendReply(sb, replyBody({ coreClientId: undefined, sessionId: 's-000000000000', questionIndex: 1n }));
    expect(noThread.status).toBe(404);
    expect(errorMessage(noThread)).toContain("no thread with sessionId 's-000000000000'");
    const noIndex = await sendReply(sb, replyBody({ coreClientId: undefined, sessionId: asked.sessionId, questionIndex: 2n }));
    expect(noIndex.status).toBe(404);
    expect(errorMessage(noIndex)).toContain(`thread '${asked.sessionId}' has no question with questionIndex 2 (it has question 1)`);
  });

  it('answers 400 to an answer whose questionId and sessionId with questionIndex name two different questions', async () => {
    const sb = await sandbox();
    const first = await askedQuestion(sb);
    const second = await customerSays(sb, first.sessionId, 'Second');
    const result = await sendReply(
      sb,
      replyBody({ questionId: first.questionId, sessionId: first.sessionId, questionIndex: second.questionIndex }),
    );
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toContain('name one question');
  });

  it('does not answer 404 to an answer that names a question by both of its ways', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const result = await sendReply(sb, replyBody({ questionId: asked.questionId, sessionId: asked.sessionId, questionIndex: 1n }));
    expect(result.status).toBe(200);
    expect(await lastMessage(sb)).toMatchObject({
      delivered: true,
      sessionId: asked.sessionId,
      questionId: asked.questionId,
      questionIndex: 1n,
    });
  });

  it('warns, and answers the question, when the answer also names another client', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    expect((await sendReply(sb, replyBody({ questionId: asked.questionId, coreClientId: 5n }))).status).toBe(200);
    expect((await lastMessage(sb)).sessionId).toBe(asked.sessionId);
    expect(sb.lastApiLog()).toContain(`coreClientId: question ${asked.questionId} is of coreClientId ${asked.coreClientId}, not 5`);
  });

  it('makes a client and a WEB thread for an answer addressed by a coreClientId it does not know', async () => {
    const sb = await sandbox();
    expect((await sendReply(sb, replyBody({ coreClientId: 1n, text: 'hi' }))).status).toBe(200);
    const [answer] = await messages(sb);
    const { conversation: thread } = await conversation(sb, answer?.sessionId as string);
    expect(thread).toMatchObject({ coreClientId: 1n, channel: 'WEB', owner: 'bot' });
    // A second answer to the same client goes to the same thread.
    await sendReply(sb, replyBody({ coreClientId: 1n }));
    expect((await lastMessage(sb)).sessionId).toBe(answer?.sessionId);
  });

  it('makes a client for an answer addressed by a clientId it does not know', async () => {
    const sb = await sandbox();
    expect((await sendReply(sb, replyBody({ coreClientId: undefined, clientId: 'ext-9' }))).status).toBe(200);
    const { conversation: thread } = await conversation(sb, (await lastMessage(sb)).sessionId as string);
    expect(thread).toMatchObject({ clientId: 'ext-9', coreClientId: 1001n });
  });

  describe('chatbot rule 2: an answer to an EMAIL question is addressed by sessionId and questionIndex', () => {
    it('refuses an EMAIL question named by questionId alone with 400 naming the rule, not delivered', async () => {
      const sb = await sandbox();
      const asked = await askedQuestion(sb, { channel: 'EMAIL' });
      const result = await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId }));
      expect(result.status).toBe(400);
      expect(errorMessage(result)).toContain('chatbot rule 2');
      expect(errorMessage(result)).toContain(`address the answer by sessionId '${asked.sessionId}' and questionIndex 1`);
      expect(await lastMessage(sb)).toMatchObject({
        delivered: false,
        notDelivered: 'EMAIL question not addressed by sessionId and questionIndex',
        sessionId: asked.sessionId,
      });
    });

    it('delivers an answer to an EMAIL question addressed by sessionId and questionIndex, with or without questionId', async () => {
      const sb = await sandbox();
      const asked = await askedQuestion(sb, { channel: 'EMAIL' });
      expect((await sendReply(sb, replyBody({ coreClientId: undefined, sessionId: asked.sessionId, questionIndex: 1n }))).status).toBe(200);
      const both = { questionId: asked.questionId, sessionId: asked.sessionId, questionIndex: 1n, coreClientId: undefined };
      expect((await sendReply(sb, replyBody(both))).status).toBe(200);
    });

    it("refuses an answer addressed by client when the client's latest thread is EMAIL", async () => {
      const sb = await sandbox();
      const asked = await askedQuestion(sb, { channel: 'EMAIL' });
      const result = await sendReply(sb, replyBody({ coreClientId: asked.coreClientId }));
      expect(result.status).toBe(400);
      expect(errorMessage(result)).toContain(`the client's latest thread '${asked.sessionId}' is EMAIL`);
    });

    it('treats TEXT questions on WEB and IM threads without the rule', async () => {
      const sb = await sandbox();
      for (const channel of ['WEB', 'IM']) {
        const asked = await askedQuestion(sb, { channel });
        expect((await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId }))).status).toBe(200);
      }
    });
  });

  it('warns that a list picker and a header on a WEB thread are not shown, and delivers the answer', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const picker = { title: 'Choose', sections: [{ title: 'Sizes', items: [{ title: 'Small', identifier: 's' }] }] };
    const headerFooter = { header: [{ text: 'Hi' }], footer: [{ text: 'Bye' }] };
    const result = await sendReply(
      sb,
      replyBody({
        coreClientId: undefined,
        questionId: asked.questionId,
        messageListPicker: picker,
        quickRepliesHeaderFooter: headerFooter,
      }),
    );
    expect(result.status).toBe(200);
    const answer = (await lastMessage(sb)) as MessageView & { warnings: { path: string; message: string }[] };
    expect(answer.delivered).toBe(true);
    expect(answer.warnings.map((w) => w.path)).toEqual(['messageListPicker', 'quickRepliesHeaderFooter']);
    expect(answer.warnings[0]?.message).toContain('list rule 1');
    expect(answer.warnings[0]?.message).toContain('this thread is WEB');
  });
});

describe('hand-over to agents', () => {
  it('moves the thread to agents on SWITCH_TO_HUMAN, records the targets, and refuses later bot answers with 409', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const handover = replyBody({ questionId: asked.questionId, code: 'SWITCH_TO_HUMAN', userIds: [7n], skillIds: [12n], unitIds: [3n] });
    expect((await sendReply(sb, handover)).status).toBe(200);
    const { conversation: thread, events } = await conversation(sb, asked.sessionId);
    expect(thread).toMatchObject({ owner: 'agents', handover: { code: 'SWITCH_TO_HUMAN', userIds: [7n], skillIds: [12n], unitIds: [3n] } });
    // Agent 7 is none of the default agents: the hand-over is queued (docs/sandbox.md, "Agents").
    expect(events.map((e) => e.type)).toEqual(['conversation.started', 'customer.message', 'bot.answer', 'handover', 'handover.queued']);
    expect(events.at(-2)).toMatchObject({ scope: 'thread', code: 'SWITCH_TO_HUMAN', questionId: asked.questionId, skillIds: [12n] });

    const later = await sendReply(sb, replyBody({ coreClientId: undefined, sessionId: asked.sessionId, questionIndex: 1n }));
    expect(later.status).toBe(409);
    expect(errorMessage(later)).toContain(`the thread '${asked.sessionId}' is with agents`);
    expect(await lastMessage(sb)).toMatchObject({ delivered: false, notDelivered: 'thread with agents' });
    // Addressed by client it goes to the same thread, and is refused the same way.
    expect((await sendReply(sb, replyBody({ coreClientId: asked.coreClientId }))).status).toBe(409);
  });

  it('answers a retry of the hand-over answer itself 200 (duplicate answerId), not 409', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const handover = replyBody({ questionId: asked.questionId, code: 'SWITCH_TO_HUMAN' });
    expect((await sendReply(sb, handover)).status).toBe(200);
    expect((await sendReply(sb, handover)).status).toBe(200);
    expect((await lastMessage(sb)).notDelivered).toBe('duplicate answerId');
  });

  it('sends no webhook for a customer message in a thread with agents, and says why', async () => {
    const sb = await sandbox({ botUrl: 'http://127.0.0.1:9/never' });
    const asked = await askedQuestion(sb);
    await sendReply(sb, replyBody({ questionId: asked.questionId, code: 'SWITCH_TO_HUMAN' }));
    const next = await customerSays(sb, asked.sessionId, 'Hello? Anybody?');
    expect(next).toMatchObject({ deliveryId: null, noWebhook: 'the thread is with agents', questionIndex: 2n });
  });

  it('gives the thread back to the bot on release, after which bot answers are delivered again', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    await sendReply(sb, replyBody({ questionId: asked.questionId, code: 'SWITCH_TO_HUMAN' }));
    const released = await release(sb, asked.sessionId);
    expect(released.status).toBe(200);
    expect(released.json).toMatchObject({ released: true, conversation: { owner: 'bot', handover: null } });
    expect((await release(sb, asked.sessionId)).json).toMatchObject({ released: false });
    const next = await customerSays(sb, asked.sessionId, 'Back to the bot');
    expect((await sendReply(sb, replyBody({ coreClientId: undefined, questionId: next.questionId }))).status).toBe(200);
    expect((await conversation(sb, asked.sessionId)).events.map((e) => e.type)).toContain('released');
  });

  it('passes one question to agents on UNCLEAR_QUESTION: answers to it get 409, the rest of the thread stays with the bot', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    expect((await sendReply(sb, replyBody({ questionId: asked.questionId, code: 'UNCLEAR_QUESTION' }))).status).toBe(200);
    const { conversation: thread, events } = await conversation(sb, asked.sessionId);
    expect(thread).toMatchObject({ owner: 'bot', questionsWithAgents: [1n] });
    expect(events.at(-2)).toMatchObject({ type: 'handover', scope: 'question', code: 'UNCLEAR_QUESTION', questionIndex: 1n });
    expect(events.at(-1)).toMatchObject({ type: 'handover.routed', scope: 'question' });

    const again = await sendReply(sb, replyBody({ questionId: asked.questionId }));
    expect(again.status).toBe(409);
    expect(errorMessage(again)).toContain('was passed to agents with UNCLEAR_QUESTION');
    const next = await customerSays(sb, asked.sessionId, 'Something else');
    expect((await sendReply(sb, replyBody({ questionId: next.questionId }))).status).toBe(200);

    await release(sb, asked.sessionId);
    expect((await sendReply(sb, replyBody({ questionId: asked.questionId }))).status).toBe(200);
  });

  it('answers 404 to a release of an unknown conversation', async () => {
    const sb = await sandbox();
    expect((await release(sb, 's-unknown')).status).toBe(404);
  });
});

describe('pressing a button and picking a list item', () => {
  const buttons = [
    { type: 'TEXT', text: 'Track it' },
    { type: 'TEXT', text: 'Talk to a person', shown_text: 'I would like to talk to a person' },
  ];
  const picker = {
    title: 'Sizes',
    sections: [
      {
        title: 'Shirts',
        items: [
          { title: 'Small', identifier: 'size-s' },
          { title: 'Large', identifier: 'size-l', subTitle: 'roomy' },
        ],
      },
    ],
  };

  it('sends a pressed button as its shown_text (else its text), with the button in quickReply', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    await sendReply(sb, replyBody({ questionId: asked.questionId, quickReplies: buttons }));
    const pressed = await customerSays(sb, asked.sessionId, { press: 'Talk to a person' });
    const plain = await customerSays(sb, asked.sessionId, { press: 'Track it' });
    const events = (await conversation(sb, asked.sessionId)).events.filter((e) => e.type === 'customer.message');
    expect(events.slice(1).map((e) => [e.text, e.quickReply, e.questionIndex])).toEqual([
      ['I would like to talk to a person', buttons[1], pressed.questionIndex],
      ['Track it', buttons[0], plain.questionIndex],
    ]);
  });

  it('sends a picked list item as its title, with identifier and title in listItem, on an IM thread', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb, { channel: 'IM' });
    await sendReply(sb, replyBody({ questionId: asked.questionId, messageListPicker: picker }));
    await customerSays(sb, asked.sessionId, { pick: 'size-l' });
    const event = (await conversation(sb, asked.sessionId)).events.at(-1);
    expect(event).toMatchObject({
      type: 'customer.message',
      text: 'Large',
      listItem: { identifier: 'size-l', title: 'Large' },
      quickReply: null,
    });
  });

  it('lets the customer press a button of a greeting', async () => {
    const sb = await sandbox();
    await sendGreeting(sb, { text: 'Hi! Need a hand?', coreClientId: 77n, quickReplies: [{ type: 'TEXT', text: 'Yes' }] });
    const greeting = await lastMessage(sb);
    const pressed = await customerSays(sb, greeting.sessionId as string, { press: 'Yes' });
    expect(pressed.questionIndex).toBe(1n);
  });

  it.each([
    {
      name: 'a button the last message does not have',
      channel: 'IM',
      send: { press: 'Cancel' },
      message: "has no button 'Cancel'; it offers buttons 'Track it', 'Talk to a person' and list items 'size-s' (Small), 'size-l' (Large)",
    },
    { name: 'a list item the last message does not have', channel: 'IM', send: { pick: 'size-m' }, message: "has no list item 'size-m'" },
    {
      name: 'a list item on a WEB thread, where lists are not shown',
      channel: 'WEB',
      send: { pick: 'size-s' },
      message: 'lists are shown on IM threads only',
    },
  ])('answers 400 to $name, naming what the last message offers', async ({ channel, send, message }) => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb, { channel });
    await sendReply(sb, replyBody({ questionId: asked.questionId, quickReplies: buttons, messageListPicker: picker }));
    const result = await call(sb, `/_sandbox/conversations/${asked.sessionId}/messages`, { body: send, token: null, tenant: null });
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toContain(message);
  });

  it('answers 400 to a press before the bot has said anything', async () => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    const result = await call(sb, `/_sandbox/conversations/${sessionId}/messages`, { body: { press: 'Yes' }, token: null, tenant: null });
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toContain('the bot has sent no message');
  });

  it('offers the buttons of the last delivered message only, not of an answer that was refused', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    await sendReply(sb, replyBody({ questionId: asked.questionId, quickReplies: [{ type: 'TEXT', text: 'First' }] }));
    await sendReply(sb, replyBody({ questionId: 999_999n, quickReplies: [{ type: 'TEXT', text: 'Never shown' }] }));
    const { conversation: thread } = await conversation(sb, asked.sessionId);
    expect(thread.lastBotMessage).toMatchObject({ quickReplies: [{ type: 'TEXT', text: 'First' }] });
  });
});

describe('the record of every API request', () => {
  it('records requests refused before they were understood as api.request events, in the thread their body names', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    await sendReply(sb, { questionId: asked.questionId, answerId: 'no-text' });
    await sendReply(sb, replyBody({ questionId: asked.questionId }), { token: 'wrong' });
    const { events } = await conversation(sb, asked.sessionId);
    const requests = events.filter((e) => e.type === 'api.request');
    expect(requests.map((e) => [e.status, e.path])).toEqual([
      [400n, '/api/v1/chatbot'],
      [401n, '/api/v1/chatbot'],
    ]);
    expect(requests[0]?.error).toContain('text');
    // A request refused before its body was checked is tied all the same: the body is read for the identifiers it names.
    expect(requests[1]).toMatchObject({ sessionId: asked.sessionId, scope: 'conversation', error: 'invalid bearer token' });
    // They are not bot answers: /_sandbox/messages lists none of them.
    expect(await messages(sb)).toEqual([]);
  });
});
