import { describe, expect, it } from 'vitest';
import {
  exactPattern,
  groupDepth,
  literal,
  looksLikePattern,
  PATTERN_FLAGS,
  patternParts,
  patternProblem,
  quoted,
  toPattern,
} from '../../src/testing/pattern.js';

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

describe("the depth of a pattern's groups", () => {
  it.each<[string, string, number]>([
    ['no group', 'abc', 0],
    ['groups side by side', '(a)(b)(?:c)', 1],
    ['groups inside groups', '(a(b(?:c)))', 3],
    ['an escaped bracket, a letter', '\\((a)', 1],
    ['an escaped backslash, then a group', '\\\\((a))', 2],
    ['brackets inside a character class', '[((]((a))', 2],
    ['an escaped ] inside a class, which does not end it', '[\\](](a)', 1],
    ['a bracket after a class that ended', '[a](b)', 1],
  ])('%s: %s is %i deep', (_, source, depth) => {
    expect(groupDepth(source)).toBe(depth);
  });

  it('1,001 groups side by side are 1 deep, and allowed', () => {
    expect(patternProblem(`/${'(a)'.repeat(1_001)}/`)).toBeUndefined();
  });
});

describe('how a message quotes a text', () => {
  it.each<[string, string, string]>([
    ['80 characters, the longest quoted whole', 'a'.repeat(80), `"${'a'.repeat(80)}"`],
    ['81 characters, cut to 77 and the length', 'a'.repeat(81), `"${'a'.repeat(77)}…" (81 characters)`],
    ['1,234 characters, the length with a separator', 'b'.repeat(1_234), `"${'b'.repeat(77)}…" (1,234 characters)`],
  ])('%s', (_, text, written) => {
    expect(quoted(text)).toBe(written);
  });

  it.each<[string, string, string]>([
    [
      "an invalid pattern of 80 characters: the engine's whole message",
      `/(${'a'.repeat(77)}/`,
      'Invalid regular expression: /(' + 'a'.repeat(77) + '/: Unterminated group',
    ],
    ['one of 81 characters: its reason only', `/(${'a'.repeat(78)}/`, ': Unterminated group'],
  ])('%s', (_, text, reason) => {
    const problem = patternProblem(text)!;
    expect(problem.endsWith(` is not a valid regular expression: ${reason.startsWith(':') ? reason.slice(2) : reason}`)).toBe(true);
  });

  it.each<[string, string, string]>([
    [
      'one flag not allowed',
      '/a/g',
      `"/a/g" is written as a /regular expression/ but ends with the flag g; the flags are i, m, s, u, v. To match this text exactly, write ${JSON.stringify('/^\\/a\\/g$/')}`,
    ],
    [
      'two flags not allowed',
      '/a/gy',
      `"/a/gy" is written as a /regular expression/ but ends with the flags gy; the flags are i, m, s, u, v. To match this text exactly, write ${JSON.stringify('/^\\/a\\/gy$/')}`,
    ],
    ['an invalid expression', '/(a/', '"/(a/" is not a valid regular expression: Invalid regular expression: /(a/: Unterminated group'],
  ])('%s, said exactly', (_, text, problem) => {
    expect(patternProblem(text)).toBe(problem);
  });
});

describe("a pattern's parts", () => {
  it.each<[string, { source: string; flags: string } | undefined]>([
    ['/a.b/is', { source: 'a.b', flags: 'is' }],
    ['/a/', { source: 'a', flags: '' }],
    ['plain text', undefined],
  ])('%s', (text, parts) => {
    expect(patternParts(text)).toEqual(parts);
  });

  it('a pattern is compiled with its flags', () => {
    const pattern = toPattern('/^ab$/i');
    expect(pattern.kind).toBe('regex');
    expect(pattern.kind === 'regex' && pattern.regex.test('AB')).toBe(true);
  });
});
