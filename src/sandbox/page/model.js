// @ts-check
// The page's model (docs/architecture.md, "The page"): what the page knows, and how each event of
// GET /_sandbox/events changes it. `apply(state, event)` returns the next state and leaves the one it
// was given as it was; a part that did not change is the same object in both, so the view (app.js)
// redraws what is no longer identical and nothing else. No DOM and no fetch here: the model runs in
// Node as it runs in the browser, and test/sandbox/page-model.test.ts plays it event by event.

import { acceptedForgery } from './crafts.js';
import { isRefusal } from './refusal.js';

/**
 * The sandbox's answers and events, typed as the sandbox writes them (src/sandbox/events.ts,
 * model.ts; tsconfig.page.json checks this file against them).
 *
 * @typedef {import('../events.js').PageEvent} PageEvent
 * @typedef {import('../model.js').PageConversation} PageConversation
 * @typedef {import('../model.js').PageReasonRecord} PageReasonRecord
 */
/**
 * @template {import('../events.js').EventType} T
 * @typedef {import('../events.js').PageEventOf<T>} EventOf
 */
/** @typedef {EventOf<import('../events.js').RequestEventType>} RequestEvent */
/**
 * A conversation in the list: its summary as the listing gives it, kept up to date by the events, with
 * the page's own counts: `refused` the refusals tied to it, `refusedSeq` the latest counted; `mistakes`
 * the bot's mistakes that are not refusals (a crafted delivery it should have refused and accepted, a
 * replay answered twice: `mistakeOf`), `mistakeSeq` the latest counted, both in its badge; `resent` the
 * questionIds (as text) whose webhook was sent more than once (a retry, a redelivery, a replay); and
 * `check` the check of core check-bot it plays, with its verdict once known.
 *
 * @typedef {{
 *   tenant: string,
 *   sessionId: string,
 *   channel: string,
 *   coreClientId: number | bigint,
 *   clientId: string | null,
 *   owner: string,
 *   holder: string,
 *   agentId: number | bigint | null,
 *   agentName: string | null,
 *   handover: Omit<NonNullable<PageConversation['handover']>, 'time'> | null,
 *   questionsWithAgents: (number | bigint)[],
 *   startedSeq: number,
 *   lastSeq: number,
 *   lastBotSeq: number | null,
 *   unread: boolean,
 *   refused: number,
 *   refusedSeq: number,
 *   mistakes: number,
 *   mistakeSeq: number,
 *   resent: string[],
 *   check: PageConversation['check'],
 * }} Summary
 */
/**
 * A customer message's exchange: its webhook attempts, and the bot's API requests that followed it.
 * `key` is the conversation's sessionId and the message's questionId.
 *
 * @typedef {{
 *   key: string,
 *   message: EventOf<'customer.message'>,
 *   attempts: EventOf<'webhook.attempt'>[],
 *   requests: RequestEvent[],
 * }} Exchange
 */
/**
 * One item of the open conversation's timeline, in order: a customer message with its exchange (by
 * questionId), a bot's message, or a line (started, handed over, a refusal outside any exchange ...).
 *
 * @typedef {{ seq: number, kind: 'customer', questionId: string }
 *   | { seq: number, kind: 'bot', event: EventOf<'bot.answer' | 'greeting'> }
 *   | { seq: number, kind: 'line', event: PageEvent }} Entry
 */
/**
 * The open conversation: its timeline, its exchanges by questionId, the exchange the latest customer
 * message opened, and the bot's latest delivered message (only its buttons can be pressed).
 *
 * @typedef {{
 *   sessionId: string,
 *   tenant: string,
 *   channel: string,
 *   maxSeq: number,
 *   timeline: Entry[],
 *   exchanges: Map<string, Exchange>,
 *   current: string | null,
 *   lastBot: EventOf<'bot.answer' | 'greeting'> | null,
 * }} OpenConversation
 */
/**
 * The page's state.
 *
 * - `conversations`: sessionId -> summary, in the listing's order of arrival.
 * - `reasons`: tenant -> code -> inactivity reason record.
 * - `untied`: the refusals tied to no conversation, in seq order (the strip shows the newest first).
 * - `historyEnd`: the stream starts at the oldest kept event, so that the refusals of before the page
 *   are shown too; events up to this seq are in the listings already, and only their refusals are read.
 * - `recent`: the latest events of conversations, so one opened while an event arrives misses nothing.
 * - `open`: the open conversation, or null.
 *
 * @typedef {{
 *   conversations: Map<string, Summary>,
 *   reasons: Map<string, Map<string, PageReasonRecord>>,
 *   untied: RequestEvent[],
 *   historyEnd: number,
 *   recent: PageEvent[],
 *   open: OpenConversation | null,
 * }} PageState
 */

/** The most refusals tied to no conversation that the strip lists; its count says how many there are. */
export const UNTIED_SHOWN = 100;
/** The most refusals tied to no conversation the page keeps (the oldest half is let go past it). */
export const UNTIED_KEPT = 10_000;
/** The most recent events kept for a conversation opened while they arrive. */
export const RECENT_KEPT = 2000;

/**
 * The state before the listings: nothing known, events up to `historyEnd` read for their refusals only.
 *
 * @param {number} [historyEnd]
 * @returns {PageState}
 */
export function emptyState(historyEnd = 0) {
  return { conversations: new Map(), reasons: new Map(), untied: [], historyEnd, recent: [], open: null };
}

/**
 * A conversation's summary from the listing's view of it.
 *
 * @param {Omit<PageConversation, 'lastBotMessage' | 'questions' | 'startedAt' | 'check'> & {
 *   lastBotMessage?: PageConversation['lastBotMessage'],
 *   check?: PageConversation['check'],
 * }} view
 * @returns {Summary}
 */
export function summaryOf(view) {
  return {
    tenant: view.tenant,
    sessionId: view.sessionId,
    channel: view.channel,
    coreClientId: view.coreClientId,
    clientId: view.clientId,
    owner: view.owner,
    holder: view.holder,
    agentId: view.agentId,
    agentName: null,
    handover: view.handover,
    questionsWithAgents: [...(view.questionsWithAgents ?? [])],
    startedSeq: view.startedSeq,
    lastSeq: view.lastSeq,
    lastBotSeq: view.lastBotMessage?.seq ?? null,
    unread: false,
    refused: 0,
    refusedSeq: 0,
    mistakes: 0,
    mistakeSeq: 0,
    resent: [],
    check: view.check ?? null,
  };
}

/**
 * The state with the listings in: the conversations (GET /_sandbox/conversations) and the reasons.
 *
 * @param {PageState} state
 * @param {PageConversation[]} conversations
 * @param {PageReasonRecord[]} reasons
 * @returns {PageState}
 */
export function withListings(state, conversations, reasons) {
  const map = new Map(state.conversations);
  for (const view of conversations) map.set(view.sessionId, summaryOf(view));
  return withReasons({ ...state, conversations: map }, reasons);
}

/**
 * The state with the inactivity reasons as GET /_sandbox/reasons gives them, in place of those it had.
 *
 * @param {PageState} state
 * @param {PageReasonRecord[]} records
 * @returns {PageState}
 */
export function withReasons(state, records) {
  /** @type {PageState['reasons']} */
  const reasons = new Map();
  for (const record of records) {
    const ofTenant = reasons.get(record.tenant) ?? new Map();
    ofTenant.set(record.code, record);
    reasons.set(record.tenant, ofTenant);
  }
  return { ...state, reasons };
}

/**
 * The conversations newest first, as the list shows them.
 *
 * @param {PageState} state
 */
export function sortedConversations(state) {
  return [...state.conversations.values()].sort((a, b) => b.startedSeq - a.startedSeq);
}

// ---- events ------------------------------------------------------------------------------------------

/**
 * The state after one event of the stream. Each event is applied once, in seq order, whether it is
 * replayed from before the page or live.
 *
 * @param {PageState} state
 * @param {PageEvent} event
 * @returns {PageState}
 */
export function apply(state, event) {
  // A replayed event from before the page: the listings hold it, all but its refusal.
  if (event.seq <= state.historyEnd) return noteMistake(noteRefusal(state, event), event);
  if (event.type === 'sandbox.reset') return resetTenant(state, event.tenant);
  if (event.type === 'reason.updated') {
    const reasons = new Map(state.reasons);
    const ofTenant = new Map(reasons.get(event.tenant) ?? []);
    ofTenant.set(event.code, {
      tenant: event.tenant,
      code: event.code,
      reason: /** @type {PageReasonRecord['reason']} */ (event.reason),
      updatedAt: event.time,
      requestId: event.requestId,
    });
    reasons.set(event.tenant, ofTenant);
    return { ...state, reasons };
  }
  if (event.sessionId === null) return noteRefusal(state, event);
  let summary = state.conversations.get(event.sessionId);
  let next = state;
  if (summary === undefined) {
    if (event.type !== 'conversation.started') return state;
    summary = summaryOf({
      ...event,
      subject: event.subject ?? null,
      owner: 'bot',
      holder: 'bot',
      agentId: null,
      handover: null,
      questionsWithAgents: [],
      startedSeq: event.seq,
      lastSeq: event.seq,
    });
    next = { ...next, conversations: new Map(next.conversations).set(event.sessionId, summary) };
  }
  next = noteMistake(noteRefusal(next, event), event);
  const recent = [...next.recent, event];
  if (recent.length > RECENT_KEPT) recent.splice(0, RECENT_KEPT / 2);
  next = { ...next, recent };
  const current = /** @type {Summary} */ (next.conversations.get(event.sessionId));
  // An event the summary already reflects (it came while the listing loaded) changes nothing in it.
  const fresh = event.seq > current.lastSeq || event.type === 'conversation.started';
  const isOpen = next.open?.sessionId === event.sessionId;
  let updated = fresh ? updateSummary(current, event) : current;
  if (fresh && !isOpen && !updated.unread) updated = { ...updated, unread: true };
  if (updated !== current) next = { ...next, conversations: new Map(next.conversations).set(event.sessionId, updated) };
  if (isOpen && next.open !== null && event.seq > next.open.maxSeq) next = { ...next, open: applyToConversation(next.open, event) };
  return next;
}

/**
 * Takes a refusal: one tied to no conversation into the strip, one tied to a conversation into its
 * count (its badge in the list), each once. Any other event leaves the state as it is.
 *
 * @param {PageState} state
 * @param {PageEvent} candidate
 * @returns {PageState}
 */
function noteRefusal(state, candidate) {
  if (!isRefusal(candidate)) return state;
  // isRefusal holds only for the bot's requests: an api.request, an answer or a greeting.
  const event = /** @type {RequestEvent} */ (candidate);
  if (event.sessionId === null) {
    const last = state.untied.at(-1);
    if (last !== undefined && event.seq <= last.seq) return state;
    const untied = [...state.untied, event];
    if (untied.length > UNTIED_KEPT) untied.splice(0, UNTIED_KEPT / 2);
    return { ...state, untied };
  }
  const summary = state.conversations.get(event.sessionId);
  if (summary === undefined || event.seq <= summary.refusedSeq) return state;
  const counted = { ...summary, refused: summary.refused + 1, refusedSeq: event.seq };
  return { ...state, conversations: new Map(state.conversations).set(event.sessionId, counted) };
}

/** The notDelivered of an answer whose answerId was used before: dropped, which harms no one. */
const DUPLICATE_ANSWER_ID = 'duplicate answerId';

/**
 * The question whose webhook an event sends again (a redelivery, a replay, a retry), as text; null
 * for any other event.
 *
 * @param {PageEvent} event
 * @returns {string | null}
 */
export function resentQuestion(event) {
  if (event.type === 'webhook.redelivery') return String(event.questionId);
  if (event.type === 'webhook.attempt' && (event.attempt > 1 || event.redelivery > 0)) return String(event.questionId);
  return null;
}

/**
 * The bot's mistake an event shows, in words, that the sandbox let through: a crafted delivery the
 * bot should have refused and accepted (src/sandbox/page/crafts.js), or an answer to a question
 * already answered that came once its webhook was sent again (`resent`: a replay answered twice; an
 * answer repeating its answerId is dropped, and harms no one). Null for anything else.
 *
 * @param {PageEvent} event
 * @param {readonly string[]} resent
 * @returns {string | null}
 */
export function mistakeOf(event, resent) {
  if (event.type === 'webhook.attempt') return acceptedForgery(event);
  if (event.type !== 'bot.answer' || !event.questionAlreadyAnswered || event.questionId === null) return null;
  if (event.notDelivered === DUPLICATE_ANSWER_ID || !resent.includes(String(event.questionId))) return null;
  return (
    'answered twice: this question\u2019s webhook was sent again (a replay of a delivery already answered) and the bot ' +
    'answered it anew; a delivery whose webhook-id was handled before must not be answered again'
  );
}

/**
 * Takes what an event says of the bot's mistakes into its conversation's summary: a question whose
 * webhook was sent again, or a mistake (`mistakeOf`) counted in its badge once. A mistake that is
 * also a refusal is counted as a refusal only.
 *
 * @param {PageState} state
 * @param {PageEvent} event
 * @returns {PageState}
 */
function noteMistake(state, event) {
  if (event.sessionId === null) return state;
  const summary = state.conversations.get(event.sessionId);
  if (summary === undefined) return state;
  const resent = resentQuestion(event);
  /** @type {Summary | undefined} */
  let next;
  if (resent !== null) {
    if (!summary.resent.includes(resent)) next = { ...summary, resent: [...summary.resent, resent] };
  } else if (event.seq > summary.mistakeSeq && !isRefusal(event) && mistakeOf(event, summary.resent) !== null) {
    next = { ...summary, mistakes: summary.mistakes + 1, mistakeSeq: event.seq };
  }
  return next === undefined ? state : { ...state, conversations: new Map(state.conversations).set(event.sessionId, next) };
}

/**
 * What an event changes in its conversation's summary (the same rules as the sandbox's state): a new
 * summary when it changes, the same one when it does not.
 *
 * @param {Summary} summary
 * @param {PageEvent} event
 * @returns {Summary}
 */
export function updateSummary(summary, event) {
  const next = { ...summary, lastSeq: Math.max(summary.lastSeq, event.seq) };
  if ((event.type === 'bot.answer' && event.delivered) || event.type === 'greeting') next.lastBotSeq = event.seq;
  if (event.type === 'handover') {
    if (event.scope === 'thread') {
      next.owner = 'agents';
      next.handover = { code: event.code, seq: event.seq, userIds: event.userIds, skillIds: event.skillIds, unitIds: event.unitIds };
    } else if (event.questionIndex !== null && !next.questionsWithAgents.some((i) => String(i) === String(event.questionIndex))) {
      next.questionsWithAgents = [...next.questionsWithAgents, event.questionIndex];
    }
  }
  if (event.type === 'handover.routed' && event.scope === 'thread') {
    next.holder = 'agent';
    next.agentId = event.agentId;
    next.agentName = event.agentName;
  }
  if (event.type === 'handover.queued' && event.scope === 'thread') next.holder = 'queue';
  if (event.type === 'probe.check') next.check = { check: event.check, verdict: event.verdict, message: event.message };
  if (event.type === 'released') {
    next.holder = 'bot';
    next.agentId = null;
    next.owner = 'bot';
    next.handover = null;
    next.questionsWithAgents = [];
  }
  const same = Object.keys(next).every((key) => next[/** @type {keyof Summary} */ (key)] === summary[/** @type {keyof Summary} */ (key)]);
  return same ? summary : next;
}

/**
 * A tenant returned to its start state: its conversations and its refusals are gone, and its open
 * conversation is closed. (Its reasons are read again by the page: the event does not carry them.)
 *
 * @param {PageState} state
 * @param {string} tenant
 * @returns {PageState}
 */
function resetTenant(state, tenant) {
  const conversations = new Map([...state.conversations].filter(([, summary]) => summary.tenant !== tenant));
  const untied = state.untied.filter((event) => event.tenant !== tenant);
  const open = state.open !== null && state.open.tenant === tenant ? null : state.open;
  return { ...state, conversations, untied, open };
}

// ---- the open conversation ---------------------------------------------------------------------------

/**
 * The state with a conversation open, from what GET /_sandbox/conversations/{sessionId} gave: its
 * summary and its events, then the recent events of it that are newer than those. The listing may be
 * newer than the events seen so far: its word is taken for the summary; the refusals and the bot's
 * mistakes are the page's own count (the listing has none), and the loaded events' at least.
 *
 * @param {PageState} state
 * @param {PageConversation} conversation
 * @param {PageEvent[]} events
 * @returns {PageState}
 */
export function opened(state, conversation, events) {
  const sessionId = conversation.sessionId;
  const known = state.conversations.get(sessionId);
  const refusedHere = events.filter(isRefusal);
  const here = mistakesIn(conversation, events);
  let summary = {
    ...summaryOf(conversation),
    refused: Math.max(known?.refused ?? 0, refusedHere.length),
    refusedSeq: Math.max(known?.refusedSeq ?? 0, refusedHere.at(-1)?.seq ?? 0),
    mistakes: Math.max(known?.mistakes ?? 0, here.mistakes),
    mistakeSeq: Math.max(known?.mistakeSeq ?? 0, here.mistakeSeq),
    resent: [...new Set([...(known?.resent ?? []), ...here.resent])],
  };
  /** @type {OpenConversation} */
  const open = {
    sessionId,
    tenant: conversation.tenant,
    channel: conversation.channel,
    maxSeq: 0,
    timeline: [],
    exchanges: new Map(),
    current: null,
    lastBot: null,
  };
  for (const event of events) step(open, event);
  // Events of this conversation that came while it loaded, and are newer than what it holds.
  for (const event of state.recent) {
    if (event.sessionId !== sessionId) continue;
    if (event.seq > summary.lastSeq) summary = updateSummary(summary, event);
    if (event.seq > open.maxSeq) step(open, event);
  }
  return { ...state, conversations: new Map(state.conversations).set(sessionId, summary), open };
}

/**
 * The bot's mistakes in a conversation's events, as `noteMistake` counts them.
 *
 * @param {PageConversation} conversation
 * @param {PageEvent[]} events
 */
function mistakesIn(conversation, events) {
  let state = emptyState();
  state = { ...state, conversations: new Map([[conversation.sessionId, summaryOf(conversation)]]) };
  for (const event of events) state = noteMistake(state, event);
  const summary = /** @type {Summary} */ (state.conversations.get(conversation.sessionId));
  return { mistakes: summary.mistakes, mistakeSeq: summary.mistakeSeq, resent: summary.resent };
}

/**
 * The state with no conversation open.
 *
 * @param {PageState} state
 * @returns {PageState}
 */
export function closed(state) {
  return state.open === null ? state : { ...state, open: null };
}

/**
 * The open conversation after one of its events.
 *
 * @param {OpenConversation} open
 * @param {PageEvent} event
 * @returns {OpenConversation}
 */
export function applyToConversation(open, event) {
  const draft = { ...open, timeline: [...open.timeline], exchanges: new Map(open.exchanges) };
  step(draft, event);
  return draft;
}

/**
 * The exchange a bot's message or request belongs to: the question it names, else the latest.
 *
 * @param {OpenConversation} open
 * @param {number | bigint | null} questionId
 */
function exchangeKeyOf(open, questionId) {
  if (questionId != null && open.exchanges.has(String(questionId))) return String(questionId);
  return open.current;
}

/**
 * The exchange a refusal was tied to by time (`during`: the one delivery in flight when it came), or null.
 *
 * @param {PageEvent} event
 */
export function deliveryTie(event) {
  if (event.type !== 'api.request' && event.type !== 'bot.answer' && event.type !== 'greeting') return null;
  const during = event.during ?? [];
  const only = during.length === 1 ? during[0] : undefined;
  return only !== undefined && only.sessionId === event.sessionId ? only : null;
}

/**
 * The conversations a refusal tied to no conversation may belong to, for the strip's links: those
 * whose deliveries were in flight when it came; with none, the conversation of its tenant (any, for a
 * sandbox-wide one) most recently active among those started before it; none when there is none.
 *
 * @param {PageState} state
 * @param {RequestEvent} event
 * @returns {string[]}
 */
export function candidatesOf(state, event) {
  const during = event.during ?? [];
  if (during.length > 0) return [...new Set(during.map((delivery) => delivery.sessionId))];
  let latest = /** @type {Summary | undefined} */ (undefined);
  for (const summary of state.conversations.values()) {
    if (summary.startedSeq >= event.seq || (event.tenant !== '' && summary.tenant !== event.tenant)) continue;
    if (latest === undefined || summary.lastSeq > latest.lastSeq) latest = summary;
  }
  return latest === undefined ? [] : [latest.sessionId];
}

/**
 * Puts an event into a draft of the open conversation: the draft's own timeline and map are changed,
 * an exchange is replaced by a new one, never changed.
 *
 * @param {OpenConversation} draft
 * @param {PageEvent} event
 */
function step(draft, event) {
  draft.maxSeq = Math.max(draft.maxSeq, event.seq);
  /** @type {(key: string | null, change: (exchange: Exchange) => Exchange) => boolean} */
  const change = (key, how) => {
    const exchange = key === null ? undefined : draft.exchanges.get(key);
    if (key === null || exchange === undefined) return false;
    draft.exchanges.set(key, how(exchange));
    return true;
  };
  switch (event.type) {
    case 'customer.message': {
      const questionId = String(event.questionId);
      draft.exchanges.set(questionId, { key: `${event.sessionId} ${questionId}`, message: event, attempts: [], requests: [] });
      draft.current = questionId;
      draft.timeline.push({ seq: event.seq, kind: 'customer', questionId });
      return;
    }
    case 'webhook.attempt':
      change(String(event.questionId), (exchange) => ({ ...exchange, attempts: [...exchange.attempts, event] }));
      return;
    case 'bot.answer':
    case 'greeting': {
      const key = exchangeKeyOf(draft, deliveryTie(event)?.questionId ?? (event.type === 'bot.answer' ? event.questionId : null));
      change(key, (exchange) => ({ ...exchange, requests: [...exchange.requests, event] }));
      draft.timeline.push({ seq: event.seq, kind: 'bot', event });
      if (event.delivered) draft.lastBot = event;
      return;
    }
    case 'api.request': {
      const placed = change(exchangeKeyOf(draft, deliveryTie(event)?.questionId ?? null), (exchange) => ({
        ...exchange,
        requests: [...exchange.requests, event],
      }));
      if (!placed) draft.timeline.push({ seq: event.seq, kind: 'line', event });
      return;
    }
    default:
      draft.timeline.push({ seq: event.seq, kind: 'line', event });
  }
}

/**
 * Whether the bot's input field is blocked: its latest delivered message set settings.blockInput and
 * has buttons to press.
 *
 * @param {OpenConversation | null} open
 */
export function inputBlocked(open) {
  // The bot's last message, as the bot sent it.
  const body = /** @type {Record<string, any> | null | undefined} */ (open?.lastBot?.body);
  return open?.lastBot != null && body?.settings?.blockInput === true && Array.isArray(body?.quickReplies) && body.quickReplies.length > 0;
}
