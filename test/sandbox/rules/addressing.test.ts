import { describe, expect, it } from 'vitest';
import {
  addressReply,
  clientMismatch,
  describeQuestions,
  namedQuestion,
  questionAt,
  questionLabels,
  replyAddressing,
} from '../../../src/sandbox/rules/addressing.js';
import { world } from './world.js';

/** Addressing (docs/sandbox.md, "Answers are checked against the state"; docs/api.md, addressing rule 1). */

const MAX_EVENTS = 77;
const forgottenNote = 'the sandbox keeps the last 77 events of a tenant, and forgets what they no longer mention';

function twoThreads() {
  const w = world('acme');
  const alice = w.client(1001n, 'alice');
  const first = w.thread(alice, { sessionId: 's-first' });
  const q1 = w.ask(first);
  const q2 = w.ask(first);
  const q3 = w.ask(first);
  const bob = w.client(1002n);
  const other = w.thread(bob, { sessionId: 's-other' });
  const o1 = w.ask(other);
  return { w, alice, first, q1, q2, q3, bob, other, o1 };
}

describe('the question an answer names', () => {
  it('is found by questionId, by sessionId with questionIndex, and by both when they agree', () => {
    const { w, q2 } = twoThreads();
    expect(namedQuestion(w.view, { questionId: q2.questionId }, MAX_EVENTS)).toEqual({ ok: true, question: q2 });
    expect(namedQuestion(w.view, { sessionId: 's-first', questionIndex: 2n }, MAX_EVENTS)).toEqual({ ok: true, question: q2 });
    expect(namedQuestion(w.view, { questionId: q2.questionId, sessionId: 's-first', questionIndex: 2n }, MAX_EVENTS)).toEqual({
      ok: true,
      question: q2,
    });
  });

  it('is none for an answer addressed by client, or by sessionId without questionIndex (or the reverse)', () => {
    const { w } = twoThreads();
    for (const address of [{ coreClientId: 1001n }, { clientId: 'alice' }, { sessionId: 's-first' }, { questionIndex: 1n }, {}]) {
      expect(namedQuestion(w.view, address, MAX_EVENTS)).toEqual({ ok: true, question: undefined });
    }
  });

  it.each([
    [
      'a questionId the tenant does not have',
      { questionId: 9999n },
      `no question with questionId 9999 in tenant 'acme' (${forgottenNote})`,
      null,
    ],
    [
      'a questionId the tenant does not have, tied to the thread its sessionId names',
      { questionId: 9999n, sessionId: 's-first', questionIndex: 1n },
      `no question with questionId 9999 in tenant 'acme' (${forgottenNote})`,
      's-first',
    ],
    [
      'a sessionId the tenant does not have',
      { sessionId: 's-gone', questionIndex: 1n },
      `no thread with sessionId 's-gone' in tenant 'acme' (${forgottenNote})`,
      null,
    ],
    [
      'a thread that has no questions yet',
      { sessionId: 's-empty', questionIndex: 1n },
      "thread 's-empty' has no question with questionIndex 1 (it has no questions yet)",
      's-empty',
    ],
    [
      'questionIndex 0, below the first',
      { sessionId: 's-first', questionIndex: 0n },
      "thread 's-first' has no question with questionIndex 0 (it has questions 1 to 3)",
      's-first',
    ],
    [
      'questionIndex 4, past the last',
      { sessionId: 's-first', questionIndex: 4n },
      "thread 's-first' has no question with questionIndex 4 (it has questions 1 to 3)",
      's-first',
    ],
  ])('is a 404 "unknown question" for %s', (_, address, error, sessionId) => {
    const { w, bob } = twoThreads();
    w.thread(bob, { sessionId: 's-empty' });
    const named = namedQuestion(w.view, address, MAX_EVENTS);
    expect(named).toEqual({ ok: false, refusal: { status: 404, notDelivered: 'unknown question', error, sessionId, question: undefined } });
  });

  it('keeps the question found by questionId in a 404 for a sessionId not kept (the event names it)', () => {
    const { w, q1 } = twoThreads();
    const named = namedQuestion(w.view, { questionId: q1.questionId, sessionId: 's-gone', questionIndex: 1n }, MAX_EVENTS);
    expect(named).toMatchObject({ ok: false, refusal: { status: 404, question: q1, sessionId: null } });
  });

  it('finds the first and the last kept question, and none just outside, after older ones are forgotten', () => {
    const { w, first, q2, q3 } = twoThreads();
    w.forgetOldest(first);
    expect(questionAt(first, 1n)).toBeUndefined();
    expect(questionAt(first, 2n)).toBe(q2);
    expect(questionAt(first, 3n)).toBe(q3);
    expect(questionAt(first, 4n)).toBeUndefined();
    expect(describeQuestions(first)).toBe('it has questions 2 to 3');
  });

  it.each([
    [0, 'it has no questions yet'],
    [1, 'it has question 1'],
    [2, 'it has questions 1 to 2'],
  ])('describes a thread of %i questions as "%s"', (count, text) => {
    const w = world();
    const thread = w.thread(w.client(1n));
    for (let i = 0; i < count; i += 1) w.ask(thread);
    expect(describeQuestions(thread)).toBe(text);
  });

  it('is a 400 when questionId and sessionId with questionIndex name two different questions, tied to the latter', () => {
    const { w, q1, o1 } = twoThreads();
    const named = namedQuestion(w.view, { questionId: q1.questionId, sessionId: 's-other', questionIndex: 1n }, MAX_EVENTS);
    expect(named).toEqual({
      ok: false,
      refusal: {
        status: 400,
        notDelivered: 'the answer names two different questions',
        error: `questionId ${q1.questionId} is question 1 of thread 's-first', not question 1 of thread 's-other': name one question`,
        sessionId: 's-other',
        question: o1,
      },
    });
  });
});

describe('where an answer goes', () => {
  it("goes to the question's thread and client, warning about a client it names that is not the question's", () => {
    const { w, q1, first, alice } = twoThreads();
    const addressed = addressReply(w.view, { questionId: q1.questionId, coreClientId: 1002n }, MAX_EVENTS);
    expect(addressed).toMatchObject({ ok: true, question: q1, thread: first, client: alice });
    expect(addressed.ok && addressed.warnings.map((w) => w.path)).toEqual(['coreClientId']);
  });

  it.each([
    ['coreClientId', { coreClientId: 1002n }, 's-other'],
    ['clientId', { clientId: 'alice' }, 's-first'],
    ['coreClientId before clientId', { coreClientId: 1002n, clientId: 'alice' }, 's-other'],
    ['clientId when the coreClientId is unknown', { coreClientId: 4242n, clientId: 'alice' }, 's-first'],
  ])("addressed by %s, goes to that client's latest thread", (_, address, sessionId) => {
    const { w } = twoThreads();
    const addressed = addressReply(w.view, address, MAX_EVENTS);
    expect(addressed.ok && addressed.thread?.sessionId).toBe(sessionId);
    expect(addressed.ok && addressed.question).toBeUndefined();
  });

  it('finds no client nor thread for a client the tenant does not know (the store makes them)', () => {
    const { w } = twoThreads();
    expect(addressReply(w.view, { coreClientId: 4242n }, MAX_EVENTS)).toEqual({
      ok: true,
      question: undefined,
      thread: undefined,
      client: undefined,
      warnings: [],
    });
  });

  it('passes a refusal of the question named through unchanged', () => {
    const { w } = twoThreads();
    expect(addressReply(w.view, { questionId: 1n }, MAX_EVENTS)).toMatchObject({ ok: false, refusal: { status: 404 } });
  });
});

describe('what an answer says about its address', () => {
  it.each([
    [{}, []],
    [{ coreClientId: 1n }, ['coreClientId']],
    [{ questionId: 1n }, ['questionId']],
    [{ sessionId: 's', questionIndex: 1n }, ['sessionId+questionIndex']],
    [{ sessionId: 's' }, []],
    [{ questionIndex: 1n }, []],
    [{ clientId: 'c' }, ['clientId']],
    [
      { clientId: 'c', sessionId: 's', questionIndex: 2n, questionId: 1n, coreClientId: 1n },
      ['coreClientId', 'questionId', 'sessionId+questionIndex', 'clientId'],
    ],
    [{ coreClientId: null, questionId: null, clientId: null }, []],
  ])('addressedBy of %o is %o (the order of addressing rule 1)', (address, ways) => {
    expect(replyAddressing(address)).toEqual(ways);
  });

  it.each([
    [{ questionId: 7n }, ['questionId 7']],
    [{ sessionId: 's-1', questionIndex: 2n }, ['sessionId s-1 with questionIndex 2']],
    [{ questionId: 7n, sessionId: 's-1', questionIndex: 2n }, ['questionId 7', 'sessionId s-1 with questionIndex 2']],
    [{ sessionId: 's-1' }, []],
    [{ questionIndex: 2n }, []],
  ])('labels the question of %o as %o', (address, labels) => {
    expect(questionLabels(address)).toEqual(labels);
  });

  it.each([
    ['the same coreClientId and clientId', { coreClientId: 1001n, clientId: 'alice' }, []],
    ['no client', {}, []],
    [
      'another coreClientId',
      { coreClientId: 1002n },
      ['question 5001 is of coreClientId 1001, not 1002: the sandbox answers the question'],
    ],
    ['another clientId', { clientId: 'bob' }, ["question 5001 is of clientId 'alice', not 'bob': the sandbox answers the question"]],
    [
      'both others',
      { coreClientId: 1002n, clientId: 'bob' },
      [
        'question 5001 is of coreClientId 1001, not 1002: the sandbox answers the question',
        "question 5001 is of clientId 'alice', not 'bob': the sandbox answers the question",
      ],
    ],
  ])('warns, for an answer naming %s besides the question, %o', (_, address, messages) => {
    const { q1 } = twoThreads();
    expect(clientMismatch(address, q1).map((p) => p.message)).toEqual(messages);
  });

  it('names "(none)" for a question whose client has no clientId', () => {
    const { o1 } = twoThreads();
    expect(clientMismatch({ clientId: 'x' }, o1)).toEqual([
      { path: 'clientId', message: `question ${o1.questionId} is of clientId (none), not 'x': the sandbox answers the question` },
    ]);
  });
});
