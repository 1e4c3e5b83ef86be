import { describe, expect, it } from 'vitest';
import { matchAnswer, matches, patternsToMatch } from '../../src/testing/match.js';
import type { BotExpectation } from '../../src/testing/schema.js';

/** docs/testing-bots.md, "Matching": each rule with a case that matches and one that does not. */
describe('matching an expected value against a received one', () => {
  it.each([
    ['an exact string', 'Hello', 'Hello', 'Hello!'],
    ['an exact string, case and all', 'Hello', 'Hello', 'hello'],
    ['a /regex/', '/shipped/', 'It has shipped today', 'It has not left yet'],
    ['a /regex/ with the i flag', '/shipped/i', 'SHIPPED', 'sent'],
    ['a /regex/ anchored', '/^You said: /', 'You said: hi', 'So you said: hi'],
    ['a /regex/ over several lines with the s flag', '/first.second/s', 'first\nsecond', 'first\n\nthird'],
    ['a string against an identifier, by its digits', '9223372036854775807', 9223372036854775807n, 9223372036854775806n],
    ['a /regex/ against an identifier', '/^12/', 1234n, 2112n],
    ['a string against a button, by its text', 'Track it', { type: 'TEXT', text: 'Track it' }, { type: 'TEXT', text: 'Track' }],
    [
      'a string against a list item, by its title',
      'Size L',
      { identifier: 'size-l', title: 'Size L' },
      { identifier: 'size-l', title: 'L' },
    ],
    [
      'a string against an attachment, by its url',
      '/invoice\\.pdf$/',
      { url: 'https://x.example/invoice.pdf' },
      { url: 'https://x.example/a.png' },
    ],
    ['an identifier exactly, past 2^53', 9007199254740993n, 9007199254740993n, 9007199254740992n],
    ['an identifier against a JavaScript number of the same value', 12n, 12, 13],
    ['a fraction', 1.5, 1.5, 1.25],
    ['a boolean', true, true, false],
    ['null against an absent field', null, undefined, 'something'],
    ['null against a null field', null, null, 0n],
    ['a list in order', ['Yes', 'No'], [{ text: 'Yes' }, { text: 'No' }], [{ text: 'No' }, { text: 'Yes' }]],
    ['a list with as many items', ['Yes'], ['Yes'], ['Yes', 'No']],
    ['an empty list against an absent list', [], undefined, ['Yes']],
    ['an object by the fields it names', { title: 'Sizes' }, { title: 'Sizes', sections: [] }, { sections: [] }],
    [
      'nested fields',
      { sections: [{ items: [{ identifier: 'size-l' }] }] },
      { title: 'Sizes', sections: [{ title: 'All', items: [{ identifier: 'size-l', title: 'L' }] }] },
      { title: 'Sizes', sections: [{ title: 'All', items: [{ identifier: 'size-m', title: 'M' }] }] },
    ],
    ['an object against a list', { text: 'Yes' }, { text: 'Yes' }, [{ text: 'Yes' }]],
  ] as const)('%s', (_, expected, good, bad) => {
    expect(matches(expected, good)).toBe(true);
    expect(matches(expected, bad)).toBe(false);
  });

  it('does not take a pattern as exact text, nor exact text as a pattern', () => {
    expect(matches('/a.c/', 'abc')).toBe(true);
    expect(matches('a.c', 'abc')).toBe(false);
    expect(matches('/^\\/a\\.c\\/$/', '/a.c/')).toBe(true);
  });
});

describe('matchAnswer', () => {
  const answer = {
    answerId: 'a-1',
    questionId: 5001n,
    text: 'Passing you to a person.',
    code: 'SUCCESS',
    quickReplies: [
      { type: 'TEXT', text: 'Track it' },
      { type: 'TEXT', text: 'Talk to a person', shown_text: 'a person please' },
    ],
  };

  it('finds no difference when every named field matches, whatever else the answer holds', () => {
    const expected: BotExpectation = { text: '/person/', quickReplies: ['Track it', { shown_text: 'a person please' }] };
    expect(matchAnswer(expected, answer)).toEqual([]);
  });

  it('names each field that differs, with what was expected and what came', () => {
    const expected: BotExpectation = { code: 'SWITCH_TO_HUMAN', skillIds: [12n], quickReplies: ['Track it', 'Talk to a human'] };
    expect(matchAnswer(expected, answer)).toEqual([
      { path: 'code', expected: 'SWITCH_TO_HUMAN', received: 'SUCCESS' },
      { path: 'skillIds', expected: [12n], received: undefined },
      { path: 'quickReplies[1]', expected: 'Talk to a human', received: answer.quickReplies[1] },
    ]);
  });

  it('accepts any answer for {}', () => {
    expect(matchAnswer({}, answer)).toEqual([]);
  });
});

describe('matching: the edges of each rule', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['undefined expected (a field left out) against null', undefined, null, true],
    ['undefined expected against a value', undefined, 'x', false],
    ['a number expected against the same identifier', 12, 12n, true],
    ['an identifier expected against the same digits as a string', 12n, '12', false],
    ['an identifier against a fraction', 2n, 2.5, false],
    ['a fraction against an identifier', 1.5, 2n, false],
    ['a string against a JavaScript number, by its digits', '12', 12, true],
    ['a string against a number with other digits', '12', 13, false],
    ['a /regex/ against an absent field', '/undefined/', undefined, false],
    ['a string against an object with no label', 'Yes', { type: 'TEXT' }, false],
    ['a string against an object labelled by its title, when it has no text', 'Sizes', { title: 'Sizes', url: 'https://x.example' }, true],
    ['an empty list against null', [], null, true],
    ['an empty list against a string', [], 'x', false],
    ['an empty object against a string', {}, 'text', false],
    ['an empty object against null', {}, null, false],
    ['an empty object against a list', {}, [], false],
    ['false against false', false, false, true],
    ['false against an absent field', false, undefined, false],
  ])('%s: %s', (_name, expected, received, result) => {
    expect(matches(expected, received)).toBe(result);
  });

  it('names the path of a difference inside lists and objects', () => {
    expect(
      matchAnswer({ messageListPicker: { sections: [{ items: [{ title: 'L' }] }] } } as BotExpectation, {
        messageListPicker: { sections: [{ items: [{ title: 'M' }] }] },
      }),
    ).toEqual([{ path: 'messageListPicker.sections[0].items[0].title', expected: 'L', received: 'M' }]);
  });
});

describe('the patterns an expectation holds, with the texts they meet', () => {
  it('lists each /pattern/ with the received text at its place, in order, and no exact string', () => {
    const expected = { text: '/^Hi/i', quickReplies: [{ text: 'Yes' }, { text: '/no|maybe/' }] };
    const body = { text: 'hi there', quickReplies: [{ text: 'Yes' }, { text: 'maybe' }] };
    expect(patternsToMatch(expected, body)).toEqual([
      { pattern: '/^Hi/i', text: 'hi there' },
      { pattern: '/no|maybe/', text: 'maybe' },
    ]);
  });

  it('lists nothing for an expectation of exact strings', () => {
    expect(patternsToMatch({ text: 'Hello' }, { text: 'Hello' })).toEqual([]);
  });

  it.each<[string, unknown, boolean]>([
    ['a pattern that finds the text, with its flag', { text: '/^HELLO$/i' }, true],
    ['a pattern that does not', { text: '/^bye/' }, false],
  ])('matched here by default: %s', (_, expected, result) => {
    expect(matches(expected, { text: 'hello' })).toBe(result);
  });
});
