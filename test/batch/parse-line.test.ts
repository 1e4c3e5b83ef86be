import { describe, expect, it } from 'vitest';
import { parseLine } from '../../src/batch/source.js';
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
