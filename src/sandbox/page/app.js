// @ts-check
// The sandbox's page (docs/sandbox.md, "The page"): every conversation of every tenant as the customer
// sees it, live from GET /_sandbox/events. The user plays the customer (types, presses buttons, picks
// list items, starts conversations, gives threads back to the bot) through the sandbox's JSON
// endpoints, and sees under each customer message the webhook attempts and the bot's API requests.
//
// Plain ES modules, no build step and no library: the page ships as these files inside the npm
// package and the sandbox serves them itself. The page is a model, a view and actions: model.js holds
// what the page knows and applies each event to it (no DOM, unit-tested in Node); this file draws the
// model (redrawing only the parts an event replaced) and runs what the user does, whose effects come
// back as events.

import { agentBubble, agentComposer, changesAgents, drawAgents, refreshAgents } from './agents.js';
import { api, openEvents } from './api.js';
import { append, clear, h, replaceKeepingFocus, show } from './dom.js';
import { stringifyJson } from './json.js';
import {
  apply,
  candidatesOf,
  closed,
  emptyState,
  inputBlocked,
  opened,
  sortedConversations,
  UNTIED_SHOWN,
  withListings,
  withReasons,
} from './model.js';
import { botBubble, channelName, customerBubble, exchangePanel, reasonsTable, refusalItem, systemLine } from './render.js';

/**
 * @typedef {import('../events.js').PageEvent} PageEvent
 * @typedef {import('./api.js').SandboxInfo} SandboxInfo
 * @typedef {import('./model.js').PageState} PageState
 * @typedef {import('./model.js').Summary} Summary
 * @typedef {import('./model.js').Exchange} Exchange
 * @typedef {import('./model.js').Entry} Entry
 * @typedef {import('./model.js').OpenConversation} OpenConversation
 * @typedef {import('./render.js').RenderContext} RenderContext
 */

/** @type {(id: string) => HTMLElement} */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @type {(id: string) => HTMLInputElement} */
const $input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

/**
 * The page: the model, and what only the view and the actions need.
 *
 * @type {{
 *   info: SandboxInfo | null,
 *   model: PageState,
 *   opening: symbol | undefined,
 *   held: PageEvent[],
 *   loaded: boolean,
 *   openExchanges: Set<string>,
 *   items: Map<number, HTMLElement>,
 * }}
 */
const page = {
  info: null,
  model: emptyState(),
  /** Set while a conversation is being opened (a token), so only the latest request to open one wins. */
  opening: undefined,
  /** Events that arrived while the listings were loading; applied once they are in. */
  held: [],
  loaded: false,
  /** The exchanges the user opened, by sessionId and questionId: they stay open when redrawn. */
  openExchanges: new Set(),
  /** The open conversation's drawn items, by the seq of the event that made them. */
  items: new Map(),
};

/**
 * Applies one event to the model and draws what it replaced.
 *
 * @param {PageEvent} event
 */
function receive(event) {
  const before = page.model;
  page.model = apply(before, event);
  draw(before, page.model, event);
  // The agents' panel is read again after an event that changes an agent, a hold, the queue or the reasons.
  if (event.seq > before.historyEnd && changesAgents(event)) refreshAgents(drawAgentsPanel, notice);
  // With nothing open, a conversation that starts is opened, so the page follows `core customer say`.
  if (page.model.open === null && page.opening === undefined && event.type === 'conversation.started' && event.seq > before.historyEnd) {
    void openConversation(event.sessionId, { history: 'replace' });
  }
}

/**
 * Draws what changed from one state of the model to the next.
 *
 * @param {PageState} before
 * @param {PageState} after
 * @param {PageEvent} event
 */
function draw(before, after, event) {
  if (after.untied !== before.untied) drawRefusals();
  if (after.reasons !== before.reasons) drawReasons();
  if (event.type === 'sandbox.reset' && event.seq > before.historyEnd) {
    // The event does not carry the tenant's reasons: they are read again.
    void api.reasons().then((records) => {
      page.model = withReasons(page.model, records);
      drawReasons();
    });
    if (before.open !== null && after.open === null) {
      drawConversation();
      notice(`Tenant ${event.tenant} was reset: its conversations are gone.`);
    }
  }
  if (after.conversations !== before.conversations && page.loaded) {
    const added = [...after.conversations.keys()].some((id) => !before.conversations.has(id));
    if (added || after.conversations.size !== before.conversations.size) drawList();
    else for (const [id, summary] of after.conversations) if (before.conversations.get(id) !== summary) drawListEntry(summary);
  }
  if (after.open !== null && before.open !== null && after.open !== before.open && after.open.sessionId === before.open.sessionId) {
    drawChanges(before.open, after.open);
  }
  if (after.open !== null && event.sessionId === after.open.sessionId) drawHeader();
}

// ---- the open conversation ---------------------------------------------------------------------------

/**
 * @param {OpenConversation} open
 * @returns {RenderContext}
 */
function renderContext(open) {
  const summary = page.model.conversations.get(open.sessionId);
  return {
    channel: open.channel,
    lastBotSeq: summary?.lastBotSeq ?? null,
    resent: summary?.resent ?? [],
    botConnected: page.info?.bot != null,
    openExchanges: page.openExchanges,
    actions: {
      press: (label) => act(() => api.send(open.sessionId, { press: label })),
      pick: (identifier) => act(() => api.send(open.sessionId, { pick: identifier })),
      redeliver: (deliveryId) => act(() => api.redeliver(deliveryId)),
    },
  };
}

/**
 * The element of one timeline entry.
 *
 * @param {OpenConversation} open
 * @param {Entry} entry
 * @param {RenderContext} ctx
 */
function entryItem(open, entry, ctx) {
  if (entry.kind === 'customer') {
    const exchange = /** @type {Exchange} */ (open.exchanges.get(entry.questionId));
    return customerBubble(exchange.message, exchange, ctx);
  }
  if (entry.kind === 'bot') return botBubble(entry.event, ctx);
  if (entry.event.type === 'agent.message') return agentBubble(entry.event);
  return systemLine(entry.event);
}

/**
 * Draws the open conversation's new entries, the exchanges an event replaced, and the bot's previous
 * message when a newer one was delivered (its buttons can no longer be pressed).
 *
 * @param {OpenConversation} before
 * @param {OpenConversation} after
 */
function drawChanges(before, after) {
  const timeline = $('timeline');
  const stick = timeline.scrollHeight - timeline.scrollTop - timeline.clientHeight < 80;
  const ctx = renderContext(after);
  for (const [questionId, exchange] of after.exchanges) {
    const old = before.exchanges.get(questionId);
    if (old !== undefined && old !== exchange) redrawExchange(exchange, ctx);
  }
  if (before.lastBot !== null && after.lastBot !== before.lastBot) {
    const old = page.items.get(before.lastBot.seq);
    if (old) {
      const redrawn = botBubble(before.lastBot, ctx);
      replaceKeepingFocus(old, redrawn);
      page.items.set(before.lastBot.seq, redrawn);
    }
  }
  const list = $('timeline-list');
  for (const entry of after.timeline.slice(before.timeline.length)) {
    const item = entryItem(after, entry, ctx);
    if (item === null) continue;
    page.items.set(entry.seq, item);
    list.append(item);
  }
  drawComposer();
  if (stick) timeline.scrollTop = timeline.scrollHeight;
}

/**
 * @param {Exchange} exchange
 * @param {RenderContext} ctx
 */
function redrawExchange(exchange, ctx) {
  const panel = page.items.get(exchange.message.seq)?.querySelector(':scope > details.exchange');
  if (panel) replaceKeepingFocus(panel, exchangePanel(exchange.message, exchange, ctx));
}

/** Draws the whole open conversation (once opened): its items go into a fragment, put in at once. */
function drawTimeline() {
  const open = page.model.open;
  const list = $('timeline-list');
  page.items.clear();
  if (open === null) return;
  list.setAttribute('aria-busy', 'true');
  // Reading the layout after each of thousands of items would lay the page out thousands of times.
  const fragment = document.createDocumentFragment();
  const ctx = renderContext(open);
  for (const entry of open.timeline) {
    const item = entryItem(open, entry, ctx);
    if (item === null) continue;
    page.items.set(entry.seq, item);
    fragment.append(item);
  }
  list.append(fragment);
  list.setAttribute('aria-busy', 'false');
}

/**
 * @param {string} sessionId
 * @param {{ history?: 'push' | 'replace' | 'none' }} [options]
 */
async function openConversation(sessionId, { history = 'push' } = {}) {
  const token = Symbol(sessionId);
  page.opening = token;
  let loaded;
  try {
    loaded = await api.conversation(sessionId);
  } catch (error) {
    if (page.opening !== token) return;
    page.opening = undefined;
    page.model = closed(page.model);
    drawConversation();
    notice(`Cannot open conversation ${sessionId}: ${/** @type {Error} */ (error).message}`);
    return;
  }
  if (page.opening !== token) return;
  page.opening = undefined;
  page.model = opened(page.model, loaded.conversation, loaded.events);
  if (history !== 'none') {
    const url = `?session=${encodeURIComponent(sessionId)}`;
    if (history === 'push' && location.search !== url) window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
  }
  drawConversation();
  drawTimeline();
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
  const bot = page.info?.bot;
  $('bot-status').textContent =
    bot == null
      ? 'No bot connected: customer messages are recorded, no webhook is sent (start core sandbox with --bot-url URL).'
      : `Bot: a MESSAGE webhook to POST ${bot.url} for each customer message.`;
  const kept = page.info?.state;
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

function drawList() {
  const items = sortedConversations(page.model).map(listEntry);
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
  const tenants = page.info?.tenants ?? [];
  const current = page.model.open?.sessionId === summary.sessionId;
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
      checkBadge(summary.check),
      problemsBadge(summary),
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

/**
 * The label of a conversation core check-bot plays a check in: the check's id and its verdict
 * (`running` until core check-bot says it); null for any other conversation.
 *
 * @param {Summary['check']} label
 */
function checkBadge(label) {
  if (label === null) return null;
  const verdict = label.verdict ?? 'running';
  return h(
    'span',
    {
      className: `badge check check-${verdict}`,
      title: `core check-bot plays the check ${label.check} in this conversation${label.message ? `: ${label.message}` : ''}`,
    },
    `${label.check} \u00b7 ${verdict}`,
  );
}

/**
 * The conversation's problems: the bot's requests the sandbox refused, and the mistakes it let
 * through (a crafted delivery accepted, a replay answered twice); null when there is none.
 *
 * @param {Summary} summary
 */
function problemsBadge(summary) {
  const { refused, mistakes } = summary;
  if (refused + mistakes === 0) return null;
  const words = [refused > 0 ? `${refused} refused` : '', mistakes > 0 ? `${mistakes} mistake${mistakes === 1 ? '' : 's'}` : ''];
  return h(
    'span',
    {
      className: 'badge refused',
      title: 'the sandbox refused requests of the bot in this conversation, or the bot made mistakes it let through',
    },
    `\u2717 ${words.filter(Boolean).join(', ')}`,
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
  const count = page.model.untied.length;
  $('refusals').hidden = count === 0;
  $('refusals-heading').textContent =
    count === 1
      ? '1 API request the sandbox refused and could tie to no conversation'
      : `${count} API requests the sandbox refused and could tie to no conversation`;
  const showTenant = (page.info?.tenants ?? []).length > 1;
  const list = clear($('refusal-list'));
  list.append(
    ...page.model.untied
      .slice(-UNTIED_SHOWN)
      .reverse()
      .map((event) => refusalItem(event, showTenant, candidatesOf(page.model, event), (sessionId) => void openConversation(sessionId))),
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
  const tenants = page.info?.tenants ?? [...page.model.reasons.keys()];
  for (const tenant of tenants) {
    const reasons = [...(page.model.reasons.get(tenant)?.values() ?? [])];
    container.append(reasonsTable(tenant, reasons, tenants.length > 1));
  }
}

function drawAgentsPanel() {
  drawAgents(
    $('agents'),
    page.info?.tenants ?? [...page.model.reasons.keys()],
    (tenant) => [...(page.model.reasons.get(tenant)?.values() ?? [])],
    notice,
  );
}

function drawHeader() {
  const open = page.model.open;
  // The header is drawn again on each event: a button that had the focus gets it back, an agent's draft its text.
  const focused = $('conversation-header').contains(document.activeElement) ? document.activeElement?.id : undefined;
  const draft = /** @type {HTMLInputElement | null} */ (document.getElementById('agent-message'))?.value ?? '';
  const header = clear($('conversation-header'));
  if (open === null) return;
  const summary = page.model.conversations.get(open.sessionId);
  document.title = `${open.sessionId} \u00b7 core sandbox`;
  const withAgents = summary?.owner === 'agents' || (summary?.questionsWithAgents.length ?? 0) > 0;
  const label = summary?.check ?? null;
  append(header, [
    h('h2', { id: 'conversation-title' }, `Conversation ${open.sessionId}`, label === null ? null : [' ', checkBadge(label)]),
    label === null
      ? null
      : h(
          'p',
          { className: `check-label check-${label.verdict ?? 'running'}`, id: 'check-label' },
          `core check-bot plays the check ${label.check} here: `,
          label.verdict === null ? 'running' : h('strong', {}, label.verdict),
          label.message ? ` \u2014 ${label.message}` : '',
        ),
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
  page.items.clear();
  drawHeader();
  if (page.model.open === null) {
    document.title = 'core sandbox';
    $('conversation-header').append(h('h2', { id: 'conversation-title' }, 'No conversation open'));
    $('timeline-list').append(
      h('li', { className: 'empty muted' }, 'Start a conversation with the form, or from a shell: core customer say "Hello"'),
    );
  }
  drawComposer();
}

function drawComposer() {
  const open = page.model.open;
  const input = $input('message');
  const send = /** @type {HTMLButtonElement} */ ($('send'));
  const blocked = inputBlocked(open);
  input.disabled = open === null || blocked;
  send.disabled = open === null || blocked;
  const summary = open ? page.model.conversations.get(open.sessionId) : undefined;
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
  const open = page.model.open;
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
  const open = page.model.open;
  if (open === null) return;
  const file = await act(() => api.testFile(open.sessionId));
  if (file) download(file.name, 'application/yaml', file.text);
}

async function exportTranscript() {
  const open = page.model.open;
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
  page.opening = marker;
  const started = await act(() => api.start(request));
  if (started) await openConversation(started.sessionId);
  else if (page.opening === marker) page.opening = undefined;
  $('message').focus();
}

/** @param {SubmitEvent} event */
async function say(event) {
  event.preventDefault();
  const open = page.model.open;
  const input = $input('message');
  const value = input.value;
  if (open === null || value.trim() === '') return;
  const sent = await act(() => api.send(open.sessionId, { text: value }));
  if (sent) input.value = '';
  input.focus();
}

// ---- start-up ----------------------------------------------------------------------------------------

function drawStartForm() {
  const tenants = page.info?.tenants ?? [];
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
    const ids = sortedConversations(page.model).map((summary) => summary.sessionId);
    if (ids.length === 0) return;
    event.preventDefault();
    const at = ids.indexOf(page.model.open?.sessionId ?? '');
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
    if (wanted && wanted !== page.model.open?.sessionId) void openConversation(wanted, { history: 'none' });
  });

  try {
    page.info = await api.info();
  } catch (error) {
    notice(`The sandbox does not answer: ${/** @type {Error} */ (error).message}`);
    return;
  }
  drawStatus('connecting');
  drawStartForm();
  // The stream starts at the oldest kept event: those up to the last the listings below can include
  // are read for their refusals only; events that arrive while they load are held, then applied in
  // order, each once.
  page.model = emptyState(page.info.lastSeq);
  openEvents(
    0,
    (event) => (page.loaded ? receive(event) : page.held.push(event)),
    (live) => drawStatus(live),
  );
  const [conversations, reasons] = await Promise.all([api.conversations(), api.reasons()]);
  page.model = withListings(page.model, conversations, reasons);
  drawReasons();
  refreshAgents(drawAgentsPanel, notice);
  const wanted = new URLSearchParams(location.search).get('session');
  const first = wanted ?? sortedConversations(page.model)[0]?.sessionId;
  if (first) await openConversation(first, { history: wanted ? 'none' : 'replace' });
  else drawConversation();
  page.loaded = true;
  for (const event of page.held.splice(0)) receive(event);
  drawList();
  document.body.dataset.ready = 'true';
}

void start();
