import { isInteger, isLosslessNumber, parse, stringify } from 'lossless-json';
import { readInteger, readNumber } from './inexact.js';

/**
 * JSON that keeps every integer exact. The API's identifiers are Java longs (docs/api.md,
 * identifier rule), and a JavaScript number loses digits past 2^53, so every
 * integer literal is read as a bigint and written back as a plain JSON number. Numbers with a
 * fraction or an exponent stay JavaScript numbers.
 *
 * Two readers give the same value. The engine's JSON.parse is used when it cannot lose anything:
 * every number is an integer of at most 15 digits (so exact as a number, then made a bigint) and no
 * object repeats a key (the lossless reader refuses a repeated key with another value; the engine
 * keeps the last). It is much faster, and its strings are flat from the start. Otherwise the lossless
 * reader (lossless-json) reads it, and every string of its result is flattened (see `flatten`): the
 * sandbox keeps parsed bodies for hours. A text the engine refuses goes to the lossless reader too,
 * whose messages say where the text is wrong.
 */
export function parseJson(text: string, options: { inexact?: boolean } = {}): unknown {
  if (engineReadable(text)) {
    try {
      return JSON.parse(text, integersAsBigint);
    } catch {
      // Not JSON: the lossless reader's message names the position and what was expected.
    }
  }
  // With `inexact`, for a text that holds identifiers: a number whose written digits are lost to an
  // integer (1.9999999999999999 reads as 2) is kept as an InexactNumber, which validation refuses.
  const number = options.inexact === true ? readNumber : Number;
  const value = parse(text, null, (literal: string) => (isInteger(literal) ? readInteger(literal) : number(literal)));
  flattenStrings(value);
  return value;
}

const integersAsBigint = (_key: string, value: unknown): unknown => (typeof value === 'number' ? BigInt(value) : value);

/** The most digits an integer may have to pass through a JavaScript number exactly (2^53 has 16). */
const exactDigits = 15;

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const COLON = 58;
const MINUS = 45;

const isDigit = (code: number) => code >= 48 && code <= 57;
const isNumberPart = (code: number) => isDigit(code) || code === MINUS || code === 43 || code === 46 || code === 69 || code === 101;
const isSpace = (code: number) => code === 32 || code === 10 || code === 13 || code === 9;

/**
 * Whether JSON.parse reads `text` to the value the lossless reader would: every number token is an
 * integer of at most 15 digits, and no object has a key twice (a key with an escape is not compared:
 * such a text goes to the lossless reader). One pass over the text, outside strings token by token.
 */
export function engineReadable(text: string): boolean {
  const objects: (Set<string> | null)[] = [];
  for (let i = 0; i < text.length;) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      let end = i + 1;
      let escaped = false;
      for (let c = text.charCodeAt(end); end < text.length && c !== QUOTE; c = text.charCodeAt(end)) {
        if (c === BACKSLASH) {
          escaped = true;
          end += 2;
        } else end += 1;
      }
      let next = end + 1;
      while (isSpace(text.charCodeAt(next))) next += 1;
      if (text.charCodeAt(next) === COLON) {
        const keys = objects.at(-1);
        if (!keys || escaped) return false;
        const key = text.slice(i + 1, end);
        if (keys.has(key)) return false;
        keys.add(key);
      }
      i = end + 1;
    } else if (code === MINUS || isDigit(code)) {
      const start = code === MINUS ? i + 1 : i;
      let end = start;
      while (end < text.length && isDigit(text.charCodeAt(end))) end += 1;
      if (end === start || end - start > exactDigits || isNumberPart(text.charCodeAt(end))) return false;
      i = end;
    } else {
      if (code === OPEN_OBJECT) objects.push(new Set());
      else if (code === OPEN_ARRAY) objects.push(null);
      else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) objects.pop();
      i += 1;
    }
  }
  return true;
}

/**
 * The shortest string V8 builds as a rope (a ConsString) when two strings are joined; shorter
 * joins are copied into a flat string at once.
 */
const shortestRope = 13;

/**
 * Makes a string flat in place and returns it. The JSON reader builds each string one character at
 * a time (`result += char`), which V8 keeps as a rope of one-character pieces: about 32 bytes per
 * character for as long as the string lives (128 KB for a 4,000-character text, measured on Node
 * 20). Matching a regular expression needs the subject flat, so V8 copies the characters into one
 * flat string and points the rope at it: the pieces become garbage, and the content is untouched,
 * lone surrogates included (a round trip through UTF-8 would replace them). docs/sandbox.md, "Memory".
 */
export function flatten(value: string): string {
  if (value.length >= shortestRope) flatMatch.test(value);
  return value;
}

const flatMatch = /^/;

/** Flattens every string held by a parsed JSON value (object keys are flat already: they are property names). */
function flattenStrings(root: unknown): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') flatten(value);
    else if (typeof value === 'object' && value !== null) {
      // A loop, not a spread: an array of a million items would overflow the stack as arguments.
      for (const item of Array.isArray(value) ? value : Object.values(value)) pending.push(item);
    }
  }
}

/**
 * Serialises a value, writing bigints as JSON numbers with every digit. The engine's JSON.stringify
 * writes every other value as the lossless writer does and is several times faster (a batch writes
 * a body and a result per item), so it goes first; it refuses a bigint, and a value holding one is
 * then written by the lossless writer. A value seen to hold a bigint (`holdsBigint`) goes to the
 * lossless writer at once: the engine would refuse it only after walking part of it and building
 * the error, 4.7 µs against 1.6 µs for a sandbox event on Node 20, whose identifiers are bigints
 * (with the event stream's frames, each webhook and each answer, 14% of a busy sandbox's CPU profile:
 * docs/performance.md, "Driving a bot, fifth round").
 */
export function stringifyJson(value: unknown, indent?: number): string {
  let out: string | undefined;
  if (holdsBigint(value)) out = stringify(value, undefined, indent);
  else {
    try {
      out = JSON.stringify(value, undefined, indent);
    } catch {
      out = stringify(value, undefined, indent);
    }
  }
  if (out === undefined) throw new TypeError('value cannot be written as JSON');
  return out;
}

/** The most objects and arrays `holdsBigint` looks into before it gives up. */
export const BIGINT_LOOKUP_OBJECTS = 256;

/**
 * Whether a bigint is among the values of `root`, its arrays' items and its objects' own enumerable
 * properties, looking into at most BIGINT_LOOKUP_OBJECTS objects (false past that, so a large value
 * costs a bounded look and then the engine's attempt). A hint only: a bigint it misses (one a
 * `toJSON` returns, say) still makes the engine refuse the value, and the lossless writer write it.
 */
export function holdsBigint(root: unknown): boolean {
  if (typeof root === 'bigint' || isLosslessNumber(root)) return true;
  if (typeof root !== 'object' || root === null) return false;
  const pending: object[] = [root];
  let looked = 0;
  while (pending.length > 0) {
    if (looked === BIGINT_LOOKUP_OBJECTS) return false;
    looked += 1;
    const value = pending.pop()!;
    for (const item of Array.isArray(value) ? value : Object.values(value)) {
      // A number kept as written (an InexactNumber) is written by the lossless writer too.
      if (typeof item === 'bigint' || isLosslessNumber(item)) return true;
      if (typeof item === 'object' && item !== null) pending.push(item as object);
    }
  }
  return false;
}

/** True for a JSON object: not an array, not null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
