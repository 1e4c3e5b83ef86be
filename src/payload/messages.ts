import type * as z from 'zod/mini';
import { isLosslessNumber } from 'lossless-json';
import { suggest } from '../text/suggest.js';
import { InexactNumber } from './inexact.js';

/**
 * The wording of every validation message. A message names the rule and the value or size that
 * broke it (docs/payloads.md: each problem comes "with its path, the rule and the actual value or
 * size"), for example `4,213 characters, limit 4,000`.
 */

/** A path into a payload, as zod reports it: keys and array indexes. */
export type PathSegment = string | number;
export type Path = readonly PathSegment[];

/** A problem before its path is written out; kept as segments so problems can be sorted by path. */
export interface RawProblem {
  path: Path;
  message: string;
}

/** Writes an integer with thousands separators (`4,213`), independent of the machine's locale. */
export function formatCount(value: number | bigint): string {
  const digits = String(value);
  const negative = digits.startsWith('-');
  const body = (negative ? digits.slice(1) : digits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return negative ? `-${body}` : body;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The longest key a path shows whole; a longer one (an unknown field of a megabyte) is cut, with its length. */
const MAX_KEY_SHOWN = 60;

/** Writes a path the way users read it: `quickReplies[0].text`; keys that are not names are quoted, and long ones cut. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && segment.length > MAX_KEY_SHOWN) {
      out += `[${JSON.stringify(segment.slice(0, MAX_KEY_SHOWN - 3)).slice(0, -1)}…" (${formatCount(segment.length)} characters)]`;
    } else if (typeof segment === 'string' && IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

/** Orders paths segment by segment, with indexes compared as numbers, so `[2]` comes before `[10]`. */
export function comparePaths(a: Path, b: Path): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

const MAX_SHOWN = 60;

/**
 * A number as written, cut when long: a million-digit coreClientId is named by its first digits and
 * its length, so that a message (and the sandbox's 400 answer and its log line) stays one short line.
 */
function cut(written: string): string {
  if (written.length <= MAX_SHOWN) return written;
  const digits = /^-?\d+$/.test(written) ? written.replace('-', '').length : undefined;
  const size = digits === undefined ? `${formatCount(written.length)} characters` : `${formatCount(digits)} digits`;
  return `${written.slice(0, MAX_SHOWN - 3)}… (${size})`;
}

/** Shows a value after "got": strings quoted (and cut when long), numbers as written (cut when long), containers by kind. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string': {
      if (value.length <= MAX_SHOWN) return JSON.stringify(value);
      return `${JSON.stringify(value.slice(0, MAX_SHOWN - 3)).slice(0, -1)}…" (${formatCount(value.length)} characters)`;
    }
    case 'number':
    case 'bigint':
      return cut(String(value));
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'nothing';
    case 'object':
      if (value === null) return 'null';
      if (value instanceof InexactNumber) return `${cut(value.value)} (which reads as ${value.read}: a number keeps 15 to 17 digits)`;
      // An integer too long to be read as a bigint (inexact.ts), as written.
      if (isLosslessNumber(value)) return cut(value.value);
      return Array.isArray(value) ? 'an array' : 'an object';
    default:
      return `a ${typeof value}`;
  }
}

const NOUNS: Record<string, string> = {
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  bigint: 'an integer',
  int: 'an integer',
  number: 'a number',
  null: 'null',
};

function lengthOf(input: unknown): number | undefined {
  if (typeof input === 'string' || Array.isArray(input)) return input.length;
  return undefined;
}

function unitsFor(origin: string, count: number): string {
  if (origin === 'string') return `${formatCount(count)} ${count === 1 ? 'character' : 'characters'}`;
  return `${formatCount(count)} ${count === 1 ? 'item' : 'items'}`;
}

/**
 * The message of every zod issue that a schema does not word itself. It is handed to `safeParse` as
 * the per-parse error map, so the schemas stay free of wording and any caller gets the same text.
 */
export const payloadErrorMap: z.core.$ZodErrorMap = (issue) => {
  const input = issue.input;
  switch (issue.code) {
    case 'invalid_type':
      // A missing field arrives as undefined; a missing whole payload is not "required" but absent.
      if (input === undefined && (issue.path?.length ?? 0) > 0) return 'required';
      return `expected ${NOUNS[issue.expected] ?? issue.expected}, got ${describeValue(input)}`;
    case 'invalid_value': {
      const values = issue.values.map((v) => String(v)).join(', ');
      if (input === undefined) return `required: one of ${values}`;
      return `must be one of ${values}, got ${describeValue(input)}`;
    }
    case 'too_small': {
      const count = lengthOf(input);
      if (Number(issue.minimum) === 1 && count === 0) return 'must not be empty';
      if (count !== undefined) return `${unitsFor(issue.origin, count)}, at least ${formatCount(issue.minimum)}`;
      return `must be at least ${formatCount(issue.minimum)}, got ${describeValue(input)}`;
    }
    case 'too_big': {
      const count = lengthOf(input);
      if (count !== undefined) return `${unitsFor(issue.origin, count)}, limit ${formatCount(issue.maximum)}`;
      return `must be at most ${formatCount(issue.maximum)}, got ${describeValue(input)}`;
    }
    case 'invalid_format':
      return `invalid format, got ${describeValue(input)}`;
    case 'unrecognized_keys':
      return 'unknown field';
    case 'invalid_key':
      return 'invalid key';
    default:
      return `invalid value, got ${describeValue(input)}`;
  }
};

/** The known field closest to an unknown one, when it is close enough to be a likely typo (src/text/suggest.ts). */
export function closestField(unknown: string, known: readonly string[]): string | undefined {
  return suggest(unknown, known);
}

/** The message for an unknown field, with the suggestion when there is one. */
export function unknownFieldMessage(key: string, known: readonly string[]): string {
  const suggestion = closestField(key, known);
  return suggestion === undefined ? 'unknown field' : `unknown field; did you mean "${suggestion}"?`;
}
