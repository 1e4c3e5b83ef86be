import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../src/config/index.js';
import { UsageError } from '../../src/errors.js';

describe('parseDuration', () => {
  it.each([
    ['1500', 1500],
    [' 1500 ', 1500],
    [1500, 1500],
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1500],
    ['2m', 120_000],
    ['1m30s', 90_000],
    ['1h', 3_600_000],
    ['1h2m3s4ms', 3_723_004],
    ['1', 1],
    [2_147_483_647, 2_147_483_647],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'invalid duration ""'],
    ['soon', 'invalid duration "soon"'],
    ['30 s', 'invalid duration "30 s"'],
    ['30S', 'invalid duration "30S"'],
    ['-5s', 'invalid duration "-5s"'],
    ['1m1m', 'invalid duration "1m1m"'],
    ['5d', 'invalid duration "5d"'],
    ['s', 'invalid duration "s"'],
    ['0', 'must be at least 1ms'],
    ['0s', 'must be at least 1ms'],
    ['0.4ms', 'must be at least 1ms'],
    [0, 'must be at least 1ms'],
    [-1, 'must be at least 1ms'],
    [1.5, 'invalid duration "1.5"'],
    [Number.NaN, 'invalid duration "NaN"'],
    ['2147483648', 'longer than the limit'],
    ['25d', 'invalid duration'],
    ['600h', 'longer than the limit'],
  ])('rejects %j', (text, message) => {
    let caught: unknown;
    try {
      parseDuration(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as UsageError).message).toContain(message);
  });

  it('hints at the forms it accepts', () => {
    expect(() => parseDuration('later')).toThrow(expect.objectContaining({ hint: expect.stringContaining('1m30s') }));
  });
});

describe('formatDuration', () => {
  it.each([
    [500, '500ms'],
    [1500, '1.5s'],
    [30_000, '30s'],
    [90_000, '1m30s'],
    [3_600_000, '1h'],
    [3_723_000, '1h2m3s'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBe(ms);
  });
});
