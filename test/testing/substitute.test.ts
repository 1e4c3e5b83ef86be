import { describe, expect, it } from 'vitest';
import { matches } from '../../src/testing/match.js';
import { escapeTemplate, parseTemplate, referencesOf, substitute } from '../../src/testing/substitute.js';

/** ${NAME} and $${: reading a template, and filling it in for sending and for matching. */

const values = new Map([
  ['ticket', 'T-12'],
  ['dot', 'a.c'],
  ['slashes', '/x/'],
  ['dollar', '${not}'],
]);

describe('reading a template', () => {
  it.each([
    ['no reference', 'Hello', []],
    ['one', 'status of ${ticket}', ['ticket']],
    ['two, in order', '${a}-${b_2}', ['a', 'b_2']],
    ['$${ is a literal ${', 'cost $${price}', []],
    ['$${ then a reference', '$${x} ${y}', ['y']],
    ['a lone $', 'cost $5 {x}', []],
  ])('%s: %s', (_, text, names) => {
    expect(referencesOf(text)).toEqual(names);
  });

  it.each([
    ['${ without }', 'cost ${price', /\$\{ without its closing \}/],
    ['an empty name', 'x ${}', /\$\{\} is not a name/],
    ['a name starting with a digit', '${1a}', /\$\{1a\} is not a name/],
    ['a name with a space', '${a b}', /\$\{a b\} is not a name/],
  ])('refuses %s', (_, text, problem) => {
    const parsed = parseTemplate(text);
    expect('problem' in parsed && parsed.problem).toMatch(problem);
  });
});

describe('filling in', () => {
  it.each([
    ['sent as is', 'status of ${ticket}', 'send', 'status of T-12'],
    ['$${ sent as ${', 'cost $${price}', 'send', 'cost ${price}'],
    ['a value holding ${ sent as is, not read again', 'x ${dollar}', 'send', 'x ${not}'],
    ['an exact string stays exact', '${ticket} is open', 'match', 'T-12 is open'],
    ['an exact string that the value makes look like a pattern stays exact', '${slashes}', 'match', '/^\\/x\\/$/'],
    ['inside a pattern, escaped', '/^${dot}$/', 'match', '/^a\\.c$/'],
    ['inside a pattern, slashes escaped', '/${slashes}/i', 'match', '/\\/x\\//i'],
  ] as const)('%s', (_, text, use, expected) => {
    expect(substitute(text, values, use)).toBe(expected);
  });

  it.each([
    ['/^${dot}$/', 'a.c', true],
    ['/^${dot}$/', 'abc', false],
    ['/${slashes}/', 'see /x/ here', true],
    ['${slashes}', '/x/', true],
    ['${slashes}', 'x', false],
    ['/^${dollar}$/u', '${not}', true],
  ])('%s matches %j: %s', (template, received, expected) => {
    expect(matches(substitute(template, values, 'match'), received)).toBe(expected);
  });

  it('writes a text so that it reads back as itself', () => {
    for (const text of ['cost ${price}', '$${', 'plain', '${a}${b}']) {
      expect(substitute(escapeTemplate(text), new Map(), 'send')).toBe(text);
      expect(referencesOf(escapeTemplate(text))).toEqual([]);
    }
  });
});
