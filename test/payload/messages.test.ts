import { describe, expect, it } from 'vitest';
import {
  comparePaths,
  describeValue,
  formatCount,
  formatPath,
  payloadErrorMap,
  unknownFieldMessage,
  type Path,
} from '../../src/payload/messages.js';

/** The wording of every validation message (src/payload/messages.ts), one rule at a time. */

describe('formatCount writes thousands separators, whatever the locale', () => {
  it.each([
    [1, '1'],
    [100, '100'],
    [12345, '12,345'],
    [1000000, '1,000,000'],
    [-100, '-100'],
    [-1000, '-1,000'],
    [-12n, '-12'],
  ])('%s is %s', (value, expected) => {
    expect(formatCount(value)).toBe(expected);
  });
});

describe('formatPath', () => {
  it.each([
    [[0, 'text'], '[0].text'],
    [['a', '$b', '_c'], 'a.$b._c'],
    [['a', '1b'], 'a["1b"]'],
    [['a', 'b-c'], 'a["b-c"]'],
    [['a', 'b c'], 'a["b c"]'],
    [['a', Symbol('s')], 'a["Symbol(s)"]'],
  ] as const)('%j is %s', (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });
});

describe('comparePaths orders segment by segment, indexes as numbers and before keys', () => {
  const cases: [Path, Path, number][] = [
    [[2], [10], -1],
    [[10], [2], 1],
    [[0], ['a'], -1],
    [['a'], [0], 1],
    [['a'], ['b'], -1],
    [['b'], ['a'], 1],
    [['a', 0], ['a', 1], -1],
    [['a'], ['a', 'b'], -1],
    [['a', 'b'], ['a'], 1],
    [['a', 1], ['a', 1], 0],
    [[], [], 0],
    [['5'], [10], 1],
    [[10], ['5'], -1],
  ];
  it.each(cases)('%j against %j: %s', (a, b, sign) => {
    expect(Math.sign(comparePaths(a, b))).toBe(sign);
  });
});

describe('describeValue', () => {
  it.each([
    ['a'.repeat(60), `"${'a'.repeat(60)}"`],
    ['a'.repeat(61), `"${'a'.repeat(57)}…" (61 characters)`],
    ['b'.repeat(4213), `"${'b'.repeat(57)}…" (4,213 characters)`],
    ['', '""'],
    [0, '0'],
    [false, 'false'],
    [() => 1, 'a function'],
    [Symbol('s'), 'a symbol'],
  ])('%s is %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });
});

describe('payloadErrorMap words each kind of zod issue', () => {
  const message = (issue: Record<string, unknown>) => payloadErrorMap(issue as never);

  it.each([
    ['string', 'a string'],
    ['boolean', 'a boolean'],
    ['object', 'an object'],
    ['record', 'an object'],
    ['array', 'an array'],
    ['bigint', 'an integer'],
    ['int', 'an integer'],
    ['number', 'a number'],
    ['null', 'null'],
    ['date', 'date'],
  ])('a value that is not %s: "expected %s"', (expected, noun) => {
    expect(message({ code: 'invalid_type', expected, input: 5, path: [] })).toBe(`expected ${noun}, got 5`);
  });

  it.each([
    ['is required inside a payload', ['text'], 'required'],
    ['is a missing payload at the top', [], 'expected an object, got nothing'],
    ['has no path', undefined, 'expected an object, got nothing'],
  ])('a missing value that %s', (_, path, expected) => {
    expect(message({ code: 'invalid_type', expected: 'object', input: undefined, path })).toBe(expected);
  });

  it.each([
    [undefined, 'required: one of TEXT, CONTACT'],
    ['LINK', 'must be one of TEXT, CONTACT, got "LINK"'],
  ])('a value not among the allowed ones (%s)', (input, expected) => {
    expect(message({ code: 'invalid_value', values: ['TEXT', 'CONTACT'], input, path: ['type'] })).toBe(expected);
  });

  it.each([
    ['an empty string', 'string', 1, '', 'must not be empty'],
    ['an empty array', 'array', 1, [], 'must not be empty'],
    ['an empty string below 2', 'string', 2, '', '0 characters, at least 2'],
    ['a string of one character', 'string', 2, 'a', '1 character, at least 2'],
    ['a string of two characters', 'string', 3, 'ab', '2 characters, at least 3'],
    ['an array of one item', 'array', 2, [1], '1 item, at least 2'],
    ['an array of two items', 'array', 3, [1, 2], '2 items, at least 3'],
    ['a number', 'number', 1, 0, 'must be at least 1, got 0'],
    ['a large number', 'number', 1000, 5, 'must be at least 1,000, got 5'],
  ])('too small: %s', (_, origin, minimum, input, expected) => {
    expect(message({ code: 'too_small', origin, minimum, input, path: [] })).toBe(expected);
  });

  it.each([
    ['a string', 'string', 4, 'abcde', '5 characters, limit 4'],
    ['a string of one character', 'string', 0, 'a', '1 character, limit 0'],
    ['an array', 'array', 1000, new Array(1001).fill(0), '1,001 items, limit 1,000'],
    ['an array of one item', 'array', 0, [1], '1 item, limit 0'],
    ['a number', 'number', 4000, 4001, 'must be at most 4,000, got 4001'],
  ])('too big: %s', (_, origin, maximum, input, expected) => {
    expect(message({ code: 'too_big', origin, maximum, input, path: [] })).toBe(expected);
  });

  it.each([
    ['invalid_format', 'invalid format, got "x"'],
    ['unrecognized_keys', 'unknown field'],
    ['invalid_key', 'invalid key'],
    ['custom', 'invalid value, got "x"'],
    ['not_multiple_of', 'invalid value, got "x"'],
  ])('%s: %s', (code, expected) => {
    expect(message({ code, input: 'x', path: [] })).toBe(expected);
  });
});

describe('unknownFieldMessage', () => {
  it.each([
    ['txt', ['text'], 'unknown field; did you mean "text"?'],
    ['zzz', ['text'], 'unknown field'],
    ['zzz', [], 'unknown field'],
  ])('%s among %j: %s', (key, known, expected) => {
    expect(unknownFieldMessage(key, known)).toBe(expected);
  });
});
