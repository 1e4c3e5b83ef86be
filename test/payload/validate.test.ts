import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  attachmentSchema,
  greetingSchema,
  longJsonSchemaOverride,
  maxLengthOf,
  messageListPickerSchema,
  quickRepliesHeaderFooterSchema,
  quickReplySchema,
  quickReplySchemaFor,
  reasonSchema,
  receivedAtSchema,
  replySchema,
  validateField,
  validateGreeting,
  validateReason,
  validateReply,
} from '../../src/payload/index.js';
import { closestField, describeValue, formatCount, formatPath } from '../../src/payload/messages.js';
import { expectValid, fullReply, problemsOf, withValue } from './fixtures.js';

describe('warnings of a bot answer', () => {
  it.each([
    [
      'clientId, which is deprecated',
      { text: 'Hi', clientId: 'ext-1' },
      [{ path: 'clientId', message: 'deprecated: use coreClientId, which fits every client' }],
    ],
    [
      'an action other than INIT_CHAT',
      { text: 'Hi', coreClientId: 1n, action: 'CLOSE_CHAT' },
      [{ path: 'action', message: '"CLOSE_CHAT" is not a known action; the API shows only INIT_CHAT (its chatbot rule 5)' }],
    ],
    [
      'blockInput without quick replies',
      { text: 'Hi', coreClientId: 1n, settings: { blockInput: true } },
      [
        {
          path: 'settings.blockInput',
          message: "has an effect only with quick replies, and this message has none (the API's chatbot rule 4)",
        },
      ],
    ],
    [
      'an attachment whose name has no extension and that has no type',
      { text: 'Hi', coreClientId: 1n, attachments: [{ url: 'https://x.io/a', name: 'photo' }] },
      [
        {
          path: 'attachments[0]',
          message:
            'the name "photo" has no file extension and no type is given: an image may not display; add the extension or the MIME type',
        },
      ],
    ],
    [
      'an attachment with neither name nor type',
      { text: 'Hi', coreClientId: 1n, attachments: [{ url: 'https://x.io/a.png' }] },
      [
        {
          path: 'attachments[0]',
          message: 'there is no name and no type is given: an image may not display; add the extension or the MIME type',
        },
      ],
    ],
    [
      'an attachment named like a hidden file',
      { text: 'Hi', coreClientId: 1n, attachments: [{ url: 'https://x.io/a', name: '.png' }] },
      [
        {
          path: 'attachments[0]',
          message:
            'the name ".png" has no file extension and no type is given: an image may not display; add the extension or the MIME type',
        },
      ],
    ],
  ])('warn about %s, and the answer stays valid', (_, payload, warnings) => {
    const result = validateReply(payload);
    expectValid(result);
    expect(result.warnings).toEqual(warnings);
  });

  it.each([
    ['INIT_CHAT', { text: 'Hi', coreClientId: 1n, action: 'INIT_CHAT' }],
    ['an attachment with an extension', { text: 'Hi', coreClientId: 1n, attachments: [{ url: 'https://x.io/a', name: 'a.JPG' }] }],
    [
      'an attachment with a type',
      { text: 'Hi', coreClientId: 1n, attachments: [{ url: 'https://x.io/a', name: 'photo', type: 'image/png' }] },
    ],
    ['blockInput false', { text: 'Hi', coreClientId: 1n, settings: { blockInput: false } }],
    [
      'blockInput with quick replies',
      { text: 'Hi', coreClientId: 1n, settings: { blockInput: true }, quickReplies: [{ type: 'TEXT', text: 'Ok' }] },
    ],
  ])('do not warn about %s', (_, payload) => {
    const result = validateReply(payload);
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('are reported with the problems of an invalid answer', () => {
    const result = validateReply({ clientId: 'ext-1', action: 'CLOSE_CHAT' });
    expect(result).toEqual({
      ok: false,
      problems: [{ path: 'text', message: "required unless formattedText is given (the API's chatbot rule 3)" }],
      warnings: [
        { path: 'action', message: '"CLOSE_CHAT" is not a known action; the API shows only INIT_CHAT (its chatbot rule 5)' },
        { path: 'clientId', message: 'deprecated: use coreClientId, which fits every client' },
      ],
    });
  });
});

describe('every problem is reported at once', () => {
  it('reports field problems, unknown fields and cross-field rules together, sorted by path', () => {
    const result = validateReply({
      sessionId: 's-1',
      shownText: 'x',
      userIds: [1n, 1n],
      quickReplies: [
        { type: 'TXT', text: '' },
        ...Array.from({ length: 9 }, () => ({ type: 'TEXT', text: 'ok' })),
        { type: 'TEXT', text: 'x'.repeat(4213) },
      ],
      attachments: [{ url: 'nope' }],
      messageListPicker: {
        title: 'x'.repeat(21),
        sections: [
          {
            items: [
              { title: 'a', identifier: 'i' },
              { title: 'b', identifier: 'i' },
            ],
          },
        ],
      },
    });
    expect(problemsOf(result)).toEqual([
      { path: 'attachments[0].url', message: 'expected an absolute http or https URL, got "nope"' },
      {
        path: 'messageListPicker.sections[0].items[1].identifier',
        message:
          'identifier "i" is already used at messageListPicker.sections[0].items[0].identifier; identifiers must be unique across the message',
      },
      { path: 'messageListPicker.title', message: '21 characters, limit 20' },
      { path: 'questionIndex', message: 'required with sessionId: a reply by thread gives both sessionId and questionIndex' },
      { path: 'quickReplies[0].text', message: 'must not be empty' },
      { path: 'quickReplies[0].type', message: 'must be one of TEXT, CONTACT, got "TXT"' },
      { path: 'quickReplies[10].text', message: '4,213 characters, limit 4,000' },
      { path: 'shownText', message: 'unknown field' },
      { path: 'text', message: "required unless formattedText is given (the API's chatbot rule 3)" },
      { path: 'userIds', message: 'only allowed with code SWITCH_TO_HUMAN, and code is absent' },
      { path: 'userIds[1]', message: '1 is repeated; first at userIds[0]' },
    ]);
  });

  it('reports a nested cross-field rule beside an invalid field of the same object', () => {
    const result = validateReply(
      withValue(fullReply(), ['quickRepliesHeaderFooter'], {
        header: [{ text: 'x'.repeat(62), imageUrl: 'i', documentUrl: 'd', videoUrl: 'v' }],
        footer: 'no',
      }),
    );
    expect(problemsOf(result)).toEqual([
      { path: 'quickRepliesHeaderFooter.footer', message: 'expected an array, got "no"' },
      {
        path: 'quickRepliesHeaderFooter.header',
        message: 'carries text, image, document and video at once; the header cannot send all four at the same time',
      },
      { path: 'quickRepliesHeaderFooter.header[0].text', message: '62 characters, limit 61' },
    ]);
  });

  it('reports the addressing rule beside a problem of an unrelated field in a greeting', () => {
    expect(problemsOf(validateGreeting({ text: 'Hi', quickReplies: [{ type: 'TEXT' }] }))).toEqual([
      { path: '', message: "no addressee: give coreClientId (or the deprecated clientId) (the API's greet rule 1)" },
      { path: 'quickReplies[0].text', message: 'required' },
    ]);
  });
});

describe('validation never throws', () => {
  const deep: Record<string, unknown> = {};
  let cursor = deep;
  for (let i = 0; i < 10_000; i++) {
    cursor.messageListPicker = {};
    cursor = cursor.messageListPicker as Record<string, unknown>;
  }
  const cyclic: Record<string, unknown> = { text: 'Hi', coreClientId: 1n };
  cyclic.attachments = [{ url: 'https://x.io/a.png', state: cyclic }];
  const throwing = Object.defineProperty({ coreClientId: 1n }, 'text', {
    enumerable: true,
    get() {
      throw new Error('boom');
    },
  });

  const inputs: [string, unknown][] = [
    ['null', null],
    ['undefined', undefined],
    ['an empty array', []],
    ['an array of payloads', [fullReply()]],
    ['a string', 'x'],
    ['a bigint', 1n],
    ['a number', 1],
    ['a boolean', true],
    ['an empty object', {}],
    ['deeply nested objects', deep],
    ['nested garbage in every field', Object.fromEntries(Object.keys(fullReply()).map((k) => [k, [[{ a: [null] }]]]))],
    [
      'objects where strings belong',
      {
        text: {},
        coreClientId: {},
        quickReplies: [{ type: {}, text: [] }],
        messageListPicker: { sections: [{ items: [{ identifier: {} }] }] },
      },
    ],
    [
      'null in every nested array',
      {
        text: 'Hi',
        coreClientId: 1n,
        quickReplies: [null],
        attachments: [null],
        messageListPicker: { title: 'a', sections: [null, { items: [null] }] },
      },
    ],
    ['a cycle inside a free-form field', cyclic],
    ['a getter that throws', throwing],
    ['an object without a prototype', Object.assign(Object.create(null), { text: 'Hi', coreClientId: 1n })],
    ['a __proto__ key', JSON.parse('{"text":"Hi","coreClientId":1,"__proto__":{"x":1}}')],
  ];

  it.each(inputs)('for %s', (_, input) => {
    for (const validate of [validateReply, validateGreeting, validateReason]) {
      const result = validate(input);
      expect(typeof result.ok).toBe('boolean');
      expect(Array.isArray(result.warnings)).toBe(true);
      if (!result.ok) {
        expect(result.problems.length).toBeGreaterThan(0);
        for (const problem of result.problems) {
          expect(typeof problem.path).toBe('string');
          expect(problem.message).not.toBe('');
          expect(problem.message).not.toMatch(/Invalid input/);
        }
      }
    }
  });

  it.each([
    ['null', null, 'expected an object, got null'],
    ['undefined', undefined, 'expected an object, got nothing'],
    ['an array', [], 'expected an object, got an array'],
    ['a string', 'x', 'expected an object, got "x"'],
    ['a bigint', 1n, 'expected an object, got 1'],
  ])('reports %s as a single problem on the whole value', (_, input, message) => {
    expect(validateReply(input)).toEqual({ ok: false, problems: [{ path: '', message }], warnings: [] });
  });

  it('reports a getter that throws as a problem', () => {
    expect(validateReply(throwing)).toEqual({ ok: false, problems: [{ path: '', message: 'could not be validated: boom' }], warnings: [] });
  });

  it('cuts a long value in a message', () => {
    const problems = problemsOf(validateReply({ text: 'Hi', coreClientId: 'x'.repeat(5000) }));
    expect(problems[0]!.message).toBe(
      `expected an integer from 0 to 9,223,372,036,854,775,807, got "${'x'.repeat(57)}…" (5,000 characters)`,
    );
  });
});

describe('validateField, for a prompt that checks each answer', () => {
  it.each([
    ['a good quick reply text', quickReplySchema.shape.text, 'Yes', true],
    ['an empty quick reply text', quickReplySchema.shape.text, '', 'must not be empty'],
    ['a quick reply text over 4,000', quickReplySchema.shape.text, 'x'.repeat(4001), '4,001 characters, limit 4,000'],
    [
      'a text over the profile limit',
      quickReplySchemaFor({ maxQuickReplyLength: 5 }).shape.text,
      'abcdef',
      "6 characters, limit 5 (the profile's maxQuickReplyLength)",
    ],
    ['a receivedAt', receivedAtSchema, '2026-01-31T09:30:00.000Z', true],
    [
      'a bad receivedAt',
      receivedAtSchema,
      'now',
      'expected a UTC time as yyyy-MM-ddTHH:mm:ss.SSSZ, such as 2026-01-31T09:30:00.000Z, got "now"',
    ],
    ['an optional field left out', replySchema.shape.answerId, undefined, true],
    ['a whole quick reply', quickReplySchema, { type: 'TEXT', text: '' }, 'text: must not be empty'],
    [
      'a quick reply with a typo',
      quickReplySchema,
      { type: 'TEXT', text: 'a', shownText: 'b' },
      'shownText: unknown field; did you mean "shown_text"?',
    ],
    ['a number for a long', replySchema.shape.coreClientId, 42, true],
  ] as const)('%s', (_, schema, value, expected) => {
    expect(validateField(schema, value)).toBe(expected);
  });
});

describe('maxLengthOf, for a prompt that shows the limit', () => {
  it.each([
    ['a quick reply text', quickReplySchema.shape.text, 4000],
    ['a quick reply shown_text (optional)', quickReplySchema.shape.shown_text, 2000],
    ['a quick reply callback_data', quickReplySchema.shape.callback_data, 255],
    ['a quick reply text under a profile limit', quickReplySchemaFor({ maxQuickReplyLength: 40 }).shape.text, 40],
    ['a quick reply text under a looser profile limit', quickReplySchemaFor({ maxQuickReplyLength: 9000 }).shape.text, 4000],
    ['an attachment name', attachmentSchema.shape.name, 1000],
    ['the list title', messageListPickerSchema.shape.title, 20],
    ['a reason code', reasonSchema.shape.code, 256],
    ['the reply text, which has no limit', replySchema.shape.text, undefined],
    ['a long, which is not a string', replySchema.shape.coreClientId, undefined],
    ['an object', quickRepliesHeaderFooterSchema, undefined],
    ['a zod string with maxLength', z.string().check(z.maxLength(7)), 7],
  ] as const)('of %s', (_, schema, expected) => {
    expect(maxLengthOf(schema)).toBe(expected);
  });
});

describe('JSON Schema generation', () => {
  it.each([
    ['bot answer', replySchema],
    ['greeting', greetingSchema],
    ['inactivity reason', reasonSchema],
  ] as const)('renders the %s with unrepresentable: any', (_, schema) => {
    expect(() => z.toJSONSchema(schema, { unrepresentable: 'any' })).not.toThrow();
  });

  it('renders longs as non-negative int64 integers with the override', () => {
    const json = z.toJSONSchema(replySchema, { unrepresentable: 'any', override: longJsonSchemaOverride }) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(json.properties.coreClientId).toMatchObject({ type: 'integer', format: 'int64', minimum: 0 });
    expect(json.properties.userIds).toMatchObject({
      type: 'array',
      uniqueItems: true,
      items: { type: 'integer', format: 'int64', minimum: 0 },
    });
  });

  it('carries the bounds, the patterns and the descriptions, including the rules it cannot express', () => {
    const json = z.toJSONSchema(replySchema, { unrepresentable: 'any' }) as {
      description: string;
      additionalProperties: boolean;
      properties: Record<
        string,
        { description?: string; deprecated?: boolean; items?: { properties: Record<string, Record<string, unknown>> } }
      >;
    };
    expect(json.additionalProperties).toBe(false);
    expect(json.description).toMatch(/text is required unless formattedText is given/);
    expect(json.description).toMatch(/only with code SWITCH_TO_HUMAN/);
    expect(json.properties.clientId).toMatchObject({ deprecated: true });
    expect(json.properties.quickReplies!.items!.properties.text).toMatchObject({ type: 'string', minLength: 1, maxLength: 4000 });
    expect(json.properties.receivedAt).toMatchObject({ type: 'string', pattern: expect.any(String) });
    for (const [name, property] of Object.entries(json.properties)) expect(property.description, name).toBeTruthy();
  });

  it('gives every field of every schema a description', () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const schema = node as {
        description?: string;
        properties?: Record<string, unknown>;
        items?: unknown;
        additionalProperties?: unknown;
      };
      if (schema.properties) {
        for (const [key, child] of Object.entries(schema.properties)) {
          if (!(child as { description?: string }).description) missing.push(`${path}.${key}`);
          walk(child, `${path}.${key}`);
        }
      }
      walk(schema.items, `${path}[]`);
      walk(schema.additionalProperties, `${path}{}`);
    };
    for (const [name, schema] of [
      ['reply', replySchema],
      ['greeting', greetingSchema],
      ['reason', reasonSchema],
    ] as const) {
      walk(z.toJSONSchema(schema, { unrepresentable: 'any' }), name);
    }
    expect(missing).toEqual([]);
  });
});

describe('message helpers', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [4213, '4,213'],
    [-1234567, '-1,234,567'],
    [9223372036854775807n, '9,223,372,036,854,775,807'],
  ])('formatCount(%s) is %s', (value, expected) => {
    expect(formatCount(value)).toBe(expected);
  });

  it.each([
    [[], ''],
    [['text'], 'text'],
    [['quickReplies', 0, 'text'], 'quickReplies[0].text'],
    [['messageListPicker', 'sections', 1, 'items', 0, 'title'], 'messageListPicker.sections[1].items[0].title'],
    [['segmentationInfo', 'my key'], 'segmentationInfo["my key"]'],
    [['segmentationInfo', ''], 'segmentationInfo[""]'],
  ] as const)('formatPath(%j) is %s', (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });

  it.each([
    ['shownText', ['text', 'shown_text'], 'shown_text'],
    ['colour', ['color'], 'color'],
    ['txt', ['text'], 'text'],
    ['TEXT', ['text'], 'text'],
    ['foo', ['url', 'name', 'type'], undefined],
    ['x', ['y'], undefined],
    ['a'.repeat(500), ['a'], undefined],
  ] as const)('closestField(%s, %j) is %s', (unknown, known, expected) => {
    expect(closestField(unknown, known)).toBe(expected);
  });

  it.each([
    ['abc', '"abc"'],
    [1n, '1'],
    [1.5, '1.5'],
    [null, 'null'],
    [undefined, 'nothing'],
    [[], 'an array'],
    [{}, 'an object'],
    [true, 'true'],
  ])('describeValue(%s) is %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });
});
