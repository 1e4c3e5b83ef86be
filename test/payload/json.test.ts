import fc from 'fast-check';
import { stringify as losslessStringify } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson, stringifyWithBigints } from '../../src/payload/json.js';

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

describe('JSON written straight by the lossless writer, for values that hold a long by construction', () => {
  it('writes any value, long or not, as stringifyJson does without indent', () => {
    fc.assert(
      fc.property(value, (input) => {
        const expected = losslessStringify(input);
        if (expected === undefined) expect(() => stringifyWithBigints(input)).toThrow(TypeError);
        else {
          expect(stringifyWithBigints(input)).toBe(expected);
          expect(stringifyWithBigints(input)).toBe(stringifyJson(input));
        }
      }),
      { numRuns: 1500 },
    );
  });

  it.each([
    [
      'an event with its identifiers',
      { seq: 7, questionId: 9007199254740993n, clientId: null, text: 'hi' },
      '{"seq":7,"questionId":9007199254740993,"clientId":null,"text":"hi"}',
    ],
    ['an object whose fields are all undefined', { a: undefined }, '{}'],
  ])('writes %s', (_name, input, text) => {
    expect(stringifyWithBigints(input)).toBe(text);
  });

  it('refuses a value with no JSON form', () => {
    expect(() => stringifyWithBigints(undefined)).toThrow('value cannot be written as JSON');
    expect(() => stringifyWithBigints(Symbol('x'))).toThrow(TypeError);
  });
});
