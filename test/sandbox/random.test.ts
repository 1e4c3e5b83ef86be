import { describe, expect, it } from 'vitest';
import { randomText } from '../../src/sandbox/random.js';

describe('random identifiers drawn from a pool of random bytes', () => {
  it.each([
    [6, 'hex', /^[0-9a-f]{12}$/],
    [12, 'hex', /^[0-9a-f]{24}$/],
    [15, 'base64url', /^[A-Za-z0-9_-]{20}$/],
    [1, 'hex', /^[0-9a-f]{2}$/],
  ] as const)('gives %i bytes written in %s', (bytes, encoding, shape) => {
    expect(randomText(bytes, encoding)).toMatch(shape);
  });

  it('takes 1 to 4,096 bytes and refuses 0 and 4,097', () => {
    expect(randomText(4096, 'hex')).toMatch(/^[0-9a-f]{8192}$/);
    expect(() => randomText(0, 'hex')).toThrow(RangeError);
    expect(() => randomText(4097, 'hex')).toThrow(/4097 bytes \(1 to 4096\)/);
    expect(() => randomText(1.5, 'hex')).toThrow(RangeError);
  });

  it('never hands out the same bytes twice, across many refills of the pool', () => {
    const seen = new Set<string>();
    // 3,000 ids of 15 bytes: 45,000 bytes, the pool refilled about 11 times, ids split across refills included.
    for (let i = 0; i < 3000; i += 1) seen.add(randomText(15, 'base64url'));
    expect(seen.size).toBe(3000);
  });

  it('gives bytes spread over every value (not a pool left zeroed)', () => {
    const counts = new Map<string, number>();
    const text = randomText(4096, 'hex') + randomText(4096, 'hex');
    for (let i = 0; i < text.length; i += 2) counts.set(text.slice(i, i + 2), (counts.get(text.slice(i, i + 2)) ?? 0) + 1);
    // 8,192 bytes over 256 values: each value ~32 times; a zeroed or repeated pool would give a handful of values.
    expect(counts.size).toBeGreaterThan(240);
    expect(Math.max(...counts.values())).toBeLessThan(100);
  });
});
