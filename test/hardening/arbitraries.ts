import fc from 'fast-check';
import { MAX_LONG } from '../../src/payload/index.js';

/**
 * fast-check generators for the property tests: hostile values (any JSON, bigints, deep nesting,
 * the payloads' own keys with wrong values), and valid bot answers, greetings and inactivity
 * reasons built from the bounds of docs/api.md ("Limits" and each record's table). The valid ones
 * hold only what the CLI sends unchanged: a reply always carries text and an answerId (the CLI fills
 * them otherwise), and receivedAt is always a real time (never "now").
 */

// Hostile values ---------------------------------------------------------------------------------

const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.constantFrom(0n, MAX_LONG, MAX_LONG + 1n, -1n),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', 'now', '#FFFFFF', 'en', 'SWITCH_TO_HUMAN', 'TEXT', 'https://example.com/a.png', '__proto__', 'constructor'),
);

/** Any JSON value, with bigints among its numbers and the odd key JavaScript treats specially. */
export const jsonish: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', 'toString')), tie('value'), {
      maxKeys: 5,
    }),
  ),
})).value;

/** A value nested `depth` levels deep in arrays or objects. */
export function nested(depth: number, inObject: boolean): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = inObject ? { a: value } : [value];
  return value;
}

export const deep = fc.tuple(fc.integer({ min: 500, max: 20_000 }), fc.boolean()).map(([depth, inObject]) => nested(depth, inObject));

const REPLY_KEYS = [
  'text',
  'formattedText',
  'answerId',
  'clientId',
  'coreClientId',
  'sessionId',
  'questionId',
  'questionIndex',
  'receivedAt',
  'action',
  'segmentationInfo',
  'attachments',
  'code',
  'userIds',
  'skillIds',
  'unitIds',
  'settings',
  'quickReplies',
  'quickRepliesHeaderFooter',
  'messageListPicker',
];
const NESTED_KEYS = [
  'url',
  'name',
  'type',
  'size',
  'payload',
  'shown_text',
  'callback_data',
  'imageUrl',
  'header',
  'footer',
  'title',
  'sections',
  'items',
  'identifier',
  'subTitle',
  'blockInput',
  'masked',
  'locale',
  'reasons',
  'color',
  'active',
  'system',
  'profiles',
  'defaultProfile',
  'token',
  'env',
  'command',
  'baseUrl',
  'tenant',
  'headers',
  'timeout',
  'retries',
  'limits',
  'proxy',
  'caFile',
];

/** Objects keyed by the payloads' own field names (and some junk), holding hostile values: they reach deeper into the schemas than random keys. */
export const shaped: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown; object: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    { arbitrary: leaf, weight: 6 },
    { arbitrary: tie('object'), weight: 3 },
    { arbitrary: fc.array(tie('value'), { maxLength: 4 }), weight: 3 },
    { arbitrary: deep, weight: 1 },
  ),
  object: fc.dictionary(fc.oneof(fc.constantFrom(...REPLY_KEYS, ...NESTED_KEYS), fc.string({ maxLength: 6 })), tie('value'), {
    maxKeys: 8,
  }),
})).object;

export const hostile = fc.oneof(jsonish, shaped, deep);

// Valid payloads ---------------------------------------------------------------------------------

/**
 * A non-empty string of at most `max` UTF-16 units (the service's count): short ones from any
 * Unicode, and some exactly at the limit, made of one- and two-unit characters.
 */
export function text(max = 200): fc.Arbitrary<string> {
  const short = fc.string({ unit: 'grapheme', minLength: 1, maxLength: Math.min(max, 24) }).filter((s) => s.length >= 1 && s.length <= max);
  const atLimit = fc.constantFrom('a', 'é', 'Ω', '😀', '\n', '"', '\\').map((c) => c.repeat(Math.max(1, Math.floor(max / c.length))));
  return max > 24 ? fc.oneof({ weight: 4, arbitrary: short }, { weight: 1, arbitrary: atLimit }) : short;
}

export const long = fc.oneof(fc.bigInt({ min: 0n, max: MAX_LONG }), fc.constantFrom(0n, MAX_LONG, 9007199254740993n));

const receivedAt = fc
  .date({ min: new Date('0001-01-01T00:00:00.000Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

const httpUrl = fc
  .webUrl({ validSchemes: ['http', 'https'], withQueryParameters: true, withFragments: true })
  .filter((url) => url.length <= 4000 && url.trim() === url);

const quickReply = fc.record(
  {
    type: fc.constantFrom('TEXT', 'CONTACT'),
    text: text(4000),
    shown_text: text(2000),
    callback_data: text(255),
    imageUrl: text(4000),
    url: text(4000),
    payload: fc.constant(null),
  },
  { requiredKeys: ['type', 'text'] },
);

const HEADER_KINDS = [
  fc.record({ text: text(61) }),
  fc.record({ imageUrl: httpUrl }),
  fc.record({ documentUrl: httpUrl, documentName: text(100) }, { requiredKeys: ['documentUrl'] }),
  fc.record({ videoUrl: httpUrl }),
];

/** A header mixing at most three of the four kinds of content (all four at once is the API's one ban, docs/api.md, header-footer rule 3). */
const headerFooter = fc.record(
  {
    header: fc.subarray([0, 1, 2, 3], { minLength: 1, maxLength: 3 }).chain((kinds) => fc.tuple(...kinds.map((k) => HEADER_KINDS[k]!))),
    footer: fc.array(fc.record({ text: text(61) }), { minLength: 1, maxLength: 2 }),
  },
  { requiredKeys: [] },
);

/** A list with 1 to 10 items across its sections, each identifier used once. */
const listPicker = fc
  .uniqueArray(text(30), { minLength: 1, maxLength: 10 })
  .chain((identifiers) =>
    fc.tuple(
      fc.constant(identifiers),
      fc.array(fc.integer({ min: 1, max: identifiers.length }), { minLength: 0, maxLength: 3 }),
      fc.array(fc.record({ title: text(24), subTitle: text(72) }, { requiredKeys: ['title'] }), {
        minLength: identifiers.length,
        maxLength: identifiers.length,
      }),
      fc.array(fc.option(text(24), { nil: undefined }), { minLength: 4, maxLength: 4 }),
      fc.record({ header: fc.record({ text: text(60) }), footer: fc.record({ text: text(60) }) }, { requiredKeys: [] }),
      text(20),
    ),
  )
  .map(([identifiers, cuts, items, titles, extras, title]) => {
    const bounds = [...new Set([0, ...cuts, identifiers.length])].sort((a, b) => a - b);
    const sections = bounds.slice(1).map((end, index) => {
      const start = bounds[index]!;
      const sectionTitle = titles[index];
      return {
        ...(sectionTitle !== undefined ? { title: sectionTitle } : {}),
        items: identifiers.slice(start, end).map((identifier, i) => ({ ...items[start + i]!, identifier })),
      };
    });
    return { ...extras, title, sections };
  });

const settings = fc.record({ blockInput: fc.boolean(), masked: fc.boolean() }, { requiredKeys: [] });

const address = fc.oneof(
  fc.record({ coreClientId: long }),
  fc.record({ questionId: long }),
  fc.record({ sessionId: text(64), questionIndex: long }),
  fc.record({ clientId: text(64) }),
  fc.record({ coreClientId: long, questionId: long }),
);

const routing = fc.record(
  {
    userIds: fc.uniqueArray(long, { maxLength: 4, comparator: (a, b) => a === b }),
    skillIds: fc.uniqueArray(long, { maxLength: 4, comparator: (a, b) => a === b }),
    unitIds: fc.uniqueArray(long, { maxLength: 4, comparator: (a, b) => a === b }),
  },
  { requiredKeys: [] },
);

const replyRest = fc.record(
  {
    formattedText: text(500),
    receivedAt,
    action: fc.oneof(fc.constant('INIT_CHAT'), text(20)),
    segmentationInfo: fc.dictionary(text(20), text(40), { maxKeys: 3 }),
    attachments: fc.array(fc.record({ url: httpUrl, name: text(1000), type: text(256) }, { requiredKeys: ['url'] }), { maxLength: 3 }),
    settings,
    quickReplies: fc.array(quickReply, { maxLength: 4 }),
    quickRepliesHeaderFooter: headerFooter,
    messageListPicker: listPicker,
  },
  { requiredKeys: [] },
);

/** A valid bot answer (POST /api/v1/chatbot). */
export const validReply: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    text(4000),
    text(100),
    address,
    replyRest,
    fc.option(fc.constantFrom('SUCCESS', 'UNCLEAR_QUESTION', 'SWITCH_TO_HUMAN'), { nil: undefined }),
    routing,
  )
  .map(([replyText, answerId, addressed, rest, code, route]) => ({
    text: replyText,
    answerId,
    ...addressed,
    ...rest,
    ...(code !== undefined ? { code } : {}),
    // "Sent together with code SWITCH_TO_HUMAN": only then.
    ...(code === 'SWITCH_TO_HUMAN' ? route : {}),
  }));

/** A valid greeting (POST /api/v1/chatbot/greet): clientId or coreClientId is given (greet rule 1). */
export const validGreeting: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    text(4000),
    fc.oneof(fc.record({ coreClientId: long }), fc.record({ clientId: text(64) }), fc.record({ clientId: text(64), coreClientId: long })),
    fc.record(
      {
        receivedAt,
        quickReplies: fc.array(quickReply, { maxLength: 4 }),
        settings,
        quickRepliesHeaderFooter: headerFooter,
        messageListPicker: listPicker,
      },
      { requiredKeys: [] },
    ),
  )
  .map(([greetingText, addressed, rest]) => ({ text: greetingText, ...addressed, ...rest }));

const locale = fc.tuple(
  fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'),
  fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
);

/** A valid inactivity reason (PUT /api/v1/inactivity/reasons): each locale once, compared without case. */
export const validReason: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    text(256),
    fc.uniqueArray(
      locale.map(([a, b]) => `${a}${b}`),
      { minLength: 1, maxLength: 5, selector: (l) => l.toLowerCase() },
    ),
    fc.array(text(50), { minLength: 5, maxLength: 5 }),
    fc.record(
      {
        color: fc.tuple(fc.integer({ min: 0, max: 0xffffff }), fc.boolean()).map(([n, upper]) => {
          const hex = `#${n.toString(16).padStart(6, '0')}`;
          return upper ? hex.toUpperCase() : hex;
        }),
        active: fc.boolean(),
        system: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([code, locales, names, rest]) => ({ code, reasons: locales.map((l, i) => ({ locale: l, name: names[i]! })), ...rest }));
