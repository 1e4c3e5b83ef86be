import { describe, expect, it } from 'vitest';
import { CHANNELS } from '../../src/payload/channels.js';
import { CODES, CODES_HANDLED_FIRST } from '../../src/payload/codes.js';
import { replySchema, replySchemaFor } from '../../src/payload/reply.js';
import {
  ADDRESS_FIELDS,
  COUNTED_FEATURES,
  COUNTED_VALUES,
  fieldModel,
  OTHER_FIELDS,
  REPLY_FIELD_NAMES,
  REPLY_FIELDS,
  ROUTING_FIELDS,
  SHOWN_FIELDS,
  type FieldRole,
} from '../../src/payload/reply-fields.js';

// The modules that read the model are loaded in the tests, not here: a model that breaks one of them
// then fails the tests that need it, rather than the loading of this whole file.
const prompts = () => import('../../src/prompts/reply.js');
const testing = () => import('../../src/testing/schema.js');
const coverage = () => import('../../src/testing/coverage.js');

/**
 * The bot answer's model (src/payload/reply-fields.ts) is the one list of its fields: the reply
 * schema has exactly its fields, in its order, and every list of fields elsewhere is read from it.
 * The lists are pinned as they are, so that a change to the model shows here as a change of what
 * the program does (a report's order, coverage's names, the composer's order).
 */

const ROLES: readonly FieldRole[] = ['content', 'outcome', 'routing', 'addressing', 'delivery'];
const shapeOf = (schema: unknown) => Object.keys((schema as { def: { shape: Record<string, unknown> } }).def.shape);

describe("the bot answer's model", () => {
  it("has every field of the reply schema, no more, in the schema's order", () => {
    expect(shapeOf(replySchema)).toEqual([...REPLY_FIELD_NAMES]);
    // The schemas made for a profile's limits and for an email question have the same fields.
    expect(shapeOf(replySchemaFor({ email: true, limits: { maxQuickReplies: 3 } }))).toEqual([...REPLY_FIELD_NAMES]);
  });

  it('gives every field a role, and a place in a report to every field a report shows', () => {
    for (const field of REPLY_FIELD_NAMES) {
      const model = fieldModel(field);
      expect(ROLES, field).toContain(model.role);
      expect('shown' in model, field).toBe(['content', 'outcome', 'routing'].includes(model.role));
    }
  });

  it('gives the shown fields places 1 to N, and the counted features places 1 to M, each once', () => {
    const places = (values: number[]) => [...values].sort((a, b) => a - b);
    const shown = REPLY_FIELD_NAMES.flatMap((field) => {
      const model = fieldModel(field);
      return 'shown' in model ? [model.shown] : [];
    });
    expect(places(shown)).toEqual(shown.map((_, i) => i + 1));
    const features = REPLY_FIELD_NAMES.flatMap((field) => {
      const model = fieldModel(field);
      return 'counted' in model && model.counted !== undefined && 'feature' in model.counted ? [model.counted.feature] : [];
    });
    expect(places(features)).toEqual(features.map((_, i) => i + 1));
  });

  it("is in the order of docs/api.md's table, which the composer writes a payload in", async () => {
    const { REPLY_ORDER } = await prompts();
    expect(REPLY_ORDER).toEqual([
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
    ]);
    expect(REPLY_ORDER).toBe(REPLY_FIELD_NAMES);
  });
});

describe('the lists derived from the model', () => {
  it.each([
    [
      'the addressing fields (addressing rule 1)',
      () => ADDRESS_FIELDS,
      ['clientId', 'coreClientId', 'sessionId', 'questionId', 'questionIndex'],
    ],
    ['the routing fields (answer rule 3: only with SWITCH_TO_HUMAN)', () => ROUTING_FIELDS, ['userIds', 'skillIds', 'unitIds']],
    [
      'the fields a report shows and a saved test checks, in their places',
      async () => (await testing()).CHECKED_FIELDS,
      [
        'text',
        'formattedText',
        'code',
        'quickReplies',
        'messageListPicker',
        'quickRepliesHeaderFooter',
        'attachments',
        'userIds',
        'skillIds',
        'unitIds',
        'settings',
      ],
    ],
    [
      'the fields checked only when a step names them',
      async () => (await testing()).ADDRESSING_FIELDS,
      ['answerId', 'clientId', 'coreClientId', 'sessionId', 'questionId', 'questionIndex', 'receivedAt', 'action', 'segmentationInfo'],
    ],
  ])('%s', async (_, list, expected) => {
    expect(await list()).toEqual(expected);
  });

  it('splits the fields into those shown and the others, each field once', async () => {
    const { ADDRESSING_FIELDS, CHECKED_FIELDS } = await testing();
    expect([...SHOWN_FIELDS, ...OTHER_FIELDS].sort()).toEqual([...REPLY_FIELD_NAMES].sort());
    expect(CHECKED_FIELDS).toBe(SHOWN_FIELDS);
    expect(ADDRESSING_FIELDS).toBe(OTHER_FIELDS);
  });

  it('lets a `bot:` step check every field of the answer, shown fields first', async () => {
    const { ADDRESSING_FIELDS, botExpectationSchema, CHECKED_FIELDS } = await testing();
    expect(shapeOf(botExpectationSchema)).toEqual([...CHECKED_FIELDS, ...ADDRESSING_FIELDS]);
  });

  it('counts code\'s values and the features in coverage\'s fixed order (docs/testing-bots.md, "Coverage")', async () => {
    const { COVERAGE_NAMES } = await coverage();
    expect(COUNTED_VALUES).toEqual([['code', ['SUCCESS', 'UNCLEAR_QUESTION', 'SWITCH_TO_HUMAN']]]);
    expect(COUNTED_FEATURES).toEqual([
      ['formattedText', ['formattedText']],
      ['quickReplies', ['quickReplies']],
      ['quickRepliesHeaderFooter', ['quickRepliesHeaderFooter']],
      ['messageListPicker', ['messageListPicker']],
      ['attachments', ['attachments']],
      ['settings', ['settings.blockInput', 'settings.masked']],
      ['userIds', ['userIds']],
      ['skillIds', ['skillIds']],
      ['unitIds', ['unitIds']],
    ]);
    expect(COVERAGE_NAMES).toEqual([
      'WEB',
      'IM',
      'EMAIL',
      'SUCCESS',
      'UNCLEAR_QUESTION',
      'SWITCH_TO_HUMAN',
      'formattedText',
      'quickReplies',
      'quickRepliesHeaderFooter',
      'messageListPicker',
      'attachments',
      'settings.blockInput',
      'settings.masked',
      'userIds',
      'skillIds',
      'unitIds',
      'press',
      'pick',
      'secondAnswer',
      'duplicateAnswerId',
      'refusal',
      'routedByUserIds',
      'routedBySkillIds',
      'routedByUnitIds',
      'routedToAnyAgent',
      'queuedNoMatch',
      'queuedAwayOrFull',
      'routedFromQueue',
    ]);
    expect(COVERAGE_NAMES.slice(0, CHANNELS.length)).toEqual([...CHANNELS]);
    // Every counted feature is a field of the answer, or a path into one.
    for (const [field, names] of COUNTED_FEATURES) for (const name of names) expect(name.split('.')[0]).toBe(field);
  });

  it('lists the codes once: the API order for the schema, the handled answer first for people', () => {
    expect(CODES).toEqual(['UNCLEAR_QUESTION', 'SWITCH_TO_HUMAN', 'SUCCESS']);
    expect(CODES_HANDLED_FIRST).toEqual(['SUCCESS', 'UNCLEAR_QUESTION', 'SWITCH_TO_HUMAN']);
    expect(REPLY_FIELDS.code.expect.values).toBe(CODES_HANDLED_FIRST);
  });
});
