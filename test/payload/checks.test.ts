import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { validateReason, validateReply } from '../../src/payload/index.js';
import { maxItems } from '../../src/payload/checks.js';
import { validateWith } from '../../src/payload/validate.js';
import { problemsOf } from './fixtures.js';

/** The checks every payload schema is built from (src/payload/checks.ts), as a caller sees them: the problems of a validation. */

const NO_ADDRESSEE = { path: '', message: 'no addressee: give coreClientId, questionId, sessionId with questionIndex, or clientId' };

describe('maxItems', () => {
  const tags = z.array(z.string()).check(maxItems(2, 'tags'));

  it.each([
    [['a', 'b'], []],
    [['a', 'b', 'c'], [{ path: '', message: '3 tags, limit 2' }]],
  ])('names the items and the limit, with no note when none is given: %j', (value, problems) => {
    expect(problemsOf(validateWith(tags, value))).toEqual(problems);
  });
});

/**
 * A check that finds a problem lets the others run (docs/payloads.md: every problem is listed at
 * once): the rules that span the whole payload still run when a field inside it broke one.
 */
describe('a problem found by a check hides no other problem', () => {
  it.each([
    [
      'too many quick replies',
      {
        text: 'Hi',
        quickReplies: [
          { type: 'TEXT', text: 'a' },
          { type: 'TEXT', text: 'b' },
        ],
      },
      { limits: { maxQuickReplies: 1 } },
      { path: 'quickReplies', message: "2 quick replies, limit 1 (the profile's maxQuickReplies)" },
    ],
    [
      'a list with no section',
      { text: 'Hi', messageListPicker: { title: 'Open', sections: [] } },
      {},
      { path: 'messageListPicker.sections', message: 'must hold at least one item' },
    ],
    ['an empty text', { text: '' }, {}, { path: 'text', message: 'must not be empty' }],
    [
      'a quick reply too long',
      { text: 'Hi', quickReplies: [{ type: 'TEXT', text: 'a'.repeat(4001) }] },
      {},
      { path: 'quickReplies[0].text', message: '4,001 characters, limit 4,000' },
    ],
  ])('%s, and no addressee', (_, payload, options, problem) => {
    expect(problemsOf(validateReply(payload, options))).toEqual([NO_ADDRESSEE, problem]);
  });

  it('a reason with no translation, and a code too long', () => {
    expect(problemsOf(validateReason({ code: 'c'.repeat(257), reasons: [] }))).toEqual([
      { path: 'code', message: '257 characters, limit 256' },
      { path: 'reasons', message: 'must hold at least one item' },
    ]);
  });

  it('an attachment url too long that is not an http URL either', () => {
    const url = `ftp://example.com/${'a'.repeat(4000)}`;
    expect(problemsOf(validateReply({ text: 'Hi', coreClientId: 1n, attachments: [{ url, name: 'a.png' }] }))).toEqual([
      { path: 'attachments[0].url', message: '4,018 characters, limit 4,000' },
      { path: 'attachments[0].url', message: `expected an absolute http or https URL, got ${JSON.stringify(url)}` },
    ]);
  });
});
