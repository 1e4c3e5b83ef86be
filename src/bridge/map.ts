import * as z from 'zod/mini';
import type { Problem } from '../errors.js';
import { channelOf, CHANNEL_LIST } from '../payload/channels.js';
import { isRecord, parseJson } from '../payload/json.js';
import type { BridgedMessage } from '../sandbox/state.js';

/**
 * Where a bridge finds a customer message in the real platform's MESSAGE webhook (docs/bridge.md,
 * "The mapping"). The API does not show the real webhook's body: by default the bridge reads the
 * sandbox's own format (docs/sandbox.md, "The MESSAGE webhook"); `--webhook-map FILE` names, as JSON
 * pointers (RFC 6901), where each field is in a platform that differs. A field the file leaves out
 * is read where the sandbox's format has it.
 */

export const MAPPED_FIELDS = ['questionId', 'sessionId', 'questionIndex', 'coreClientId', 'clientId', 'channel', 'type', 'text'] as const;
export type MappedField = (typeof MAPPED_FIELDS)[number];
export type WebhookMap = Record<MappedField, string>;

/** The sandbox's own format: what a bridge reads without a mapping. */
export const DEFAULT_WEBHOOK_MAP: WebhookMap = {
  questionId: '/message/questionId',
  sessionId: '/message/sessionId',
  questionIndex: '/message/questionIndex',
  coreClientId: '/message/coreClientId',
  clientId: '/message/clientId',
  channel: '/message/channel',
  type: '/message/type',
  text: '/message/text',
};

/** A JSON pointer: empty (the whole document) or `/` followed by reference tokens, `~` only as `~0` or `~1`. */
const POINTER = /^(?:\/(?:[^~/]|~[01])*)*$/;

const pointer = z
  .string({ error: 'must be a JSON pointer string such as /message/questionId' })
  .check(z.regex(POINTER, { error: 'must be a JSON pointer: empty, or / followed by names, with ~ written ~0 and / written ~1' }));

/** The mapping file: any of the fields, each a JSON pointer; nothing else. */
export const webhookMapSchema = z.strictObject(
  Object.fromEntries(MAPPED_FIELDS.map((field) => [field, z.optional(pointer)])) as Record<MappedField, z.ZodMiniOptional<typeof pointer>>,
  { error: `must be a mapping of ${MAPPED_FIELDS.join(', ')} to JSON pointers` },
);

/** The mapping a file holds, every field it leaves out read as the sandbox's format has it; or its problems. */
export function webhookMapOf(raw: unknown): { ok: true; map: WebhookMap } | { ok: false; problems: Problem[] } {
  const parsed = webhookMapSchema.safeParse(raw);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message:
          issue.code === 'unrecognized_keys'
            ? `unknown field ${issue.keys.join(', ')}; the fields are ${MAPPED_FIELDS.join(', ')}`
            : issue.message,
      })),
    };
  }
  const given = Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined)) as Partial<WebhookMap>;
  return { ok: true, map: { ...DEFAULT_WEBHOOK_MAP, ...given } };
}

/** The value a JSON pointer names in a document, or undefined when it names nothing. */
export function atPointer(document: unknown, at: string): unknown {
  if (at === '') return document;
  let value = document;
  for (const token of at.slice(1).split('/')) {
    const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value) && /^(?:0|[1-9]\d*)$/.test(key)) value = value[Number(key)];
    else if (isRecord(value) && Object.hasOwn(value, key)) value = value[key];
    else return undefined;
  }
  return value;
}

/** An integer identifier as it may be written: a JSON integer, or a string of digits. */
function integer(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) return BigInt(value);
  return undefined;
}

/**
 * A delivery's body read as a customer message through the mapping; or why it cannot be (the
 * bridge then passes it on as it came and records it as such).
 */
export function readDelivery(bytes: Buffer, map: WebhookMap): { ok: true; message: BridgedMessage } | { ok: false; problem: string } {
  let document: unknown;
  try {
    document = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    return { ok: false, problem: `the body is not JSON: ${(error as Error).message}` };
  }
  const problems: string[] = [];
  const read = <T>(field: MappedField, convert: (value: unknown) => T | undefined, what: string, optional = false): T | undefined => {
    const value = atPointer(document, map[field]);
    if (value === undefined || value === null) {
      if (!optional) problems.push(`${field}: nothing at ${map[field] || '(the whole body)'}`);
      return undefined;
    }
    const converted = convert(value);
    if (converted === undefined) problems.push(`${field} at ${map[field]}: ${what}`);
    return converted;
  };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const questionId = read('questionId', integer, 'not an integer');
  const sessionId = read('sessionId', (value) => (typeof value === 'string' && value !== '' ? value : undefined), 'not a non-empty string');
  const questionIndex = read('questionIndex', integer, 'not an integer', true);
  const coreClientId = read('coreClientId', integer, 'not an integer');
  const clientId = read('clientId', text, 'not a string', true);
  const channel = read('channel', channelOf, `not a channel (${CHANNEL_LIST})`);
  const type = read('type', (value) => (value === 'TEXT' || value === 'EMAIL' ? value : undefined), 'not TEXT or EMAIL');
  const words = read('text', text, 'not a string');
  if (problems.length > 0) return { ok: false, problem: `not read as a customer message: ${problems.join('; ')}` };
  return {
    ok: true,
    message: {
      questionId: questionId!,
      sessionId: sessionId!,
      // A platform that numbers no questions: each its own, counted by the bridge from 1.
      questionIndex: questionIndex ?? 1n,
      coreClientId: coreClientId!,
      clientId: clientId ?? null,
      channel: channel!,
      questionType: type!,
      text: words!,
    },
  };
}
