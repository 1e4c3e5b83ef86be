import { describe, expect, it } from 'vitest';
import { retainedBytes, stringBytes } from '../../../src/sandbox/store/bytes.js';

/**
 * What the event budget counts for a kept value (docs/sandbox.md, "Memory"): a flat string one byte
 * a character when every character is Latin-1, two otherwise, plus a header; a Buffer its bytes.
 */

describe('the bytes a kept value holds', () => {
  it.each([
    ['the empty string', '', 16],
    ['4,000 ASCII characters', 'x'.repeat(4000), 4016],
    ['4,000 Latin-1 characters (é, ÿ)', 'é'.repeat(2000) + 'ÿ'.repeat(2000), 4016],
    ['4,000 characters, one of them past Latin-1', 'x'.repeat(3999) + 'Ā', 8016],
    ['2,000 euro signs', '€'.repeat(2000), 4016],
    ['a lone surrogate', '\ud800', 18],
  ])('%s: %i bytes', (_, text, bytes) => {
    expect(stringBytes(text)).toBe(bytes);
  });

  it('counts a string held in an object with its slot, and the object', () => {
    const text = 'x'.repeat(1000);
    expect(retainedBytes({ text })).toBe(24 + 16 + stringBytes(text));
    // One more object, and the property that holds it.
    expect(retainedBytes({ a: { text } })).toBe(retainedBytes({ text }) + 24 + 8);
  });

  it('counts every item of an array, and every kind of value', () => {
    expect(retainedBytes([1, true, null, 5n, 'ab'])).toBe(24 + 8 + 8 + 8 + (8 + 24) + (8 + stringBytes('ab')));
  });

  it("counts a Buffer's bytes, not its items", () => {
    expect(retainedBytes(Buffer.alloc(10_000))).toBe(8 + 96 + 10_000);
  });

  it('grows with the text: a 1 MB body counts at least 1 MB', () => {
    const body = { text: 'y'.repeat(1_000_000), answerId: 'a-1', coreClientId: 1001n };
    expect(retainedBytes(body)).toBeGreaterThanOrEqual(1_000_000);
    expect(retainedBytes(body)).toBeLessThan(1_001_000);
  });

  it('walks a deep value without recursion', () => {
    let deep: unknown = 'end';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(retainedBytes(deep)).toBe(100_000 * 24 + 8 + stringBytes('end'));
  });
});
