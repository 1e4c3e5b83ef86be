import type { Problem } from '../errors.js';
import { parseJson, stringifyJson } from '../payload/json.js';
import {
  CRAFTS,
  notDeliveredReasons,
  queuedReasons,
  type DeliveryInFlight,
  type EventOf,
  type EventType,
  type SandboxEvent,
} from './events.js';

/**
 * The JSON form of an event (docs/sandbox.md, "Events"): one JSON object, every field of its type,
 * identifiers (bigint) written as exact JSON numbers. It is what GET /_sandbox/events sends as an
 * event's `data:`, what GET /_sandbox/conversations/{sessionId} and /_sandbox/messages list, and
 * one line of a log written to a file. `eventJson` writes it; `readEvent` takes it back, as the
 * lossless reader (src/payload/json.ts) gives it, into the same `SandboxEvent`: the numbers of an
 * event (seq, status, attempt, ...) back to numbers, its identifiers bigint, each field checked
 * against its type.
 *
 * The table below names every field of every type with how it is read; the compiler holds it to the
 * types of src/sandbox/events.ts (a field added there and not here, or read as the wrong kind, does
 * not compile).
 */

/** How one field is read. A list is the values a field may take (null among them when it may be null). */
type Kind =
  | 'string'
  | 'string?'
  | 'number'
  | 'number?'
  | 'bigint'
  | 'bigint?'
  | 'boolean'
  | 'bigints'
  | 'strings'
  | 'problems'
  | 'deliveries'
  | 'object'
  | 'object?'
  | 'any'
  | 'string or absent'
  | readonly (string | null)[];

/** The kind a field of type V must be read as. */
type KindOf<V> = unknown extends V
  ? 'any'
  : undefined extends V
    ? [V] extends [string | undefined]
      ? 'string or absent'
      : never
    : [V] extends [string]
      ? string extends V
        ? 'string'
        : readonly V[]
      : [V] extends [string | null]
        ? string extends V
          ? 'string?'
          : readonly V[]
        : [V] extends [number]
          ? 'number'
          : [V] extends [number | null]
            ? 'number?'
            : [V] extends [bigint]
              ? 'bigint'
              : [V] extends [bigint | null]
                ? 'bigint?'
                : [V] extends [boolean]
                  ? 'boolean'
                  : [V] extends [readonly bigint[]]
                    ? 'bigints'
                    : [V] extends [readonly string[]]
                      ? 'strings'
                      : [V] extends [readonly Problem[]]
                        ? 'problems'
                        : [V] extends [readonly DeliveryInFlight[]]
                          ? 'deliveries'
                          : [V] extends [object]
                            ? 'object'
                            : [V] extends [object | null]
                              ? 'object?'
                              : never;

type FieldsOf<T extends EventType> = { readonly [K in Exclude<keyof EventOf<T>, 'type'>]-?: KindOf<EventOf<T>[K]> };

const base = { seq: 'number', tenant: 'string', time: 'string' } as const;
const CHANNEL = ['WEB', 'IM', 'EMAIL'] as const;
const QUEUED = Object.values(queuedReasons);
const NOT_DELIVERED = [...Object.values(notDeliveredReasons), null] as const;
const message = {
  ...base,
  requestId: 'string',
  status: 'number',
  error: 'string?',
  answerId: 'string?',
  addressedBy: 'strings',
  delivered: 'boolean',
  notDelivered: NOT_DELIVERED,
  questionAlreadyAnswered: 'boolean',
  coreClientId: 'bigint?',
  warnings: 'problems',
  body: 'any',
  userAgent: 'string?',
  during: 'deliveries',
} as const;

const FIELDS: { readonly [T in EventType]: FieldsOf<T> } = {
  'conversation.started': {
    ...base,
    sessionId: 'string',
    channel: CHANNEL,
    coreClientId: 'bigint',
    clientId: 'string?',
    by: ['customer', 'reply', 'greeting'],
    subject: 'string or absent',
  },
  'customer.message': {
    ...base,
    sessionId: 'string',
    channel: CHANNEL,
    coreClientId: 'bigint',
    clientId: 'string?',
    questionId: 'bigint',
    questionIndex: 'bigint',
    questionType: ['TEXT', 'EMAIL'],
    text: 'string',
    quickReply: 'object?',
    listItem: 'object?',
    deliveryId: 'string?',
    noWebhook: 'string?',
  },
  'bot.answer': {
    ...message,
    sessionId: 'string?',
    kind: ['reply'],
    questionId: 'bigint?',
    questionIndex: 'bigint?',
    formattedHtml: 'string?',
  },
  greeting: { ...message, sessionId: 'string?', kind: ['greeting'] },
  handover: {
    ...base,
    sessionId: 'string?',
    scope: ['thread', 'question'],
    code: ['SWITCH_TO_HUMAN', 'UNCLEAR_QUESTION'],
    questionId: 'bigint?',
    questionIndex: 'bigint?',
    userIds: 'bigints',
    skillIds: 'bigints',
    unitIds: 'bigints',
    requestId: 'string',
  },
  released: { ...base, sessionId: 'string', questions: 'number', thread: 'boolean' },
  'webhook.redelivery': { ...base, sessionId: 'string', deliveryId: 'string', questionId: 'bigint', redelivery: 'number' },
  'webhook.attempt': {
    ...base,
    sessionId: 'string?',
    deliveryId: 'string',
    questionId: 'bigint',
    attempt: 'number',
    redelivery: 'number',
    url: 'string',
    status: 'number?',
    error: 'string?',
    latencyMs: 'number',
    body: 'string',
    bodyTruncated: 'boolean',
    outcome: ['delivered', 'retrying', 'failed'],
    retryInMs: 'number?',
    retryAfter: 'boolean',
    craft: [...CRAFTS, null],
  },
  'api.request': {
    ...base,
    sessionId: 'string?',
    scope: ['conversation', 'delivery', 'tenant', 'sandbox'],
    method: 'string',
    path: 'string',
    status: 'number',
    requestId: 'string',
    error: 'string?',
    named: 'object',
    userAgent: 'string?',
    during: 'deliveries',
  },
  'reason.updated': { ...base, sessionId: 'string?', requestId: 'string', code: 'string', reason: 'any' },
  'bridge.forward': {
    ...base,
    sessionId: 'string?',
    requestId: 'string',
    method: 'string',
    path: 'string',
    localStatus: 'number',
    forcedInvalid: 'boolean',
    status: 'number?',
    error: 'string?',
    body: 'string',
    bodyTruncated: 'boolean',
    latencyMs: 'number',
  },
  'bridge.webhook': {
    ...base,
    sessionId: 'string?',
    signature: ['verified', 'failed', 'unchecked'],
    problem: 'string',
    botStatus: 'number?',
    error: 'string?',
    bodyBytes: 'number',
  },
  'handover.routed': {
    ...base,
    sessionId: 'string',
    scope: ['thread', 'question'],
    questionId: 'bigint?',
    agentId: 'bigint',
    agentName: 'string',
    matched: 'strings',
    fromQueue: 'boolean',
  },
  'handover.queued': {
    ...base,
    sessionId: 'string',
    scope: ['thread', 'question'],
    questionId: 'bigint?',
    why: QUEUED,
  },
  'agent.status': { ...base, sessionId: 'string?', agentId: 'bigint', agentStatus: ['online', 'away'], reason: 'string?' },
  'agent.message': { ...base, sessionId: 'string', agentId: 'bigint', agentName: 'string', text: 'string' },
  'probe.check': { ...base, sessionId: 'string', check: 'string', verdict: ['pass', 'fail', null], message: 'string?' },
  'sandbox.reset': { ...base, sessionId: 'string?' },
};

/** The event types, in the order of docs/sandbox.md's table. */
export const EVENT_TYPES = Object.keys(FIELDS) as EventType[];

/** The fields of an event of each type, `type` aside, for a reader that lists them. */
export function fieldsOf(type: EventType): string[] {
  return Object.keys(FIELDS[type]);
}

/** An event in its JSON form: one line, identifiers exact. */
export function eventJson(event: SandboxEvent): string {
  return stringifyJson(event);
}

/** A value that is not an event of the sandbox: `path` names the field (empty for the value itself). */
export class EventReadError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
    this.name = 'EventReadError';
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** One field read as its kind: the value to keep, or undefined when it is not of that kind. */
function readField(kind: Kind, value: unknown): unknown {
  if (typeof kind !== 'string') return kind.includes(value as string | null) ? value : undefined;
  const nullable = kind.endsWith('?');
  if (nullable && value === null) return null;
  switch (kind) {
    case 'string':
    case 'string?':
    case 'string or absent':
      return typeof value === 'string' ? value : undefined;
    case 'number':
    case 'number?':
      // The lossless reader gives every integer as a bigint: an event's numbers are all within 2^53.
      if (typeof value === 'bigint') return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : undefined;
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'bigint':
    case 'bigint?':
      return typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value as number) : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'bigints':
      return Array.isArray(value) && value.every((item) => typeof item === 'bigint') ? value : undefined;
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
    case 'problems':
      return Array.isArray(value) &&
        value.every((item) => isObject(item) && typeof item.path === 'string' && typeof item.message === 'string')
        ? value
        : undefined;
    case 'deliveries':
      return Array.isArray(value) && value.every(isDelivery) ? value.map(readDelivery) : undefined;
    case 'object':
    case 'object?':
      return isObject(value) ? value : undefined;
    case 'any':
      return value;
  }
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

const isDelivery = (value: unknown): boolean =>
  isObject(value) &&
  typeof value.sessionId === 'string' &&
  typeof value.deliveryId === 'string' &&
  (typeof value.questionId === 'bigint' || Number.isSafeInteger(value.questionId));

const readDelivery = (value: Record<string, unknown>): DeliveryInFlight => ({
  sessionId: value.sessionId as string,
  questionId: BigInt(value.questionId as bigint | number),
  deliveryId: value.deliveryId as string,
});

const describeKind = (kind: Kind): string =>
  typeof kind !== 'string'
    ? `one of ${kind.map((value) => JSON.stringify(value)).join(', ')}`
    : {
        string: 'a string',
        'string?': 'a string or null',
        number: 'a number',
        'number?': 'a number or null',
        bigint: 'an integer',
        'bigint?': 'an integer or null',
        boolean: 'true or false',
        bigints: 'an array of integers',
        strings: 'an array of strings',
        problems: 'an array of {path, message}',
        deliveries: 'an array of {sessionId, questionId, deliveryId}',
        object: 'an object',
        'object?': 'an object or null',
        any: 'any value',
        'string or absent': 'a string, or absent',
      }[kind];

/**
 * The event a JSON value holds, as the lossless reader gives it: the value itself, its numbers made
 * numbers again (it is changed in place). Throws EventReadError naming the first field that is
 * missing or not of its type, or the unknown type; fields the type does not have are kept as they are.
 */
export function readEvent(value: unknown): SandboxEvent {
  if (!isObject(value)) throw new EventReadError('', 'an event is a JSON object');
  checkFields(value);
  return value;
}

/** Reads every field of the value's type (see readEvent), or throws EventReadError. */
function checkFields(value: Record<string, unknown>): asserts value is Record<string, unknown> & SandboxEvent {
  const type = value.type;
  if (typeof type !== 'string' || !Object.hasOwn(FIELDS, type)) {
    throw new EventReadError('type', `${JSON.stringify(type) ?? 'absent'} is not a type of event (${EVENT_TYPES.join(', ')})`);
  }
  const fields = FIELDS[type as EventType] as Readonly<Record<string, Kind>>;
  for (const name in fields) {
    const kind = fields[name]!;
    const given = value[name];
    if (kind === 'string or absent' && !(name in value)) continue;
    const read = readField(kind, given);
    if (read === undefined || !(name in value)) throw new EventReadError(name, `${shown(value, name)}: must be ${describeKind(kind)}`);
    if (read !== given) value[name] = read;
  }
}

/** A field's value for a message: its JSON, cut at 60 characters. */
function shown(value: Record<string, unknown>, name: string): string {
  if (!(name in value)) return 'absent';
  const text = stringifyJson(value[name]) ?? String(value[name]);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/** An event from its JSON text (a line of a log, the `data:` of the event stream). Throws EventReadError or the JSON reader's SyntaxError. */
export function parseEvent(text: string): SandboxEvent {
  return readEvent(parseJson(text));
}

/** A run of 16 digits or more: an integer a JavaScript number may not hold exactly (or digits in a string). */
const LONG_DIGITS = /\d{16}/;

/**
 * An event from a line the sandbox wrote itself (a line of a state file): the value `parseEvent` gives,
 * read faster, for a start that replays many thousands of lines. The sandbox writes every line with
 * `eventJson`, so its numbers are integers written in full (or numbers with a fraction): the engine's
 * JSON.parse without a reviver reads them exactly while no run of 16 digits is in the line, and a
 * walk makes each integer a bigint, as the lossless reader gives it. A line with such a run, and a
 * line the engine refuses, goes through `parseEvent` (whose messages say where the text is wrong);
 * every field is checked against its type either way, so a damaged line is refused as before.
 * A key repeated in an object keeps its last value here (the sandbox never writes one twice).
 */
export function parseWrittenEvent(text: string): SandboxEvent {
  if (LONG_DIGITS.test(text)) return parseEvent(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseEvent(text);
  }
  if (typeof value === 'object' && value !== null) integersAsBigints(value as Record<string, unknown>);
  return readEvent(value);
}

/** Makes every integer of a parsed value a bigint, in place, as the lossless reader reads it. */
function integersAsBigints(value: Record<string, unknown> | unknown[]): void {
  if (Array.isArray(value)) {
    for (let at = 0; at < value.length; at += 1) {
      const item: unknown = value[at];
      if (typeof item === 'number') {
        if (Number.isInteger(item)) value[at] = BigInt(item);
      } else if (typeof item === 'object' && item !== null) integersAsBigints(item as Record<string, unknown>);
    }
    return;
  }
  for (const key in value) {
    const item = value[key];
    if (typeof item === 'number') {
      if (Number.isInteger(item)) value[key] = BigInt(item);
    } else if (typeof item === 'object' && item !== null) integersAsBigints(item as Record<string, unknown>);
  }
}
