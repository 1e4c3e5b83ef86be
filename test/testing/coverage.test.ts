import { describe, expect, it } from 'vitest';
import type { EventOf } from '../../src/sandbox/events.js';
import { COVERAGE_NAMES, countAnswer, countRouting, coverageReport, type CoverageCounts } from '../../src/testing/coverage.js';
import { anEvent } from '../helpers/events.js';

/** What one bot.answer event of the sandbox counts for --coverage: both sides of each name. */

const delivered = (body: Record<string, unknown>, extra: Partial<EventOf<'bot.answer'>> = {}) =>
  anEvent('bot.answer', { status: 200, delivered: true, notDelivered: null, questionAlreadyAnswered: false, body, ...extra });

const counted = (event: EventOf<'bot.answer'>) => {
  const counts: CoverageCounts = new Map();
  countAnswer(counts, event);
  return Object.fromEntries(counts);
};

describe('coverage of one answer', () => {
  it.each([
    ['a code', delivered({ text: 'Hi', code: 'SUCCESS' }), { SUCCESS: 1 }],
    ['UNCLEAR_QUESTION', delivered({ text: 'Hm', code: 'UNCLEAR_QUESTION' }), { UNCLEAR_QUESTION: 1 }],
    ['a code the platform does not know', delivered({ text: 'Hi', code: 'OTHER' }), {}],
    ['formattedText', delivered({ formattedText: '**Hi**' }), { formattedText: 1 }],
    ['an empty formattedText', delivered({ formattedText: '' }), {}],
    ['quickReplies', delivered({ quickReplies: [{ type: 'TEXT', text: 'Yes' }] }), { quickReplies: 1 }],
    ['an empty quickReplies', delivered({ quickReplies: [] }), {}],
    ['null quickReplies', delivered({ quickReplies: null }), {}],
    ['quickRepliesHeaderFooter', delivered({ quickRepliesHeaderFooter: { header: 'Pick' } }), { quickRepliesHeaderFooter: 1 }],
    ['messageListPicker', delivered({ messageListPicker: { title: 'Sizes' } }), { messageListPicker: 1 }],
    ['attachments', delivered({ attachments: [{ url: 'https://example.com/a.png' }] }), { attachments: 1 }],
    ['settings.blockInput true', delivered({ settings: { blockInput: true } }), { 'settings.blockInput': 1 }],
    ['settings.blockInput false', delivered({ settings: { blockInput: false } }), {}],
    ['settings.masked', delivered({ settings: { masked: true } }), { 'settings.masked': 1 }],
    ['userIds, skillIds, unitIds', delivered({ userIds: [1n], skillIds: [2n], unitIds: [3n] }), { userIds: 1, skillIds: 1, unitIds: 1 }],
    ['a second answer', delivered({ text: 'Again' }, { questionAlreadyAnswered: true }), { secondAnswer: 1 }],
    [
      'a duplicate answerId (its features not counted: the customer never got it)',
      delivered({ text: 'Hi', code: 'SUCCESS' }, { delivered: false, notDelivered: 'duplicate answerId' }),
      { duplicateAnswerId: 1 },
    ],
    [
      'a refused answer',
      delivered({ text: 'Hi', code: 'SUCCESS' }, { status: 409, delivered: false, notDelivered: 'thread with agents' }),
      { refusal: 1 },
    ],
    [
      'a second answer that repeats the first answerId: dropped under rule 6, no second answer',
      delivered({ text: 'Again' }, { delivered: false, notDelivered: 'duplicate answerId', questionAlreadyAnswered: true }),
      { duplicateAnswerId: 1 },
    ],
    [
      'a second answer refused by the strict mode (409)',
      delivered(
        { text: 'Again' },
        { status: 409, delivered: false, notDelivered: 'question already answered (strict mode)', questionAlreadyAnswered: true },
      ),
      { secondAnswer: 1, refusal: 1 },
    ],
    [
      'an invalid answer to a question already answered (400): a refusal, no second answer',
      delivered(
        { text: 'x'.repeat(5000) },
        { status: 400, delivered: false, notDelivered: 'the answer names two different questions', questionAlreadyAnswered: true },
      ),
      { refusal: 1 },
    ],
    [
      'an answer to a question already answered, delivered as 200 (the soft mode)',
      delivered({ text: 'Again' }, { status: 200, questionAlreadyAnswered: true }),
      { secondAnswer: 1 },
    ],
  ])('%s', (_, event, expected) => {
    expect(counted(event)).toEqual(expected);
  });
});

describe('coverage of one routing', () => {
  const routed = (matched: EventOf<'handover.routed'>['matched'], fromQueue = false) =>
    anEvent('handover.routed', { scope: 'thread', questionId: null, agentId: 101n, agentName: 'Ann', matched, fromQueue });
  const queued = (why: EventOf<'handover.queued'>['why']) => anEvent('handover.queued', { scope: 'thread', questionId: null, why });
  it.each([
    ['routed by userIds', routed(['userIds']), { routedByUserIds: 1 }],
    ['routed by skillIds', routed(['skillIds']), { routedBySkillIds: 1 }],
    ['routed by unitIds', routed(['unitIds']), { routedByUnitIds: 1 }],
    ['routed by skillIds and unitIds: both', routed(['skillIds', 'unitIds']), { routedBySkillIds: 1, routedByUnitIds: 1 }],
    ['routed with no targets', routed([]), { routedToAnyAgent: 1 }],
    ['routed from the queue', routed(['skillIds'], true), { routedFromQueue: 1, routedBySkillIds: 1 }],
    ['queued: no agent matches', queued('no agent matches the targets'), { queuedNoMatch: 1 }],
    ['queued: the matching agents are away or full', queued('all matching agents are away or full'), { queuedAwayOrFull: 1 }],
  ])('%s', (_, event, expected) => {
    const counts: CoverageCounts = new Map();
    countRouting(counts, event);
    expect(Object.fromEntries(counts)).toEqual(expected);
  });
});

describe('the coverage report', () => {
  it('lists every name once: exercised with its count, in the fixed order, or not exercised', () => {
    const report = coverageReport(
      new Map([
        ['press', 2],
        ['WEB', 3],
      ]),
    );
    expect(report.exercised).toEqual({ WEB: 3, press: 2 });
    expect(Object.keys(report.exercised)).toEqual(['WEB', 'press']);
    expect([...Object.keys(report.exercised), ...report.notExercised].sort()).toEqual([...COVERAGE_NAMES].sort());
    expect(report.notExercised).not.toContain('WEB');
  });
});
