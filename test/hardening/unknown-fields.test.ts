import { describe, expect, it } from 'vitest';
import { MAX_LISTED_PROBLEMS, PayloadError, countProblems } from '../../src/errors.js';
import { parseJson } from '../../src/payload/json.js';
import { validateReply } from '../../src/payload/reply.js';
import { sandbox, sendReply } from '../sandbox/helpers.js';

/**
 * A payload full of unknown fields, or with one huge value (docs/security.md, "Hostile input"): the
 * problems are listed up to MAX_LISTED_PROBLEMS, then counted in one entry; a value or a key is cut
 * where it is quoted. An answer of 80,000 unknown fields was a 1.8 MB 400 and a 1.8 MB log line, and a
 * 1,000,000-digit coreClientId was echoed whole into both.
 */

/** A bot answer's text with `n` unknown fields, short keys as the probe's: 80,000 fit in the sandbox's 1 MB. */
function withUnknown(n: number): string {
  const fields: string[] = [];
  for (let i = 0; i < n; i++) fields.push(`"u${i}":1`);
  return `{"text":"Hi","coreClientId":1${fields.map((field) => `,${field}`).join('')}}`;
}

function problemsOf(text: string) {
  const result = validateReply(parseJson(text));
  if (result.ok) throw new Error('the answer was valid');
  return result.problems;
}

describe('a list of problems holds the first ones and counts the rest', () => {
  it.each([
    { unknown: 1, listed: 1, counted: undefined },
    { unknown: MAX_LISTED_PROBLEMS, listed: MAX_LISTED_PROBLEMS, counted: undefined },
    { unknown: MAX_LISTED_PROBLEMS + 1, listed: MAX_LISTED_PROBLEMS, counted: '… and 1 more' },
    { unknown: 80_000, listed: MAX_LISTED_PROBLEMS, counted: '… and 79,900 more' },
  ])('$unknown unknown fields: $listed listed, then $counted', ({ unknown, listed, counted }) => {
    const problems = problemsOf(withUnknown(unknown));
    const named = problems.filter((problem) => problem.path !== '');
    expect(named).toHaveLength(listed);
    // The first ones the answer holds (listed sorted by path), each with its own path.
    const first = Array.from({ length: listed }, (_, i) => `u${i}`);
    expect(named.map((problem) => problem.path).sort()).toEqual(first.sort());
    expect(named[0]!.message).toContain('unknown field');
    expect(problems.at(-1)!.message === counted || counted === undefined).toBe(true);
    if (counted === undefined) expect(problems.some((problem) => problem.message.startsWith('…'))).toBe(false);
    expect(countProblems(problems)).toBe(unknown);
  });

  it('other problems are listed with the unknown fields, within the same bound', () => {
    const problems = problemsOf(withUnknown(500).replace('"text":"Hi"', '"text":5'));
    expect(problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(problems.some((problem) => problem.path === 'text')).toBe(true);
    expect(countProblems(problems)).toBe(501);
  });

  it.each([
    ['a list within the bound', 3, 3],
    ['a list one past it', MAX_LISTED_PROBLEMS + 1, MAX_LISTED_PROBLEMS + 1],
    ['a long list', 5_000, MAX_LISTED_PROBLEMS + 1],
  ])('a PayloadError made from %s holds at most the bound and one count', (_, n, held) => {
    const problems = Array.from({ length: n }, (_, i) => ({ path: `f${i}`, message: 'must be a string' }));
    const error = new PayloadError('invalid', problems);
    expect(error.problems).toHaveLength(held);
    expect(countProblems(error.problems)).toBe(n);
    // Made again from its own list, it is the same list.
    expect(new PayloadError('invalid', error.problems).problems).toEqual(error.problems);
  });
});

describe('a value or a key is cut where it is quoted', () => {
  it('a coreClientId of a million digits is quoted by its first digits and its length', () => {
    const problems = problemsOf(`{"text":"Hi","coreClientId":${'9'.repeat(1_000_000)}}`);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toBe('coreClientId');
    expect(problems[0]!.message.length).toBeLessThan(300);
    expect(problems[0]!.message).toContain('999999');
  });

  it.each([60, 61, 100_000])('an unknown key of %i characters is quoted whole up to 60, cut past it', (length) => {
    const key = 'k'.repeat(length);
    const problems = problemsOf(`{"text":"Hi","coreClientId":1,"${key}":1}`);
    expect(problems).toHaveLength(1);
    if (length <= 60) expect(problems[0]!.path).toBe(key);
    else {
      expect(problems[0]!.path.length).toBeLessThan(100);
      expect(problems[0]!.path).toContain(`(${length.toLocaleString('en-US')} characters)`);
    }
  });
});

describe('the sandbox answers such a payload in a short 400 and a short log line', () => {
  it.each([
    ['80,000 unknown fields', withUnknown(80_000), '… and 79,900 more'],
    ['a 1,000,000-digit coreClientId', `{"text":"Hi","coreClientId":${'9'.repeat(1_000_000)}}`, 'coreClientId'],
  ])('%s: a 400 of a few kilobytes, its log line as short', async (_, body, said) => {
    const sb = await sandbox();
    const result = await sendReply(sb, body);
    expect(result.status).toBe(400);
    expect(result.text).toContain(said);
    expect(result.text.length).toBeLessThan(16_000);
    const line = sb.lastApiLog()!;
    expect(line).toContain('400');
    expect(line.length).toBeLessThan(16_000);
  });
});
