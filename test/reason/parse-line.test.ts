import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLine } from '../../src/batch/source.js';
import { parseJson } from '../../src/payload/index.js';

/**
 * An NDJSON line of a batch is read with the engine's JSON.parse where that gives what the lossless
 * reader gives (src/batch/source.ts, `parseLine`): the same value, or the same error, for any line.
 */

function outcome(parse: (text: string) => unknown, text: string): { value: unknown } | { error: string } {
  try {
    return { value: parse(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const sameAsLossless = (text: string) => expect(outcome(parseLine, text)).toStrictEqual(outcome(parseJson, text));

describe('parseLine', () => {
  it.each([
    ['a reason', '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}],"active":false}'],
    ['a key twice with another value', '{"code":"A","code":"B"}'],
    ['a key twice in a nested object', '{"reasons":[{"locale":"en","locale":"de","name":"x"}]}'],
    ['a key twice with the same value', '{"code":"A","code":"A"}'],
    ['a key written as a string value is not', '{"a":"b:","c":":"}'],
    ['white space before a colon', '{"a" \t: "b"}'],
    ['an integer', '{"id":9007199254740993}'],
    ['a fraction', '{"x":1.5}'],
    ['an escape', '{"name":"Lunch \\u00e9\\"\\\\"}'],
    ['__proto__ as a key', '{"__proto__":{"polluted":true}}'],
    ['not JSON', '{"code":'],
    ['a trailing comma', '{"a":1,}'],
    ['two documents', '{} {}'],
    ['a lone string', '"abc"'],
  ])('reads %s as the lossless reader does', (_, text) => {
    sameAsLossless(text);
  });

  it('reads any JSON text, and any text cut from one, as the lossless reader does', () => {
    fc.assert(
      fc.property(fc.json({ maxDepth: 3 }), fc.nat(), (text, cut) => {
        sameAsLossless(text);
        sameAsLossless(text.slice(0, cut % (text.length + 1)));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads objects with keys repeated at random as the lossless reader does', () => {
    const key = fc.constantFrom('a', 'b', 'c');
    const value = fc.oneof(fc.constantFrom('x', 'y', ':'), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, value), { maxLength: 6 }), (pairs) => {
        sameAsLossless(`{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
        sameAsLossless(`[{${pairs.map(([k, v]) => `${JSON.stringify(k)} : {${JSON.stringify(k)}:${JSON.stringify(v)}}`).join(', ')}}]`);
      }),
      { numRuns: 2000 },
    );
  });
});
