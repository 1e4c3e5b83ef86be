import * as z from 'zod/mini';
import { parseDuration } from '../config/duration.js';
import { CHANNEL_PATTERN, CHANNELS, channelNamed, notAChannel, type Channel } from '../payload/channels.js';
import type { Problem } from '../errors.js';
import { has, isRecord, nonEmpty, nonEmptyArray, report, rule, text } from '../payload/checks.js';
import { longSchema } from '../payload/long.js';
import { describeValue, payloadErrorMap, unknownFieldMessage, type Path } from '../payload/messages.js';
import { replySchema } from '../payload/reply.js';
import {
  fieldModel,
  OTHER_FIELDS,
  REPLY_FIELDS,
  SHOWN_FIELDS,
  type Expectation,
  type ReplyField,
  type ShownReplyField,
} from '../payload/reply-fields.js';
import { childOf, knownFields, toProblems } from '../payload/validate.js';
import { maxCustomerText } from '../sandbox/limits.js';
import { patternProblem } from './pattern.js';
import { NAME, withPlaceholders } from './substitute.js';

/**
 * The file format of `core test` (docs/testing-bots.md, "The file format"): one zod schema is the
 * single source of its rules. It validates a file (every problem with its path, as payload files
 * are reported), types the runner, and makes the JSON Schema `core schema test` prints.
 */

/** The channel of a conversation (src/payload/channels.ts). */
export type TestChannel = Channel;

/**
 * The fields of the bot answer that show what the customer gets: a report shows them of an answer
 * that differs, and a conversation saved as a test checks them. A `bot:` step may check these and
 * ADDRESSING_FIELDS too. From the answer's model (src/payload/reply-fields.ts).
 */
export const CHECKED_FIELDS = SHOWN_FIELDS;
/**
 * The rest of the bot answer's fields (docs/api.md): a step may check them too, as any field of the
 * answer, but they are not shown or saved unless a step names them, since most differ from run to
 * run (an answerId, a sessionId) and would only hide the difference.
 */
export const ADDRESSING_FIELDS = OTHER_FIELDS;
export type CheckedField = ShownReplyField;

/** How long a `bot: none` step waits for silence when it gives no `within`. */
export const DEFAULT_WITHIN_MS = 2000;

const MATCHING =
  'A string is matched exactly, or as a regular expression when written /source/flags (flags i, m, s, u, v), such as /shipped/i; ' +
  'a list is matched item by item, in order, and must have as many items; an object checks only the fields it names; ' +
  'null expects the field to be absent. ${NAME} in a string is a captured value or an examples key (matched literally inside a ' +
  '/pattern/); $${ writes a literal ${.';

const pattern = (description: string) =>
  z.string().check(
    rule(
      (value, ctx) => {
        const problem = typeof value === 'string' ? patternProblem(withPlaceholders(value)) : undefined;
        if (problem !== undefined) report(ctx, [], problem, value);
      },
      (payload) => typeof payload.value === 'string',
    ),
    z.describe(description),
  );

const anyObject = (description: string) =>
  z
    .record(z.string(), z.unknown().check(z.describe('An expected value of this field, matched as the answer holds it.')))
    .check(z.describe(description));

/** A field a step may expect, or null to expect the answer not to have it. */
const orAbsent = <T extends z.core.$ZodType>(schema: T, description: string, noun: string) =>
  z.optional(
    z
      .union([schema, z.null().check(z.describe('null: the answer must not have this field (or have it null).'))], {
        error: (issue) => `expected ${noun} or null, got ${describeValue(issue.input)}`,
      })
      .check(z.describe(description)),
  );

const idList = (what: string) =>
  orAbsent(
    z
      .array(
        z
          .union([longSchema, pattern('The identifier as a pattern, such as /^12/.')], {
            error: 'expected an identifier (a whole number) or a pattern (/.../)',
          })
          .check(z.describe('One identifier: the number, or a pattern.')),
      )
      .check(z.describe(`${what}, in the order the answer lists them.`)),
    `${what}: identifiers (or patterns), in order.`,
    'a list of identifiers',
  );

/** A number field (an identifier, an index): the number, exactly, or a pattern of its digits. */
const identifier = (description: string) =>
  orAbsent(
    z
      .union([longSchema, pattern('The number as a pattern of its digits, such as /^12/.')], {
        error: (issue) => `expected a whole number or a pattern (/.../), got ${describeValue(issue.input)}`,
      })
      .check(z.describe(`${description} The number, or a pattern of its digits.`)),
    description,
    'a whole number or a pattern',
  );

const labelled = (what: string, label: string) =>
  orAbsent(
    z
      .array(
        z
          .union([pattern(`The ${what}'s ${label}, exact or /regex/.`), anyObject(`The fields of the ${what} to check.`)], {
            error: `expected the ${what}'s ${label} (a string) or an object of its fields`,
          })
          .check(z.describe(`One ${what}: its ${label}, or the fields to check.`)),
      )
      .check(z.describe(`The answer's ${what}s, in order: each one its ${label} (a string) or an object of the fields to check.`)),
    `The answer's ${what}s, in order.`,
    `a list of ${what}s`,
  );

/**
 * Walks what a field expects beside the bot answer's own schema, so a nested field the answer cannot
 * have (`shownText` for `shown_text`) is an error naming the path, and every nested string is checked
 * as a pattern.
 */
function nestedRule() {
  return rule((value, ctx) => {
    const walk = (expected: unknown, schema: z.core.$ZodType | undefined, path: Path): void => {
      if (typeof expected === 'string') {
        const problem = patternProblem(withPlaceholders(expected));
        // A string straight in a field's list (quickReplies: [Yes]) is checked by the list's own schema.
        const listItem = path.length === 2 && typeof path[1] === 'number';
        if (problem !== undefined && !listItem) report(ctx, path, problem, expected);
      } else if (Array.isArray(expected)) {
        expected.forEach((item: unknown, index) => walk(item, schema && childOf(schema, index), [...path, index]));
      } else if (isRecord(expected)) {
        const known = schema === undefined ? [] : knownFields(schema, []);
        for (const [key, item] of Object.entries(expected)) {
          if (known.length > 0 && !known.includes(key)) report(ctx, [...path, key], unknownFieldMessage(key, known));
          else walk(item, schema && childOf(schema, key), [...path, key]);
        }
      }
    };
    for (const [field, expected] of Object.entries(value as Record<string, unknown>)) {
      if (typeof expected === 'object' && expected !== null) walk(expected, childOf(replySchema, field), [field]);
    }
  });
}

/** What a step may expect of a field, as the answer's model says the field is matched. */
function expectationOf(field: ReplyField): z.ZodMiniOptional<z.core.$ZodType> {
  const expect: Expectation = fieldModel(field).expect;
  const the = `The answer's ${field}`;
  switch (expect.match) {
    case 'text': {
      const values = expect.values === undefined ? 'exact' : expect.values.join(', ');
      return orAbsent(pattern(`${the}${expect.note ?? ''}: ${values}, or /regex/.`), `${the}.`, 'a string');
    }
    case 'number':
      return identifier(`${the}.`);
    case 'ids':
      return idList(`The ${expect.whose} IDs the answer hands the thread to`);
    case 'items':
      return labelled(expect.item, expect.label);
    case 'fields': {
      const name = `the answer's ${expect.name ?? field}`;
      const example = expect.example === undefined ? '' : `, such as ${expect.example}`;
      return orAbsent(
        anyObject(`The ${expect.parts ?? 'fields'} of ${name} to check${example}.`),
        `The answer's ${expect.name ?? field}${fieldModel(field).imOnly ? ' (IM)' : ''}.`,
        'an object',
      );
    }
  }
}

/** What each kind of match takes (see `expectationOf`), for the type of a `bot:` step. */
interface Expected {
  text: string;
  number: bigint | string;
  ids: Array<bigint | string>;
  items: Array<string | Record<string, unknown>>;
  fields: Record<string, unknown>;
}
type ExpectationShape = {
  [K in ReplyField]: z.ZodMiniOptional<z.core.$ZodType<Expected[(typeof REPLY_FIELDS)[K]['expect']['match']] | null>>;
};

/** A `bot:` step's fields: the answer's fields in the order a report shows them, then the others. */
const expectationShape = Object.fromEntries(
  [...CHECKED_FIELDS, ...ADDRESSING_FIELDS].map((field) => [field, expectationOf(field)]),
) as ExpectationShape;

export const botExpectationSchema = z
  .strictObject(expectationShape)
  .check(
    nestedRule(),
    z.describe(
      `The next bot answer, and the fields of it to check (${[...CHECKED_FIELDS, ...ADDRESSING_FIELDS].join(', ')}); fields not named are not checked, ` +
        `and {} accepts any answer. ${MATCHING}`,
    ),
  );
export type BotExpectation = z.output<typeof botExpectationSchema>;

const durationSchema = z
  .union([z.string().check(z.describe('A duration such as 2s, 500ms or 1m.')), z.bigint().check(z.describe('A number of milliseconds.'))], {
    error: 'expected a duration such as 2s or 1500ms',
  })
  .check(
    rule(
      (value, ctx) => {
        try {
          parseDuration(String(value));
        } catch (error) {
          report(ctx, [], `${(error as Error).message}; use a duration such as 2s or 1500ms`, value);
        }
      },
      (payload) => typeof payload.value === 'string' || typeof payload.value === 'bigint',
    ),
    z.describe(
      `With bot: {...}, how soon the answer must come after the customer's message it answers (the sandbox's clock); ` +
        `with bot: none, how long no answer may come (default ${DEFAULT_WITHIN_MS / 1000}s). Milliseconds, or a duration such as 2s or 500ms.`,
    ),
  );

const captureSchema = z
  .record(
    z.string().check(
      rule(
        (value, ctx) => {
          if (typeof value === 'string' && !NAME.test(value))
            report(ctx, [], `${JSON.stringify(value)} is not a name: letters, digits and _, not starting with a digit`, value);
        },
        (payload) => typeof payload.value === 'string',
      ),
    ),
    z.string().check(
      rule(
        (value, ctx) => {
          if (typeof value !== 'string') return;
          if (!/^\/.+\/[a-z]*$/s.test(value))
            report(
              ctx,
              [],
              `expected a /pattern/ to find the value in the answer's text, such as /order (\\d+)/, got ${JSON.stringify(value)}`,
              value,
            );
          else {
            const problem = patternProblem(withPlaceholders(value));
            if (problem !== undefined) report(ctx, [], problem, value);
          }
        },
        (payload) => typeof payload.value === 'string',
      ),
      z.describe("A /pattern/flags matched with the answer's text: its first group (or the whole match) is the value."),
    ),
  )
  .check(
    z.describe(
      "Values to keep from this answer, by NAME: each a /pattern/ matched with the answer's text; the first group (the whole match " +
        'when it has none) is kept, and ${NAME} in the strings of later steps is replaced by it. A capture that does not match fails the step.',
    ),
  );

const STEP_KEYS = ['customer', 'press', 'bot', 'agent', 'release'] as const;

/** What a `bot:` step may expect of the routing of the hand-over its answer makes (docs/sandbox.md, "Agents"). */
const handoverSchema = z
  .union(
    [
      z
        .literal('queued')
        .check(z.describe('The hand-over waits in the queue: no agent matches its targets, or all those that do are away or full.')),
      z
        .strictObject({
          agent: longSchema.check(z.describe("The id of the agent the hand-over is routed to (the agents' ids: core agent list).")),
        })
        .check(z.describe('The hand-over is routed at once to this agent.')),
    ],
    { error: (issue) => `expected {agent: ID} or queued, got ${describeValue(issue.input)}` },
  )
  .check(
    z.describe(
      'With bot: {...}: the answer hands the thread (SWITCH_TO_HUMAN) or the question (UNCLEAR_QUESTION) over, and the sandbox routes it so: ' +
        '{agent: ID} routed to that agent, queued waiting for one.',
    ),
  );

export const stepSchema = z
  .strictObject({
    customer: z.optional(
      text(`What the customer writes: a customer message, up to ${maxCustomerText} characters (a sandbox limit).`, maxCustomerText),
    ),
    press: z.optional(
      z
        .string()
        .check(
          nonEmpty(),
          z.describe(
            "Press a quick-reply button (by its text or shown_text) or pick a list item (by its identifier or title) of the bot's last message, as core customer press does.",
          ),
        ),
    ),
    bot: z.optional(
      z
        .union([z.literal('none').check(z.describe('No answer may come within `within` (default 2s).')), botExpectationSchema], {
          error: 'expected the fields of the bot answer to check, such as {text: Hello}, or none',
        })
        .check(z.describe('The next bot answer and the fields of it to check, or none: no answer may come.')),
    ),
    within: z.optional(durationSchema),
    capture: z.optional(captureSchema),
    handover: z.optional(handoverSchema),
    agent: z.optional(
      text(
        `What an agent writes in the thread, which the agent holds (the thread, or a question of it, was routed to the agent), up to ${maxCustomerText} characters, as core agent say does.`,
        maxCustomerText,
      ),
    ),
    agentId: z.optional(
      longSchema.check(z.describe('With agent: TEXT, the agent who writes; default the one that holds the thread (or a question of it).')),
    ),
    release: z.optional(
      z
        .literal(true, { error: (issue) => `expected true, got ${describeValue(issue.input)}` })
        .check(
          z.describe(
            'release: true gives the thread back to the bot, with the questions of it passed to agents, as core agent release does.',
          ),
        ),
    ),
  })
  .check(
    rule((value, ctx) => {
      const step = value as Record<string, unknown>;
      const given = STEP_KEYS.filter((key) => has(step, key));
      if (given.length !== 1) {
        report(
          ctx,
          [],
          given.length === 0
            ? 'a step is one of customer: TEXT, press: LABEL, bot: {...}, agent: TEXT or release: true'
            : `a step is one of customer, press, bot, agent or release, not ${given.join(' and ')}: write each as its own step`,
        );
      }
      if (has(step, 'within') && !has(step, 'bot')) report(ctx, ['within'], 'only with bot: {...} or bot: none');
      if (has(step, 'capture') && (!has(step, 'bot') || step.bot === 'none'))
        report(ctx, ['capture'], 'only with bot: {...}: a value is captured from an answer');
      if (has(step, 'handover') && (!has(step, 'bot') || step.bot === 'none'))
        report(ctx, ['handover'], 'only with bot: {...}: the routing of the hand-over that answer makes');
      if (has(step, 'agentId') && !has(step, 'agent')) report(ctx, ['agentId'], 'only with agent: TEXT: the agent who writes');
    }),
    z.describe(
      'One step: customer: TEXT, press: LABEL, bot: {fields to check} with an optional within, capture and handover, bot: none with an ' +
        'optional within, agent: TEXT with an optional agentId, or release: true.',
    ),
  );
export type Step = z.output<typeof stepSchema>;

const stepsSchema = z.array(stepSchema).check(
  nonEmptyArray(),
  rule(
    (value, ctx) => {
      const first = (value as unknown[])[0];
      if (isRecord(first) && !has(first, 'customer') && ['press', 'bot', 'agent', 'release'].some((key) => has(first, key))) {
        report(ctx, [0], 'the first step is customer: TEXT: a conversation starts with the customer writing');
      }
    },
    (payload) => Array.isArray(payload.value),
  ),
  z.describe(
    "The conversation in order: the customer's messages and presses, the bot answers expected after each, and what agents write and give back.",
  ),
);

const exampleValue = z
  .union(
    [
      z.string().check(z.describe('A text.')),
      z.bigint().check(z.describe('A whole number.')),
      z.number().check(z.describe('A number.')),
      z.boolean().check(z.describe('true or false.')),
    ],
    { error: (issue) => `expected a string, number or boolean, got ${describeValue(issue.input)}` },
  )
  .check(z.describe('The value ${KEY} stands for in this row.'));

const examplesSchema = z
  .array(
    z
      .record(
        z.string().check(
          rule(
            (value, ctx) => {
              if (typeof value === 'string' && !NAME.test(value))
                report(ctx, [], `${JSON.stringify(value)} is not a name: letters, digits and _, not starting with a digit`, value);
            },
            (payload) => typeof payload.value === 'string',
          ),
        ),
        exampleValue,
      )
      .check(z.describe('One row: a value for each ${KEY} the steps use.')),
  )
  .check(
    nonEmptyArray(),
    z.describe(
      "Rows of values: the conversation runs once per row, ${KEY} in its name and steps replaced by the row's values, each row " +
        'its own test case. Every row gives every key the steps use, and no key they do not.',
    ),
  );

/**
 * The channel of a conversation, in any case (`channel: im`), read as its canonical name. Its JSON
 * Schema offers the canonical names and allows the same letters in any case.
 */
const channelSchema = z.pipe(
  z.string().check(
    rule(
      (value, ctx) => {
        if (channelNamed(value as string) === undefined) report(ctx, [], notAChannel(value), value);
      },
      (payload) => typeof payload.value === 'string',
    ),
    z.describe(`The channel of the conversation: WEB (default), IM (instant messenger) or EMAIL, in any case (im is IM).`),
    z.meta({
      anyOf: [
        { enum: [...CHANNELS], description: 'The channel by its name.' },
        { pattern: CHANNEL_PATTERN, description: 'The same name in other capitals (im, Im), read as the name: im is IM.' },
      ],
    }),
  ),
  z.transform((value: string) => channelNamed(value) as Channel),
);

export const testClientSchema = z
  .strictObject({
    clientId: z.optional(
      z
        .string()
        .check(
          nonEmpty(),
          z.describe('The external clientId of an authorized client (conversations naming one client run one at a time).'),
        ),
    ),
    coreClientId: z.optional(longSchema.check(z.describe('The coreClientId of the client (default: a new client for each conversation).'))),
  })
  .check(
    rule((value, ctx) => {
      const client = value as Record<string, unknown>;
      if (has(client, 'clientId') && has(client, 'coreClientId')) report(ctx, [], 'give clientId or coreClientId, not both');
    }),
    z.describe('Who the customer is. Without it, each conversation is a new client.'),
  );
export type TestClient = z.output<typeof testClientSchema>;

/** Where a conversation starts: a seed's last thread, or the thread of a snapshot last written in (docs/testing-bots.md, "Starting mid-flow"). */
export const fromSchema = z
  .strictObject({
    seed: z.optional(
      text(
        "A seed file (core schema seed), relative to the test file: applied before the run; the conversation continues the seed's last thread.",
      ),
    ),
    snapshot: z.optional(
      text(
        'A snapshot of the tenant (core sandbox snapshot save NAME): restored before the run; the conversation continues its latest thread.',
      ),
    ),
  })
  .check(
    rule((value, ctx) => {
      const from = value as Record<string, unknown>;
      if (has(from, 'seed') === has(from, 'snapshot'))
        report(ctx, [], has(from, 'seed') ? 'give seed or snapshot, not both' : 'required: seed: FILE or snapshot: NAME');
    }),
    z.describe(
      'Start mid-flow: the first step continues an existing thread instead of a new one; ${sessionId} and ${questionId} (its last question) are known in the steps.',
    ),
  );
export type TestFrom = z.output<typeof fromSchema>;

/** With from, the thread is the seed's or the snapshot's: its channel and client are theirs. */
const fromRule = rule((value, ctx) => {
  const conversation = value as Record<string, unknown>;
  if (!has(conversation, 'from')) return;
  for (const key of ['channel', 'client'])
    if (has(conversation, key)) report(ctx, [key], "not with from: the thread's channel and client are those of the seed or snapshot");
});

export const conversationSchema = z
  .strictObject({
    name: text('The name of the conversation, in reports.'),
    from: z.optional(fromSchema),
    channel: z.optional(channelSchema),
    client: z.optional(testClientSchema),
    steps: stepsSchema,
    examples: z.optional(examplesSchema),
  })
  .check(fromRule, z.describe('One conversation: its own thread and client, run independently of the others.'));
export type TestConversation = z.output<typeof conversationSchema>;

export const testFileSchema = z
  .strictObject({
    name: z.optional(text('The name of the conversation (or, with conversations, of the file) in reports; default the file name.')),
    from: z.optional(fromSchema),
    channel: z.optional(channelSchema),
    client: z.optional(testClientSchema),
    steps: z.optional(stepsSchema),
    examples: z.optional(examplesSchema),
    conversations: z.optional(
      z
        .array(conversationSchema)
        .check(nonEmptyArray(), z.describe('Several conversations in one file; channel and client above are their defaults.')),
    ),
  })
  .check(
    rule((value, ctx) => {
      const file = value as Record<string, unknown>;
      if (has(file, 'steps') === has(file, 'conversations')) {
        report(ctx, [], has(file, 'steps') ? 'give steps or conversations, not both' : 'required: steps (or conversations)');
      }
      if (has(file, 'examples') && has(file, 'conversations'))
        report(ctx, ['examples'], 'with conversations, each conversation gives its own examples beside its steps');
      if (has(file, 'from') && has(file, 'conversations'))
        report(ctx, ['from'], 'with conversations, each conversation gives its own from beside its steps');
      if (Array.isArray(file.conversations)) {
        const seen = new Map<string, number>();
        file.conversations.forEach((conversation: unknown, index) => {
          const name = isRecord(conversation) ? conversation.name : undefined;
          if (typeof name !== 'string') return;
          const first = seen.get(name);
          if (first === undefined) seen.set(name, index);
          else report(ctx, ['conversations', index, 'name'], `${JSON.stringify(name)} is repeated; first at conversations[${first}].name`);
        });
      }
    }),
    fromRule,
    z.describe(
      'A conversation test of core test: the steps of one conversation (or several conversations), each played as a customer ' +
        'against the bot through the sandbox. Rules a JSON Schema cannot express: each step is one of customer, press, bot, agent or release; ' +
        'the first step is customer; within goes only with bot, capture and handover only with bot: {...}, agentId only with agent; steps and conversations do not go ' +
        'together; examples go beside steps; every ${NAME} is captured by an earlier step or is a key of every examples row, and ' +
        `every key of a row is used; conversation names are unique. ${MATCHING}`,
    ),
  );
export type TestFile = z.output<typeof testFileSchema>;

export type TestValidation = { ok: true; value: TestFile } | { ok: false; problems: Problem[] };

/**
 * Validates a test file's content: every problem at once, with its path. A union's own problem
 * ("expected a string or an object") is replaced by the problems of the form the value has, so that
 * `steps[2].bot.text` is named rather than `steps[2].bot`.
 */
export function validateTestFile(input: unknown): TestValidation {
  const result = testFileSchema.safeParse(input, { error: payloadErrorMap });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: toProblems(testFileSchema, flattenUnions(result.error.issues)) };
}

function flattenUnions(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const out: z.core.$ZodIssue[] = [];
  for (const issue of issues) {
    if (issue.code !== 'invalid_union') {
      out.push(issue);
      continue;
    }
    // The branch whose type the value has: its problems are all inside the value, none about its type.
    const branch = issue.errors.find((errors) =>
      errors.every((inner) => inner.path.length > 0 || !/^invalid_(type|value)$/.test(inner.code)),
    );
    if (branch === undefined) out.push(issue);
    else out.push(...flattenUnions(branch.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as z.core.$ZodIssue)));
  }
  return out;
}
