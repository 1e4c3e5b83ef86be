// @ts-check
// The sandbox's page (docs/sandbox.md, "The page"): every conversation of every tenant as the customer
// sees it, live from GET /_sandbox/events. The user plays the customer (types, presses buttons, picks
// list items, starts conversations, gives threads back to the bot) through the sandbox's JSON
// endpoints, and sees under each customer message the webhook attempts and the bot's API requests.
//
// Plain ES modules, no build step and no library: the page ships as these files inside the npm
// package and the sandbox serves them itself. The state below is the page's only model: filled from
// the listings once, then kept up to date by the event stream, one event at a time, in seq order.

import { agentBubble, agentComposer, changesAgents, drawAgents, refreshAgents } from './agents.js';
import { api, openEvents } from './api.js';
import { append, clear, h, replaceKeepingFocus, show } from './dom.js';
import { stringifyJson } from './json.js';
import { isRefusal } from './refusal.js';
import { botBubble, channelName, customerBubble, exchangePanel, reasonsTable, refusalItem, systemLine } from './render.js';

/**
 * The sandbox's answers and events, typed as the sandbox writes them (src/sandbox/events.ts,
 * model.ts; tsconfig.page.json checks this file against them).
 *
 * @typedef {import('../events.js').PageEvent} PageEvent
 * @typedef {import('../model.js').PageConversation} PageConversation
 * @typedef {import('../model.js').PageReasonRecord} PageReasonRecord
 * @typedef {import('./api.js').SandboxInfo} SandboxInfo
 * @typedef {import('./render.js').RequestEvent} RequestEvent
 * @typedef {import('./render.js').Exchange} Exchange
 * @typedef {import('./render.js').RenderContext} RenderContext
 */
/**
 * @template {import('../events.js').EventType} T
 * @typedef {import('../events.js').PageEventOf<T>} EventOf
 */
/**
 * A conversation in the list: its summary as the listing gives it, kept up to date by the events, with
 * the page's own counts.
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
 * }} Summary
 */
/**
 * The open conversation: its events, exchanges (by questionId) and drawn items.
 *
 * @typedef {{
 *   sessionId: string,
 *   tenant: string,
 *   channel: string,
 *   events: PageEvent[],
 *   maxSeq: number,
 *   exchanges: Map<string, Exchange>,
 *   current: Exchange | null,
 *   lastBot: EventOf<'bot.answer' | 'greeting'> | null,
 *   items: Map<number, HTMLElement>,
 *   fragment: DocumentFragment | null,
 * }} OpenConversation
 */

/** @type {(id: string) => HTMLElement} */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @type {(id: string) => HTMLInputElement} */
const $input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/**
 * @type {{
 *   info: SandboxInfo | null,
 *   conversations: Map<string, Summary>,
 *   reasons: Map<string, Map<string, PageReasonRecord>>,
 *   open: OpenConversation | null,
 *   openExchanges: Set<string>,
 *   opening: symbol | undefined,
 *   held: PageEvent[],
 *   recent: PageEvent[],
 *   untied: RequestEvent[],
 *   historyEnd: number,
 *   loaded: boolean,
 * }}
 */
const state = {
  info: null,
  /** sessionId -> the conversation's summary, as GET /_sandbox/conversations gives it, kept up to date. */
  conversations: new Map(),
  /** tenant -> code -> reason record. */
  reasons: new Map(),
  /** The open conversation: its events, exchanges (by questionId) and drawn items. */
  open: null,
  /** The exchanges the user opened, by sessionId and questionId: they stay open when redrawn. */
  openExchanges: new Set(),
  /** Set while a conversation is being opened (a token), so only the latest request to open one wins. */
  opening: undefined,
  /** Events that arrived while the listings were loading; applied once they are in. */
  held: [],
  /** The latest events of conversations, so one opened while an event arrives misses nothing. */
  recent: [],
  /** The refused requests tied to no conversation, in seq order (the strip shows the newest first). */
  untied: [],
  /**
   * The stream starts at the oldest kept event, so that the refusals of before the page are shown
   * too; events up to this seq are in the listings already, and only their refusals are read.
   */
  historyEnd: 0,
  loaded: false,
};

// ---- the model ---------------------------------------------------------------------------------------

/**
 * @param {Omit<PageConversation, 'lastBotMessage' | 'questions' | 'startedAt'> & { lastBotMessage?: PageConversation['lastBotMessage'] }} view
 * @returns {Summary}
 */
function summaryOf(view) {
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
    /** Refused requests of the bot tied to this conversation, and the seq of the latest counted. */
    refused: 0,
    refusedSeq: 0,
  };
}

/** The most refusals tied to no conversation that the strip lists; its count says how many there are. */
const UNTIED_SHOWN = 100;

/**
 * Takes a refusal: one tied to no conversation into the strip, one tied to a conversation into its
 * count (its badge in the list). Each event once, whether replayed or live. Returns whether it was one.
 *
 * @param {PageEvent} candidate
 */
function noteRefusal(candidate) {
  if (!isRefusal(candidate)) return false;
  // isRefusal holds only for the bot's requests: an api.request, an answer or a greeting.
  const event = /** @type {RequestEvent} */ (candidate);
  if (event.sessionId === null) {
    const last = state.untied.at(-1);
    if (last === undefined || event.seq > last.seq) {
      state.untied.push(event);
      if (state.untied.length > 10_000) state.untied.splice(0, 5_000);
      drawRefusals();
    }
    return true;
  }
  const summary = state.conversations.get(event.sessionId);
  if (summary !== undefined && event.seq > summary.refusedSeq) {
    summary.refused += 1;
    summary.refusedSeq = event.seq;
    if (state.loaded) drawListEntry(summary);
  }
  return true;
}

/**
 * What an event changes in its conversation's summary (the same rules as the sandbox's state).
 *
 * @param {Summary} summary
 * @param {PageEvent} event
 */
function updateSummary(summary, event) {
  summary.lastSeq = Math.max(summary.lastSeq, event.seq);
  if ((event.type === 'bot.answer' && event.delivered) || event.type === 'greeting') summary.lastBotSeq = event.seq;
  if (event.type === 'handover') {
    if (event.scope === 'thread') {
      summary.owner = 'agents';
      summary.handover = { code: event.code, seq: event.seq, userIds: event.userIds, skillIds: event.skillIds, unitIds: event.unitIds };
    } else if (event.questionIndex !== null && !summary.questionsWithAgents.some((i) => String(i) === String(event.questionIndex))) {
      summary.questionsWithAgents.push(event.questionIndex);
    }
  }
  if (event.type === 'handover.routed' && event.scope === 'thread') {
    summary.holder = 'agent';
    summary.agentId = event.agentId;
    summary.agentName = event.agentName;
  }
  if (event.type === 'handover.queued' && event.scope === 'thread') summary.holder = 'queue';
  if (event.type === 'released') {
    summary.holder = 'bot';
    summary.agentId = null;
    summary.owner = 'bot';
    summary.handover = null;
    summary.questionsWithAgents = [];
  }
}

/** @param {PageEvent} event */
function apply(event) {
  // A replayed event from before the page: the listings hold it, all but its refusal.
  if (event.seq <= state.historyEnd) {
    noteRefusal(event);
    return;
  }
  if (changesAgents(event)) refreshAgents(drawAgentsPanel, notice);
  if (event.type === 'sandbox.reset') {
    resetTenant(event.tenant);
    return;
  }
  if (event.type === 'reason.updated') {
    const reasons = state.reasons.get(event.tenant) ?? new Map();
    reasons.set(event.code, {
      tenant: event.tenant,
      code: event.code,
      reason: /** @type {PageReasonRecord['reason']} */ (event.reason),
      updatedAt: event.time,
      requestId: event.requestId,
    });
    state.reasons.set(event.tenant, reasons);
    drawReasons();
    return;
  }
  if (event.sessionId === null) {
    noteRefusal(event);
    return;
  }
  let summary = state.conversations.get(event.sessionId);
  const added = summary === undefined && event.type === 'conversation.started';
  if (added) {
    summary = summaryOf({
      ...event,
      owner: 'bot',
      holder: 'bot',
      agentId: null,
      handover: null,
      questionsWithAgents: [],
      startedSeq: event.seq,
      lastSeq: event.seq,
    });
    state.conversations.set(event.sessionId, summary);
  }
  if (summary === undefined) return;
  noteRefusal(event);
  state.recent.push(event);
  if (state.recent.length > 2000) state.recent.splice(0, 1000);
  // An event the summary already reflects (it came while the listing loaded) changes nothing in it.
  const fresh = event.seq > summary.lastSeq || event.type === 'conversation.started';
  if (fresh) updateSummary(summary, event);
  const open = state.open?.sessionId === event.sessionId ? state.open : null;
  if (open) {
    if (event.seq > open.maxSeq) addToTimeline(open, event);
    drawHeader();
  } else if (fresh) {
    summary.unread = true;
  }
  // A new conversation changes the list; any other event, its conversation's entry only.
  if (added) drawList();
  else drawListEntry(summary);
  // With nothing open, a conversation that starts is opened, so the page follows `core customer say`.
  if (state.open === null && state.opening === undefined && event.type === 'conversation.started') {
    void openConversation(event.sessionId, { history: 'replace' });
  }
}

/** @param {string} tenant */
function resetTenant(tenant) {
  for (const [sessionId, summary] of state.conversations) if (summary.tenant === tenant) state.conversations.delete(sessionId);
  state.untied = state.untied.filter((event) => event.tenant !== tenant);
  drawRefusals();
  void api.reasons().then((records) => {
    setReasons(records);
    drawReasons();
  });
  if (state.open && state.open.tenant === tenant) {
    state.open = null;
    drawConversation();
    notice(`Tenant ${tenant} was reset: its conversations are gone.`);
  }
  drawList();
}

/** @param {PageReasonRecord[]} records */
function setReasons(records) {
  state.reasons.clear();
  for (const record of records) {
    const reasons = state.reasons.get(record.tenant) ?? new Map();
    reasons.set(record.code, record);
    state.reasons.set(record.tenant, reasons);
  }
}

// ---- the open conversation ---------------------------------------------------------------------------

/**
 * @param {OpenConversation} open
 * @returns {RenderContext}
 */
function renderContext(open) {
  const summary = state.conversations.get(open.sessionId);
  return {
    channel: open.channel,
    lastBotSeq: summary?.lastBotSeq ?? null,
    botConnected: state.info?.bot != null,
    openExchanges: state.openExchanges,
    actions: {
      press: (label) => act(() => api.send(open.sessionId, { press: label })),
      pick: (identifier) => act(() => api.send(open.sessionId, { pick: identifier })),
      redeliver: (deliveryId) => act(() => api.redeliver(deliveryId)),
    },
  };
}

/**
 * Draws one event of the open conversation, and draws again what it changes (an exchange, the previous message's buttons).
 *
 * @param {OpenConversation} open
 * @param {PageEvent} event
 */
function addToTimeline(open, event) {
  open.maxSeq = Math.max(open.maxSeq, event.seq);
  open.events.push(event);
  // While a conversation loads, its items go into a fragment, put in at once: reading the layout
  // after each of thousands of items would lay the page out thousands of times.
  const loading = open.fragment !== null;
  const timeline = $('timeline');
  const stick = !loading && timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight < 80;
  const ctx = renderContext(open);
  /** @param {number | bigint | null} questionId */
  const exchangeOf = (questionId) => (questionId == null ? open.current : (open.exchanges.get(String(questionId)) ?? open.current));
  /** @type {HTMLElement | null} */
  let item = null;
  switch (event.type) {
    case 'customer.message': {
      /** @type {Exchange} */
      const exchange = { message: event, attempts: [], requests: [], item: null };
      open.exchanges.set(String(event.questionId), exchange);
      open.current = exchange;
      item = customerBubble(event, exchange, ctx);
      exchange.item = item;
      break;
    }
    case 'webhook.attempt': {
      const exchange = open.exchanges.get(String(event.questionId));
      if (exchange) {
        exchange.attempts.push(event);
        redrawExchange(exchange, ctx);
      }
      break;
    }
    case 'bot.answer':
    case 'greeting': {
      const exchange = exchangeOf(event.type === 'bot.answer' ? event.questionId : null);
      if (exchange) {
        exchange.requests.push(event);
        redrawExchange(exchange, ctx);
      }
      item = botBubble(event, ctx);
      if (event.delivered) {
        // The previous message's buttons can no longer be pressed: draw it again.
        const previous = open.lastBot;
        open.lastBot = event;
        const old = previous ? open.items.get(previous.seq) : undefined;
        if (previous && old) {
          const redrawn = botBubble(previous, ctx);
          replaceKeepingFocus(old, redrawn);
          open.items.set(previous.seq, redrawn);
        }
      }
      break;
    }
    case 'api.request': {
      const exchange = open.current;
      if (exchange) {
        exchange.requests.push(event);
        redrawExchange(exchange, ctx);
      } else item = systemLine(event);
      break;
    }
    case 'agent.message':
      item = agentBubble(event);
      break;
    default:
      item = systemLine(event);
  }
  if (item) {
    open.items.set(event.seq, item);
    (open.fragment ?? $('timeline-list')).append(item);
  }
  if (loading) return;
  drawComposer();
  if (stick) timeline.scrollTop = timeline.scrollHeight;
}

/**
 * @param {Exchange} exchange
 * @param {RenderContext} ctx
 */
function redrawExchange(exchange, ctx) {
  const panel = exchange.item?.querySelector(':scope > details.exchange');
  if (panel) replaceKeepingFocus(panel, exchangePanel(exchange.message, exchange, ctx));
}

/**
 * @param {string} sessionId
 * @param {{ history?: 'push' | 'replace' | 'none' }} [options]
 */
async function openConversation(sessionId, { history = 'push' } = {}) {
  const token = Symbol(sessionId);
  state.opening = token;
  let loaded;
  try {
    loaded = await api.conversation(sessionId);
  } catch (error) {
    if (state.opening !== token) return;
    state.opening = undefined;
    state.open = null;
    drawConversation();
    notice(`Cannot open conversation ${sessionId}: ${/** @type {Error} */ (error).message}`);
    return;
  }
  if (state.opening !== token) return;
  state.opening = undefined;
  const { conversation, events } = loaded;
  const summary = state.conversations.get(sessionId) ?? summaryOf(conversation);
  // The listing may be newer than the events seen so far: take the server's word for the state.
  // The refusals are the page's own count (the listing has none), and the loaded events' at least.
  const refusedHere = events.filter(isRefusal);
  const { refused, refusedSeq } = summary;
  Object.assign(summary, summaryOf(conversation), {
    unread: false,
    refused: Math.max(refused, refusedHere.length),
    refusedSeq: Math.max(refusedSeq, refusedHere.at(-1)?.seq ?? 0),
  });
  state.conversations.set(sessionId, summary);
  state.open = {
    sessionId,
    tenant: conversation.tenant,
    channel: conversation.channel,
    events: [],
    maxSeq: 0,
    exchanges: new Map(),
    current: null,
    lastBot: null,
    items: new Map(),
    fragment: null,
  };
  if (history !== 'none') {
    const url = `?session=${encodeURIComponent(sessionId)}`;
    if (history === 'push' && location.search !== url) window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
  }
  drawConversation();
  const open = state.open;
  $('timeline-list').setAttribute('aria-busy', 'true');
  open.fragment = document.createDocumentFragment();
  for (const event of events) addToTimeline(open, event);
  // Events of this conversation that came while it loaded, and are newer than what it holds.
  for (const event of state.recent) {
    if (event.sessionId !== sessionId) continue;
    if (event.seq > summary.lastSeq) updateSummary(summary, event);
    if (event.seq > open.maxSeq) addToTimeline(open, event);
  }
  $('timeline-list').append(open.fragment);
  $('timeline-list').setAttribute('aria-busy', 'false');
  open.fragment = null;
  drawComposer();
  drawHeader();
  drawList();
  const timeline = $('timeline');
  timeline.scrollTop = timeline.scrollHeight;
}

// ---- drawing -----------------------------------------------------------------------------------------

/** @param {string} message */
function notice(message) {
  $('notice').textContent = message;
}

/** @param {string} [live] */
function drawStatus(live) {
  const bot = state.info?.bot;
  $('bot-status').textContent =
    bot == null
      ? 'No bot connected: customer messages are recorded, no webhook is sent (start core sandbox with --bot-url URL).'
      : `Bot: a MESSAGE webhook to POST ${bot.url} for each customer message.`;
  const kept = state.info?.state;
  if (kept != null) {
    $('bot-status').textContent += kept.restored
      ? ` Restored from ${kept.file} at ${kept.readAt} (${kept.eventsRead} events read).`
      : ` State kept in ${kept.file}.`;
  }
  $('bot-status').classList.toggle('warning', bot == null);
  if (live !== undefined) {
    /** @type {Record<string, string>} */
    const words = { live: 'Live', reconnecting: 'Reconnecting\u2026', closed: 'Disconnected: reload the page' };
    const text = words[live] ?? live;
    $('live-status').textContent = text;
    document.body.dataset.live = live;
  }
}

function sortedConversations() {
  return [...state.conversations.values()].sort((a, b) => b.startedSeq - a.startedSeq);
}

function drawList() {
  const items = sortedConversations().map(listEntry);
  const list = clear($('conversation-list'));
  if (items.length === 0) list.append(h('li', { className: 'muted' }, 'No conversation yet.'));
  else list.append(...items);
}

/** @param {Summary} summary */
function drawListEntry(summary) {
  const entry = document.querySelector(`#conversation-list li[data-session="${CSS.escape(summary.sessionId)}"]`);
  if (entry) replaceKeepingFocus(entry, listEntry(summary));
  else drawList();
}

/** @param {Summary} summary */
function listEntry(summary) {
  const tenants = state.info?.tenants ?? [];
  const current = state.open?.sessionId === summary.sessionId;
  return h(
    'li',
    { dataset: { session: summary.sessionId } },
    h(
      'a',
      {
        href: `?session=${encodeURIComponent(summary.sessionId)}`,
        className: `conversation-link${summary.unread ? ' unread' : ''}`,
        'aria-current': current ? 'page' : undefined,
        dataset: { session: summary.sessionId },
        on: {
          click: (/** @type {MouseEvent} */ event) => {
            if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
            event.preventDefault();
            void openConversation(summary.sessionId);
          },
        },
      },
      h('span', { className: `badge channel channel-${String(summary.channel).toLowerCase()}` }, summary.channel),
      h('span', { className: 'session' }, summary.sessionId),
      summary.owner === 'agents' ? h('span', { className: 'badge agents' }, 'agents') : null,
      summary.refused > 0
        ? h(
            'span',
            { className: 'badge refused', title: 'the sandbox refused requests of the bot in this conversation' },
            `\u2717 ${summary.refused} refused`,
          )
        : null,
      summary.unread ? h('span', { className: 'dot', 'aria-label': 'new activity' }) : null,
      h(
        'span',
        { className: 'conversation-meta' },
        tenants.length > 1 ? `${summary.tenant} \u00b7 ` : '',
        summary.clientId !== null ? `clientId ${summary.clientId}` : `client ${summary.coreClientId}`,
      ),
    ),
  );
}

let refusalsDrawn = true;

/** Draws the strip once for all the refusals taken in one go (a replay brings thousands at once). */
function drawRefusals() {
  if (!refusalsDrawn) return;
  refusalsDrawn = false;
  queueMicrotask(() => {
    refusalsDrawn = true;
    drawRefusalsNow();
  });
}

function drawRefusalsNow() {
  const count = state.untied.length;
  $('refusals').hidden = count === 0;
  $('refusals-heading').textContent =
    count === 1
      ? '1 API request the sandbox refused and could tie to no conversation'
      : `${count} API requests the sandbox refused and could tie to no conversation`;
  const showTenant = (state.info?.tenants ?? []).length > 1;
  const list = clear($('refusal-list'));
  list.append(
    ...state.untied
      .slice(-UNTIED_SHOWN)
      .reverse()
      .map((event) => refusalItem(event, showTenant)),
  );
}

/** Where the page keeps whether the strip of refusals is folded to its one line, across reloads. */
const REFUSALS_FOLDED = 'core-sandbox:refusals-folded';

/** Whether the user folded the strip; storage that cannot be read (a private window, a policy) means open. */
function refusalsFolded() {
  try {
    return localStorage.getItem(REFUSALS_FOLDED) === 'true';
  } catch {
    return false;
  }
}

/**
 * Folds the strip to its one line or opens it, and remembers the choice where storage allows.
 *
 * @param {boolean} folded
 */
function foldRefusals(folded) {
  $('refusals-body').hidden = folded;
  const toggle = $('refusals-toggle');
  toggle.setAttribute('aria-expanded', String(!folded));
  toggle.textContent = folded ? 'Show' : 'Hide';
  try {
    if (folded) localStorage.setItem(REFUSALS_FOLDED, 'true');
    else localStorage.removeItem(REFUSALS_FOLDED);
  } catch {
    // Not remembered: the strip is folded until the page is loaded again.
  }
}

function drawReasons() {
  const container = clear($('reasons'));
  const tenants = state.info?.tenants ?? [...state.reasons.keys()];
  for (const tenant of tenants) {
    const reasons = [...(state.reasons.get(tenant)?.values() ?? [])];
    container.append(reasonsTable(tenant, reasons, tenants.length > 1));
  }
}

function drawAgentsPanel() {
  drawAgents(
    $('agents'),
    state.info?.tenants ?? [...state.reasons.keys()],
    (tenant) => [...(state.reasons.get(tenant)?.values() ?? [])],
    notice,
  );
}

function drawHeader() {
  const open = state.open;
  // The header is drawn again on each event: a button that had the focus gets it back, an agent's draft its text.
  const focused = $('conversation-header').contains(document.activeElement) ? document.activeElement?.id : undefined;
  const draft = /** @type {HTMLInputElement | null} */ (document.getElementById('agent-message'))?.value ?? '';
  const header = clear($('conversation-header'));
  if (open === null) return;
  const summary = state.conversations.get(open.sessionId);
  document.title = `${open.sessionId} \u00b7 core sandbox`;
  const withAgents = summary?.owner === 'agents' || (summary?.questionsWithAgents.length ?? 0) > 0;
  append(header, [
    h('h2', { id: 'conversation-title' }, `Conversation ${open.sessionId}`),
    h(
      'p',
      { className: 'conversation-facts' },
      h('span', { className: `badge channel channel-${String(open.channel).toLowerCase()}` }, open.channel),
      ` ${channelName(open.channel)} \u00b7 tenant ${open.tenant} \u00b7 coreClientId ${show(summary?.coreClientId)} \u00b7 `,
      summary?.clientId !== null && summary?.clientId !== undefined ? `authorized, clientId ${summary.clientId}` : 'unauthorized',
    ),
    h(
      'p',
      { className: `owner owner-${summary?.owner ?? 'bot'}`, id: 'owner', role: 'status' },
      summary?.owner === 'agents'
        ? `${summary.holder === 'agent' ? `With agent ${show(summary.agentId)}${summary.agentName ? ` (${summary.agentName})` : ''}` : summary.holder === 'queue' ? 'In the queue for an agent' : 'With agents'} since ${summary.handover?.code ?? 'a hand-over'}: the bot\u2019s answers are not delivered and customer messages send no webhook.`
        : summary?.questionsWithAgents.length
          ? `With the bot; question${summary.questionsWithAgents.length === 1 ? '' : 's'} ${summary.questionsWithAgents.join(', ')} passed to agents.`
          : 'With the bot.',
    ),
    h(
      'div',
      { className: 'actions' },
      withAgents ? h('button', { type: 'button', id: 'release', on: { click: release } }, 'Give back to the bot') : null,
      h('button', { type: 'button', id: 'save-test', on: { click: saveTest } }, 'Save as test'),
      h('button', { type: 'button', id: 'export', on: { click: exportTranscript } }, 'Export transcript (JSON)'),
    ),
    summary ? agentComposer(summary, notice) : null,
    open.channel === 'IM'
      ? null
      : h(
          'p',
          { className: 'channel-note', id: 'channel-note' },
          `List pickers, headers and footers are shown on IM threads only: on this ${open.channel} thread they are drawn greyed, since the customer does not see them.`,
          open.channel === 'EMAIL' ? ' The bot must answer an EMAIL question by sessionId and questionIndex (chatbot rule 2).' : '',
        ),
  ]);
  const agentInput = /** @type {HTMLInputElement | null} */ (document.getElementById('agent-message'));
  if (agentInput) agentInput.value = draft;
  if (focused) $(focused)?.focus();
}

function drawConversation() {
  clear($('timeline-list'));
  drawHeader();
  if (state.open === null) {
    document.title = 'core sandbox';
    $('conversation-header').append(h('h2', { id: 'conversation-title' }, 'No conversation open'));
    $('timeline-list').append(
      h('li', { className: 'empty muted' }, 'Start a conversation with the form, or from a shell: core customer say "Hello"'),
    );
  }
  drawComposer();
}

function drawComposer() {
  const open = state.open;
  const input = $input('message');
  const send = /** @type {HTMLButtonElement} */ ($('send'));
  // The bot's last message, as the bot sent it.
  const lastBody = /** @type {Record<string, any> | null | undefined} */ (open?.lastBot?.body);
  const blocked =
    open?.lastBot != null &&
    lastBody?.settings?.blockInput === true &&
    Array.isArray(lastBody?.quickReplies) &&
    lastBody.quickReplies.length > 0;
  input.disabled = open === null || blocked;
  send.disabled = open === null || blocked;
  const summary = open ? state.conversations.get(open.sessionId) : undefined;
  $('composer-note').textContent =
    open === null
      ? 'Open or start a conversation to write in it.'
      : blocked
        ? 'The bot blocked the input field (settings.blockInput): press one of its buttons.'
        : summary?.owner === 'agents'
          ? 'The thread is with agents: a message is recorded, but no webhook is sent until it is given back to the bot.'
          : '';
}

// ---- actions -----------------------------------------------------------------------------------------

/**
 * Runs an action, showing the sandbox's message when it refuses; what it changes comes back as events.
 *
 * @template T
 * @param {() => Promise<T>} action
 * @returns {Promise<T | undefined>}
 */
async function act(action) {
  notice('');
  try {
    return await action();
  } catch (error) {
    notice(/** @type {Error} */ (error).message);
    return undefined;
  }
}

async function release() {
  const open = state.open;
  if (open) await act(() => api.release(open.sessionId));
}

/**
 * @param {string} name
 * @param {string} type
 * @param {string} content
 */
function download(name, type, content) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function saveTest() {
  const open = state.open;
  if (open === null) return;
  const file = await act(() => api.testFile(open.sessionId));
  if (file) download(file.name, 'application/yaml', file.text);
}

async function exportTranscript() {
  const open = state.open;
  if (open === null) return;
  const transcript = await act(() => api.conversation(open.sessionId));
  if (transcript) download(`transcript-${open.sessionId}.json`, 'application/json', `${stringifyJson(transcript, 2)}\n`);
}

/** @param {SubmitEvent} event */
async function startConversation(event) {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  const data = new FormData(form);
  /** @type {{ channel: string, tenant?: string, clientId?: string, coreClientId?: bigint }} */
  const request = { channel: String(data.get('channel') ?? 'WEB') };
  const tenant = String(data.get('tenant') ?? '');
  if (tenant) request.tenant = tenant;
  if (data.get('client') === 'authorized') {
    const clientId = String(data.get('clientId') ?? '').trim();
    if (clientId === '') {
      notice('An authorized client needs a clientId.');
      $('client-id').focus();
      return;
    }
    request.clientId = clientId;
  }
  const core = String(data.get('coreClientId') ?? '').trim();
  if (core !== '') {
    if (!/^\d{1,19}$/.test(core)) {
      notice('coreClientId must be a whole number from 0 to 9223372036854775807.');
      $('core-client-id').focus();
      return;
    }
    request.coreClientId = BigInt(core);
  }
  // Marked before the request, so its conversation.started event does not open it a second time.
  const marker = Symbol('starting');
  state.opening = marker;
  const started = await act(() => api.start(request));
  if (started) await openConversation(started.sessionId);
  else if (state.opening === marker) state.opening = undefined;
  $('message').focus();
}

/** @param {SubmitEvent} event */
async function say(event) {
  event.preventDefault();
  const open = state.open;
  const input = $input('message');
  const value = input.value;
  if (open === null || value.trim() === '') return;
  const sent = await act(() => api.send(open.sessionId, { text: value }));
  if (sent) input.value = '';
  input.focus();
}

// ---- start-up ----------------------------------------------------------------------------------------

function drawStartForm() {
  const tenants = state.info?.tenants ?? [];
  const select = clear($('tenant'));
  for (const tenant of tenants) select.append(h('option', { value: tenant }, tenant));
  $('tenant-field').hidden = tenants.length < 2;
}

/** @param {KeyboardEvent} event */
function keyboard(event) {
  const typing = event.target instanceof HTMLElement && event.target.closest('input, textarea, select');
  if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
    event.preventDefault();
    $('message').focus();
  } else if (event.altKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
    const ids = sortedConversations().map((summary) => summary.sessionId);
    if (ids.length === 0) return;
    event.preventDefault();
    const at = ids.indexOf(state.open?.sessionId ?? '');
    const next = event.key === 'ArrowDown' ? Math.min(ids.length - 1, at + 1) : Math.max(0, at - 1);
    void openConversation(/** @type {string} */ (ids[next === -1 ? 0 : next])).then(() =>
      /** @type {HTMLElement | null} */ (document.querySelector('#conversation-list [aria-current="page"]'))?.focus(),
    );
  } else if (event.key === 'n' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
    event.preventDefault();
    $('channel').focus();
  }
}

async function start() {
  $('start-form').addEventListener('submit', startConversation);
  $('composer').addEventListener('submit', say);
  $('message').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      /** @type {HTMLFormElement} */ ($('composer')).requestSubmit();
    }
  });
  for (const radio of document.querySelectorAll('input[name="client"]')) {
    radio.addEventListener('change', () => {
      $input('client-id').disabled = !$input('client-authorized').checked;
    });
  }
  document.addEventListener('keydown', keyboard);
  foldRefusals(refusalsFolded());
  $('refusals-toggle').addEventListener('click', () => foldRefusals($('refusals-toggle').getAttribute('aria-expanded') === 'true'));
  window.addEventListener('popstate', () => {
    const wanted = new URLSearchParams(location.search).get('session');
    if (wanted && wanted !== state.open?.sessionId) void openConversation(wanted, { history: 'none' });
  });

  try {
    state.info = await api.info();
  } catch (error) {
    notice(`The sandbox does not answer: ${/** @type {Error} */ (error).message}`);
    return;
  }
  drawStatus('connecting');
  drawStartForm();
  // The stream starts at the oldest kept event: those up to the last the listings below can include
  // are read for their refusals only; events that arrive while they load are held, then applied in
  // order, each once.
  state.historyEnd = state.info.lastSeq;
  openEvents(
    0,
    (event) => (state.loaded ? apply(event) : state.held.push(event)),
    (live) => drawStatus(live),
  );
  const [conversations, reasons] = await Promise.all([api.conversations(), api.reasons()]);
  for (const view of conversations) state.conversations.set(view.sessionId, summaryOf(view));
  setReasons(reasons);
  drawReasons();
  refreshAgents(drawAgentsPanel, notice);
  const wanted = new URLSearchParams(location.search).get('session');
  const first = wanted ?? sortedConversations()[0]?.sessionId;
  if (first) await openConversation(first, { history: wanted ? 'none' : 'replace' });
  else drawConversation();
  state.loaded = true;
  for (const event of state.held.splice(0)) apply(event);
  drawList();
  document.body.dataset.ready = 'true';
}

void start();
