import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { isInteger, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { engineReadable, flatten, parseJson } from '../../src/payload/json.js';

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

/** The heap bytes each of `count` values made by `make` holds once the garbage is collected. */
function heldPerValue(make: (i: number) => unknown, count = KEPT): number {
  collect();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (let i = 0; i < count; i += 1) kept.push(make(i));
  collect();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toHaveLength(count);
  return (after - before) / count;
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

  // With a 19-digit identifier the text goes to the lossless reader; without, to the engine's.
  const readers: [string, string][] = [
    ['the lossless reader', '"id": 9223372036854775807, '],
    ["the engine's reader", '"id": 42, '],
  ];
  describe.each(readers)('through %s', (_, id) => {
    it.each(texts)('a kept %s holds about its characters, not 32 bytes each', (_, text) => {
      const held = heldPerValue(
        (i) => (parseJson(`{${id}"message": {"text": "${i}${text}"}}`) as { message: { text: string } }).message.text,
      );
      expect(held).toBeLessThan(BOUND);
    });
  });

  it('a kept string of 13 characters, the shortest rope, is flat too', () => {
    // A rope this short holds a few dozen bytes more than the flat string, too little for BOUND: the
    // string read through the lossless reader is compared with both, measured here on many strings.
    const count = 100_000;
    const text = (i: number) => `${i}`.padStart(13, 'q');
    expect(text(0)).toHaveLength(13);
    const asRope = heldPerValue((i) => rope(text(i)), count);
    const asFlat = heldPerValue((i) => JSON.parse(`"${text(i)}"`) as string, count);
    const read = heldPerValue((i) => (parseJson(`{"id": 9223372036854775807, "t": "${text(i)}"}`) as { t: string }).t, count);
    expect(asRope - asFlat).toBeGreaterThan(16);
    expect(read).toBeLessThan((asRope + asFlat) / 2);
  });

  it('a kept string does not hold the text it was read from', () => {
    const dropped = 'd'.repeat(10 * LENGTH);
    const held = heldPerValue((i) => (parseJson(`{"keep": "${i}${'k'.repeat(LENGTH)}", "drop": "${dropped}"}`) as { keep: string }).keep);
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

/** What the lossless reader alone gives: the reference the engine's path must match. */
const lossless = (text: string) => parse(text, null, (literal: string) => (isInteger(literal) ? BigInt(literal) : Number(literal)));

describe('the engine reads a text only where it gives the lossless value', () => {
  it.each([
    ['integers of up to 15 digits', '{"a": 123456789012345, "b": -1, "c": [0, 7]}', true],
    ['an integer of 16 digits', '{"a": 1234567890123456}', false],
    ['a negative integer of 16 digits', '[-1234567890123456]', false],
    ['a fraction', '{"a": 1.5}', false],
    ['an exponent', '{"a": 1e3}', false],
    ['a capital exponent after an integer', '[1E3]', false],
    ['a repeated key', '{"a": 1, "a": 1}', false],
    ['a repeated key with white space before its colon', '{"a" : 1, "a"\n: 1}', false],
    ['a key repeated in another object (allowed)', '{"a": {"a": 1}, "b": {"a": 2}}', true],
    ['a key with an escape', '{"\\u0061": 1}', false],
    ['numbers and colons inside strings', '{"text": "1.5e3: 12345678901234567890 \\" : x"}', true],
    ['no number at all', '{"text": "hi"}', true],
  ])('%s: %s', (_, text, readable) => {
    expect(engineReadable(text)).toBe(readable);
  });

  it.each([
    ['an integer of 19 digits', '{"id": 9223372036854775807}', { id: 9223372036854775807n }],
    ['integers of 15 and 16 digits', '[999999999999999, 9999999999999999]', [999999999999999n, 9999999999999999n]],
    ['-0 (an integer)', '[-0]', [0n]],
    ['fractions stay numbers', '[1.0, 2.5, 1e2]', [1, 2.5, 100]],
    ['a key repeated with the same value', '{"a": 1, "a": 1}', { a: 1n }],
  ])('reads %s as the lossless reader does', (_, text, value) => {
    expect(parseJson(text)).toEqual(value);
    expect(parseJson(text)).toEqual(lossless(text));
  });

  it('reads a __proto__ key as an own key, not as the prototype', () => {
    const value = parseJson('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(value).toEqual(lossless('{"__proto__": {"x": 1}}'));
  });

  it('refuses a key repeated with another value, as the lossless reader does', () => {
    expect(() => parseJson('{"a": 1, "a": 2}')).toThrow(/Duplicate key 'a'/);
  });

  it.each([['{"a": 01}'], ['{"a": 1,}'], ['[1 2]'], ['{"a": "unterminated'], ['-'], ['']])(
    'explains %s as the lossless reader does',
    (text) => {
      let expected = '';
      try {
        lossless(text);
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected).not.toBe('');
      expect(() => parseJson(text)).toThrow(expected);
    },
  );

  it('gives the lossless value for any JSON text (property, 2,000 texts)', () => {
    const texts = fc.oneof(
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer()))
        .map((pairs) => `{${pairs.map(([k, n]) => `"${k}": ${n}`).join(', ')}}`),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => `[${n}, {"n": ${n}}]`),
    );
    fc.assert(
      fc.property(texts, (text) => {
        let expected: unknown;
        let refused: string | undefined;
        try {
          expected = lossless(text);
        } catch (error) {
          refused = (error as Error).message;
        }
        if (refused !== undefined) expect(() => parseJson(text)).toThrow(refused);
        else expect(parseJson(text)).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
