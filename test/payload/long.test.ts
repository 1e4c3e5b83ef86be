import { describe, expect, it } from 'vitest';
import { MAX_LONG, longSchema, parseJson, validateField, validateGreeting, validateReply } from '../../src/payload/index.js';
import { expectOnly, expectValid, fullGreeting, fullReply, withValue } from './fixtures.js';

const RANGE = 'expected an integer from 0 to 9,223,372,036,854,775,807';

const switchToHuman = () => ({ ...fullReply(), code: 'SWITCH_TO_HUMAN' });

/** Every field typed long or number, with a payload that may carry it and the path of one value. */
const fields = [
  { field: 'coreClientId', base: fullReply, path: ['coreClientId'], at: 'coreClientId' },
  { field: 'questionId', base: fullReply, path: ['questionId'], at: 'questionId' },
  { field: 'questionIndex', base: () => ({ ...fullReply(), sessionId: 's-1' }), path: ['questionIndex'], at: 'questionIndex' },
  { field: 'userIds items', base: switchToHuman, path: ['userIds'], at: 'userIds[0]', list: true },
  { field: 'skillIds items', base: switchToHuman, path: ['skillIds'], at: 'skillIds[0]', list: true },
  { field: 'unitIds items', base: switchToHuman, path: ['unitIds'], at: 'unitIds[0]', list: true },
];

describe.each(fields)('$field', ({ base, path, at, list }) => {
  const put = (value: unknown) => withValue(base(), path, list ? [value] : value);

  it.each([
    ['0', 0n],
    ['1', 1n],
    ['2^53 + 1, past the exact range of a JavaScript number', 9007199254740993n],
    ['9223372036854775807 (MAX_LONG)', MAX_LONG],
  ])('passes %s', (_, value) => {
    const result = validateReply(put(value));
    expectValid(result);
    if (result.ok)
      expect(list ? (result.value as Record<string, unknown[]>)[path[0]!]![0] : (result.value as Record<string, unknown>)[path[0]!]).toBe(
        value,
      );
  });

  it.each([
    ['-1', -1n, '-1'],
    ['9223372036854775808 (MAX_LONG + 1)', MAX_LONG + 1n, '9223372036854775808'],
    ['a string of letters', 'abc', '"abc"'],
    ['a string of digits', '42', '"42" (a string: write the number without quotes)'],
    ['a fraction', 1.5, '1.5'],
    ['null', null, 'null'],
    ['a boolean', true, 'true'],
    ['an object', { id: 1n }, 'an object'],
  ])('fails %s with the range and the value', (_, value, shown) => {
    expectOnly(validateReply(put(value)), at, `${RANGE}, got ${shown}`);
  });
});

describe('a JavaScript number where a long belongs', () => {
  it('is accepted when it is a safe integer, and comes out as a bigint', () => {
    const result = validateReply({ text: 'Hi', coreClientId: 42, questionId: 7, code: 'SWITCH_TO_HUMAN', userIds: [1, 2] });
    expectValid(result);
    expect(result.ok && result.value).toMatchObject({ coreClientId: 42n, questionId: 7n, userIds: [1n, 2n] });
  });

  it('is accepted in a greeting too', () => {
    const result = validateGreeting(withValue(fullGreeting(), ['coreClientId'], 5));
    expect(result.ok && result.value.coreClientId).toBe(5n);
  });

  it('does not change the input', () => {
    const input = { text: 'Hi', coreClientId: 42 };
    validateReply(input);
    expect(input.coreClientId).toBe(42);
  });

  it('is rejected past 2^53, where it has already lost digits', () => {
    expectOnly(
      validateReply({ text: 'Hi', coreClientId: 2 ** 60 }),
      'coreClientId',
      `${RANGE}, got 1152921504606847000 (a number written with an exponent or a fraction, such as 9.2e18, keeps only 15 to 17 digits: write the identifier in plain digits)`,
    );
  });

  it('is rejected when negative', () => {
    expectOnly(validateReply({ text: 'Hi', coreClientId: -3 }), 'coreClientId', `${RANGE}, got -3`);
  });
});

describe('identifiers read from JSON', () => {
  it('keep every digit up to MAX_LONG', () => {
    const result = validateReply(parseJson('{"text":"Hi","coreClientId":9223372036854775807,"questionId":9007199254740993}'));
    expect(result.ok && result.value).toMatchObject({ coreClientId: MAX_LONG, questionId: 9007199254740993n });
  });

  it('fail one past MAX_LONG', () => {
    expectOnly(
      validateReply(parseJson('{"text":"Hi","coreClientId":9223372036854775808}')),
      'coreClientId',
      `${RANGE}, got 9223372036854775808`,
    );
  });
});

describe('userIds, skillIds and unitIds are sets', () => {
  it.each(['userIds', 'skillIds', 'unitIds'])('%s fails on a repeated value, naming it and its first place', (field) => {
    expectOnly(validateReply({ ...switchToHuman(), [field]: [5n, 6n, 5n] }), `${field}[2]`, `5 is repeated; first at ${field}[0]`);
  });

  it('pass with distinct values', () => {
    expectValid(validateReply({ ...switchToHuman(), userIds: [1n, 2n], skillIds: [3n], unitIds: [] }));
  });

  it('fail when not an array', () => {
    expectOnly(validateReply({ ...switchToHuman(), userIds: 5n }), 'userIds', 'expected an array, got 5');
  });
});

describe('the long schema on its own', () => {
  it.each([
    [0n, true],
    [MAX_LONG, true],
    [12, true],
    [-1n, `${RANGE}, got -1`],
    [MAX_LONG + 1n, `${RANGE}, got 9223372036854775808`],
  ] as const)('validateField(longSchema, %s) gives %s', (value, expected) => {
    expect(validateField(longSchema, value)).toBe(expected);
  });
});
