import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { count } from '../../src/output/count.js';

describe('a count in a message (src/output/count.ts)', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1,000'],
    [9999, '9,999'],
    [100000, '100,000'],
    [999999, '999,999'],
    [1000000, '1,000,000'],
    [-1000, '-1,000'],
    [-999, '-999'],
    [Number.MAX_SAFE_INTEGER, '9,007,199,254,740,991'],
  ])('writes %d as %s', (n, text) => {
    expect(count(n)).toBe(text);
  });

  it("writes every whole number as toLocaleString('en-US') does", () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => count(n) === n.toLocaleString('en-US')),
      { numRuns: 2000 },
    );
  });
});
