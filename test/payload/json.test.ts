import fc from 'fast-check';
import { stringify as losslessStringify } from 'lossless-json';
import { describe, expect, it, vi } from 'vitest';
import { BIGINT_LOOKUP_OBJECTS, holdsBigint, parseJson, stringifyJson } from '../../src/payload/json.js';

/**
 * stringifyJson lets the engine's JSON.stringify write whatever holds no bigint: that must be the
 * very text the lossless writer makes, for any value a payload, a result or a document can hold.
 */
const leaf = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.date({ noInvalidDate: true }),
);
// Fields that hold undefined are left out of objects by both writers, but the lossless writer,
// indenting an object that holds nothing else, writes `{` and `}` two lines apart where
// JSON.stringify writes `{}` (a case below): objects here have none. Arrays do (written as null).
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('array'), tie('object')),
  array: fc.array(tie('node'), { maxLength: 5 }),
  object: fc.dictionary(
    fc.string(),
    tie('node').filter((field) => field !== undefined),
    { maxKeys: 5 },
  ),
})).node;

describe('JSON written with every digit of a long (src/payload/json.ts)', () => {
  it.each([0, 2, undefined])('writes any value as the lossless writer does (indent %s)', (indent) => {
    fc.assert(
      fc.property(value, (input) => {
        const expected = losslessStringify(input, undefined, indent);
        if (expected === undefined) expect(() => stringifyJson(input, indent)).toThrow(TypeError);
        else expect(stringifyJson(input, indent)).toBe(expected);
      }),
      { numRuns: 1500 },
    );
  });

  it.each([
    ['a long past 2^53, at the top', 9007199254740993n, '9007199254740993'],
    ['a long inside an object', { coreClientId: 9007199254740993n, text: 'hi' }, '{"coreClientId":9007199254740993,"text":"hi"}'],
    ['a long deep inside, after other fields', { a: [1, { b: [-12345678901234567890n] }] }, '{"a":[1,{"b":[-12345678901234567890]}]}'],
    ['no long', { a: [1, 2.5, 'x', null, true] }, '{"a":[1,2.5,"x",null,true]}'],
  ])('writes %s', (_name, input, text) => {
    expect(stringifyJson(input)).toBe(text);
    expect(stringifyJson(parseJson(text))).toBe(text);
  });

  it('writes an object whose fields are all undefined as {}, indented or not (holding no long)', () => {
    expect(stringifyJson([{ a: undefined }], 2)).toBe('[\n  {}\n]');
    expect(stringifyJson({ a: undefined })).toBe('{}');
  });

  it('refuses a value with no JSON form', () => {
    expect(() => stringifyJson(undefined)).toThrow('value cannot be written as JSON');
    expect(() => stringifyJson(() => 1)).toThrow('value cannot be written as JSON');
  });
});

describe('a value holding a long goes to the lossless writer without the engine trying first', () => {
  it.each([
    ['a long at the top', 12n, true],
    ['a long in an object', { seq: 7, questionId: 12n }, true],
    ['a long deep in arrays and objects', { a: [1, { b: [[2n]] }] }, true],
    ['no long', { a: [1, { b: [[2]] }], c: 'x', d: null }, false],
    ['a string, a number, null, undefined', 'x', false],
    ['null', null, false],
    ['a long behind a toJSON (not looked into)', { toJSON: () => 1n }, false],
  ])('tells whether it sees a long: %s', (_name, input, held) => {
    expect(holdsBigint(input)).toBe(held);
  });

  /** Nested arrays `depth` deep around a long: each level one more array to look into. */
  const nested = (depth: number): unknown => {
    let value: unknown = 5n;
    for (let i = 0; i < depth; i += 1) value = [value];
    return value;
  };

  it(`looks into at most ${BIGINT_LOOKUP_OBJECTS} objects and arrays: a long at that depth is seen, one deeper is not`, () => {
    expect(holdsBigint(nested(BIGINT_LOOKUP_OBJECTS))).toBe(true);
    expect(holdsBigint(nested(BIGINT_LOOKUP_OBJECTS + 1))).toBe(false);
    expect(stringifyJson(nested(BIGINT_LOOKUP_OBJECTS + 1))).toBe(
      `${'['.repeat(BIGINT_LOOKUP_OBJECTS + 1)}5${']'.repeat(BIGINT_LOOKUP_OBJECTS + 1)}`,
    );
  });

  it.each([
    ['a value holding a long it sees', { questionId: 12n }, 0, '{"questionId":12}'],
    ['a value holding none', { questionId: 12 }, 1, '{"questionId":12}'],
    ['a long it does not look for (behind toJSON)', { a: { toJSON: () => 3n } }, 1, '{"a":3}'],
    [
      'a long deeper than it looks',
      nested(BIGINT_LOOKUP_OBJECTS + 1),
      1,
      `${'['.repeat(BIGINT_LOOKUP_OBJECTS + 1)}5${']'.repeat(BIGINT_LOOKUP_OBJECTS + 1)}`,
    ],
  ])('asks the engine %#: %s', (_name, input, engineCalls, text) => {
    const engine = vi.spyOn(JSON, 'stringify');
    try {
      expect(stringifyJson(input)).toBe(text);
      // The lossless writer calls it too, for each string and key: only calls given the whole value count.
      expect(engine.mock.calls.filter(([argument]) => argument === input)).toHaveLength(engineCalls);
    } finally {
      engine.mockRestore();
    }
  });

  it('writes any value as it did before the look (a property over values with and without longs)', () => {
    fc.assert(
      fc.property(value, (input) => {
        let expected: string | undefined;
        try {
          expected = JSON.stringify(input);
        } catch {
          expected = losslessStringify(input);
        }
        if (expected === undefined) expect(() => stringifyJson(input)).toThrow(TypeError);
        else expect(stringifyJson(input)).toBe(expected);
      }),
      { numRuns: 1500 },
    );
  });
});
