import { describe, expect, it } from 'vitest';
import { longSchema, validateField, validateReply } from '../../src/payload/index.js';
import { problemsOf } from './fixtures.js';

/** What a long's problems say (src/payload/long.ts), beyond the range checked field by field in long.test.ts. */

const RANGE = 'expected an integer from 0 to 9,223,372,036,854,775,807';

describe('the message for a value that is not a long', () => {
  it.each([
    ['nothing', undefined, 'required'],
    ['a string of digits with spaces around', ' 42 ', `${RANGE}, got " 42 " (a string: write the number without quotes)`],
    ['a negative string of digits', '-3', `${RANGE}, got "-3" (a string: write the number without quotes)`],
    ['a string that ends in digits', 'id42', `${RANGE}, got "id42"`],
    ['a string that starts with digits', '42nd', `${RANGE}, got "42nd"`],
    ['a string with a sign only', '-', `${RANGE}, got "-"`],
  ])('%s', (_, value, message) => {
    expect(validateField(longSchema, value)).toBe(message);
  });
});

describe('a set of longs', () => {
  it('reports values that are not longs one by one, and not as repeats of each other', () => {
    const result = validateReply({ text: 'Hi', coreClientId: 1n, code: 'SWITCH_TO_HUMAN', userIds: ['x', 'x', 1.5, 1.5] });
    expect(problemsOf(result)).toEqual([
      { path: 'userIds[0]', message: `${RANGE}, got "x"` },
      { path: 'userIds[1]', message: `${RANGE}, got "x"` },
      { path: 'userIds[2]', message: `${RANGE}, got 1.5` },
      { path: 'userIds[3]', message: `${RANGE}, got 1.5` },
    ]);
  });
});
