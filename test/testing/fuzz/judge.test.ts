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

const STRICT = 'question already answered (strict mode)';
const DROPPED = { notDelivered: 'duplicate answerId', delivered: false } as const;
type Answer = SandboxEvent | 'redelivery';

/** A bot answer to QUESTION, recorded at `seq`. */
function answer(seq: number, answerId: string, over: Record<string, unknown> = {}): SandboxEvent {
  return {
    type: 'bot.answer',
    seq,
    tenant: 'sandbox',
    time: '2026-11-28T10:00:00.000Z',
    sessionId: 's-1',
    status: 200,
    error: null,
    questionId: QUESTION,
    answerId,
    delivered: true,
    notDelivered: null,
    addressedBy: ['questionId'],
    body: { answerId, questionId: QUESTION, text: 'hi' },
    ...over,
  } as unknown as SandboxEvent;
}

/** The one message redelivered, with the bot's answers in their order around the redelivery (`'redelivery'`). */
function redelivered(answers: Answer[], strict: boolean): PlayedConversation {
  const base = played();
  const events = answers.map((each, index) =>
    each !== 'redelivery'
      ? each
      : ({
          type: 'webhook.redelivery',
          seq: 10 + index,
          tenant: 'sandbox',
          time: '2026-11-28T10:00:00.000Z',
          sessionId: 's-1',
          deliveryId: 'msg_1',
          questionId: QUESTION,
          redelivery: 1,
        } as unknown as SandboxEvent),
  );
  return { ...base, strict, events, messages: [{ ...base.messages[0]!, redelivery: ok }] };
}

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

  it.each<{ what: string; strict: boolean; answers: Answer[]; rule: FuzzRule | null }>([
    {
      what: 'strict: answered twice before the redelivery, which is not answered',
      strict: true,
      answers: [answer(10, 'a-1'), answer(11, 'a-2', { status: 409, notDelivered: STRICT }), 'redelivery'],
      rule: 'second-answer',
    },
    {
      what: 'strict: answered twice before the redelivery, and the redelivery answered with the first answerId',
      strict: true,
      answers: [answer(10, 'a-1'), answer(11, 'a-2', { status: 409, notDelivered: STRICT }), 'redelivery', answer(13, 'a-1', DROPPED)],
      rule: 'second-answer',
    },
    {
      what: 'strict: answered once, and the redelivery answered with a new answerId',
      strict: true,
      answers: [answer(10, 'a-1'), 'redelivery', answer(12, 'a-2', { status: 409, notDelivered: STRICT })],
      rule: 'redelivery-answered',
    },
    {
      what: 'soft: answered twice before the redelivery (soft mode takes it), the redelivery not answered anew',
      strict: false,
      answers: [answer(10, 'a-1'), answer(11, 'a-2'), 'redelivery', answer(13, 'a-2', DROPPED)],
      rule: null,
    },
    {
      what: 'soft: answered once, and the redelivery answered with a new answerId',
      strict: false,
      answers: [answer(10, 'a-1'), 'redelivery', answer(12, 'a-2')],
      rule: 'redelivery-answered',
    },
    {
      what: 'soft: answered once, and the redelivery answered with the same answerId (dropped)',
      strict: false,
      answers: [answer(10, 'a-1'), 'redelivery', answer(12, 'a-1', DROPPED)],
      rule: null,
    },
  ])('a redelivered message, $what: $rule', ({ strict, answers, rule }) => {
    expect(judge(redelivered(answers, strict))?.rule ?? null).toBe(rule);
  });

  it('with --only, still fails a bot that cannot be reached', () => {
    const gone = played({ attempt: { ...ok, status: null, error: 'connect ECONNREFUSED 127.0.0.1:1' }, answered: null });
    expect(judge(gone, new Set<FuzzRule>(['ids']))?.rule).toBe('unreachable');
  });
});
