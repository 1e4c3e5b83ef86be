import { describe, expect, it } from 'vitest';
import type { SandboxEvent } from '../../../src/testing/check-bot/observe.js';
import {
  FUZZ_FIXES,
  FUZZ_RULES,
  judge,
  judgedPart,
  namedIn,
  PROMPT_RULES,
  redeliveredAt,
  roundedFrom,
  type Attempt,
  type FuzzRule,
  type PlayedConversation,
} from '../../../src/testing/fuzz/judge.js';

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

/** A conversation of two messages (questions QUESTION and QUESTION + 4), both taken and answered. */
function two(over: { attempts?: [Attempt, Attempt]; events?: SandboxEvent[]; channel?: 'WEB' | 'EMAIL' } = {}): PlayedConversation {
  const base = played();
  const [first, second] = over.attempts ?? [ok, ok];
  return {
    ...base,
    channel: over.channel ?? 'WEB',
    events: over.events ?? [],
    messages: [
      { ...base.messages[0]!, attempt: first },
      { ...base.messages[0]!, questionId: QUESTION + 4n, questionIndex: 1n, deliveryId: 'msg_2', attempt: second },
    ],
  };
}

/** A request of the bot the sandbox refused before it was an answer, naming `named`. */
function refusedRequest(status: number, named: Record<string, unknown>, error: string | null = 'no'): SandboxEvent {
  return {
    type: 'api.request',
    seq: 20,
    tenant: 'sandbox',
    time: '2026-11-28T10:00:00.000Z',
    sessionId: 's-1',
    scope: 'conversation',
    method: 'POST',
    path: '/v1/messages',
    status,
    requestId: 'r-1',
    error,
    named: { questionId: null, questionIndex: null, sessionId: null, coreClientId: null, clientId: null, ...named },
    userAgent: null,
    during: [],
  } as unknown as SandboxEvent;
}

describe('the words and the message of each failure', () => {
  it.each<{ what: string; conversation: PlayedConversation; failure: { rule: FuzzRule; message: number; text: string } }>([
    {
      what: 'a bot that cannot be reached',
      conversation: played({ attempt: { ...ok, status: null, error: 'connect ECONNREFUSED 127.0.0.1:9' }, answered: null }),
      failure: { rule: 'unreachable', message: 0, text: 'message 1 could not reach the bot (connect ECONNREFUSED 127.0.0.1:9)' },
    },
    {
      what: 'no status and no error',
      conversation: played({ attempt: { ...ok, status: null, error: null }, answered: null }),
      failure: { rule: 'no-response', message: 0, text: 'message 1 got no answer (no answer)' },
    },
    {
      what: 'a 500 with a body, trimmed',
      conversation: played({ attempt: { ...ok, status: 500, body: '  internal error \n' } }),
      failure: { rule: 'server-error', message: 0, text: 'message 1: the bot answered 500: "internal error"' },
    },
    {
      what: 'a 503 with a blank body',
      conversation: played({ attempt: { ...ok, status: 503, body: ' \n ' } }),
      failure: { rule: 'server-error', message: 0, text: 'message 1: the bot answered 503' },
    },
    {
      what: 'a 500 with a long body, cut to 200 characters',
      conversation: played({ attempt: { ...ok, status: 500, body: `${'x'.repeat(200)}y` } }),
      failure: { rule: 'server-error', message: 0, text: `message 1: the bot answered 500: "${'x'.repeat(200)}"` },
    },
    {
      what: 'a 400 to the second message',
      conversation: two({ attempts: [ok, { ...ok, status: 400, body: 'unknown field' }] }),
      failure: { rule: 'refused-delivery', message: 1, text: 'message 2: the bot refused it with 400: "unknown field"' },
    },
    {
      what: 'a 500 to the redelivery of the first message',
      conversation: { ...played(), messages: [{ ...played().messages[0]!, redelivery: { ...ok, status: 500, body: '' } }] },
      failure: { rule: 'server-error', message: 0, text: 'the redelivery of message 1: the bot answered 500' },
    },
    {
      what: 'no answer to the second message',
      conversation: { ...two(), messages: two().messages.map((message, index) => ({ ...message, answered: index === 0 })) },
      failure: { rule: 'no-answer', message: 1, text: 'message 2 got no answer within the time limit' },
    },
    {
      what: 'an EMAIL answer refused for its addressing',
      conversation: two({
        channel: 'EMAIL',
        events: [
          answer(10, 'a-1', {
            status: 400,
            error: 'address it',
            questionId: QUESTION + 4n,
            delivered: false,
            notDelivered: 'EMAIL question not addressed by sessionId and questionIndex',
          }),
        ],
      }),
      failure: { rule: 'email-addressing', message: 1, text: 'the answer to message 2 was refused: 400 address it' },
    },
    {
      what: 'an EMAIL answer taken, addressed by questionId alone',
      conversation: two({ channel: 'EMAIL', events: [answer(10, 'a-1', { questionId: QUESTION + 4n })] }),
      failure: {
        rule: 'email-addressing',
        message: 1,
        text: 'an answer in the EMAIL thread was addressed by questionId, not by sessionId and questionIndex',
      },
    },
    {
      what: 'an EMAIL answer taken with no addressing listed',
      conversation: two({ channel: 'EMAIL', events: [answer(10, 'a-1', { addressedBy: null })] }),
      failure: {
        rule: 'email-addressing',
        message: 0,
        text: 'an answer in the EMAIL thread was addressed by nothing, not by sessionId and questionIndex',
      },
    },
    {
      what: 'an EMAIL answer taken, addressed by sessionId and by questionIndex apart',
      conversation: two({ channel: 'EMAIL', events: [answer(10, 'a-1', { addressedBy: ['sessionId', 'questionIndex'] })] }),
      failure: {
        rule: 'email-addressing',
        message: 0,
        text: 'an answer in the EMAIL thread was addressed by sessionId and questionIndex, not by sessionId and questionIndex',
      },
    },
    {
      what: 'an answer refused for its text',
      conversation: two({ events: [answer(10, 'a-1', { status: 400, error: 'text is required', delivered: false })] }),
      failure: { rule: 'invalid-answer', message: 0, text: "the bot's answer was refused: 400 text is required" },
    },
    {
      what: 'a request of the bot refused, naming the second question',
      conversation: two({ events: [refusedRequest(401, { questionId: QUESTION + 4n }, 'wrong token')] }),
      failure: { rule: 'invalid-answer', message: 1, text: "the bot's request was refused: 401 wrong token" },
    },
    {
      what: 'a request of the bot refused, with no message, naming no question',
      conversation: two({ events: [refusedRequest(415, {}, null)] }),
      failure: { rule: 'invalid-answer', message: 0, text: "the bot's request was refused: 415 " },
    },
    {
      what: 'a strict second answer to the second question',
      conversation: two({
        events: [
          answer(10, 'a-1', { questionId: QUESTION + 4n }),
          answer(11, 'a-2', { questionId: QUESTION + 4n, status: 409, error: 'already answered', delivered: false, notDelivered: STRICT }),
        ],
      }),
      failure: { rule: 'second-answer', message: 1, text: 'message 2 was answered twice: 409 already answered' },
    },
    {
      what: 'a taken answer naming another client',
      conversation: two({ events: [answer(10, 'a-1', { body: { questionId: QUESTION, coreClientId: 7n } })] }),
      failure: { rule: 'ids', message: 0, text: 'the answer named coreClientId 7; the client is 1001' },
    },
    {
      what: 'a refused request naming the coreClientId rounded by a double',
      conversation: { ...two(), coreClientId: 2n ** 60n + 1n, events: [refusedRequest(404, { coreClientId: 2n ** 60n })] },
      failure: {
        rule: 'ids',
        message: 0,
        text: `the bot answered with coreClientId ${2n ** 60n} for ${2n ** 60n + 1n}: the id lost its last digits (read as a double); refused 404`,
      },
    },
    {
      what: 'a refused answer naming the second questionId rounded, in its body',
      conversation: two({
        events: [answer(10, 'a-1', { status: 404, delivered: false, questionId: null, body: { questionId: QUESTION + 3n } })],
      }),
      failure: {
        rule: 'ids',
        message: 1,
        text: `the bot answered with questionId ${QUESTION + 3n} for ${QUESTION + 4n}: the id lost its last digits (read as a double); refused 404`,
      },
    },
  ])('$what', ({ conversation, failure }) => {
    expect(judge(conversation)).toEqual(failure);
  });

  it.each<{ status: number; rule: FuzzRule | null }>([
    { status: 199, rule: 'refused-delivery' },
    { status: 200, rule: null },
    { status: 299, rule: null },
    { status: 300, rule: 'refused-delivery' },
    { status: 499, rule: 'refused-delivery' },
    { status: 500, rule: 'server-error' },
  ])('a delivery acknowledged $status: $rule', ({ status, rule }) => {
    expect(judge(played({ attempt: { ...ok, status } }))?.rule ?? null).toBe(rule);
  });

  it('a redelivery answered anew names every answerId of the question', () => {
    const failure = judge(redelivered([answer(10, 'a-1'), 'redelivery', answer(12, 'a-2'), answer(13, 'a-3')], false));
    expect(failure).toEqual({
      rule: 'redelivery-answered',
      message: 0,
      text: 'message 1 was redelivered and answered anew (answerIds a-1, a-2, a-3)',
    });
  });

  it('a strict second answer after the redelivery says so', () => {
    const failure = judge(
      redelivered([answer(10, 'a-1'), 'redelivery', answer(12, 'a-2', { status: 409, error: 'again', notDelivered: STRICT })], true),
    );
    expect(failure).toEqual({
      rule: 'redelivery-answered',
      message: 0,
      text: 'message 1 was answered twice, the second time after its redelivery: 409 again',
    });
  });
});

describe('what the judge reads', () => {
  it('takes a rounded id only from a bigint that a double made of ours', () => {
    expect(roundedFrom(2n ** 53n, 2n ** 53n + 1n)).toBe(true);
    expect(roundedFrom(2n ** 53n + 1n, 2n ** 53n + 1n)).toBe(false);
    expect(roundedFrom(2n ** 53n + 2n, 2n ** 53n + 1n)).toBe(false);
    expect(roundedFrom(Number(2n ** 53n), 2n ** 53n + 1n)).toBe(false);
    expect(roundedFrom(5n, 5n)).toBe(false);
  });

  it('reads the identifiers a refused request named, or those in the body of an answer', () => {
    expect(namedIn(refusedRequest(401, { questionId: 3n }))).toEqual({
      questionId: 3n,
      questionIndex: null,
      sessionId: null,
      coreClientId: null,
      clientId: null,
      status: 401,
    });
    expect(namedIn(answer(10, 'a-1', { status: 404, body: { questionId: 4n, coreClientId: 5n, text: 'x' } }))).toEqual({
      questionId: 4n,
      coreClientId: 5n,
      status: 404,
    });
    expect(namedIn(answer(10, 'a-1', { body: null }))).toBeNull();
    expect(namedIn(answer(10, 'a-1', { body: 'text' }))).toBeNull();
    expect(namedIn({ type: 'customer.message' } as unknown as SandboxEvent)).toBeNull();
  });

  it("finds a message's first redelivery by its delivery, or none", () => {
    const conversation = redelivered([answer(10, 'a-1'), 'redelivery'], false);
    expect(redeliveredAt(conversation, conversation.messages[0])).toBe(11);
    expect(redeliveredAt(conversation, undefined)).toBe(Infinity);
    expect(redeliveredAt(conversation, { ...conversation.messages[0]!, redelivery: null })).toBe(Infinity);
    expect(redeliveredAt(conversation, { ...conversation.messages[0]!, deliveryId: 'msg_2' })).toBe(Infinity);
    const other = { ...conversation, events: conversation.events.map((event) => ({ ...event, type: 'webhook.attempt' }) as SandboxEvent) };
    expect(redeliveredAt(other, other.messages[0])).toBe(Infinity);
  });

  it("keeps of a played conversation's events the bot's requests, its answers without their texts, and the redeliveries", () => {
    const full = answer(10, 'a-1', {
      body: { answerId: 'a-1', questionId: QUESTION, coreClientId: 1001n, text: 'x'.repeat(4000) },
      formattedHtml: '<p>x</p>',
      warnings: [{ path: 'text', message: 'long' }],
      userAgent: 'bot/1',
      during: [{ sessionId: 's-1', questionId: QUESTION, deliveryId: 'msg_1' }],
    });
    expect(judgedPart(full)).toEqual({
      ...full,
      body: { questionId: QUESTION, coreClientId: 1001n },
      formattedHtml: null,
      warnings: [],
      userAgent: null,
      during: [],
    });
    const light = { body: null, formattedHtml: null, warnings: [], userAgent: null, during: [] };
    expect(judgedPart(answer(10, 'a-1', { body: 'not an object' }))).toEqual(answer(10, 'a-1', light));
    expect(judgedPart(answer(10, 'a-1', { body: null }))).toEqual(answer(10, 'a-1', light));
    const request = refusedRequest(401, {});
    expect(judgedPart(request)).toBe(request);
    const redelivery = redelivered(['redelivery'], false).events[0]!;
    expect(judgedPart(redelivery)).toBe(redelivery);
    expect(judgedPart({ type: 'webhook.attempt', seq: 3 } as unknown as SandboxEvent)).toBeUndefined();
    expect(judgedPart({ type: 'customer.message', seq: 2 } as unknown as SandboxEvent)).toBeUndefined();
  });

  it('judges what it keeps as it judges the whole events', () => {
    const cases = [
      redelivered([answer(10, 'a-1'), answer(11, 'a-2', { status: 409, notDelivered: STRICT }), 'redelivery'], true),
      redelivered([answer(10, 'a-1'), 'redelivery', answer(12, 'a-2')], false),
      two({ events: [answer(10, 'a-1', { body: { questionId: QUESTION, coreClientId: 7n, text: 'hi' } })] }),
      two({
        events: [answer(10, 'a-1', { status: 404, delivered: false, questionId: null, body: { questionId: QUESTION + 3n, text: 'hi' } })],
      }),
      two({ channel: 'EMAIL', events: [answer(10, 'a-1')] }),
    ];
    for (const conversation of cases) {
      const kept = conversation.events.map(judgedPart).filter((event) => event !== undefined);
      expect(judge({ ...conversation, events: kept })).toEqual(judge(conversation));
      expect(judge(conversation)).not.toBeNull();
    }
  });
});

describe('the rules', () => {
  it('are these ten, each with a fix', () => {
    expect(FUZZ_RULES).toEqual([
      'unreachable',
      'server-error',
      'no-response',
      'refused-delivery',
      'email-addressing',
      'ids',
      'second-answer',
      'redelivery-answered',
      'invalid-answer',
      'no-answer',
    ]);
    expect(Object.keys(FUZZ_FIXES).sort()).toEqual([...FUZZ_RULES].sort());
    for (const rule of FUZZ_RULES) expect(FUZZ_FIXES[rule], rule).toMatch(/^[a-z].{30,}[^.]$/);
  });

  it('decided by how the bot acknowledged each delivery and whether an answer came in time are these five', () => {
    expect([...PROMPT_RULES].sort()).toEqual(['no-answer', 'no-response', 'refused-delivery', 'server-error', 'unreachable']);
  });
});

describe('the edges of each rule', () => {
  const attempt = (seq: number): SandboxEvent =>
    ({
      type: 'webhook.attempt',
      seq,
      tenant: 'sandbox',
      time: '2026-11-28T10:00:00.000Z',
      sessionId: 's-1',
      deliveryId: 'msg_1',
      questionId: QUESTION,
      redelivery: 1,
      attempt: 1,
      status: 200,
    }) as unknown as SandboxEvent;
  const greeting = (over: Record<string, unknown>): SandboxEvent =>
    ({ ...answer(5, 'g-1', over), type: 'greeting', kind: 'greeting', questionId: undefined }) as unknown as SandboxEvent;

  it.each<{ what: string; conversation: PlayedConversation; rule: FuzzRule | null }>([
    {
      what: 'a redelivery whose own webhook attempt is recorded after it (an event of the question that is not an answer)',
      conversation: redelivered([answer(10, 'a-1'), 'redelivery', attempt(12)], false),
      rule: null,
    },
    {
      what: 'a redelivery, then an answer to another question under a new answerId',
      conversation: redelivered([answer(10, 'a-1'), 'redelivery', answer(12, 'a-2', { questionId: QUESTION + 4n })], false),
      rule: null,
    },
    {
      what: 'a redelivery, then an answer under an answerId another question had (dropped as a duplicate)',
      conversation: redelivered([answer(10, 'a-1'), 'redelivery', answer(12, 'b-1', DROPPED)], false),
      rule: null,
    },
    {
      what: 'no answer before the redelivery, one after it',
      conversation: redelivered(['redelivery', answer(11, 'a-1')], false),
      rule: null,
    },
    {
      what: 'an EMAIL answer addressed by sessionId and questionIndex (and by questionId)',
      conversation: two({ channel: 'EMAIL', events: [answer(10, 'a-1', { addressedBy: ['sessionId+questionIndex', 'questionId'] })] }),
      rule: null,
    },
    {
      what: "a taken answer that names the client's own coreClientId",
      conversation: two({ events: [answer(10, 'a-1', { body: { questionId: QUESTION, coreClientId: 1001n } })] }),
      rule: null,
    },
    {
      what: 'a greeting taken, naming another client (a greeting is no answer)',
      conversation: two({ events: [greeting({ body: { coreClientId: 7n }, addressedBy: ['coreClientId'] })] }),
      rule: null,
    },
    {
      what: 'a greeting refused, naming the client rounded by a double',
      conversation: {
        ...two(),
        coreClientId: 2n ** 60n + 1n,
        events: [greeting({ status: 404, delivered: false, body: { coreClientId: 2n ** 60n } })],
      },
      rule: null,
    },
  ])('$what: $rule', ({ conversation, rule }) => {
    expect(judge(conversation)?.rule ?? null).toBe(rule);
  });

  it('words a taken answer that names the client rounded by a double as another client, not as a refusal', () => {
    const conversation = {
      ...two(),
      coreClientId: 2n ** 60n + 1n,
      events: [answer(10, 'a-1', { body: { questionId: QUESTION, coreClientId: 2n ** 60n } })],
    };
    expect(judge(conversation)).toEqual({
      rule: 'ids',
      message: 0,
      text: `the answer named coreClientId ${2n ** 60n}; the client is ${2n ** 60n + 1n}`,
    });
  });

  it('words a rounded questionId of the first message', () => {
    expect(judge(played({ untied: [roundedAnswer] }))).toEqual({
      rule: 'ids',
      message: 0,
      text: `the bot answered with questionId ${2n ** 53n} for ${QUESTION}: the id lost its last digits (read as a double); refused 404`,
    });
  });

  it('with --only, judges the redelivery of a message by the rules named', () => {
    const conversation = { ...played(), messages: [{ ...played().messages[0]!, redelivery: { ...ok, status: 500 } }] };
    expect(judge(conversation, new Set<FuzzRule>(['server-error']))?.rule).toBe('server-error');
    expect(judge(conversation, new Set<FuzzRule>(['no-answer']))).toBeNull();
  });

  it('reads a greeting as naming nothing', () => {
    expect(namedIn(greeting({ status: 404, body: { questionId: 3n, coreClientId: 4n } }))).toBeNull();
  });
});
