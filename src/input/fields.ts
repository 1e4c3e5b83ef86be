import { PayloadError, UsageError } from '../errors.js';
import { isRecord } from '../payload/json.js';

/**
 * Turning flag values into payload fields. Values are passed on as given where they are wrong, so
 * the payload schema (the single source of every rule) reports them with their path.
 */

/** An identifier flag: an integer becomes a bigint (exact to the last digit; the schema refuses a negative one); anything else stays a string for the schema to reject. */
export function idFromFlag(value: string): bigint | string {
  const text = value.trim();
  return /^-?\d+$/.test(text) ? BigInt(text) : value;
}

export type QuickReplyFlag = { type: 'TEXT' | 'CONTACT'; text: string };

/**
 * The start of a payload built from `-f FILE` and flags: a copy of the file's object (flags then
 * override its fields, docs/commands/reply.md, `-f`), or an empty object without a file.
 * `what` names the payload in the error, such as "the bot answer".
 */
export function payloadFromFile(file: unknown, what: string): Record<string, unknown> {
  if (file === undefined) return {};
  if (!isRecord(file)) {
    throw new PayloadError(`the payload file must hold a JSON object (${what})`, [
      { path: '', message: `expected an object, got ${Array.isArray(file) ? 'an array' : typeof file}` },
    ]);
  }
  return withoutEditorKeys(file);
}

/**
 * The key an editor reads a file's JSON Schema from. A payload file may carry it (docs/payloads.md,
 * "Payload files"); it is not part of the API, so it is dropped, whatever its value, and never sent.
 */
export const SCHEMA_KEY = '$schema';

/**
 * The key as the JSON Schema of a payload file states it (src/schema/json-schema.ts): any value, as
 * `withoutEditorKeys` drops it unread. A value that is not a string names no schema to an editor,
 * but refusing it would stop a send over a key core never reads.
 */
export const SCHEMA_KEY_JSON_SCHEMA = {
  description:
    'Ignored by core and never sent, whatever its value: the URL or path of this JSON Schema, for editors that read it from the file.',
};

/** Whether `value` holds a key that only editors read (see `withoutEditorKeys`). */
export function hasEditorKeys(value: Record<string, unknown>): boolean {
  return Object.prototype.hasOwnProperty.call(value, SCHEMA_KEY);
}

/** A copy of a payload read from a file, without the keys that are for editors only. */
export function withoutEditorKeys(value: Record<string, unknown>): Record<string, unknown> {
  const { [SCHEMA_KEY]: _schema, ...rest } = value;
  return rest;
}

/** Sets a field when the flag was given; an absent flag leaves the file's value alone. */
export function setField(payload: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) payload[key] = value;
}

/**
 * `--quick-reply` / `--contact-reply`, in the order typed. They replace the file's whole list, as
 * every repeatable flag does; the shape is docs/api.md, "Quick reply" (type and text).
 */
export function applyQuickReplyFlags(payload: Record<string, unknown>, flags: QuickReplyFlag[] | undefined): void {
  if (flags?.length) payload.quickReplies = flags.map((q) => ({ type: q.type, text: q.text }));
}

/** `--block-input` and `--masked` set keys inside the file's settings object and keep its others. */
export function applySettingsFlags(payload: Record<string, unknown>, flags: { blockInput?: boolean; masked?: boolean }): void {
  if (!flags.blockInput && !flags.masked) return;
  const settings = isRecord(payload.settings) ? { ...payload.settings } : {};
  if (flags.blockInput) settings.blockInput = true;
  if (flags.masked) settings.masked = true;
  payload.settings = settings;
}

/** `receivedAt: now` (from a flag or the file) becomes the current time, with a note for --verbose. */
export function applyReceivedAt(payload: Record<string, unknown>, now: Date, notes: string[]): void {
  if (payload.receivedAt === undefined) return;
  const resolved = resolveNow(payload.receivedAt, now);
  if (resolved !== payload.receivedAt) notes.push(`receivedAt "now" is ${String(resolved)}`);
  payload.receivedAt = resolved;
}

/** Parses `--segment KEY=VALUE`. */
export function parseSegment(value: string): [string, string] {
  const at = value.indexOf('=');
  if (at <= 0) throw new UsageError(`--segment takes KEY=VALUE, got "${value}"`, { hint: 'for example --segment region=north' });
  return [value.slice(0, at), value.slice(at + 1)];
}

/** The timestamp format of receivedAt (docs/api.md, answer rule 4): yyyy-MM-ddTHH:mm:ss.SSSZ, UTC. */
export function timestamp(date: Date): string {
  return date.toISOString();
}

/** `now` in receivedAt, in any case and with spaces around (`\s` is what `trim` removes). */
const NOW_PATTERN = '^\\s*[Nn][Oo][Ww]\\s*$';
const NOW = new RegExp(NOW_PATTERN, 'u');

/** `now` in receivedAt, from a flag or a file, becomes the current time in the API's format. */
export function resolveNow(value: unknown, now: Date): unknown {
  return typeof value === 'string' && NOW.test(value) ? timestamp(now) : value;
}

/**
 * receivedAt as the JSON Schema of a payload file states it (src/schema/json-schema.ts): a time as the
 * API takes it (the payload schema's own JSON Schema), or `now`, which `resolveNow` turns into one.
 */
export function receivedAtInFile(json: Record<string, unknown>): void {
  const pattern = json.pattern;
  delete json.pattern;
  json.anyOf = [
    { pattern, description: 'A time as the API takes it, sent as written.' },
    { pattern: NOW_PATTERN, description: 'now, in any case: core sends the current time in its place.' },
  ];
}

/**
 * An attachment from `--attachment URL`: the file name is the URL's last path segment and the MIME
 * type is looked up from its extension, so an image displays correctly (docs/api.md, attachment rule 2).
 */
export async function attachmentFromUrl(url: string): Promise<Record<string, string>> {
  const attachment: Record<string, string> = { url };
  let name: string | undefined;
  try {
    const parsed = new URL(url);
    const last = parsed.pathname.split('/').filter(Boolean).pop();
    if (last) name = safeDecode(last);
  } catch {
    return attachment; // The schema reports the URL.
  }
  if (name) {
    attachment.name = name;
    const { default: mime } = await import('mime/lite');
    const type = mime.getType(name);
    if (type) attachment.type = type;
  }
  return attachment;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export { isRecord };
