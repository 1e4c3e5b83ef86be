import { isInteger, parse } from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { engineReadable, isRecord, parseJson } from '../../src/payload/json.js';

/**
 * The edges of engineReadable's scan that flat-strings.test.ts leaves open: every white space JSON
 * allows before a colon, keys counted per object once nested objects and arrays close, strings that
 * are values and not keys, and number tokens that are not integers. A text it wrongly calls readable
 * loses a duplicate key (the engine keeps the last value); one it wrongly refuses only goes the
 * slower way, which these direct cases pin.
 */
const lossless = (text: string) => parse(text, null, (literal: string) => (isInteger(literal) ? BigInt(literal) : Number(literal)));

describe('engineReadable: which texts the engine may read', () => {
  it.each([
    ['a key repeated with a tab before its colon', '{"a"\t: 1, "a"\t: 1}', false],
    ['a key repeated with a carriage return before its colon', '{"a"\r: 1, "a"\r: 1}', false],
    ['a key repeated after a nested object closes', '{"x": {"y": 1}, "x": 1}', false],
    ['a key repeated after an array closes', '{"x": [1], "x": 1}', false],
    ['a key inside a closed object, used again outside it (allowed)', '{"a": {"x": 1}, "x": 2}', true],
    ['a key after an array inside the same object', '{"list": [1, 2], "next": 3}', true],
    ['a key after an empty array and an empty object', '{"a": [], "b": {}, "c": 1}', true],
    ['a string value equal to its key', '{"a": "a"}', true],
    ['the same string twice in an array', '["x", "x"]', true],
  ])('%s: %s', (_, text, readable) => {
    expect(engineReadable(text)).toBe(readable);
  });

  it.each([
    ['a minus sign with no digits', '[-]'],
    ['an integer followed by a minus sign', '[1-2]'],
    ['an integer followed by a plus sign', '[1+2]'],
  ])('refuses a number token that is not an integer: %s (%s)', (_, text) => {
    expect(engineReadable(text)).toBe(false);
  });
});

describe('parseJson: a repeated key is refused whatever surrounds it', () => {
  it.each([
    ['a tab before the colon', '{"a"\t: 1, "a"\t: 2}', "Duplicate key 'a'"],
    ['a carriage return before the colon', '{"a"\r: 1, "a"\r: 2}', "Duplicate key 'a'"],
    ['a nested object between the two', '{"x": {"y": 1}, "x": 2}', "Duplicate key 'x'"],
  ])('refuses a key repeated with another value, %s', (_, text, message) => {
    expect(() => parseJson(text)).toThrow(message);
  });

  it.each([['"a": 1'], ['["a": 1]'], ['{"a": 1}}"b": 2']])('explains %s (a key outside any object) as the lossless reader does', (text) => {
    let expected = '';
    try {
      lossless(text);
    } catch (error) {
      expected = (error as Error).message;
    }
    expect(expected).not.toBe('');
    expect(() => parseJson(text)).toThrow(expected);
  });
});

describe('isRecord: a JSON object, not an array, not null', () => {
  it.each([
    ['an empty object', {}, true],
    ['an object with fields', { a: 1 }, true],
    ['an object with no prototype', Object.create(null) as object, true],
    ['an array', [], false],
    ['null', null, false],
    ['undefined', undefined, false],
    ['a string', 'text', false],
    ['a number', 1, false],
    ['a bigint', 1n, false],
    ['a boolean', true, false],
  ])('%s: %s', (_, value, record) => {
    expect(isRecord(value)).toBe(record);
  });
});
