import { describe, expect, it } from 'vitest';
import { buildGreeting } from '../../src/commands/greet/build.js';
import { layFields } from '../../src/commands/reason/build.js';
import { buildReply } from '../../src/commands/reply/build.js';
import { validateGreeting, validateReason, validateReply } from '../../src/payload/index.js';
import { jsonSchemaOf, type SchemaForm } from '../../src/schema/json-schema.js';
import { jsonSchemaValidator } from '../helpers/json-schema.js';

/**
 * `core schema reply|greet|reason` and the checks core runs before sending agree on every rule a
 * JSON Schema can express: each case sits at one side of a rule's boundary, and both validators
 * must accept it or both refuse it. The rules a JSON Schema cannot express are listed apart, as the
 * cases the schema accepts and core refuses; each is stated in the schema's descriptions instead.
 *
 * The schemas describe a payload file (`-f FILE`), so core's side is what it does with a file: read
 * it as `core reply|greet|reason update -f` does (the `$schema` key dropped, `receivedAt: now`
 * filled in, a missing answerId generated), then validate it. Files are read here as an editor
 * reads them, integers as JSON numbers.
 */

type Kind = 'reply' | 'greet' | 'reason';
type Case = readonly [rule: string, payload: Record<string, unknown>];

const NOW = new Date('2026-03-01T12:00:00.000Z');

async function coreAccepts(kind: Kind, file: Record<string, unknown>): Promise<boolean> {
  const copy = structuredClone(file);
  if (kind === 'reply') return validateReply((await buildReply(copy, {}, { now: NOW, newId: () => 'answer-1' })).payload).ok;
  if (kind === 'greet') return validateGreeting(buildGreeting(copy, {}, { now: NOW }).payload).ok;
  return validateReason(layFields(copy, {})).ok;
}

const validators = new Map<string, (value: unknown) => unknown[]>();

/** Whether the JSON Schema of `kind` (as `core schema` prints it, or the API's body in the OpenAPI document) accepts a payload. */
function schemaAccepts(kind: Kind, payload: unknown, form: SchemaForm = 'file'): boolean {
  const key = `${kind}/${form}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = jsonSchemaValidator(jsonSchemaOf(kind, form));
    validators.set(key, validate);
  }
  return validate(payload).length === 0;
}

const reply = (fields: Record<string, unknown> = {}) => ({ text: 'Hi', coreClientId: 1, ...fields });
const greeting = (fields: Record<string, unknown> = {}) => ({ text: 'Hi', coreClientId: 1, ...fields });
const reason = (fields: Record<string, unknown> = {}) => ({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], ...fields });
const attachment = (url: string) => reply({ attachments: [{ url, name: 'a.png', type: 'image/png' }] });
const header = (entries: unknown[]) => ({ quickRepliesHeaderFooter: { header: entries } });
const list = (...sections: number[]) => ({
  messageListPicker: {
    title: 'Open',
    sections: sections.map((count, s) => ({
      items: Array.from({ length: count }, (_, i) => ({ title: `Item ${i}`, identifier: `s${s}-i${i}` })),
    })),
  },
});
const emoji = (count: number) => '😀'.repeat(count);

/** Cases on either side of the rules both validators check: [rule, payload] that both accept. */
const ACCEPTED: Record<Kind, Case[]> = {
  reply: [
    ['text and an addressee', reply()],
    ['formattedText without text (core fills text)', { formattedText: '**Hi**', coreClientId: 1 }],
    ['text and formattedText', reply({ formattedText: '**Hi**' })],
    ['addressed by questionId alone', { text: 'Hi', questionId: 5 }],
    ['addressed by clientId alone', { text: 'Hi', clientId: 'c-1' }],
    ['addressed by sessionId with questionIndex', { text: 'Hi', sessionId: 's-1', questionIndex: 0 }],
    ['sessionId with questionIndex beside coreClientId', reply({ sessionId: 's-1', questionIndex: 3 })],
    ...(['userIds', 'skillIds', 'unitIds'] as const).map(
      (field) => [`${field} with code SWITCH_TO_HUMAN`, reply({ code: 'SWITCH_TO_HUMAN', [field]: [7] })] as const,
    ),
    ['code SUCCESS without routing fields', reply({ code: 'SUCCESS' })],
    ['an https attachment URL', attachment('https://example.com/files/a.png')],
    ['an http attachment URL', attachment('http://example.com/a.png')],
    ['an attachment URL with its scheme in capitals', attachment('HTTPS://EXAMPLE.COM/a.png')],
    ['receivedAt at the last millisecond of a day', reply({ receivedAt: '2026-01-31T23:59:59.999Z' })],
    ['receivedAt at midnight', reply({ receivedAt: '2026-12-01T00:00:00.000Z' })],
    ['receivedAt on 30 April', reply({ receivedAt: '2026-04-30T09:30:00.000Z' })],
    ['receivedAt on 29 February of a leap year', reply({ receivedAt: '2024-02-29T09:30:00.000Z' })],
    ['receivedAt now', reply({ receivedAt: 'now' })],
    ['receivedAt NOW with spaces around', reply({ receivedAt: ' NOW ' })],
    ['a header with three kinds of content', reply(header([{ text: 'Hi' }, { imageUrl: 'i' }, { documentUrl: 'd' }]))],
    ['a header with every kind but a document', reply(header([{ text: 'Hi' }, { imageUrl: 'i' }, { videoUrl: 'v' }]))],
    ['a $schema URL', reply({ $schema: 'https://unpkg.com/core-cli/docs/schemas/reply.schema.json' })],
    ['a $schema that is not a string (core drops it unread)', reply({ $schema: 5 })],
  ],
  greet: [
    ['text and coreClientId', greeting()],
    ['text and clientId', { text: 'Hi', clientId: 'c-1' }],
    ['both identifiers', greeting({ clientId: 'c-1' })],
    ['receivedAt now', greeting({ receivedAt: 'now' })],
    ['receivedAt at 23:59:59.999', greeting({ receivedAt: '2026-01-31T23:59:59.999Z' })],
    ['a header with three kinds of content', greeting(header([{ imageUrl: 'i', documentName: 'd.pdf', videoUrl: 'v' }]))],
    ['ten list items', greeting(list(10))],
    ['a $schema that is not a string (core drops it unread)', greeting({ $schema: null })],
  ],
  reason: [
    ['code and one translation', reason()],
    ['a colour in lower case', reason({ color: '#ffffff' })],
    ['a locale in capitals', reason({ reasons: [{ locale: 'EN', name: 'Lunch' }] })],
    ['a name of 50 characters', reason({ reasons: [{ locale: 'en', name: 'x'.repeat(50) }] })],
    ['a $schema that is not a string (core drops it unread)', reason({ $schema: 5 })],
  ],
};

/** Cases that both refuse. */
const REFUSED: Record<Kind, Case[]> = {
  reply: [
    ['an empty object', {}],
    ['neither text nor formattedText', { coreClientId: 1 }],
    ['no addressee', { text: 'Hi' }],
    ['no addressee, with answerId and code', { text: 'Hi', answerId: 'a-1', code: 'SUCCESS' }],
    ['sessionId without questionIndex', { text: 'Hi', sessionId: 's-1' }],
    ['questionIndex without sessionId', { text: 'Hi', questionIndex: 0 }],
    ['sessionId without questionIndex beside coreClientId', reply({ sessionId: 's-1' })],
    ['questionIndex without sessionId beside questionId', { text: 'Hi', questionId: 5, questionIndex: 0 }],
    ...(['userIds', 'skillIds', 'unitIds'] as const).flatMap((field) => [
      [`${field} without code`, reply({ [field]: [7] })] as const,
      [`${field} with code SUCCESS`, reply({ code: 'SUCCESS', [field]: [7] })] as const,
      [`${field} with code UNCLEAR_QUESTION`, reply({ code: 'UNCLEAR_QUESTION', [field]: [7] })] as const,
      [`${field} empty, without code`, reply({ [field]: [] })] as const,
    ]),
    ['a repeated userId', reply({ code: 'SWITCH_TO_HUMAN', userIds: [7, 7] })],
    ['an ftp attachment URL', attachment('ftp://example.com/a.png')],
    ['a file attachment URL', attachment('file:///tmp/a.png')],
    ['an attachment URL without a scheme', attachment('example.com/a.png')],
    ['an attachment URL without its slashes', attachment('http:example.com/a.png')],
    ['an attachment URL with a tab in its scheme', attachment('ht\ttp://example.com/a.png')],
    ['an attachment URL with a newline in its host', attachment('https://exam\nple.com/a.png')],
    ['an attachment URL after a control character', attachment('\u0001https://example.com/a.png')],
    ['an attachment URL after a space', attachment(' https://example.com/a.png')],
    ['an attachment URL before a space', attachment('https://example.com/a.png ')],
    ['receivedAt at hour 24', reply({ receivedAt: '2026-01-31T24:00:00.000Z' })],
    ['receivedAt at hour 25', reply({ receivedAt: '2026-01-31T25:00:00.000Z' })],
    ['receivedAt at minute 60', reply({ receivedAt: '2026-01-31T09:60:00.000Z' })],
    ['receivedAt at second 60', reply({ receivedAt: '2026-01-31T09:30:60.000Z' })],
    ['receivedAt in month 13', reply({ receivedAt: '2026-13-01T09:30:00.000Z' })],
    ['receivedAt in month 00', reply({ receivedAt: '2026-00-01T09:30:00.000Z' })],
    ['receivedAt on day 00', reply({ receivedAt: '2026-01-00T09:30:00.000Z' })],
    ['receivedAt on 32 January', reply({ receivedAt: '2026-01-32T09:30:00.000Z' })],
    ['receivedAt on 31 April', reply({ receivedAt: '2026-04-31T09:30:00.000Z' })],
    ['receivedAt on 30 February', reply({ receivedAt: '2024-02-30T09:30:00.000Z' })],
    ['receivedAt without milliseconds', reply({ receivedAt: '2026-01-31T09:30:00Z' })],
    ['receivedAt nowadays', reply({ receivedAt: 'nowadays' })],
    ['receivedAt empty', reply({ receivedAt: '' })],
    ['a header with all four kinds in one entry', reply(header([{ text: 'Hi', imageUrl: 'i', documentUrl: 'd', videoUrl: 'v' }]))],
    [
      'a header with all four kinds across entries',
      reply(header([{ text: 'Hi' }, { imageUrl: 'i' }, { documentName: 'd.pdf' }, { videoUrl: 'v' }])),
    ],
  ],
  greet: [
    ['neither clientId nor coreClientId', { text: 'Hi' }],
    ['no text', { coreClientId: 1 }],
    ['receivedAt at second 60', greeting({ receivedAt: '2026-01-31T09:30:60.000Z' })],
    ['receivedAt on 31 June', greeting({ receivedAt: '2026-06-31T09:30:00.000Z' })],
    [
      'a header with all four kinds',
      greeting(header([{ text: 'Hi' }, { imageUrl: 'i' }, { documentUrl: 'd', documentName: 'd.pdf' }, { videoUrl: 'v' }])),
    ],
    ['eleven items in one section', greeting(list(11))],
  ],
  reason: [
    ['no reasons', { code: 'LUNCH' }],
    ['no translation', reason({ reasons: [] })],
    ['a colour of three digits', reason({ color: '#fff' })],
    ['a locale of three letters', reason({ reasons: [{ locale: 'eng', name: 'Lunch' }] })],
    ['a name of 51 characters', reason({ reasons: [{ locale: 'en', name: 'x'.repeat(51) }] })],
  ],
};

/**
 * The rules a JSON Schema cannot express: the schema accepts these, core refuses them, and the
 * schema's descriptions say why.
 */
const INEXPRESSIBLE: Record<Kind, Case[]> = {
  reply: [
    // JSON Schema's maxLength counts code points; the service counts UTF-16 code units.
    [
      'a quick-reply text of 2,001 emoji (4,002 UTF-16 units, 2,001 code points)',
      reply({ quickReplies: [{ type: 'TEXT', text: emoji(2001) }] }),
    ],
    ['a date that does not exist: 29 February of a year that is not a leap year', reply({ receivedAt: '2026-02-29T09:30:00.000Z' })],
    ['more than 10 list items across all sections', reply(list(6, 5))],
    [
      'a list item identifier repeated in another section',
      reply({
        messageListPicker: {
          title: 'Open',
          sections: [{ items: [{ title: 'A', identifier: 'same' }] }, { items: [{ title: 'B', identifier: 'same' }] }],
        },
      }),
    ],
    // The scheme is in the pattern; the rest of the URL's syntax (a host that parses) is not.
    ['an attachment URL whose host does not parse', attachment('https://exa mple.com/a.png')],
  ],
  greet: [
    ['a header text of 31 emoji (62 UTF-16 units)', greeting(header([{ text: emoji(31) }]))],
    ['more than 10 list items across all sections', greeting(list(5, 5, 1))],
    ['a date that does not exist: 29 February 2100', greeting({ receivedAt: '2100-02-29T09:30:00.000Z' })],
  ],
  reason: [
    [
      'the same locale twice in different cases',
      reason({
        reasons: [
          { locale: 'en', name: 'Lunch' },
          { locale: 'EN', name: 'Break' },
        ],
      }),
    ],
    ['a name of 26 emoji (52 UTF-16 units)', reason({ reasons: [{ locale: 'en', name: emoji(26) }] })],
  ],
};

const KINDS: Kind[] = ['reply', 'greet', 'reason'];
const table = (cases: Record<Kind, Case[]>) =>
  KINDS.flatMap((kind) => cases[kind].map(([rule, payload]) => [kind, rule, payload] as const));

describe('core schema and the checks core runs before sending', () => {
  it.each(table(ACCEPTED))('%s: both accept %s', async (kind, _rule, payload) => {
    expect({ schema: schemaAccepts(kind, payload), core: await coreAccepts(kind, payload) }).toEqual({
      schema: true,
      core: true,
    });
  });

  it.each(table(REFUSED))('%s: both refuse %s', async (kind, _rule, payload) => {
    expect({ schema: schemaAccepts(kind, payload), core: await coreAccepts(kind, payload) }).toEqual({
      schema: false,
      core: false,
    });
  });

  it.each(table(INEXPRESSIBLE))('%s: only core refuses %s, a rule the schema states in words', async (kind, _rule, payload) => {
    expect({ schema: schemaAccepts(kind, payload), core: await coreAccepts(kind, payload) }).toEqual({
      schema: true,
      core: false,
    });
  });

  // The API's body knows neither: `core schema` describes a payload file, the OpenAPI document the body.
  it.each([
    ['reply', 'receivedAt now', reply({ receivedAt: 'now' })],
    ['greet', 'receivedAt now', greeting({ receivedAt: 'now' })],
    ['reply', 'a $schema key', reply({ $schema: 'https://unpkg.com/core-cli/docs/schemas/reply.schema.json' })],
    ['reason', 'a $schema key', reason({ $schema: 'https://unpkg.com/core-cli/docs/schemas/reason.schema.json' })],
  ] as const)('%s: the schema of the API body refuses %s, which only a file of core may hold', (kind, _what, payload) => {
    expect(schemaAccepts(kind, payload, 'file')).toBe(true);
    expect(schemaAccepts(kind, payload, 'body')).toBe(false);
  });
});

describe('the JSON Schema of an attachment url', () => {
  it('is format uri, for editors that check it, beside the http(s) pattern', () => {
    const reply = jsonSchemaOf('reply') as { properties: { attachments: { items: { properties: { url: unknown } } } } };
    expect(reply.properties.attachments.items.properties.url).toMatchObject({ format: 'uri', pattern: expect.stringMatching(/^\^\[Hh\]/) });
  });
});

describe('the JSON Schema of a reply', () => {
  it('describes each rule it states across fields, in words', () => {
    const reply = jsonSchemaOf('reply') as {
      allOf: { description: string }[];
      dependentSchemas: Record<string, { description: string }>;
    };
    expect(reply.allOf.map((rule) => rule.description)).toEqual([
      'text, or formattedText (chatbot rule 3).',
      'Addressed by coreClientId, questionId, sessionId with questionIndex, or clientId (addressing rule 1).',
    ]);
    expect(Object.values(reply.dependentSchemas).map((rule) => rule.description)).toEqual(
      Array(3).fill('Only with code SWITCH_TO_HUMAN (answer rule 3).'),
    );
  });
});
