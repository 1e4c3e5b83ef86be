import { describe, expect, it } from 'vitest';
import { POOL_BYTES, randomText, randomTextFrom } from '../../src/sandbox/random.js';

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

describe('the pool behind the random identifiers', () => {
  /** A source that counts its draws and fills each with one byte value (1, 2, 3 ...). */
  function countingSource() {
    let draws = 0;
    return {
      draws: () => draws,
      fill: (pool: Buffer) => {
        draws += 1;
        pool.fill(draws);
      },
    };
  }

  it('draws nothing until the first id is asked for', () => {
    const source = countingSource();
    randomTextFrom(source.fill);
    expect(source.draws()).toBe(0);
  });

  it('serves 4,096 bytes from one draw, sixteen ids of 256 bytes, and draws again for the seventeenth', () => {
    const source = countingSource();
    const text = randomTextFrom(source.fill);
    for (let i = 0; i < 16; i += 1) expect(text(256, 'hex')).toBe('01'.repeat(256));
    expect(source.draws()).toBe(1);
    expect(text(256, 'hex')).toBe('02'.repeat(256));
    expect(source.draws()).toBe(2);
  });

  it('draws again for an id that does not fit in what is left, rather than split it', () => {
    const source = countingSource();
    const text = randomTextFrom(source.fill);
    expect(text(POOL_BYTES - 5, 'hex')).toHaveLength((POOL_BYTES - 5) * 2);
    expect(text(5, 'hex')).toBe('0101010101');
    expect(text(6, 'hex')).toBe('020202020202');
    expect(source.draws()).toBe(2);
  });
});
