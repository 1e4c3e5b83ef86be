import * as z from 'zod/mini';
import { has, isRecord, report, rule, text } from './checks.js';
import {
  LENGTH_NOTE,
  blockInputWarnings,
  clientIdSchema,
  clientIdWarnings,
  coreClientIdSchema,
  greetingSettingsSchema,
  receivedAtSchema,
  usableLimits,
  type Limits,
} from './common.js';
import { messageListPickerSchema } from './list-picker.js';
import type { RawProblem } from './messages.js';
import { headerFooterWarnings, quickRepliesHeaderFooterSchema, quickRepliesSchemaFor } from './quick-reply.js';
import { validateWith, type Validation } from './validate.js';

export interface GreetingOptions {
  /** The profile's limits on quick replies (docs/api.md, quick-reply rule 4). */
  limits?: Limits;
}

/** docs/api.md, greet rule 1: clientId or coreClientId must be given. */
const greetingRules = rule((value, ctx) => {
  const greeting = value as Record<string, unknown>;
  if (!has(greeting, 'clientId') && !has(greeting, 'coreClientId')) {
    report(ctx, [], "no addressee: give coreClientId (or the deprecated clientId) (the API's greet rule 1)");
  }
});

/** greetingRules as JSON Schema: the key of one identifier or the other is there. */
const greetingRulesJsonSchema = {
  anyOf: [
    { description: 'Addressed by coreClientId (greet rule 1).', required: ['coreClientId'] },
    { description: 'Addressed by the deprecated clientId (greet rule 1).', required: ['clientId'] },
  ],
};

const DESCRIPTION = [
  "Greeting: the request body of POST /api/v1/chatbot/greet, the bot's first proactive message to a client.",
  'clientId or coreClientId must be given (greet rule 1).',
  'Warnings: clientId is deprecated; when both are given, clientId takes priority (greet rule 3);',
  'settings.blockInput works only with quick replies; a header mixing kinds of content.',
  LENGTH_NOTE,
].join(' ');

/**
 * docs/api.md, "Greeting". quickReplies, settings, quickRepliesHeaderFooter and messageListPicker have "the same
 * shape as above", so they are the very schemas the bot answer uses.
 */
function buildGreetingSchema(limits: Limits) {
  return z
    .strictObject({
      text: text("Bot's message to the client."),
      clientId: z.optional(clientIdSchema),
      coreClientId: z.optional(coreClientIdSchema),
      receivedAt: z.optional(receivedAtSchema),
      quickReplies: z.optional(quickRepliesSchemaFor(limits)),
      settings: z.optional(greetingSettingsSchema),
      quickRepliesHeaderFooter: z.optional(quickRepliesHeaderFooterSchema),
      messageListPicker: z.optional(messageListPickerSchema),
    })
    .check(greetingRules, z.meta({ description: DESCRIPTION, ...greetingRulesJsonSchema }));
}

export const greetingSchema = buildGreetingSchema({});
export type Greeting = z.output<typeof greetingSchema>;

const cache = new Map<string, typeof greetingSchema>();

/** The greeting under the given options; one schema per distinct set of limits. */
export function greetingSchemaFor(opts: GreetingOptions = {}): typeof greetingSchema {
  const limits = usableLimits(opts.limits);
  if (limits.maxQuickReplies === undefined && limits.maxQuickReplyLength === undefined) return greetingSchema;
  const key = `${limits.maxQuickReplies ?? ''}/${limits.maxQuickReplyLength ?? ''}`;
  let schema = cache.get(key);
  if (!schema) {
    schema = buildGreetingSchema(limits);
    cache.set(key, schema);
  }
  return schema;
}

/** docs/api.md, greet rule 3: with both identifiers, clientId takes priority. */
function priorityWarnings(root: unknown): RawProblem[] {
  if (!isRecord(root) || !has(root, 'clientId') || !has(root, 'coreClientId')) return [];
  return [
    {
      path: ['clientId'],
      message: "takes priority over coreClientId when both are given (the API's greet rule 3); send only coreClientId",
    },
  ];
}

export function greetingWarnings(input: unknown): RawProblem[] {
  return [...clientIdWarnings(input), ...priorityWarnings(input), ...blockInputWarnings(input), ...headerFooterWarnings(input)];
}

/** Validates a greeting (POST /api/v1/chatbot/greet). */
export function validateGreeting(input: unknown, opts: { limits?: Limits } = {}): Validation<Greeting> {
  return validateWith(greetingSchemaFor(opts), input, greetingWarnings);
}
