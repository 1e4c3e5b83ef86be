import { describe, expect, it } from 'vitest';
import { countKeys, keysInText, parseLine } from '../../src/batch/source.js';
import { parseJson } from '../../src/payload/json.js';

/**
 * The fast path of `parseLine` (src/batch/source.ts) takes the engine's JSON.parse only when it
 * gives what the lossless reader gives; these lines are where a slip in that decision would let a
 * key written twice through (the lossless reader refuses one repeated with another value).
 */

function outcome(parse: (text: string) => unknown, text: string): { value: unknown } | { error: string } {
  try {
    return { value: parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

describe('parseLine: a key written twice is refused as the lossless reader refuses it', () => {
  it.each<[string, string]>([
    ['a space before the colon', '{"a" :"x","a":"y"}'],
    ['a tab before the colon', '{"a"\t:"x","a":"y"}'],
    ['a line feed before the colon', '{"a"\n:"x","a":"y"}'],
    ['a carriage return before the colon', '{"a"\r:"x","a":"y"}'],
    ['white space of each kind before the colon', '{"a" \t\r\n:"x","a":"y"}'],
    ['an escaped quote in the key', '{"\\"":"x","\\"":"y"}'],
    ['in an object inside an array', '[{"a":"x","a":"y"}]'],
    ['in an object inside an object', '{"o":{"a":"x","a":"y"}}'],
    ['beside an array of objects', '{"l":[{"b":"x"},{"c":"y"}],"a":"x","a":"y"}'],
    ['with integers for values', '{"a":1,"a":2}'],
    ['beside an integer in an array', '[1,{"a":"x","a":"y"}]'],
  ])('%s', (_name, text) => {
    const lossless = outcome(parseJson, text);
    expect(lossless).toHaveProperty('error');
    expect(outcome(parseLine, text)).toStrictEqual(lossless);
  });
});

describe('parseLine: values read as the lossless reader reads them', () => {
  it.each<[string, string]>([
    ['keys followed by white space, once each', '{"a" :"x","b"\t:"y"}'],
    ['an integer in an array', '[1,{"a":"b"}]'],
    ['an integer in a nested object', '{"o":{"n":12}}'],
    ['an integer after objects', '[{"a":"b"},{"c":"d"},7]'],
    ['an integer after an object', '[{"a":"x"},1]'],
    ['an integer beside an object', '{"a":1,"b":{"c":"d"}}'],
    ['null and booleans', '{"a":null,"b":[true,false,null]}'],
    ['a colon inside a string value', '{"a":":","b":"c:"}'],
    ['an empty object and array', '{"a":{},"b":[]}'],
  ])('%s', (_name, text) => {
    expect(outcome(parseLine, text)).toStrictEqual(outcome(parseJson, text));
  });
});

describe('countKeys: the keys of every object in a parsed value', () => {
  it.each<[string, unknown, number]>([
    ['a string', 'x', 0],
    ['null', null, 0],
    ['a boolean', true, 0],
    ['an empty object', {}, 0],
    ['an empty array', [], 0],
    ['an object of two keys', { a: 'x', b: null }, 2],
    ['objects inside objects', { a: { b: { c: 'x' } } }, 3],
    ['objects in an array', [{ a: 'x' }, 'y', { b: 'x', c: [] }], 3],
    ['an array in an object', { a: [{ b: 'x' }, { c: 'y' }] }, 3],
    ['a number', 1, -1],
    ['a number in an array', ['x', 1], -1],
    ['a number after an object in an array', [{ a: 'x' }, 1], -1],
    ['a number in an object', { a: 1 }, -1],
    ['a number beside an object', { a: 1, b: { c: 'd' } }, -1],
    ['a number deep inside', { a: [{ b: { c: [2] } }], d: 'x' }, -1],
  ])('%s: %d', (_name, value, expected) => {
    expect(countKeys(value)).toBe(expected);
  });
});

describe('keysInText: the keys written in JSON text without a backslash', () => {
  it.each<[string, string, number]>([
    ['no string', '[true,null]', 0],
    ['a lone string', '"a"', 0],
    ['strings that are values', '["a","b"]', 0],
    ['one key', '{"a":"b"}', 1],
    ['a key after a string value', '{"a":"b","c":"d"}', 2],
    ['a colon inside a string value', '{"a":":","b":"c:"}', 2],
    ['a key with a space before its colon', '{"a" :"b"}', 1],
    ['a key with a tab before its colon', '{"a"\t:"b"}', 1],
    ['a key with a line feed before its colon', '{"a"\n:"b"}', 1],
    ['a key with a carriage return before its colon', '{"a"\r:"b"}', 1],
    ['a value followed by white space and a comma', '{"a":"b" ,"c":"d"}', 2],
    ['a string at the very end', '["a"', 0],
    ['nested keys', '{"a":{"b":{"c":"d"}}}', 3],
  ])('%s: %d', (_name, text, expected) => {
    expect(keysInText(text)).toBe(expected);
  });
});
