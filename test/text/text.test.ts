import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/text/duration.js';
import { unreadableFile } from '../../src/text/files.js';
import { didYouMean, editDistance, suggest } from '../../src/text/suggest.js';

/** The one "did you mean", the one duration formatter and the one "file not found" message (src/text/). */
describe('did you mean', () => {
  it.each<[string, string, string[], string | undefined]>([
    ['the same word in another case', 'TEXT', ['text'], 'text'],
    ['the same word with other separators', 'shownText', ['text', 'shown_text'], 'shown_text'],
    ['snake case for camel case', 'base_url', ['baseUrl', 'tenant'], 'baseUrl'],
    ['one letter changed', 'colour', ['color'], 'color'],
    ['one letter missing', 'tokn', ['token', 'tenant'], 'token'],
    ['two neighbours swapped', 'tenatn', ['tenant'], 'tenant'],
    ['the nearest of two', 'retires', ['retries', 'timeout'], 'retries'],
    ['the first of two as near', 'abx', ['aby', 'abz'], 'aby'],
    ['a third of the candidate in edits', 'prodxxion', ['production'], 'production'],
    ['one past a third of the candidate', 'pxxdxxion', ['production'], undefined],
    ['one edit of a one-letter word: every letter changed', 'x', ['y'], undefined],
    ['an unrelated word', 'foo', ['url', 'name', 'type'], undefined],
    ['no candidates', 'text', [], undefined],
    ['a word of 100 characters', 'a'.repeat(99) + 'b', ['a'.repeat(100)], 'a'.repeat(100)],
    ['a word longer than 100 characters', 'a'.repeat(101), ['a'.repeat(100)], undefined],
  ])('%s: %s', (_name, word, candidates, expected) => {
    expect(suggest(word, candidates)).toBe(expected);
    expect(didYouMean(word, candidates)).toBe(expected === undefined ? undefined : `did you mean "${expected}"?`);
  });

  it.each<[string, string, number]>([
    ['', '', 0],
    ['', 'abc', 3],
    ['abc', '', 3],
    ['abc', 'abc', 0],
    ['abc', 'abd', 1],
    ['abc', 'acb', 1],
    ['abc', 'abcd', 1],
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3],
  ])('editDistance(%j, %j) is %d', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});

describe('durations', () => {
  it.each<[number, string]>([
    [0, '0ms'],
    [1, '1ms'],
    [0.4, '0ms'],
    [999, '999ms'],
    [999.6, '1s'],
    [1000, '1s'],
    [1500, '1.5s'],
    [1234, '1.234s'],
    [30_000, '30s'],
    [59_999, '59.999s'],
    [60_000, '1m'],
    [60_500, '60.5s'],
    [90_000, '1m30s'],
    [3_600_000, '1h'],
    [3_661_000, '1h1m1s'],
    [-5, '0ms'],
  ])('%d ms is written %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('a file that cannot be read', () => {
  it.each<[string, unknown, string | undefined, string]>([
    ['not there', { code: 'ENOENT' }, undefined, 'file not found: a.json'],
    ['not there, for a flag', { code: 'ENOENT' }, '--resume', '--resume: file not found: a.json'],
    ['not readable', { code: 'EACCES' }, undefined, 'cannot read a.json (EACCES)'],
    ['not readable, for a flag', { code: 'EACCES' }, '--text-file', '--text-file: cannot read a.json (EACCES)'],
    ['an error without a code', new Error('x'), undefined, 'cannot read a.json (error)'],
    ['a code that is not a string', { code: 42 }, undefined, 'cannot read a.json (error)'],
    ['no error at all', null, undefined, 'cannot read a.json (error)'],
  ])('%s', (_name, error, what, message) => {
    expect(unreadableFile('a.json', error, what)).toBe(message);
  });
});
