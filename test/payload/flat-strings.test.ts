import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { flatten, parseJson } from '../../src/payload/json.js';

/**
 * Strings read by parseJson are flat (docs/sandbox.md, "Memory"): the JSON reader builds a string one
 * character at a time, which V8 keeps as a rope of one-character pieces, about 32 bytes a character
 * for as long as the sandbox keeps the body. Measured here as the heap a kept string holds after a
 * full collection: a flat string of 4,000 one-byte characters holds about 4 KB, a rope about 128 KB.
 * The bound checked, 16 KB, is four times the flat size and an eighth of the rope's.
 */

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const KEPT = 200;
const LENGTH = 4000;
const BOUND = 16 * 1024;

/** The heap bytes each of KEPT values made by `make` holds once the garbage is collected. */
function heldPerValue(make: (i: number) => unknown): number {
  collect();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (let i = 0; i < KEPT; i += 1) kept.push(make(i));
  collect();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toHaveLength(KEPT);
  return (after - before) / KEPT;
}

/** A string built as the JSON reader builds one: a character at a time. */
function rope(text: string): string {
  let result = '';
  for (const char of text) result += char;
  return result;
}

const texts: [string, string][] = [
  ['one-byte text', 'x'.repeat(LENGTH)],
  ['Latin-1 text', 'é'.repeat(LENGTH)],
  ['two-byte text', '€'.repeat(LENGTH / 2)],
];

describe('strings read by parseJson are flat', () => {
  it('the measurement tells a rope from a flat string (else the tests below could pass on a rope)', () => {
    const base = 'y'.repeat(LENGTH);
    expect(heldPerValue((i) => rope(`${i}${base}`))).toBeGreaterThan(BOUND);
    expect(heldPerValue((i) => flatten(rope(`${i}${base}`)))).toBeLessThan(BOUND);
  });

  it.each(texts)('a kept %s holds about its characters, not 32 bytes each', (_, text) => {
    const held = heldPerValue((i) => (parseJson(`{"message": {"text": "${i}${text}"}}`) as { message: { text: string } }).message.text);
    expect(held).toBeLessThan(BOUND);
  });

  it('strings inside arrays, and a string alone, are flat too', () => {
    const text = 'z'.repeat(LENGTH);
    expect(heldPerValue((i) => (parseJson(`[1, [{"a": ["${i}${text}"]}]]`) as [number, [{ a: string[] }]])[1][0].a[0])).toBeLessThan(BOUND);
    expect(heldPerValue((i) => parseJson(`"${i}${text}"`))).toBeLessThan(BOUND);
  });

  it.each([
    ['an escaped lone surrogate', '"a\\ud800b\\udc00c and more than thirteen"', 'a\ud800b\udc00c and more than thirteen'],
    ['escapes and two-byte characters', '"tab\\there \\u20ac \\"quoted\\" line\\nnext"', 'tab\there € "quoted" line\nnext'],
    ['a string shorter than a rope', '"short"', 'short'],
    ['the empty string', '""', ''],
  ])('flattening keeps the content exactly: %s', (_, json, expected) => {
    expect(parseJson(json)).toBe(expected);
  });

  it('leaves every other value as parsed: bigints, numbers, booleans, null, nesting', () => {
    expect(parseJson('{"id": 9223372036854775807, "x": 1.5, "ok": true, "none": null, "list": [1, "a long string of text"]}')).toEqual({
      id: 9223372036854775807n,
      x: 1.5,
      ok: true,
      none: null,
      list: [1n, 'a long string of text'],
    });
  });

  it('reads an array of a million items (no spread of its items as arguments)', () => {
    const value = parseJson(`[${'0,'.repeat(999_999)}0]`) as unknown[];
    expect(value).toHaveLength(1_000_000);
  });
});
