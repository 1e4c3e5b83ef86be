import { CODES_HANDLED_FIRST, KNOWN_ACTIONS } from './codes.js';

/**
 * The model of the bot answer's fields (docs/api.md, "Bot answer"): what each field is for, how a
 * `core test` step matches it, where a report shows it and what coverage counts of it. Every list of
 * the answer's fields is derived from here: the reply schema's keys (src/payload/reply.ts checks its
 * shape against REPLY_FIELD_NAMES), the composer's order, the addressing and routing rules, the
 * fields a `bot:` step may check and those a report shows, and coverage's names.
 * A leaf with no zod, so the composer, bot testing and coverage read it without building a schema.
 */

/**
 * What a field is for:
 * - `content`: what the customer is shown (the text, buttons, list, attachments, input settings);
 * - `outcome`: what the bot did with the question (code);
 * - `routing`: the agents a SWITCH_TO_HUMAN hands the thread to (answer rule 3);
 * - `addressing`: which client or question the answer is for (addressing rule 1);
 * - `delivery`: how the platform takes the answer: its identity, time, action and segmentation.
 */
export type FieldRole = 'content' | 'outcome' | 'routing' | 'addressing' | 'delivery';

/**
 * How a `bot:` step of `core test` matches the field (docs/testing-bots.md, "Matching"), and how
 * its JSON Schema names it:
 * - `text`: a string, exact or /regex/ (`note` follows the field's name; `values` are the values named);
 * - `number`: the number exactly, or a /pattern/ of its digits;
 * - `ids`: a list of identifiers (or patterns), in order (`whose`: "agent" for "The agent IDs ...");
 * - `items`: a list, in order, each item its `label` (exact or /regex/) or an object of its fields;
 * - `fields`: an object of which only the fields named are checked (`parts`: what they are called,
 *   `name`: the field in words, `example`: a step's value).
 */
export type Expectation =
  | { match: 'text'; note?: string; values?: readonly string[] }
  | { match: 'number' }
  | { match: 'ids'; whose: string }
  | { match: 'items'; item: string; label: string }
  | { match: 'fields'; name?: string; parts?: 'entries'; example?: string };

/**
 * What `core test --coverage` counts of a field (docs/testing-bots.md, "Coverage"): its `values`
 * (each one a name), or the field as an answer feature, under its own name or the names in `as`,
 * at place `feature` among the answer features of a report (1 first).
 */
export type Counted = { values: readonly string[] } | { feature: number; as?: readonly string[] };

interface CommonField {
  expect: Expectation;
  /** Shown and checked on instant-messenger threads only (docs/api.md, "quickRepliesHeaderFooter", list rule 1). */
  imOnly?: true;
}

/**
 * A field a report shows of an answer that differs and a conversation saved as a test checks, at
 * place `shown` (1 first); the others are shown only when a step names them, since most differ from
 * run to run (an answerId, a sessionId) and would only hide the difference.
 */
interface ShownField extends CommonField {
  role: 'content' | 'outcome' | 'routing';
  shown: number;
  counted?: Counted;
}

interface OtherField extends CommonField {
  role: 'addressing' | 'delivery';
}

export type FieldModel = ShownField | OtherField;

/** The bot answer's fields in the order of docs/api.md's table, which is the reply schema's order. */
export const REPLY_FIELDS = {
  text: { role: 'content', expect: { match: 'text' }, shown: 1 },
  formattedText: { role: 'content', expect: { match: 'text', note: ' (Markdown)' }, shown: 2, counted: { feature: 1 } },
  answerId: { role: 'delivery', expect: { match: 'text' } },
  clientId: { role: 'addressing', expect: { match: 'text' } },
  coreClientId: { role: 'addressing', expect: { match: 'number' } },
  sessionId: { role: 'addressing', expect: { match: 'text' } },
  questionId: { role: 'addressing', expect: { match: 'number' } },
  questionIndex: { role: 'addressing', expect: { match: 'number' } },
  receivedAt: { role: 'delivery', expect: { match: 'text' } },
  action: { role: 'delivery', expect: { match: 'text', note: `, such as ${KNOWN_ACTIONS.join(', ')}` } },
  segmentationInfo: { role: 'delivery', expect: { match: 'fields', parts: 'entries', example: '{personal_manager: anna}' } },
  attachments: { role: 'content', expect: { match: 'items', item: 'attachment', label: 'url' }, shown: 7, counted: { feature: 5 } },
  code: { role: 'outcome', expect: { match: 'text', values: CODES_HANDLED_FIRST }, shown: 3, counted: { values: CODES_HANDLED_FIRST } },
  userIds: { role: 'routing', expect: { match: 'ids', whose: 'agent' }, shown: 8, counted: { feature: 7 } },
  skillIds: { role: 'routing', expect: { match: 'ids', whose: 'skill' }, shown: 9, counted: { feature: 8 } },
  unitIds: { role: 'routing', expect: { match: 'ids', whose: 'department' }, shown: 10, counted: { feature: 9 } },
  settings: {
    role: 'content',
    expect: { match: 'fields', example: '{blockInput: true}' },
    shown: 11,
    counted: { feature: 6, as: ['settings.blockInput', 'settings.masked'] },
  },
  quickReplies: {
    role: 'content',
    expect: { match: 'items', item: 'quick-reply button', label: 'text' },
    shown: 4,
    counted: { feature: 2 },
  },
  quickRepliesHeaderFooter: {
    role: 'content',
    expect: { match: 'fields', name: 'header and footer' },
    imOnly: true,
    shown: 6,
    counted: { feature: 3 },
  },
  messageListPicker: {
    role: 'content',
    expect: { match: 'fields', name: 'list picker', example: '{title: Sizes}' },
    imOnly: true,
    shown: 5,
    counted: { feature: 4 },
  },
} as const satisfies Record<string, FieldModel>;

export type ReplyField = keyof typeof REPLY_FIELDS;

/** The model of one field, typed as the model's union (for code that reads any field's entry). */
export function fieldModel(field: ReplyField): FieldModel {
  return REPLY_FIELDS[field];
}

/** The bot answer's fields in the reply schema's order (docs/api.md's table). */
export const REPLY_FIELD_NAMES = Object.keys(REPLY_FIELDS) as readonly ReplyField[];

type FieldsOf<Role extends FieldRole> = { [K in ReplyField]: (typeof REPLY_FIELDS)[K]['role'] extends Role ? K : never }[ReplyField];

function fieldsWith<Role extends FieldRole>(...roles: Role[]): readonly FieldsOf<Role>[] {
  return REPLY_FIELD_NAMES.filter((field) => (roles as FieldRole[]).includes(fieldModel(field).role)) as FieldsOf<Role>[];
}

/** The fields by which a reply finds its client or question (docs/api.md, addressing rule 1). */
export const ADDRESS_FIELDS = fieldsWith('addressing');

/** The fields that send the thread to given agents, skills or departments (docs/api.md, answer rule 3). */
export const ROUTING_FIELDS = fieldsWith('routing');

export type ShownReplyField = FieldsOf<'content' | 'outcome' | 'routing'>;

/** The fields a report shows of an answer, and a conversation saved as a test checks, in their places. */
export const SHOWN_FIELDS: readonly ShownReplyField[] = fieldsWith('content', 'outcome', 'routing')
  .map((field) => ({ field, at: (fieldModel(field) as ShownField).shown }))
  .sort((a, b) => a.at - b.at)
  .map(({ field }) => field);

/** The rest of the fields, in the schema's order: checked when a step names them, not shown otherwise. */
export const OTHER_FIELDS = fieldsWith('addressing', 'delivery');

type CountedNamesOf<M> = M extends { counted: { values: readonly (infer V)[] } }
  ? V
  : M extends { counted: { as: readonly (infer N)[] } }
    ? N
    : never;
/** The names coverage counts the answer's fields under: code's values and the features' names. */
export type CountedName =
  | { [K in ReplyField]: CountedNamesOf<(typeof REPLY_FIELDS)[K]> }[ReplyField]
  | { [K in ReplyField]: (typeof REPLY_FIELDS)[K] extends { counted: { feature: number; as?: never } } ? K : never }[ReplyField];

/** The fields whose values coverage counts (code: each value a name), with those values. */
export const COUNTED_VALUES: ReadonlyArray<readonly [ReplyField, readonly CountedName[]]> = REPLY_FIELD_NAMES.flatMap((field) => {
  const counted = (fieldModel(field) as Partial<ShownField>).counted;
  return counted !== undefined && 'values' in counted ? [[field, counted.values as readonly CountedName[]] as const] : [];
});

/**
 * The answer features coverage counts, in their places: each field with the names it is counted
 * under, each name a path into the answer (quickReplies, settings.blockInput).
 */
export const COUNTED_FEATURES: ReadonlyArray<readonly [ReplyField, readonly CountedName[]]> = REPLY_FIELD_NAMES.flatMap((field) => {
  const counted = (fieldModel(field) as Partial<ShownField>).counted;
  return counted !== undefined && 'feature' in counted
    ? [{ field, at: counted.feature, names: (counted.as ?? [field]) as readonly CountedName[] }]
    : [];
})
  .sort((a, b) => a.at - b.at)
  .map(({ field, names }) => [field, names] as const);
