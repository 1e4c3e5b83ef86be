import { isInteger, parse, stringify } from 'lossless-json';

/**
 * JSON that keeps every integer exact. The API's identifiers are Java longs (docs/api.md,
 * identifier rule), and a JavaScript number loses digits past 2^53, so every
 * integer literal is read as a bigint and written back as a plain JSON number. Numbers with a
 * fraction or an exponent stay JavaScript numbers.
 */
export function parseJson(text: string): unknown {
  return parse(text, null, (value: string) => (isInteger(value) ? BigInt(value) : Number(value)));
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
