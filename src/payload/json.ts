import { isInteger, parse, stringify } from 'lossless-json';

/**
 * JSON that keeps every integer exact. The API's identifiers are Java longs (docs/api.md,
 * identifier rule), and a JavaScript number loses digits past 2^53, so every
 * integer literal is read as a bigint and written back as a plain JSON number. Numbers with a
 * fraction or an exponent stay JavaScript numbers.
 *
 * Every string of the result is flat (see `flatten`): the sandbox keeps parsed bodies for hours.
 */
export function parseJson(text: string): unknown {
  const value = parse(text, null, (literal: string) => (isInteger(literal) ? BigInt(literal) : Number(literal)));
  flattenStrings(value);
  return value;
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
 * then written by the lossless writer.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  let out: string | undefined;
  try {
    out = JSON.stringify(value, undefined, indent);
  } catch {
    out = stringify(value, undefined, indent);
  }
  if (out === undefined) throw new TypeError('value cannot be written as JSON');
  return out;
}

/** True for a JSON object: not an array, not null. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
