import { describe, expect, it } from 'vitest';
import { exactPattern, literal, looksLikePattern, PATTERN_FLAGS, patternProblem, toPattern } from '../../src/testing/pattern.js';

/** docs/testing-bots.md, "Matching": which strings are patterns, which patterns are refused and why. */
describe('which strings are written as patterns', () => {
  it.each<[string, string, boolean]>([
    ['slashes around text', '/shipped/', true],
    ['one character between the slashes', '/a/', true],
    ['with flags', '/shipped/ims', true],
    ['with a slash inside', '/a/b/', true],
    ['over several lines', '/first\nsecond/', true],
    ['nothing between the slashes', '//', false],
    ['text before the first slash', 'x/a/', false],
    ['text after the flags', '/a/i x', false],
    ['an upper-case flag', '/a/I', false],
    ['a digit after the slash', '/a/1', false],
    ['no closing slash', '/a', false],
    ['plain text', 'Hello', false],
  ])('%s: %j', (_name, text, expected) => {
    expect(looksLikePattern(text)).toBe(expected);
    expect(toPattern(text).kind).toBe(expected ? 'regex' : 'exact');
  });

  it('compiles a pattern with its flags, and keeps its text as written', () => {
    const pattern = toPattern('/^a.b$/si');
    expect(pattern).toEqual({ kind: 'regex', regex: /^a.b$/is, source: '/^a.b$/si' });
    expect(toPattern('plain')).toEqual({ kind: 'exact', text: 'plain' });
  });
});

describe('patterns refused, each with its reason', () => {
  it.each<[string, string, string | undefined]>([
    ['plain text', 'Hello', undefined],
    ['a valid pattern with every flag', `/a/${PATTERN_FLAGS.replace('v', '')}`, undefined],
    ['the v flag', '/[a]/v', undefined],
    [
      'one flag that is not allowed',
      '/a/g',
      '"/a/g" is written as a /regular expression/ but ends with the flag g; the flags are i, m, s, u, v. To match this text exactly, write "/^\\\\/a\\\\/g$/"',
    ],
    [
      'two flags that are not allowed',
      '/a/gy',
      '"/a/gy" is written as a /regular expression/ but ends with the flags gy; the flags are i, m, s, u, v.',
    ],
    ['a repeated flag', '/a/ii', '"/a/ii": a flag is repeated'],
    ['an invalid expression', '/(a/', '"/(a/" is not a valid regular expression: Invalid regular expression: /(a/: Unterminated group'],
  ])('%s', (_name, text, problem) => {
    if (problem === undefined) expect(patternProblem(text)).toBeUndefined();
    else expect(patternProblem(text)).toContain(problem);
  });

  it.each([
    ['40,000 letters', `/${'a'.repeat(40_000)}/`, 'Regular expression too large'],
    // Deep enough to overflow the stack of a worker thread too (Stryker runs the tests in one), which holds 60,000.
    ['100,000 optional letters', `/${'a?'.repeat(50_000)}/i`, 'Stack overflow'],
    ['20,000 groups nested', `/${'('.repeat(20_000)}${')'.repeat(20_000)}/`, 'its groups are nested 20,000 deep, more than 1,000'],
    // V8 runs out of memory compiling this one and ends the process: it must be refused before it is compiled.
    [
      '8,000 groups nested, each after a letter',
      `/${'(?:a'.repeat(8_000)}${')'.repeat(8_000)}/`,
      'its groups are nested 8,000 deep, more than 1,000',
    ],
  ])('a pattern too large to compile, %s, is refused in a short message (it compiles only when first used)', (_, text, reason) => {
    const problem = patternProblem(text);
    expect(problem).toContain(`is not a valid regular expression: ${reason} (it is too long or too deeply nested to compile)`);
    expect(problem).toContain(`(${text.length.toLocaleString('en-US')} characters)`);
    expect(problem!.length).toBeLessThan(300);
  });

  it.each<[string, string, number | undefined]>([
    ['groups nested 1,000 deep, the most allowed', `/${'(?:a'.repeat(1_000)}${')'.repeat(1_000)}/`, undefined],
    ['groups nested 1,001 deep, one past it', `/${'(?:a'.repeat(1_001)}${')'.repeat(1_001)}/`, 1_001],
    ['1,001 escaped brackets, which are letters', `/${'\\('.repeat(1_001)}/`, undefined],
    ['1,001 brackets inside a character class', `/[${'('.repeat(1_001)}]/`, undefined],
    ['a bracket opening a class inside a class, then groups 1,001 deep', `/[[]${'('.repeat(1_001)}${')'.repeat(1_001)}/`, 1_001],
    ['a class closed, then groups 1,001 deep', `/[(]${'('.repeat(1_001)}${')'.repeat(1_001)}/`, 1_001],
  ])('a pattern with %s', (_, text, depth) => {
    const problem = patternProblem(text);
    if (depth === undefined) expect(problem).toBeUndefined();
    else expect(problem).toContain(`its groups are nested ${depth.toLocaleString('en-US')} deep, more than 1,000`);
  });

  it('a long pattern that compiles is allowed', () => {
    expect(patternProblem(`/${'a'.repeat(10_000)}/`)).toBeUndefined();
    expect(patternProblem(`/${'(a)'.repeat(3_000)}/`)).toBeUndefined();
  });

  it('allows exactly the flags i, m, s, u and v', () => {
    expect([...PATTERN_FLAGS].sort()).toEqual(['i', 'm', 's', 'u', 'v']);
  });
});

describe('text written to match itself', () => {
  it.each<[string, string]>([
    ['plain text, as it is', 'Hello'],
    ['text that looks like a pattern, escaped', '/a.b/'],
    ['every special character', '/^$.*+?()[]{}|\\/x/'],
  ])('%s', (_name, text) => {
    const written = literal(text);
    if (!looksLikePattern(text)) expect(written).toBe(text);
    else {
      expect(written).toBe(exactPattern(text));
      const pattern = toPattern(written);
      expect(pattern.kind).toBe('regex');
      if (pattern.kind === 'regex') {
        expect(pattern.regex.test(text)).toBe(true);
        expect(pattern.regex.test(`${text}x`)).toBe(false);
        expect(pattern.regex.test(text.replace('.', 'x'))).toBe(false);
      }
    }
  });

  it('escapes every character a regular expression gives a meaning to', () => {
    expect(exactPattern('\\^$.*+?()[]{}|/')).toBe('/^\\\\\\^\\$\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/$/');
  });
});
