import * as z from 'zod/mini';
import { has, isRecord, nonEmpty, report, rule, text } from './checks.js';
import { CODES, KNOWN_ACTIONS } from './codes.js';
import { longSchema } from './long.js';
import { type RawProblem } from './messages.js';

export { CODES, KNOWN_ACTIONS, type Code } from './codes.js';

/**
 * Limits that the API leaves to the service's configuration (docs/api.md, quick-reply rule 4: the keys
 * message.max-quick-replies and message.max-quick-reply-length; their values are not shown, gap 11). They
 * come from the user's profile when known (docs/configuration.md, "Keys": `limits`).
 */
export interface Limits {
  /** The server's message.max-quick-replies: the most quick replies one message may carry. */
  maxQuickReplies?: number;
  /** The server's message.max-quick-reply-length: the longest text of one quick reply. */
  maxQuickReplyLength?: number;
}

/** Keeps only limits that are non-negative whole numbers; anything else is treated as unknown. */
export function usableLimits(limits: Limits | undefined): Limits {
  const out: Limits = {};
  const ok = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (ok(limits?.maxQuickReplies)) out.maxQuickReplies = limits.maxQuickReplies;
  if (ok(limits?.maxQuickReplyLength)) out.maxQuickReplyLength = limits.maxQuickReplyLength;
  return out;
}

/**
 * Said in the description of every payload's JSON Schema: `maxLength` there counts Unicode code
 * points, while the service (and these schemas' own checks, see checks.ts) counts UTF-16 code units.
 */
export const LENGTH_NOTE =
  "Lengths are counted as the service counts them, in UTF-16 code units, while JSON Schema's maxLength counts code points: a character outside the Basic Multilingual Plane, such as an emoji, counts 2, so a text within maxLength here can still be too long.";

export const codeSchema = z
  .enum(CODES)
  .check(
    z.describe(
      'UNCLEAR_QUESTION: the bot did not understand the question and passes it to an agent. SWITCH_TO_HUMAN: the dialog moves to an agent. SUCCESS: the bot handled the message and sent a reply.',
    ),
  );

const RECEIVED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const EXAMPLE_TIME = '2026-01-31T09:30:00.000Z';

/**
 * A time in the form of RECEIVED_AT that can exist, as far as a pattern can tell: months 01 to 12,
 * days up to 30 or 31 as the month has them and up to 29 in February, hours to 23, minutes and
 * seconds to 59. It is the JSON Schema's `pattern` of receivedAt; the one thing it leaves to words
 * is 29 February of a year that is not a leap year, which `isRealTime` checks besides.
 */
const REAL_TIME_PATTERN =
  '^\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|[12]\\d))' +
  'T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d\\.\\d{3}Z$';
const REAL_TIME = new RegExp(REAL_TIME_PATTERN, 'u');

function isRealTime(value: string): boolean {
  if (!REAL_TIME.test(value)) return false;
  const year = Number(value.slice(0, 4));
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return leap || !value.startsWith('-02-29', 4);
}

/**
 * receivedAt: "Time of receipt, UTC, format yyyy-MM-ddTHH:mm:ss.SSSZ" (docs/api.md, answer rule 4).
 * Exactly that form: UTC with a literal Z and three digits of milliseconds, and a time that exists
 * (no 30 February, no hour 24). The CLI turns `now` into such a time before validating.
 */
export const receivedAtSchema = z.string().check(
  z.regex(RECEIVED_AT, {
    error: (issue) => `expected a UTC time as yyyy-MM-ddTHH:mm:ss.SSSZ, such as ${EXAMPLE_TIME}, got ${JSON.stringify(issue.input)}`,
  }),
  rule(
    (value, ctx) => {
      if (typeof value === 'string' && RECEIVED_AT.test(value) && !isRealTime(value)) {
        report(ctx, [], `not a real date and time, got ${JSON.stringify(value)}`, value);
      }
    },
    (payload) => typeof payload.value === 'string',
  ),
  z.meta({
    description: `Time of receipt, UTC, format yyyy-MM-ddTHH:mm:ss.SSSZ (for example ${EXAMPLE_TIME}); the date must exist, and 29 February only in a leap year, which the pattern does not check.`,
    // Replaces the pattern of RECEIVED_AT, which checks the form alone.
    pattern: REAL_TIME_PATTERN,
  }),
);

const blockInputSchema = z
  .boolean()
  .check(z.describe('true: the message input field is blocked; false: not blocked. Works only with quick replies (chatbot rule 4).'));
const maskedSchema = z.boolean().check(z.describe('true: digits in the linked client message are masked; false: not masked.'));

/** docs/api.md, "Bot answer", settings: extra message settings. */
export const replySettingsSchema = z
  .strictObject({ blockInput: z.optional(blockInputSchema), masked: z.optional(maskedSchema) })
  .check(z.describe('Extra message settings. blockInput has an effect only with quick replies (warning otherwise).'));
export type ReplySettings = z.output<typeof replySettingsSchema>;

/**
 * docs/api.md, "Greeting", settings: the table lists only blockInput, but "A greeting-style example also sends
 * settings.masked", so masked is accepted as well. Same field schemas as the reply's settings.
 */
export const greetingSettingsSchema = z
  .strictObject({ blockInput: z.optional(blockInputSchema), masked: z.optional(maskedSchema) })
  .check(
    z.describe(
      'Extra message settings. blockInput blocks the input field and works only with quick replies; masked is sent by a greeting-style example.',
    ),
  );
export type GreetingSettings = z.output<typeof greetingSettingsSchema>;

/**
 * docs/api.md, chatbot rule 4 (and "Greeting", settings.blockInput): blocking the input has an effect only
 * with quick replies. Sending it without any is harmless but does nothing, so it is a warning.
 */
export function blockInputWarnings(root: unknown): RawProblem[] {
  if (!isRecord(root) || !isRecord(root.settings) || root.settings.blockInput !== true) return [];
  const replies = root.quickReplies;
  if (Array.isArray(replies) && replies.length > 0) return [];
  return [
    {
      path: ['settings', 'blockInput'],
      message: "has an effect only with quick replies, and this message has none (the API's chatbot rule 4)",
    },
  ];
}

/**
 * segmentationInfo: `Map<String,String>` (docs/api.md, answer rule 5). personal_manager is one key among
 * any; keys and values are non-empty, as nowhere does the API give an empty string a meaning (gap 20).
 */
export const segmentationInfoSchema = z
  .record(
    z.string().check(nonEmpty(), z.meta({ minLength: 1 })),
    z.string().check(nonEmpty(), z.meta({ description: 'A segmentation parameter value.', minLength: 1 })),
  )
  .check(
    z.describe(
      'Extra segmentation parameters (string to string), used by custom and preconfigured segments. personal_manager: an agent login; with a route configured for it, threads go to that personal manager.',
    ),
  );

export const actionSchema = text(
  'Carried with the value INIT_CHAT in a greeting-style example (chatbot rule 5). Other allowed values are not shown; any other value is sent with a warning.',
);

/** Any action other than INIT_CHAT may be valid, but the API does not show it (docs/api.md, gap 4): a warning, not an error. */
export function actionWarnings(root: unknown): RawProblem[] {
  if (!isRecord(root) || typeof root.action !== 'string' || root.action === '') return [];
  if ((KNOWN_ACTIONS as readonly string[]).includes(root.action)) return [];
  return [
    {
      path: ['action'],
      message: `${JSON.stringify(root.action)} is not a known action; the API shows only INIT_CHAT (its chatbot rule 5)`,
    },
  ];
}

/** clientId: "External client ID. Deprecated. Fits authorized clients only." */
export const clientIdSchema = text('External client ID. Deprecated: use coreClientId. Fits authorized clients only.').check(
  z.meta({ deprecated: true }),
);

export const coreClientIdSchema = longSchema.check(
  z.describe('Internal client ID. Fits authorized and unauthorized clients. Preferred for all new integrations.'),
);

/** docs/api.md, addressing rule 3: clientId is deprecated in favour of coreClientId. */
export function clientIdWarnings(root: unknown): RawProblem[] {
  if (!isRecord(root) || !has(root, 'clientId')) return [];
  return [{ path: ['clientId'], message: 'deprecated: use coreClientId, which fits every client' }];
}
