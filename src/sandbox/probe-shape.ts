import type { Problem } from '../errors.js';
import { MAX_CUSTOMER_TEXT } from '../payload/customer-text.js';
import { parseJson } from '../payload/json.js';
import { isRecord } from '../payload/checks.js';

/**
 * The shapes of the `fuzz` craft of POST /_sandbox/probes (docs/sandbox.md, "Probes"): what `core
 * check-bot --fuzz` asks of one delivery beyond its text. The question is recorded as any customer
 * message is (its text, the button pressed or the item picked, a questionId above 2^53 when asked);
 * the bytes sent are the delivery's, then shaped here: files the customer sent, fields no version of
 * the webhook has, and the JSON written in another valid form. Every choice is the caller's, so the
 * same shape of the same delivery is the same bytes: a redelivery (`replay` with the same shape) sends
 * exactly what the first attempt sent.
 */

export interface ProbeFormat {
  indent: 0 | 2 | 4 | '\t';
  spaced: boolean;
  order: 'contract' | 'reversed' | 'sorted';
  escape: 'none' | 'non-ascii' | 'all';
}

export interface ProbeShape {
  attachments: { name: string; type: string | null }[];
  unknownFields: boolean;
  format: ProbeFormat;
}

const FORMAT_CHOICES = {
  indent: [0, 2, 4, '\t'],
  spaced: [true, false],
  order: ['contract', 'reversed', 'sorted'],
  escape: ['none', 'non-ascii', 'all'],
} as const;

/** The fields of POST /_sandbox/probes that shape a delivery, besides craft, sessionId and text. */
export const SHAPE_FIELDS = ['attachments', 'unknownFields', 'format'] as const;
/** The fields of the `fuzz` craft that say what the customer sent. */
export const WORDS_FIELDS = ['quickReply', 'listItem', 'largeIds'] as const;

/** The unknown fields a shaped delivery carries: names and values no version of the webhook uses. */
export const FUZZ_UNKNOWN_TOP = 'futureEnvelope';
export const FUZZ_UNKNOWN_MESSAGE = 'futureFlags';

/** A JSON integer as the sandbox reads it (a bigint) as a number, for the small choices of a format. */
const small = (value: unknown) => (typeof value === 'bigint' ? Number(value) : value);

/** Every problem with the shape fields of a probe's body (absent fields take the plain form). */
export function shapeProblems(body: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const files = body.attachments;
  if (files !== undefined) {
    const valid =
      Array.isArray(files) &&
      files.length <= 10 &&
      files.every(
        (file) =>
          isRecord(file) && typeof file.name === 'string' && file.name !== '' && (file.type === null || typeof file.type === 'string'),
      );
    if (!valid) problems.push({ path: 'attachments', message: 'at most 10 of {"name": non-empty string, "type": string or null}' });
  }
  if (body.unknownFields !== undefined && typeof body.unknownFields !== 'boolean') {
    problems.push({ path: 'unknownFields', message: 'must be true or false' });
  }
  const format = body.format;
  if (format !== undefined) {
    if (!isRecord(format)) problems.push({ path: 'format', message: 'must be an object' });
    else {
      for (const [key, choices] of Object.entries(FORMAT_CHOICES)) {
        const value = small(format[key]) as never;
        if (value !== undefined && !(choices as readonly unknown[]).includes(value)) {
          problems.push({ path: `format.${key}`, message: `use one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}` });
        }
      }
      for (const key of Object.keys(format)) {
        if (!(key in FORMAT_CHOICES))
          problems.push({ path: `format.${key}`, message: `unknown field; format takes ${Object.keys(FORMAT_CHOICES).join(', ')}` });
      }
    }
  }
  return problems;
}

/** Every problem with what the customer sent in a `fuzz` probe: a text (empty only with attachments), a button or an item. */
export function wordsProblems(body: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const text = body.text;
  const files = Array.isArray(body.attachments) && body.attachments.length > 0;
  if (typeof text !== 'string' || text.length > MAX_CUSTOMER_TEXT || (text === '' && !files)) {
    problems.push({ path: 'text', message: `must be a string of at most ${MAX_CUSTOMER_TEXT} characters, empty only with attachments` });
  }
  const button = body.quickReply;
  if (button !== undefined && button !== null && !(isRecord(button) && typeof button.text === 'string' && button.text !== '')) {
    problems.push({ path: 'quickReply', message: 'a quick-reply button, {"type", "text", ...}, or null' });
  }
  const item = body.listItem;
  if (item !== undefined && item !== null && !(isRecord(item) && typeof item.identifier === 'string' && typeof item.title === 'string')) {
    problems.push({ path: 'listItem', message: '{"identifier", "title"}, or null' });
  }
  if (body.largeIds !== undefined && typeof body.largeIds !== 'boolean')
    problems.push({ path: 'largeIds', message: 'must be true or false' });
  return problems;
}

/** The shape a probe's body asks for, absent fields in their plain form. */
export function shapeOf(body: Record<string, unknown>): ProbeShape {
  const format = isRecord(body.format) ? body.format : {};
  return {
    attachments: Array.isArray(body.attachments) ? (body.attachments as ProbeShape['attachments']) : [],
    unknownFields: body.unknownFields === true,
    format: {
      indent: (small(format.indent) as ProbeFormat['indent'] | undefined) ?? 0,
      spaced: format.spaced === true,
      order: (format.order as ProbeFormat['order'] | undefined) ?? 'contract',
      escape: (format.escape as ProbeFormat['escape'] | undefined) ?? 'none',
    },
  };
}

/** Whether a shape changes nothing: the delivery's own bytes are sent. */
export function isPlain(shape: ProbeShape): boolean {
  const { format } = shape;
  return (
    shape.attachments.length === 0 &&
    !shape.unknownFields &&
    format.indent === 0 &&
    !format.spaced &&
    format.order === 'contract' &&
    format.escape === 'none'
  );
}

/** The delivery's body as `shape` says: files, unknown fields, then written in its format. Identifiers stay exact. */
export function shapeBody(body: Buffer, shape: ProbeShape): Buffer {
  if (isPlain(shape)) return body;
  const webhook = parseJson(body.toString('utf8')) as Record<string, unknown>;
  const message = webhook.message as Record<string, unknown>;
  if (shape.attachments.length > 0) {
    message.attachments = shape.attachments.map((file, index) => ({
      url: `https://files.example.com/customer/${index + 1}/${encodeURIComponent(file.name)}`,
      name: file.name,
      ...(file.type === null ? {} : { type: file.type }),
    }));
  }
  if (shape.unknownFields) {
    webhook[FUZZ_UNKNOWN_TOP] = { version: 2, hints: ['a field a later version may add'], nested: { deeper: null } };
    message[FUZZ_UNKNOWN_MESSAGE] = [1, 'two', true, null, { three: 3 }];
  }
  return Buffer.from(writeJson(webhook, shape.format), 'utf8');
}

/**
 * JSON in `format`: valid JSON, the same value, other bytes. Strings are escaped as JSON.stringify
 * does (control characters and lone surrogates as \u escapes), then, as asked, every character above
 * ASCII as \u escapes (pairs as two) and, for `all`, every letter and the solidus too.
 */
export function writeJson(value: unknown, format: ProbeFormat, depth = 0): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string') return writeString(value, format.escape);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const inner = format.indent === 0 ? '' : '\n' + (format.indent === '\t' ? '\t' : ' '.repeat(format.indent)).repeat(depth + 1);
  const outer = format.indent === 0 ? '' : '\n' + (format.indent === '\t' ? '\t' : ' '.repeat(format.indent)).repeat(depth);
  const comma = format.indent === 0 && format.spaced ? ', ' : ',';
  const colon = format.indent !== 0 || format.spaced ? ': ' : ':';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((item) => inner + writeJson(item, format, depth + 1)).join(comma)}${outer}]`;
  }
  const keys = ordered(Object.keys(value), format.order);
  if (keys.length === 0) return '{}';
  const record = value as Record<string, unknown>;
  return `{${keys.map((key) => `${inner}${writeString(key, format.escape)}${colon}${writeJson(record[key], format, depth + 1)}`).join(comma)}${outer}}`;
}

function ordered(keys: string[], order: ProbeFormat['order']): string[] {
  if (order === 'reversed') return [...keys].reverse();
  if (order === 'sorted') return [...keys].sort();
  return keys;
}

const unicodeEscape = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

function writeString(text: string, escape: ProbeFormat['escape']): string {
  const json = JSON.stringify(text);
  if (escape === 'none') return json;
  // Each UTF-16 unit above ASCII (a pair as two escapes, which JSON allows); `all` also the letters and the solidus.
  const escaped = escape === 'all' ? /^(?:[^\x00-\x7F]|[A-Za-z/])$/ : /^[^\x00-\x7F]$/;
  const body = json.slice(1, -1).replace(/\\u[0-9a-fA-F]{4}|\\.|[^\\]/g, (token) => (escaped.test(token) ? unicodeEscape(token) : token));
  return `"${body}"`;
}
