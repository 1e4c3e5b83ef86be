import { describe, expect, it } from 'vitest';
import { handoverOf, releaseOf, withAgents } from '../../../src/sandbox/rules/handover.js';
import { world } from './world.js';

/** Hand-over to agents and release (docs/sandbox.md, "Hand-over to agents"). */

describe('a thread or question with agents takes no bot answer', () => {
  it('refuses an answer into a thread with agents (409), naming the hand-over and the release', () => {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 's-1', owner: 'agents' });
    const question = w.ask(thread);
    expect(withAgents(thread, question)).toEqual({
      status: 409,
      notDelivered: 'thread with agents',
      error:
        "the thread 's-1' is with agents since SWITCH_TO_HUMAN: a bot answer is not delivered until the thread is given back (POST /_sandbox/conversations/s-1/release)",
      sessionId: 's-1',
      question,
    });
  });

  it('says "a hand-over" for a thread with agents whose hand-over is not recorded', () => {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 's-1', owner: 'agents' });
    thread.handover = null;
    expect(withAgents(thread, undefined)?.error).toContain('is with agents since a hand-over:');
  });

  it('refuses an answer to a question passed to agents (409), though its thread is with the bot', () => {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 's-1' });
    w.ask(thread);
    const passed = w.ask(thread, { withAgents: true });
    expect(withAgents(thread, passed)).toEqual({
      status: 409,
      notDelivered: 'question with agents',
      error:
        "question 2 of thread 's-1' was passed to agents with UNCLEAR_QUESTION: a bot answer to it is not delivered until the thread is given back (POST /_sandbox/conversations/s-1/release)",
      sessionId: 's-1',
      question: passed,
    });
  });

  it.each([
    ['a question with the bot in a thread with the bot', false],
    ['no question (addressed by client) in a thread with the bot', true],
  ])('lets through %s', (_, noQuestion) => {
    const w = world();
    const thread = w.thread(w.client(1n));
    const question = w.ask(thread);
    expect(withAgents(thread, noQuestion ? undefined : question)).toBeNull();
  });

  it('lets through an answer with no thread yet', () => {
    expect(withAgents(undefined, undefined)).toBeNull();
  });
});

describe('what a delivered answer hands over', () => {
  it.each([[undefined], [null], ['']])('hands over nothing without a code (%s)', (code) => {
    const w = world();
    const thread = w.thread(w.client(1n));
    expect(handoverOf({ code }, thread, w.ask(thread))).toBeNull();
  });

  it('hands over nothing for a code that is no hand-over', () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    expect(handoverOf({ code: 'ANOTHER' }, thread, w.ask(thread))).toBeNull();
  });

  it('SWITCH_TO_HUMAN hands over the thread, with the question answered and the targets', () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    const question = w.ask(thread);
    expect(handoverOf({ code: 'SWITCH_TO_HUMAN', userIds: [7n], skillIds: [8n, 9n], unitIds: null }, thread, question)).toEqual({
      code: 'SWITCH_TO_HUMAN',
      scope: 'thread',
      question,
      targets: { userIds: [7n], skillIds: [8n, 9n], unitIds: [] },
    });
  });

  it('UNCLEAR_QUESTION carries its targets too', () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    const question = w.ask(thread);
    expect(
      handoverOf({ code: 'UNCLEAR_QUESTION', userIds: undefined, skillIds: [], unitIds: [10n, 11n] }, thread, question)?.targets,
    ).toEqual({
      userIds: [],
      skillIds: [],
      unitIds: [10n, 11n],
    });
  });

  it.each([
    ['absent', {}],
    ['null', { userIds: null, skillIds: null, unitIds: null }],
  ])('names no target when the answer gives none (%s)', (_, targets) => {
    const w = world();
    const thread = w.thread(w.client(1n));
    expect(handoverOf({ code: 'SWITCH_TO_HUMAN', ...targets }, thread, w.ask(thread))?.targets).toEqual({
      userIds: [],
      skillIds: [],
      unitIds: [],
    });
  });

  it('SWITCH_TO_HUMAN addressed by client hands over the thread with no question', () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    w.ask(thread);
    expect(handoverOf({ code: 'SWITCH_TO_HUMAN' }, thread, undefined)).toMatchObject({ scope: 'thread', question: null });
  });

  it('UNCLEAR_QUESTION passes the question answered', () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    const first = w.ask(thread);
    w.ask(thread);
    expect(handoverOf({ code: 'UNCLEAR_QUESTION' }, thread, first)).toMatchObject({
      code: 'UNCLEAR_QUESTION',
      scope: 'question',
      question: first,
    });
  });

  it("UNCLEAR_QUESTION addressed by client passes the thread's latest question", () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    w.ask(thread);
    const latest = w.ask(thread);
    expect(handoverOf({ code: 'UNCLEAR_QUESTION' }, thread, undefined)).toMatchObject({ scope: 'question', question: latest });
  });

  it('UNCLEAR_QUESTION addressed by client into a thread with no question hands over nothing', () => {
    const w = world();
    expect(handoverOf({ code: 'UNCLEAR_QUESTION' }, w.thread(w.client(1n)), undefined)).toBeNull();
  });
});

describe('what giving a thread back releases', () => {
  it('is nothing when neither the thread nor a question is with agents', () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    w.ask(thread);
    expect(releaseOf(thread)).toBeNull();
  });

  it('is the thread, when it is with agents', () => {
    const w = world();
    expect(releaseOf(w.thread(w.client(1n), { owner: 'agents' }))).toEqual({ thread: true, questions: [] });
  });

  it('is each question passed to agents, and not the others', () => {
    const w = world();
    const thread = w.thread(w.client(1n));
    const passed = w.ask(thread, { withAgents: true });
    w.ask(thread);
    const alsoPassed = w.ask(thread, { withAgents: true });
    expect(releaseOf(thread)).toEqual({ thread: false, questions: [passed, alsoPassed] });
  });

  it('decides without changing the thread (the store applies it)', () => {
    const w = world();
    const thread = w.thread(w.client(1n), { owner: 'agents' });
    const passed = w.ask(thread, { withAgents: true });
    releaseOf(thread);
    expect(thread.owner).toBe('agents');
    expect(passed.withAgents).not.toBeNull();
  });
});
