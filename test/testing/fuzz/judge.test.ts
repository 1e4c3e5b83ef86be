import { describe, expect, it } from 'vitest';
import type { SandboxEvent } from '../../../src/testing/check-bot/observe.js';
import { judge, type Attempt, type FuzzRule, type PlayedConversation } from '../../../src/testing/fuzz/judge.js';

/**
 * The rules a fuzzed conversation is judged by (docs/check-bot.md, "Fuzzing"), from what it played:
 * each rule on its own, and `--only` (the rules judged) passing over the failures of other rules.
 */

const ok: Attempt = { status: 200, error: null, latencyMs: 1, body: '', delivery: '{}' };
const QUESTION = 2n ** 53n + 1n;

function played(over: { attempt?: Attempt; answered?: boolean | null; untied?: SandboxEvent[] } = {}): PlayedConversation {
  return {
    sessionId: 's-1',
    channel: 'WEB',
    coreClientId: 1001n,
    messages: [
      {
        questionId: QUESTION,
        questionIndex: 0n,
        deliveryId: 'msg_1',
        attempt: over.attempt ?? ok,
        redelivery: null,
        answered: over.answered === undefined ? true : over.answered,
      },
    ],
    events: [],
    untied: over.untied ?? [],
    strict: false,
  };
}

/** The refused answer of a bot that read the questionId as a double. */
const roundedAnswer = {
  type: 'bot.answer',
  seq: 9,
  tenant: 'sandbox',
  time: '2026-11-28T10:00:00.000Z',
  sessionId: null,
  status: 404,
  error: 'no question 9007199254740992',
  questionId: null,
  body: { answerId: 'a-1', questionId: 2n ** 53n, text: 'hi' },
} as unknown as SandboxEvent;

describe('judging a fuzzed conversation', () => {
  it.each<{ what: string; conversation: PlayedConversation; rule: FuzzRule | null }>([
    { what: 'every delivery taken and answered', conversation: played(), rule: null },
    { what: 'a 500 to the delivery', conversation: played({ attempt: { ...ok, status: 500 } }), rule: 'server-error' },
    { what: 'a 499 to the delivery', conversation: played({ attempt: { ...ok, status: 499 } }), rule: 'refused-delivery' },
    {
      what: 'a dropped connection',
      conversation: played({ attempt: { ...ok, status: null, error: 'socket hang up' }, answered: null }),
      rule: 'no-response',
    },
    { what: 'no answer in time', conversation: played({ answered: false }), rule: 'no-answer' },
    { what: 'an answer naming the questionId rounded by a double', conversation: played({ untied: [roundedAnswer] }), rule: 'ids' },
    {
      what: 'an answer naming the questionId one past the rounded one (not a rounding)',
      conversation: played({ untied: [{ ...roundedAnswer, body: { questionId: 2n ** 53n + 2n } } as unknown as SandboxEvent] }),
      rule: null,
    },
  ])('$what: $rule', ({ conversation, rule }) => {
    expect(judge(conversation)?.rule ?? null).toBe(rule);
  });

  it('with --only, passes over the failures of the other rules and finds the next one judged', () => {
    const both = played({ attempt: { ...ok, status: 500 }, untied: [roundedAnswer] });
    expect(judge(both)?.rule).toBe('server-error');
    expect(judge(both, new Set<FuzzRule>(['ids']))?.rule).toBe('ids');
    expect(judge(both, new Set<FuzzRule>(['no-answer']))).toBeNull();
  });

  it('with --only, still fails a bot that cannot be reached', () => {
    const gone = played({ attempt: { ...ok, status: null, error: 'connect ECONNREFUSED 127.0.0.1:1' }, answered: null });
    expect(judge(gone, new Set<FuzzRule>(['ids']))?.rule).toBe('unreachable');
  });
});
