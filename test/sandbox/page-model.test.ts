import { describe, expect, it } from 'vitest';
import type { EventOf, EventType } from '../../src/sandbox/events.js';
import type { PageConversation } from '../../src/sandbox/model.js';
import {
  apply,
  candidatesOf,
  deliveryTie,
  closed,
  emptyState,
  inputBlocked,
  mistakeOf,
  opened,
  RECENT_KEPT,
  resentQuestion,
  sortedConversations,
  UNTIED_KEPT,
  withListings,
  withReasons,
  type PageState,
} from '../../src/sandbox/page/model.js';
import { acceptedForgery, craftOf, CRAFTS } from '../../src/sandbox/page/crafts.js';
import { anEvent } from '../helpers/events.js';

/**
 * The page's model (src/sandbox/page/model.js), played in Node event by event: what each kind of
 * event the page reads does to the list of conversations, their badges, the strip of untied refusals,
 * the reasons and the open conversation's timeline and exchanges. `apply` never changes the state it
 * is given, and a part an event does not touch stays the same object (the view redraws by identity).
 */

let seq = 100;
/** An event with the next seq, so that a sequence of them is in order. */
function next<T extends EventType>(type: T, fields: Partial<Omit<EventOf<T>, 'type'>> = {}): EventOf<T> {
  seq += 1;
  return anEvent(type, { seq, ...fields });
}

/** Applies events one by one, checking each time that the state given is left as it was. */
function play(state: PageState, ...events: EventOf<EventType>[]): PageState {
  for (const event of events) {
    const before = structuredClone(state);
    const after = apply(state, event);
    expect(state).toEqual(before);
    state = after;
  }
  return state;
}

/** A conversation as GET /_sandbox/conversations/{sessionId} gives it. */
function listed(sessionId: string, fields: Partial<PageConversation> = {}): PageConversation {
  return {
    tenant: 'sandbox',
    sessionId,
    channel: 'WEB',
    coreClientId: 1001,
    clientId: null,
    owner: 'bot',
    holder: 'bot',
    agentId: null,
    handover: null,
    questionsWithAgents: [],
    startedSeq: 1,
    lastSeq: 1,
    startedAt: '2026-01-01T00:00:00.000Z',
    lastBotMessage: null,
    questions: 0,
    ...fields,
  } as PageConversation;
}

/** A state with conversation s-1 started and open. */
function withOpen(): PageState {
  const started = next('conversation.started');
  const state = play(emptyState(), started);
  return opened(state, listed('s-1', { startedSeq: started.seq, lastSeq: started.seq }), [started]);
}

const question = (questionId: bigint, fields: Partial<EventOf<'customer.message'>> = {}) =>
  next('customer.message', { questionId, deliveryId: `msg_${questionId}`, noWebhook: null, ...fields });

describe('the list of conversations', () => {
  it('adds a conversation when it starts, unread, and ignores events of a conversation it does not know', () => {
    const started = next('conversation.started', { sessionId: 's-2', channel: 'IM', coreClientId: 9007199254740993n });
    const state = play(emptyState(), started);
    expect(state.conversations.get('s-2')).toMatchObject({
      sessionId: 's-2',
      channel: 'IM',
      coreClientId: 9007199254740993n,
      owner: 'bot',
      holder: 'bot',
      startedSeq: started.seq,
      lastSeq: started.seq,
      unread: true,
      refused: 0,
    });
    expect(play(state, next('customer.message', { sessionId: 's-unknown' }))).toBe(state);
  });

  it('lists the conversations newest first', () => {
    const state = play(
      emptyState(),
      next('conversation.started', { sessionId: 'a' }),
      next('conversation.started', { sessionId: 'b' }),
      next('conversation.started', { sessionId: 'c' }),
    );
    expect(sortedConversations(state).map((summary) => summary.sessionId)).toEqual(['c', 'b', 'a']);
  });

  it('takes the listings, then applies only what is newer than a summary: an event it already reflects changes nothing', () => {
    const state = withListings(emptyState(), [listed('s-1', { lastSeq: 500 })], []);
    expect(play(state, anEvent('bot.answer', { seq: 400 })).conversations.get('s-1')).toBe(state.conversations.get('s-1'));
    expect(play(state, anEvent('bot.answer', { seq: 501 })).conversations.get('s-1')).toMatchObject({ lastSeq: 501, lastBotSeq: 501 });
  });

  it('keeps the summary of a conversation an event does not touch the same object', () => {
    const state = play(emptyState(), next('conversation.started', { sessionId: 'a' }), next('conversation.started', { sessionId: 'b' }));
    const after = play(state, next('customer.message', { sessionId: 'b' }));
    expect(after.conversations.get('a')).toBe(state.conversations.get('a'));
    expect(after.conversations.get('b')).not.toBe(state.conversations.get('b'));
  });

  it.each([
    ['a delivered answer', anEvent('bot.answer'), true],
    ['an answer not delivered', anEvent('bot.answer', { delivered: false, notDelivered: 'thread with agents' }), false],
    ['a greeting', anEvent('greeting'), true],
  ] as const)('marks %s as the bot’s last message: %s', (_, event, last) => {
    const state = play(emptyState(), next('conversation.started'), { ...event, seq: (seq += 1) });
    expect(state.conversations.get('s-1')?.lastBotSeq).toBe(last ? seq : null);
  });
});

describe('hand-overs and agents in the summary', () => {
  it('a thread handed over is with agents, routed to an agent, queued, then given back to the bot', () => {
    let state = play(emptyState(), next('conversation.started'));
    state = play(state, next('handover', { scope: 'thread', code: 'SWITCH_TO_HUMAN', skillIds: [3n] }));
    expect(state.conversations.get('s-1')).toMatchObject({ owner: 'agents', handover: { code: 'SWITCH_TO_HUMAN', skillIds: [3n] } });
    state = play(state, next('handover.routed', { scope: 'thread', agentId: 7n, agentName: 'Ann' }));
    expect(state.conversations.get('s-1')).toMatchObject({ holder: 'agent', agentId: 7n, agentName: 'Ann' });
    state = play(state, next('handover.queued', { scope: 'thread' }));
    expect(state.conversations.get('s-1')).toMatchObject({ holder: 'queue' });
    state = play(state, next('released', { questions: 0, thread: true }));
    expect(state.conversations.get('s-1')).toMatchObject({
      owner: 'bot',
      holder: 'bot',
      agentId: null,
      handover: null,
      questionsWithAgents: [],
    });
  });

  it('a question handed over is listed once, and a question routed or queued leaves the thread’s holder alone', () => {
    const handover = (questionIndex: bigint) => next('handover', { scope: 'question', code: 'UNCLEAR_QUESTION', questionIndex });
    const state = play(
      emptyState(),
      next('conversation.started'),
      handover(1n),
      handover(1n),
      handover(2n),
      next('handover.routed', { scope: 'question' }),
      next('handover.queued', { scope: 'question' }),
    );
    expect(state.conversations.get('s-1')).toMatchObject({ owner: 'bot', holder: 'bot', questionsWithAgents: [1n, 2n] });
  });

  it('an agent’s message is a line of its conversation; an agent’s status changes no conversation', () => {
    let state = withOpen();
    const status = next('agent.status');
    expect(play(state, status)).toBe(state);
    const message = next('agent.message', { text: 'Hello, Ann here' });
    state = play(state, message);
    expect(state.open?.timeline.at(-1)).toEqual({ seq: message.seq, kind: 'line', event: message });
  });
});

describe('refusals', () => {
  const refused = (fields: Partial<EventOf<'api.request'>> = {}) => next('api.request', fields);

  it('puts a refusal tied to no conversation in the strip, in seq order, each once', () => {
    const first = refused();
    const second = refused({ status: 404, error: 'unknown questionId' });
    let state = play(emptyState(), first, second);
    expect(state.untied).toEqual([first, second]);
    expect(play(state, first)).toBe(state);
    state = play(state, next('bot.answer', { sessionId: null, status: 400, delivered: false }));
    expect(state.untied).toHaveLength(3);
  });

  it.each([
    ['a success', { status: 200 }],
    ['a bridge forward refused by the platform', null],
  ] as const)('leaves the strip alone for what is not a refusal: %s', (_, fields) => {
    const event = fields === null ? next('bridge.forward', { sessionId: null, status: 500 }) : refused(fields);
    expect(play(emptyState(), event).untied).toEqual([]);
  });

  it('reads an event from before the page (up to historyEnd) for its refusal only', () => {
    const state = emptyState(1000);
    expect(play(state, anEvent('conversation.started', { seq: 10 })).conversations.size).toBe(0);
    expect(play(state, anEvent('api.request', { seq: 11 })).untied).toHaveLength(1);
  });

  it('counts a refusal tied to a conversation in its badge once, and keeps it out of the strip', () => {
    const started = next('conversation.started');
    const tied = next('bot.answer', { status: 400, delivered: false, error: 'text: required' });
    const state = play(emptyState(), started, tied);
    expect(state.conversations.get('s-1')).toMatchObject({ refused: 1, refusedSeq: tied.seq });
    expect(state.untied).toEqual([]);
    const replayed = play(state, tied);
    expect(replayed.conversations.get('s-1')?.refused).toBe(1);
  });

  it(`keeps the newest ${UNTIED_KEPT / 2} and more when more than ${UNTIED_KEPT} arrive`, () => {
    let state = emptyState();
    for (let i = 0; i < UNTIED_KEPT; i += 1) state = apply(state, refused());
    expect(state.untied).toHaveLength(UNTIED_KEPT);
    const last = refused();
    state = apply(state, last);
    expect(state.untied).toHaveLength(UNTIED_KEPT / 2 + 1);
    expect(state.untied.at(-1)).toBe(last);
  });
});

describe('the open conversation', () => {
  it('opens an exchange per customer message, the latest current', () => {
    const state = play(withOpen(), question(5001n), question(5002n));
    expect([...(state.open?.exchanges.keys() ?? [])]).toEqual(['5001', '5002']);
    expect(state.open?.current).toBe('5002');
    expect(state.open?.timeline.map((entry) => entry.kind)).toEqual(['line', 'customer', 'customer']);
    expect(state.open?.exchanges.get('5001')?.key).toBe('s-1 5001');
  });

  it('puts a webhook attempt into the exchange of its question, and none into another', () => {
    let state = play(withOpen(), question(5001n), question(5002n));
    const attempt = next('webhook.attempt', { questionId: 5001n, outcome: 'retrying', status: 503 });
    const after = play(state, attempt);
    expect(after.open?.exchanges.get('5001')?.attempts).toEqual([attempt]);
    expect(after.open?.exchanges.get('5002')).toBe(state.open?.exchanges.get('5002'));
    state = play(after, next('webhook.attempt', { questionId: 4999n }));
    expect(state.open?.timeline).toHaveLength(after.open?.timeline.length ?? -1);
  });

  it('puts a bot answer into the exchange it names, else the current one, and draws it as a bot message', () => {
    const start = play(withOpen(), question(5001n), question(5002n));
    const answer = next('bot.answer', { questionId: 5001n });
    const byClient = next('bot.answer', { questionId: null });
    const state = play(start, answer, byClient);
    expect(state.open?.exchanges.get('5001')?.requests).toEqual([answer]);
    expect(state.open?.exchanges.get('5002')?.requests).toEqual([byClient]);
    expect(state.open?.timeline.slice(-2)).toEqual([
      { seq: answer.seq, kind: 'bot', event: answer },
      { seq: byClient.seq, kind: 'bot', event: byClient },
    ]);
    expect(state.open?.lastBot).toBe(byClient);
  });

  it('keeps the last delivered message as the one whose buttons can be pressed: an undelivered answer does not replace it', () => {
    let state = play(withOpen(), question(5001n));
    const delivered = next('bot.answer', {
      body: { text: 'Pick', quickReplies: [{ type: 'TEXT', text: 'Yes' }], settings: { blockInput: true } },
    });
    state = play(state, delivered);
    expect(state.open?.lastBot).toBe(delivered);
    expect(inputBlocked(state.open)).toBe(true);
    state = play(state, next('bot.answer', { delivered: false, status: 409, notDelivered: 'duplicate answerId' }));
    expect(state.open?.lastBot).toBe(delivered);
    state = play(state, next('bot.answer', { body: { text: 'Done', quickReplies: [], settings: { blockInput: true } } }));
    expect(inputBlocked(state.open)).toBe(false);
  });

  it('puts a greeting into the current exchange', () => {
    const start = play(withOpen(), question(5001n));
    const greeting = next('greeting');
    const state = play(start, greeting);
    expect(state.open?.exchanges.get('5001')?.requests).toEqual([greeting]);
  });

  it('puts a refused request into the current exchange, or draws it as a line when there is none', () => {
    let state = withOpen();
    const early = next('api.request', { sessionId: 's-1', scope: 'conversation', status: 400 });
    state = play(state, early);
    expect(state.open?.timeline.at(-1)).toEqual({ seq: early.seq, kind: 'line', event: early });
    state = play(state, question(5001n));
    const late = next('api.request', { sessionId: 's-1', scope: 'conversation', status: 400 });
    state = play(state, late);
    expect(state.open?.exchanges.get('5001')?.requests).toEqual([late]);
    expect(state.conversations.get('s-1')?.refused).toBe(2);
  });

  it.each([
    ['a hand-over', 'handover'],
    ['a routing', 'handover.routed'],
    ['a queueing', 'handover.queued'],
    ['a release', 'released'],
    ['a redelivery', 'webhook.redelivery'],
    ['a bridge forward', 'bridge.forward'],
  ] as const)('draws %s as a line', (_, type) => {
    const state = withOpen();
    const event = next(type);
    expect(play(state, event).open?.timeline.at(-1)).toEqual({ seq: event.seq, kind: 'line', event });
  });

  it('does not mark the open conversation unread, and marks another one', () => {
    let state = play(withOpen(), next('conversation.started', { sessionId: 's-2' }));
    state = play(state, next('customer.message'), next('customer.message', { sessionId: 's-2' }));
    expect(state.conversations.get('s-1')?.unread).toBe(false);
    expect(state.conversations.get('s-2')?.unread).toBe(true);
  });

  it('opens a conversation from its loaded events and the recent ones newer than them, counting its refusals', () => {
    const started = next('conversation.started');
    const message = question(5001n);
    const refusal = next('api.request', { sessionId: 's-1', scope: 'conversation', status: 404 });
    const later = next('bot.answer', { questionId: 5001n });
    let state = play(emptyState(), started, message, refusal, later);
    state = opened(state, listed('s-1', { startedSeq: started.seq, lastSeq: refusal.seq }), [started, message, refusal]);
    expect(state.open?.timeline.map((entry) => entry.seq)).toEqual([started.seq, message.seq, later.seq]);
    expect(state.open?.exchanges.get('5001')?.requests).toEqual([refusal, later]);
    expect(state.conversations.get('s-1')).toMatchObject({ unread: false, refused: 1, lastSeq: later.seq, lastBotSeq: later.seq });
    expect(closed(state).open).toBeNull();
  });

  it(`keeps the ${RECENT_KEPT} latest events at most for a conversation opened while they arrive`, () => {
    let state = play(emptyState(), next('conversation.started'));
    for (let i = 0; i <= RECENT_KEPT; i += 1) state = apply(state, next('webhook.attempt'));
    expect(state.recent.length).toBeLessThanOrEqual(RECENT_KEPT);
    expect(state.recent.length).toBeGreaterThan(RECENT_KEPT / 2);
  });
});

describe('reasons and resets', () => {
  it('takes a reason update into its tenant’s reasons', () => {
    const state = withReasons(emptyState(), [
      { tenant: 'sandbox', code: 'LUNCH', reason: { code: 'LUNCH' }, updatedAt: '', requestId: 'r' },
    ] as never);
    const update = next('reason.updated', { code: 'MEETING', reason: { code: 'MEETING', active: true } });
    const after = play(state, update);
    expect([...(after.reasons.get('sandbox')?.keys() ?? [])]).toEqual(['LUNCH', 'MEETING']);
    expect(after.reasons.get('sandbox')?.get('MEETING')).toMatchObject({ reason: { code: 'MEETING' }, requestId: update.requestId });
  });

  it('forgets a reset tenant’s conversations and refusals and closes its open conversation, keeping the other tenants’', () => {
    let state = withOpen();
    state = play(
      state,
      next('conversation.started', { tenant: 'other', sessionId: 'o-1' }),
      next('api.request', { tenant: 'other' }),
      next('api.request'),
    );
    const reset = play(state, next('sandbox.reset', { tenant: 'sandbox' }));
    expect([...reset.conversations.keys()]).toEqual(['o-1']);
    expect(reset.untied.map((event) => event.tenant)).toEqual(['other']);
    expect(reset.open).toBeNull();
    const otherReset = play(state, next('sandbox.reset', { tenant: 'other' }));
    expect(otherReset.open).toBe(state.open);
  });
});

describe('refusals tied by time to a delivery in flight', () => {
  it('puts a refusal made during the only delivery in flight into that exchange, not the latest one, and counts it in the badge', () => {
    const start = play(withOpen(), question(5001n), question(5002n));
    const during = [{ sessionId: 's-1', questionId: 5001n, deliveryId: 'msg_5001' }];
    const refusal = next('bot.answer', { questionId: null, status: 404, delivered: false, notDelivered: 'unknown question', during });
    const state = play(start, refusal);
    expect(state.open?.exchanges.get('5001')?.requests).toEqual([refusal]);
    expect(state.open?.exchanges.get('5002')?.requests).toEqual([]);
    expect(state.conversations.get('s-1')?.refused).toBe(1);
    expect(deliveryTie(refusal)).toEqual(during[0]);
  });

  it('links a refusal made during several deliveries to all their conversations, and one made during none to the latest before it', () => {
    let state = play(emptyState(), next('conversation.started', { sessionId: 'a' }), next('conversation.started', { sessionId: 'b' }));
    state = play(state, next('customer.message', { sessionId: 'a' }));
    const during = [
      { sessionId: 'a', questionId: 1n, deliveryId: 'm1' },
      { sessionId: 'b', questionId: 2n, deliveryId: 'm2' },
    ];
    const several = next('api.request', { during });
    const none = next('api.request');
    state = play(state, several, none);
    expect(deliveryTie(several)).toBeNull();
    expect(candidatesOf(state, several)).toEqual(['a', 'b']);
    expect(candidatesOf(state, none)).toEqual(['a']);
    expect(candidatesOf(state, { ...none, tenant: 'other' })).toEqual([]);
  });
});

describe('the bot’s mistakes the sandbox lets through', () => {
  /** A question of s-1 delivered and answered once, its webhook then sent again as a replay. */
  function answeredThenReplayed(): { state: PageState; questionId: bigint } {
    const questionId = 5001n;
    const state = play(
      emptyState(),
      next('conversation.started'),
      question(questionId),
      next('webhook.attempt', { questionId, craft: 'signed' }),
      next('bot.answer', { questionId, answerId: 'a-1' }),
      next('webhook.redelivery', { questionId, redelivery: 1 }),
      next('webhook.attempt', { questionId, redelivery: 1, craft: 'replay' }),
    );
    return { state, questionId };
  }

  it('counts an answer to a replayed question already answered as a mistake in the badge, once', () => {
    const { state, questionId } = answeredThenReplayed();
    expect(state.conversations.get('s-1')).toMatchObject({ mistakes: 0, resent: ['5001'] });
    const twice = next('bot.answer', { questionId, answerId: 'a-2', questionAlreadyAnswered: true });
    const after = play(state, twice);
    expect(after.conversations.get('s-1')).toMatchObject({ mistakes: 1, mistakeSeq: twice.seq, refused: 0 });
    expect(mistakeOf(twice, ['5001'])).toMatch(/^answered twice: this question’s webhook was sent again \(a replay/);
    expect(play(after, twice).conversations.get('s-1')?.mistakes).toBe(1);
  });

  it.each([
    ['a retry of the delivery', next('webhook.attempt', { questionId: 5001n, attempt: 2 })],
    ['a redelivery', next('webhook.redelivery', { questionId: 5001n })],
  ] as const)('takes %s as the webhook sent again', (_, event) => {
    expect(resentQuestion(event)).toBe('5001');
  });

  it('does not take the first attempt of the first series as the webhook sent again', () => {
    expect(resentQuestion(next('webhook.attempt', { questionId: 5001n, attempt: 1, redelivery: 0 }))).toBeNull();
  });

  it.each([
    ['a second answer to a question whose webhook went once (soft mode delivers it)', { questionId: 5002n, questionAlreadyAnswered: true }],
    ['a first answer to a replayed question', { questionId: 5001n, questionAlreadyAnswered: false }],
    [
      'a repeat of the first answer’s answerId, which the platform drops',
      { questionId: 5001n, questionAlreadyAnswered: true, delivered: false, notDelivered: 'duplicate answerId' },
    ],
  ] as const)('counts no mistake for %s', (_, fields) => {
    const { state } = answeredThenReplayed();
    const answer = next('bot.answer', fields);
    expect(mistakeOf(answer, ['5001'])).toBeNull();
    expect(play(state, answer).conversations.get('s-1')?.mistakes).toBe(0);
  });

  it('counts a replay answered twice that strict mode refused once, as a refusal', () => {
    const { state, questionId } = answeredThenReplayed();
    const refused = next('bot.answer', {
      questionId,
      questionAlreadyAnswered: true,
      status: 409,
      delivered: false,
      notDelivered: 'question already answered (strict mode)',
    });
    expect(mistakeOf(refused, ['5001'])).not.toBeNull();
    expect(play(state, refused).conversations.get('s-1')).toMatchObject({ refused: 1, mistakes: 0 });
  });

  const MUST_REFUSE = ['unsigned', 'tampered', 'wrong-secret', 'stale', 'future'] as const;
  const MAY_ACCEPT = ['signed', 'rotation', 'raw-body', 'unknown-fields', 'large-ids', 'replay', 'fuzz'] as const;

  it.each(MUST_REFUSE.flatMap((craft) => [200, 299].map((status) => [craft, status] as const)))(
    'counts a %s delivery the bot accepted with %d as a mistake, saying it should refuse it with 401',
    (craft, status) => {
      const state = play(emptyState(), next('conversation.started'), question(5001n));
      const attempt = next('webhook.attempt', { questionId: 5001n, craft, status });
      expect(play(state, attempt).conversations.get('s-1')).toMatchObject({ mistakes: 1, mistakeSeq: attempt.seq });
      expect(mistakeOf(attempt, [])).toMatch(
        new RegExp(`^the bot accepted this delivery \\(${status}\\), but .+: it should refuse it with 401$`),
      );
    },
  );

  it.each(MUST_REFUSE.flatMap((craft) => [199, 300, 401, null].map((status) => [craft, status] as const)))(
    'counts no mistake for a %s delivery the bot answered %s: it did not accept it',
    (craft, status) => {
      const attempt = next('webhook.attempt', { questionId: 5001n, craft, status, outcome: 'failed' });
      expect(acceptedForgery(attempt)).toBeNull();
      const state = play(emptyState(), next('conversation.started'), question(5001n));
      expect(play(state, attempt).conversations.get('s-1')?.mistakes).toBe(0);
    },
  );

  it.each([...MAY_ACCEPT, null])('counts no mistake for a delivery of craft %s accepted with 200', (craft) => {
    expect(mistakeOf(next('webhook.attempt', { questionId: 5001n, craft, status: 200 }), [])).toBeNull();
  });

  it('names what was crafted for every craft, and nothing for an ordinary attempt or a craft it does not know', () => {
    for (const craft of CRAFTS) expect(craftOf({ craft })?.what).toMatch(/\w/);
    expect(craftOf({ craft: 'tampered' })).toEqual({
      craft: 'tampered',
      what: 'its body changed after signing (a tampered signature)',
      flaw: 'its signature does not match its body',
    });
    expect(craftOf({ craft: null })).toBeNull();
    expect(craftOf({ craft: 'from-a-later-version' })).toBeNull();
  });

  it('counts the mistakes of events from before the page (up to historyEnd) too, so a page opened after check-bot shows them', () => {
    const state = withListings(emptyState(1000), [listed('s-1', { lastSeq: 1000 })], []);
    const after = play(
      state,
      anEvent('webhook.attempt', { seq: 10, questionId: 5001n, craft: 'tampered', status: 200 }),
      anEvent('webhook.redelivery', { seq: 11, questionId: 5002n }),
      anEvent('bot.answer', { seq: 12, questionId: 5002n, questionAlreadyAnswered: true }),
    );
    expect(after.conversations.get('s-1')).toMatchObject({ mistakes: 2, resent: ['5002'] });
  });

  it('counts the mistakes of a conversation opened from its loaded events', () => {
    const started = anEvent('conversation.started', { seq: 10 });
    const forged = anEvent('webhook.attempt', { seq: 11, questionId: 5001n, craft: 'wrong-secret', status: 202 });
    const state = opened(emptyState(1000), listed('s-1', { lastSeq: 11 }), [started, forged]);
    expect(state.conversations.get('s-1')).toMatchObject({ mistakes: 1, mistakeSeq: 11 });
  });
});

describe('conversations of core check-bot’s checks', () => {
  it('labels a conversation with its check when it starts, then with the verdict, and draws each label as a line', () => {
    let state = withOpen();
    const running = next('probe.check', { check: 'signature.tampered', verdict: null, message: null });
    state = play(state, running);
    expect(state.conversations.get('s-1')?.check).toEqual({ check: 'signature.tampered', verdict: null, message: null });
    const judged = next('probe.check', { check: 'signature.tampered', verdict: 'fail', message: 'the bot accepted it (200)' });
    state = play(state, judged);
    expect(state.conversations.get('s-1')?.check).toEqual({
      check: 'signature.tampered',
      verdict: 'fail',
      message: 'the bot accepted it (200)',
    });
    expect(state.open?.timeline.slice(-2)).toEqual([
      { seq: running.seq, kind: 'line', event: running },
      { seq: judged.seq, kind: 'line', event: judged },
    ]);
  });

  it('takes the label a listing gives, and none where it gives none', () => {
    const label = { check: 'replay', verdict: 'pass', message: 'not answered again' } as const;
    const state = withListings(emptyState(), [listed('s-1', { check: label }), listed('s-2')], []);
    expect(state.conversations.get('s-1')?.check).toEqual(label);
    expect(state.conversations.get('s-2')?.check).toBeNull();
  });
});
