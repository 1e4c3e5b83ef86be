import { describe, expect, it } from 'vitest';
import { validateGreeting, validateReason, validateReply, type Validation } from '../../src/payload/index.js';
import { chars, expectOnly, expectValid, fullGreeting, fullReason, fullReply, urlOf, withValue, type Segments } from './fixtures.js';

interface Bound {
  field: string;
  path: Segments;
  limit: number;
  /** Builds a value of the given length (default: that many letters). */
  make?: (length: number) => string;
  message: (length: number) => string;
}

const chars_ = (limit: string) => (length: number) => `${length.toLocaleString('en-US')} characters, limit ${limit}`;

/** Bounds of the shapes the bot answer and the greeting share ("Quick reply", "quickRepliesHeaderFooter", "messageListPicker"). */
const sharedBounds: Bound[] = [
  { field: 'a quick reply text', path: ['quickReplies', 0, 'text'], limit: 4000, message: chars_('4,000') },
  { field: 'a quick reply shown_text', path: ['quickReplies', 0, 'shown_text'], limit: 2000, message: chars_('2,000') },
  { field: 'a quick reply callback_data', path: ['quickReplies', 0, 'callback_data'], limit: 255, message: chars_('255') },
  { field: 'a quick reply imageUrl', path: ['quickReplies', 0, 'imageUrl'], limit: 4000, make: urlOf, message: chars_('4,000') },
  { field: 'a quick reply url', path: ['quickReplies', 0, 'url'], limit: 4000, make: urlOf, message: chars_('4,000') },
  { field: 'a header text', path: ['quickRepliesHeaderFooter', 'header', 0, 'text'], limit: 61, message: chars_('61') },
  { field: 'a footer text', path: ['quickRepliesHeaderFooter', 'footer', 0, 'text'], limit: 61, message: chars_('61') },
  { field: 'the list header text', path: ['messageListPicker', 'header', 'text'], limit: 60, message: chars_('60') },
  { field: 'the list footer text', path: ['messageListPicker', 'footer', 'text'], limit: 60, message: chars_('60') },
  { field: 'the list button title', path: ['messageListPicker', 'title'], limit: 20, message: chars_('20') },
  { field: 'a section title', path: ['messageListPicker', 'sections', 0, 'title'], limit: 24, message: chars_('24') },
  { field: 'an item title', path: ['messageListPicker', 'sections', 0, 'items', 0, 'title'], limit: 24, message: chars_('24') },
  { field: 'an item subTitle', path: ['messageListPicker', 'sections', 0, 'items', 0, 'subTitle'], limit: 72, message: chars_('72') },
];

/** Bounds only the bot answer has ("Attachment"). */
const replyBounds: Bound[] = [
  { field: 'an attachment url', path: ['attachments', 0, 'url'], limit: 4000, make: urlOf, message: chars_('4,000') },
  {
    field: 'an attachment name',
    path: ['attachments', 0, 'name'],
    limit: 1000,
    make: (n) => `${chars(n - 4)}.png`,
    message: chars_('1,000'),
  },
  { field: 'an attachment type', path: ['attachments', 0, 'type'], limit: 256, message: chars_('256') },
];

const reasonBounds: Bound[] = [
  { field: 'the reason code', path: ['code'], limit: 256, message: chars_('256') },
  { field: 'a reason name', path: ['reasons', 0, 'name'], limit: 50, message: chars_('50') },
];

const pathOf = (path: Segments) => path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');

const payloads: { payload: string; base: () => Record<string, unknown>; validate: (p: unknown) => Validation<unknown>; bounds: Bound[] }[] =
  [
    { payload: 'bot answer', base: fullReply, validate: validateReply, bounds: [...sharedBounds, ...replyBounds] },
    { payload: 'greeting', base: fullGreeting, validate: validateGreeting, bounds: sharedBounds },
    { payload: 'inactivity reason', base: fullReason, validate: validateReason, bounds: reasonBounds },
  ];

describe.each(payloads)('in a $payload', ({ base, validate, bounds }) => {
  describe.each(bounds)('$field', ({ path, limit, make, message }) => {
    const build = make ?? ((n: number) => chars(n));

    it(`passes at its limit of ${limit} characters`, () => {
      expectValid(validate(withValue(base(), path, build(limit))));
    });

    it(`fails at ${limit + 1} characters, naming the path, the size and the limit`, () => {
      expectOnly(validate(withValue(base(), path, build(limit + 1))), pathOf(path), message(limit + 1));
    });

    it('fails when empty', () => {
      expectOnly(validate(withValue(base(), path, '')), pathOf(path), 'must not be empty');
    });
  });
});

describe('lengths are counted in UTF-16 code units, as the service counts them', () => {
  const emoji = '😀';

  it('counts an emoji as two characters', () => {
    expect(emoji.length).toBe(2);
  });

  it('passes a quick reply text of 3,998 letters and one emoji (4,000 units)', () => {
    expectValid(validateReply(withValue(fullReply(), ['quickReplies', 0, 'text'], chars(3998) + emoji)));
  });

  it('fails a quick reply text of 3,999 letters and one emoji (4,001 units), though it is 4,000 code points', () => {
    expectOnly(
      validateReply(withValue(fullReply(), ['quickReplies', 0, 'text'], chars(3999) + emoji)),
      'quickReplies[0].text',
      '4,001 characters, limit 4,000',
    );
  });

  it('fails a header text of 31 emoji (62 units)', () => {
    expectOnly(
      validateGreeting(withValue(fullGreeting(), ['quickRepliesHeaderFooter', 'header', 0, 'text'], emoji.repeat(31))),
      'quickRepliesHeaderFooter.header[0].text',
      '62 characters, limit 61',
    );
  });

  it('passes a reason name of 25 emoji (50 units)', () => {
    expectValid(validateReason(withValue(fullReason(), ['reasons', 0, 'name'], emoji.repeat(25))));
  });
});

describe('the list holds at most 10 items across all sections', () => {
  const item = (n: number) => ({ title: `Item ${n}`, identifier: `item-${n}` });
  const sections = (sizes: number[]) => {
    let n = 0;
    return sizes.map((size, s) => ({ title: `Section ${s}`, items: Array.from({ length: size }, () => item(n++)) }));
  };

  it.each([
    ['one section of 10', [10]],
    ['sections of 4, 3 and 3', [4, 3, 3]],
  ])('passes with %s', (_, sizes) => {
    expectValid(validateReply(withValue(fullReply(), ['messageListPicker', 'sections'], sections(sizes))));
  });

  it.each([
    ['one section of 11', [11]],
    ['sections of 5 and 6', [5, 6]],
  ])('fails with %s, at messageListPicker.sections with the count', (_, sizes) => {
    expectOnly(
      validateGreeting(withValue(fullGreeting(), ['messageListPicker', 'sections'], sections(sizes))),
      'messageListPicker.sections',
      '11 items across all sections, limit 10',
    );
  });
});

describe('the profile limits on quick replies', () => {
  const replies = (n: number, text = 'Yes') => Array.from({ length: n }, () => ({ type: 'TEXT', text }));
  const limits = { maxQuickReplies: 3, maxQuickReplyLength: 40 };

  it.each([
    ['bot answer', fullReply, (p: unknown) => validateReply(p, { limits })],
    ['greeting', fullGreeting, (p: unknown) => validateGreeting(p, { limits })],
  ] as const)('in a %s, pass at maxQuickReplies and maxQuickReplyLength', (_, base, validate) => {
    expectValid(validate(withValue(base(), ['quickReplies'], replies(3, chars(40)))));
  });

  it.each([
    ['bot answer', fullReply, (p: unknown) => validateReply(p, { limits })],
    ['greeting', fullGreeting, (p: unknown) => validateGreeting(p, { limits })],
  ] as const)('in a %s, fail at maxQuickReplies + 1, at quickReplies', (_, base, validate) => {
    expectOnly(
      validate(withValue(base(), ['quickReplies'], replies(4))),
      'quickReplies',
      "4 quick replies, limit 3 (the profile's maxQuickReplies)",
    );
  });

  it.each([
    ['bot answer', fullReply, (p: unknown) => validateReply(p, { limits })],
    ['greeting', fullGreeting, (p: unknown) => validateGreeting(p, { limits })],
  ] as const)('in a %s, fail a text of maxQuickReplyLength + 1', (_, base, validate) => {
    expectOnly(
      validate(
        withValue(
          base(),
          ['quickReplies'],
          [
            { type: 'TEXT', text: 'ok' },
            { type: 'CONTACT', text: chars(41) },
          ],
        ),
      ),
      'quickReplies[1].text',
      "41 characters, limit 40 (the profile's maxQuickReplyLength)",
    );
  });

  // A profile may set one limit without the other: each is checked on its own.
  const kinds = [
    ['bot answer', fullReply, validateReply],
    ['greeting', fullGreeting, validateGreeting],
  ] as const;
  it.each(kinds)('in a %s, check maxQuickReplies set alone', (_, base, validate) => {
    const only = { limits: { maxQuickReplies: 3 } };
    expectValid(validate(withValue(base(), ['quickReplies'], replies(3, chars(400))), only));
    expectOnly(
      validate(withValue(base(), ['quickReplies'], replies(4)), only),
      'quickReplies',
      "4 quick replies, limit 3 (the profile's maxQuickReplies)",
    );
  });

  it.each(kinds)('in a %s, check maxQuickReplyLength set alone', (_, base, validate) => {
    const only = { limits: { maxQuickReplyLength: 40 } };
    expectValid(validate(withValue(base(), ['quickReplies'], replies(30, chars(40))), only));
    expectOnly(
      validate(withValue(base(), ['quickReplies'], [...replies(1), ...replies(1, chars(41))]), only),
      'quickReplies[1].text',
      "41 characters, limit 40 (the profile's maxQuickReplyLength)",
    );
  });

  it('do not apply without limits', () => {
    expectValid(validateReply(withValue(fullReply(), ['quickReplies'], replies(30, chars(400)))));
  });

  it("leave the API's limit of 4,000 in force when the profile allows more", () => {
    expectOnly(
      validateReply(withValue(fullReply(), ['quickReplies', 0, 'text'], chars(4001)), { limits: { maxQuickReplyLength: 10_000 } }),
      'quickReplies[0].text',
      '4,001 characters, limit 4,000',
    );
  });

  it('ignore a limit that is not a whole number', () => {
    expectValid(validateReply(fullReply(), { limits: { maxQuickReplies: -1, maxQuickReplyLength: Number.NaN } }));
  });
});
