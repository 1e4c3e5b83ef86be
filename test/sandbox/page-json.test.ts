import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyJson as serverStringify } from '../../src/payload/json.js';
import { pageFolder } from '../../src/sandbox/page.js';

/**
 * The page's lossless JSON (src/sandbox/page/json.js), which the browser runs as written. Node 20
 * has no source text in JSON.parse's reviver, so it takes the fallback that quotes big integers
 * first; Node 24 (the suite's second run) and the browsers take the reviver's source text. Both
 * must read what the sandbox writes with every digit, and write it back the same.
 */

interface PageJson {
  parseJson(text: string): unknown;
  stringifyJson(value: unknown, indent?: number): string;
}
const { parseJson, stringifyJson } = (await import(pathToFileURL(`${pageFolder.pathname}json.js`).href)) as PageJson;

describe("the page's lossless JSON", () => {
  it.each([
    ['a long past 2^53', '{"coreClientId":9223372036854775807}', { coreClientId: 9223372036854775807n }],
    ['the smallest long', '{"id":-9223372036854775808}', { id: -9223372036854775808n }],
    ['2^53 + 1', '[9007199254740993]', [9007199254740993n]],
    ['the largest safe integer stays a number', '[9007199254740991]', [9007199254740991]],
    ['small integers, fractions and exponents stay numbers', '[1,-2,2.5,1e3,12345678901234567.5]', [1, -2, 2.5, 1000, 12345678901234567.5]],
    [
      'digits inside a string stay text',
      '{"text":"order 9223372036854775807 \\" 12345678901234567"}',
      { text: 'order 9223372036854775807 " 12345678901234567' },
    ],
    ['a string that looks like the fallback mark stays text', '["\\u0000bigint:1"]', ['\u0000bigint:1']],
  ])('reads %s', (_name, text, value) => {
    expect(parseJson(text)).toEqual(value);
  });

  it('writes a string that looks like a number mark as the string it is', () => {
    expect(stringifyJson({ text: '\u0000bigint:1', id: 9223372036854775807n })).toBe('{"text":"\\u0000bigint:1","id":9223372036854775807}');
  });

  it('writes what it read as the sandbox wrote it, digit for digit', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
            fc.string(),
            fc.integer(),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
          ),
        ),
        (values) => {
          const text = serverStringify({ values });
          expect(stringifyJson(parseJson(text))).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });
});
