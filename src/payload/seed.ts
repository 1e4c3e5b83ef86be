import * as z from 'zod/mini';
import { agentSchema } from './agents.js';
import { CHANNEL_PATTERN, CHANNELS, channelNamed, notAChannel, type Channel } from './channels.js';
import { MAX_CUSTOMER_TEXT } from './customer-text.js';
import { has, isRecord, nonEmpty, nonEmptyArray, report, rule, text } from './checks.js';
import { longSchema } from './long.js';
import { reasonSchema } from './reason.js';
import { validateWith, type Validation } from './validate.js';

/**
 * The seed file of `core sandbox --seed FILE` and `core sandbox seed FILE` (docs/sandbox.md,
 * "Fixtures"; `core schema seed`): the tenants, clients, threads, questions, answers, hand-overs,
 * inactivity reasons and agents a sandbox is to hold. The sandbox turns it into events and applies
 * them as it applies any other (src/sandbox/seed-file.ts), so a seed is never a second way of
 * changing the state. The shapes are the sandbox's own: the API shows none.
 */

/** The most items of each list of a seed: a seed is a fixture, not a load test. */
export const MAX_SEED_ITEMS = 1000;

const channelSchema = z.pipe(
  z.string().check(
    rule(
      (value, ctx) => {
        if (channelNamed(value as string) === undefined) report(ctx, [], notAChannel(value), value);
      },
      (payload) => typeof payload.value === 'string',
    ),
    z.describe('The channel of the thread: WEB (default), IM (instant messenger) or EMAIL, in any case (im is IM).'),
    z.meta({
      anyOf: [
        { enum: [...CHANNELS], description: 'The channel by its name.' },
        { pattern: CHANNEL_PATTERN, description: 'The same name in other capitals (im, Im), read as the name: im is IM.' },
      ],
    }),
  ),
  z.transform((value: string) => channelNamed(value) as Channel),
);

const list = <T extends z.core.$ZodType>(item: T, description: string) =>
  z.array(item).check(z.maxLength(MAX_SEED_ITEMS), z.describe(`${description} At most ${MAX_SEED_ITEMS}.`));

const SEED_STEP_KEYS = ['customer', 'bot', 'agent', 'release'] as const;

export const seedStepSchema = z
  .strictObject({
    customer: z.optional(
      text(
        `A customer message: a new question of the thread, up to ${MAX_CUSTOMER_TEXT} characters. No webhook is sent for it.`,
        MAX_CUSTOMER_TEXT,
      ),
    ),
    bot: z.optional(
      z
        .union([
          text('The text of a bot answer to the last question.'),
          z
            .record(z.string(), z.unknown().check(z.describe('A field of the answer, as core schema reply describes it.')))
            .check(
              z.describe(
                'A bot answer to the last question: the fields of POST /api/v1/chatbot (core schema reply) without its address, which the ' +
                  'sandbox fills in (sessionId and questionIndex on EMAIL, questionId otherwise). code SWITCH_TO_HUMAN hands the thread to agents.',
              ),
            ),
        ])
        .check(z.describe('A bot answer to the last question of the thread, checked as the API checks it.')),
    ),
    agent: z.optional(text('A message of the agent that holds the thread (after a hand-over routed to one).', MAX_CUSTOMER_TEXT)),
    release: z.optional(z.literal(true).check(z.describe('Gives the thread back to the bot.'))),
  })
  .check(
    rule((value, ctx) => {
      const step = value as Record<string, unknown>;
      const given = SEED_STEP_KEYS.filter((key) => has(step, key));
      if (given.length !== 1)
        report(
          ctx,
          [],
          given.length === 0
            ? 'a step is one of customer: TEXT, bot: TEXT or {...}, agent: TEXT or release: true'
            : `a step is one of customer, bot, agent or release, not ${given.join(' and ')}: write each as its own step`,
        );
    }),
    z.describe('One thing that happened in the thread: customer: TEXT, bot: TEXT or {answer fields}, agent: TEXT or release: true.'),
  );
export type SeedStep = z.output<typeof seedStepSchema>;

export const seedThreadSchema = z
  .strictObject({
    sessionId: z.optional(text("The thread's sessionId (default: a new one). Unique in the sandbox: a seed applied twice needs none.", 64)),
    channel: z.optional(channelSchema),
    subject: z.optional(text('The subject of an EMAIL thread (shown with the thread; EMAIL only).', 998)),
    steps: list(seedStepSchema, 'What happened in the thread, in order; the first bot, agent or release step follows a customer step.'),
  })
  .check(
    rule((value, ctx) => {
      const thread = value as Record<string, unknown>;
      if (has(thread, 'subject') && typeof thread.channel === 'string' && channelNamed(thread.channel) !== 'EMAIL')
        report(ctx, ['subject'], 'only on an EMAIL thread (channel: EMAIL)');
      if (!Array.isArray(thread.steps)) return;
      const first = thread.steps.findIndex((step) => isRecord(step) && has(step, 'customer'));
      thread.steps.forEach((step: unknown, index) => {
        if (isRecord(step) && (has(step, 'bot') || has(step, 'agent')) && (first === -1 || index < first))
          report(ctx, ['steps', index], 'comes before any customer message: an answer answers a question of the thread');
      });
    }),
    z.describe('One thread of the client, with the bot or (after a hand-over) with agents.'),
  );
export type SeedThread = z.output<typeof seedThreadSchema>;

export const seedClientSchema = z
  .strictObject({
    coreClientId: z.optional(longSchema.check(z.describe('The coreClientId of the client (default: the next one the sandbox makes).'))),
    clientId: z.optional(
      z.string().check(nonEmpty(), z.describe('The external clientId of an authorized client; without it the client is not authorized.')),
    ),
    threads: list(seedThreadSchema, 'The threads of the client, started in order: a client is in the sandbox through its threads.').check(
      nonEmptyArray(),
    ),
  })
  .check(z.describe('One client of the tenant: authorized (with clientId) or not.'));
export type SeedClient = z.output<typeof seedClientSchema>;

export const seedAgentStatusSchema = z
  .strictObject({
    id: longSchema.check(z.describe("The agent's id: one of the sandbox's agents.")),
    status: z.enum(['online', 'away']).check(z.describe('The status to set.')),
    reason: z.optional(text("With away: the code of one of the tenant's active inactivity reasons.", 256)),
  })
  .check(z.describe("An agent's status in this tenant, set as POST /_sandbox/agents/{id}/status sets it."));

export const seedTenantSchema = z
  .strictObject({
    name: z.optional(
      text('The tenant (X-Tenant-Name). Default: the first tenant the sandbox serves. With --seed, a tenant not served yet is added.', 256),
    ),
    reasons: z.optional(
      list(reasonSchema, 'Inactivity reasons, each added or replacing the one with its code (as PUT /api/v1/inactivity/reasons would).'),
    ),
    agents: z.optional(list(seedAgentStatusSchema, "Agents' statuses in this tenant.")),
    clients: z.optional(list(seedClientSchema, 'The clients, each with its threads.')),
  })
  .check(z.describe('What one tenant holds.'));
export type SeedTenant = z.output<typeof seedTenantSchema>;

export const seedFileSchema = z
  .strictObject({
    agents: z.optional(
      list(
        agentSchema,
        'The agents every tenant has (as an agents file, core schema agents). With --seed they are the agents the sandbox starts with; ' +
          'a running sandbox must have each already.',
      ),
    ),
    tenants: list(seedTenantSchema, 'The tenants and what each holds.'),
  })
  .check(
    z.describe(
      'A seed of core sandbox (core sandbox --seed FILE, core sandbox seed FILE): tenants with their clients (authorized or not), ' +
        'threads on any channel (questions answered or not, handed over to agents), inactivity reasons and agents. It is applied as ' +
        'events, as the sandbox applies any other; no webhook is sent for a seeded message.',
    ),
  );
export type SeedFile = z.output<typeof seedFileSchema>;

/**
 * Validates a seed as read. The JSON and YAML readers give every integer as a bigint; an agent's
 * capacity is a count, so one within 2^53 is made a number first.
 */
export function validateSeedFile(input: unknown): Validation<SeedFile> {
  return validateWith(seedFileSchema, countsAsNumbers(input));
}

function countsAsNumbers(input: unknown): unknown {
  if (!isRecord(input) || !Array.isArray(input.agents)) return input;
  const agents = input.agents.map((entry: unknown) => {
    if (!isRecord(entry) || typeof entry.capacity !== 'bigint' || entry.capacity > BigInt(Number.MAX_SAFE_INTEGER)) return entry;
    return { ...entry, capacity: Number(entry.capacity) };
  });
  return { ...input, agents };
}
