// @ts-check
// How the page draws a conversation: the customer's messages and the bot's answers as bubbles, as the
// customer sees them on the thread's channel, each customer message with its exchange under it (the
// webhook attempts, redelivery, the bot's API requests), and hand-overs as lines. Every value the
// bot or the customer sent is put in as text (dom.js), or as Markdown through markdown.js.

import { externalLink, h, safeUrl, show } from './dom.js';
import { stringifyJson } from './json.js';
import { markdownFragment } from './markdown.js';
import { acceptedForgery, craftOf } from './crafts.js';
import { deliveryTie, mistakeOf } from './model.js';
import { isRefusal } from './refusal.js';

/**
 * The events as the page reads them: the sandbox's own types (src/sandbox/events.ts), identifiers
 * number or BigInt. A bot's message body is whatever the bot sent: read field by field, checked here.
 *
 * @template {import('../events.js').EventType} T
 * @typedef {import('../events.js').PageEventOf<T>} EventOf
 */
/** @typedef {import('../events.js').PageEvent} PageEvent */
/** @typedef {EventOf<import('../events.js').RequestEventType>} RequestEvent */
/** @typedef {Record<string, any>} Body */
/**
 * What the page knows while it draws a conversation: its channel, the seq of the bot's last
 * delivered message (only its buttons can be pressed), the questions whose webhook was sent more than
 * once (an answer to one already answered is then a replay answered twice), and the actions.
 *
 * @typedef {{
 *   channel: string,
 *   lastBotSeq: number | null,
 *   resent: readonly string[],
 *   botConnected: boolean,
 *   openExchanges: Set<string>,
 *   actions: { press(label: string): void, pick(identifier: string): void, redeliver(deliveryId: string): void },
 * }} RenderContext
 */
/** @typedef {import('./model.js').Exchange} Exchange */

/** @type {(value: unknown) => value is Body} */
const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
/** @type {(value: unknown) => any[]} */
const list = (value) => (Array.isArray(value) ? value : []);
/** @type {(value: unknown) => string} */
const text = (value) => (typeof value === 'string' ? value : '');

/** @type {Record<string, string>} */
const CHANNEL_NAMES = { WEB: 'web chat', IM: 'instant messenger', EMAIL: 'email' };

/**
 * The name of a channel for people.
 *
 * @param {string} channel
 */
export const channelName = (channel) => CHANNEL_NAMES[channel] ?? String(channel);

/**
 * Where a part of a message is not shown on the thread's channel: drawn greyed, with the reason.
 *
 * @param {boolean} shown
 * @param {string} channel
 * @param {string} what
 * @param {HTMLElement} element
 */
function notShown(shown, channel, what, element) {
  if (shown) return element;
  return h(
    'div',
    { className: 'not-shown' },
    h('p', { className: 'not-shown-note' }, `Not shown to the customer: ${what} only on IM threads, and this thread is ${channel}.`),
    element,
  );
}

// ---- parts of a bot message -----------------------------------------------------------------------

/**
 * @param {unknown} url
 * @param {string} alt
 * @param {string} className
 */
function image(url, alt, className) {
  const src = safeUrl(url);
  if (src === null) return null;
  return h('img', { src, alt, className, loading: 'lazy', referrerPolicy: 'no-referrer', decoding: 'async' });
}

/**
 * @param {Body} body
 * @param {string} channel
 */
function headerFooter(body, channel) {
  const parts = isObject(body.quickRepliesHeaderFooter) ? body.quickRepliesHeaderFooter : null;
  if (parts === null) return { header: null, footer: null };
  const shown = channel === 'IM';
  const headerItems = list(parts.header).filter(isObject);
  const footerItems = list(parts.footer).filter(isObject);
  const header =
    headerItems.length === 0
      ? null
      : notShown(
          shown,
          channel,
          'the header is shown',
          h(
            'div',
            { className: 'im-header' },
            headerItems.map((item) => [
              item.text ? h('p', { className: 'im-header-text' }, text(item.text)) : null,
              item.imageUrl ? image(item.imageUrl, 'header image', 'im-header-image') : null,
              item.documentUrl ? h('p', {}, externalLink(item.documentUrl, text(item.documentName) || 'document')) : null,
              item.videoUrl ? h('p', {}, externalLink(item.videoUrl, 'video')) : null,
            ]),
          ),
        );
  const footer =
    footerItems.length === 0
      ? null
      : notShown(
          shown,
          channel,
          'the footer is shown',
          h(
            'div',
            { className: 'im-footer' },
            footerItems.map((item) => h('p', {}, text(item.text))),
          ),
        );
  return { header, footer };
}

const IMAGE_NAME = /\.(png|jpe?g|gif|webp|bmp|svg|avif|ico)$/i;

/** @param {Body} item */
function attachment(item) {
  const name = text(item.name);
  const type = text(item.type);
  const path = (() => {
    try {
      return new URL(text(item.url)).pathname;
    } catch {
      return '';
    }
  })();
  // docs/api.md, attachment rule 2: an image shows when its name has the extension or its type is given.
  const isImage = type.toLowerCase().startsWith('image/') || IMAGE_NAME.test(name);
  const label = name || path.split('/').pop() || 'file';
  if (isImage && safeUrl(item.url) !== null) {
    return h(
      'figure',
      { className: 'attachment attachment-image' },
      externalLink(item.url, image(item.url, name || 'image attachment', 'attachment-preview')),
      h('figcaption', {}, label, type ? h('span', { className: 'muted' }, ` \u00b7 ${type}`) : null),
    );
  }
  return h(
    'p',
    { className: 'attachment attachment-file' },
    h('span', { 'aria-hidden': 'true' }, '\u{1F4CE} '),
    externalLink(item.url, label),
    h('span', { className: 'muted' }, ` \u00b7 ${type || 'no type given'}`),
  );
}

/**
 * @param {Body} body
 * @param {boolean} enabled
 * @param {RenderContext['actions']} actions
 */
function quickReplies(body, enabled, actions) {
  const replies = list(body.quickReplies).filter(isObject);
  if (replies.length === 0) return null;
  return h(
    'div',
    { className: 'quick-replies', role: 'group', 'aria-label': 'Quick replies' },
    replies.map((reply) => {
      const contact = reply.type === 'CONTACT';
      const label = text(reply.text);
      return h(
        'button',
        {
          type: 'button',
          className: contact ? 'quick-reply contact' : 'quick-reply',
          disabled: !enabled,
          title: enabled
            ? contact
              ? 'asks for the customer\u2019s contact details'
              : ''
            : 'only the buttons of the bot\u2019s last message can be pressed',
          dataset: { press: label },
          on: { click: () => actions.press(label) },
        },
        reply.imageUrl ? image(reply.imageUrl, '', 'quick-reply-icon') : null,
        contact ? h('span', { className: 'badge' }, 'contact') : null,
        label,
      );
    }),
  );
}

let pickerCount = 0;

/**
 * @param {Body} body
 * @param {string} channel
 * @param {boolean} enabled
 * @param {RenderContext['actions']} actions
 */
function listPicker(body, channel, enabled, actions) {
  const picker = isObject(body.messageListPicker) ? body.messageListPicker : null;
  if (picker === null) return null;
  const shown = channel === 'IM';
  const id = `list-${(pickerCount += 1)}`;
  const title = text(picker.title) || 'Choose';
  const sections = list(picker.sections).filter(isObject);
  const panel = h(
    'div',
    { className: 'list-panel', id, hidden: true, role: 'group', 'aria-label': title },
    sections.map((section) =>
      h(
        'div',
        { className: 'list-section' },
        section.title ? h('p', { className: 'list-section-title' }, text(section.title)) : null,
        h(
          'ul',
          {},
          list(section.items)
            .filter(isObject)
            .map((item) =>
              h(
                'li',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    className: 'list-item',
                    disabled: !(enabled && shown),
                    dataset: { pick: text(item.identifier) },
                    on: { click: () => actions.pick(text(item.identifier)) },
                  },
                  h('span', { className: 'list-item-title' }, text(item.title)),
                  item.subTitle ? h('span', { className: 'list-item-subtitle' }, text(item.subTitle)) : null,
                ),
              ),
            ),
        ),
      ),
    ),
  );
  const toggle = h(
    'button',
    {
      type: 'button',
      className: 'list-open',
      'aria-expanded': 'false',
      'aria-controls': id,
      on: {
        click: () => {
          const open = panel.hidden;
          panel.hidden = !open;
          toggle.setAttribute('aria-expanded', String(open));
          if (open) /** @type {HTMLElement | null} */ (panel.querySelector('button:not([disabled])'))?.focus();
        },
      },
    },
    h('span', { 'aria-hidden': 'true' }, '\u2630 '),
    title,
  );
  panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    panel.hidden = true;
    toggle.setAttribute('aria-expanded', 'false');
    toggle.focus();
  });
  const element = h(
    'div',
    { className: 'list-picker' },
    isObject(picker.header) && picker.header.text ? h('p', { className: 'list-header' }, text(picker.header.text)) : null,
    toggle,
    panel,
    isObject(picker.footer) && picker.footer.text ? h('p', { className: 'list-footer' }, text(picker.footer.text)) : null,
  );
  return notShown(shown, channel, 'the list is shown', element);
}

/** @param {EventOf<'bot.answer' | 'greeting'>} event */
function requestDetails(event) {
  const path = event.type === 'greeting' ? '/api/v1/chatbot/greet' : '/api/v1/chatbot';
  return h(
    'details',
    { className: 'request' },
    h('summary', {}, `POST ${path} \u2192 ${event.status}`),
    h(
      'dl',
      {},
      h('dt', {}, 'requestId'),
      h('dd', {}, show(event.requestId)),
      event.type === 'bot.answer' ? [h('dt', {}, 'answerId'), h('dd', {}, show(event.answerId))] : null,
      h('dt', {}, 'addressed by'),
      h('dd', {}, list(event.addressedBy).join(', ') || '\u2014'),
    ),
    h('pre', { className: 'json' }, stringifyJson(event.body, 2)),
  );
}

/**
 * A bot answer or greeting as a bubble. `ctx`: the conversation's channel, the seq of the bot's
 * last delivered message (only its buttons can be pressed), and the actions.
 *
 * @param {EventOf<'bot.answer' | 'greeting'>} event
 * @param {RenderContext} ctx
 */
export function botBubble(event, ctx) {
  const body = isObject(event.body) ? event.body : {};
  const channel = ctx.channel;
  const last = event.delivered && event.seq === ctx.lastBotSeq;
  const { header, footer } = headerFooter(body, channel);
  const code = text(body.code);
  const warnings = list(event.warnings);
  const title =
    event.type === 'greeting' ? 'Greeting' : event.questionIndex !== null ? `Answer to question ${event.questionIndex}` : 'Answer';
  const html = event.type === 'bot.answer' ? event.formattedHtml : null;
  const content = html
    ? h('div', { className: 'message-text markdown' }, markdownFragment(html))
    : text(body.text)
      ? h('div', { className: 'message-text' }, text(body.text))
      : null;
  const blocked = isObject(body.settings) && body.settings.blockInput === true && list(body.quickReplies).length > 0;
  const mistake = mistakeOf(event, ctx.resent);
  return h(
    'li',
    {
      className: `bubble bot${event.delivered ? '' : ' undelivered'}${mistake === null ? '' : ' mistake'}`,
      dataset: { seq: String(event.seq), kind: event.type },
    },
    h(
      'p',
      { className: 'meta' },
      h('span', { className: 'who' }, 'Bot'),
      ` \u00b7 ${title}`,
      code ? h('span', { className: `badge code code-${code.toLowerCase()}` }, code) : null,
      mistake !== null
        ? h('span', { className: 'badge mistake' }, 'answered twice')
        : event.questionAlreadyAnswered && event.delivered
          ? h('span', { className: 'badge' }, 'second answer')
          : null,
    ),
    mistake === null ? null : h('p', { className: 'mistake-note', role: 'note' }, h('strong', {}, 'Mistake of the bot: '), mistake),
    event.delivered
      ? null
      : h(
          'p',
          { className: 'not-delivered', role: 'note' },
          h('strong', {}, `Not delivered: ${show(event.notDelivered)}`),
          event.error ? ` \u2014 ${event.error}` : '',
        ),
    warnings.length > 0
      ? h(
          'ul',
          { className: 'warnings', 'aria-label': 'Rules this message broke' },
          warnings.map((w) => h('li', {}, h('span', { 'aria-hidden': 'true' }, '\u26a0 '), w.path ? `${w.path}: ` : '', text(w.message))),
        )
      : null,
    h(
      'div',
      { className: 'message' },
      header,
      content,
      list(body.attachments).filter(isObject).map(attachment),
      footer,
      listPicker(body, channel, last, ctx.actions),
      quickReplies(body, last, ctx.actions),
      blocked ? h('p', { className: 'muted small' }, 'The input field is blocked until a button is pressed (settings.blockInput).') : null,
    ),
    requestDetails(event),
  );
}

/**
 * A customer message as a bubble, with its exchange under it.
 *
 * @param {EventOf<'customer.message'>} event
 * @param {Exchange} exchange
 * @param {RenderContext} ctx
 */
export function customerBubble(event, exchange, ctx) {
  const chosen = isObject(event.quickReply)
    ? `pressed \u201c${text(event.quickReply.text)}\u201d`
    : isObject(event.listItem)
      ? `picked \u201c${text(event.listItem.title)}\u201d (${text(event.listItem.identifier)})`
      : null;
  return h(
    'li',
    { className: 'turn customer-turn', dataset: { seq: String(event.seq), kind: event.type, question: String(event.questionId) } },
    h(
      'div',
      { className: 'bubble customer' },
      h(
        'p',
        { className: 'meta' },
        h('span', { className: 'who' }, 'Customer'),
        ` \u00b7 question ${event.questionIndex} \u00b7 questionId ${event.questionId} \u00b7 ${event.questionType}`,
      ),
      chosen ? h('p', { className: 'chosen' }, chosen) : null,
      h('div', { className: 'message-text' }, text(event.text)),
    ),
    exchangePanel(event, exchange, ctx),
  );
}

/**
 * What the sandbox crafted on purpose in an exchange's attempts (POST /_sandbox/probes), each craft once, in order.
 *
 * @param {Exchange | undefined} exchange
 */
function craftedOf(exchange) {
  /** @type {Map<string, string>} */
  const crafts = new Map();
  for (const attempt of exchange?.attempts ?? []) {
    const crafted = craftOf(attempt);
    if (crafted !== null && !crafts.has(crafted.craft)) crafts.set(crafted.craft, crafted.what);
  }
  return [...crafts].map(([craft, what]) => ({ craft, what }));
}

/** @param {EventOf<'webhook.attempt'>} attempt */
function attemptRow(attempt) {
  const crafted = craftOf(attempt);
  const forgery = acceptedForgery(attempt);
  const outcome =
    attempt.outcome === 'retrying'
      ? `retrying in ${attempt.retryInMs} ms${attempt.retryAfter ? ' (Retry-After)' : ''}`
      : String(attempt.outcome);
  return h(
    'tr',
    { className: `attempt outcome-${attempt.outcome}${crafted === null ? '' : ' crafted'}${forgery === null ? '' : ' mistake'}` },
    h(
      'td',
      {},
      attempt.redelivery > 0 ? `redelivery ${attempt.redelivery}, attempt ${attempt.attempt}` : `attempt ${attempt.attempt}`,
      crafted === null ? null : h('span', { className: 'craft' }, ` \u00b7 crafted (${crafted.craft}): ${crafted.what}`),
    ),
    h('td', {}, attempt.status === null ? text(attempt.error) || 'no answer' : String(attempt.status)),
    h('td', {}, `${attempt.latencyMs} ms`),
    h('td', {}, outcome),
    h(
      'td',
      {},
      attempt.body
        ? h('pre', { className: 'body' }, text(attempt.body), attempt.bodyTruncated ? ' \u2026 (cut at 2 KB)' : '')
        : h('span', { className: 'muted' }, 'empty'),
    ),
  );
}

/**
 * What a refusal tied by time says in its exchange: it named no conversation, and came while this
 * exchange's delivery was the only one in flight.
 *
 * @param {RequestEvent} event
 */
function duringNote(event) {
  return deliveryTie(event) === null
    ? null
    : h(
        'span',
        {
          className: 'during',
          title: 'the request named no conversation; it came while this exchange\u2019s webhook was the only one in flight',
        },
        ' \u00b7 refused during this delivery',
      );
}

/** @param {RequestEvent} event */
function requestLine(event) {
  if (event.type === 'api.request') {
    return h(
      'li',
      { className: 'api-request refused' },
      `${event.method} ${event.path} \u2192 ${event.status}`,
      event.error ? ` \u00b7 ${event.error}` : '',
      duringNote(event),
    );
  }
  const path = event.type === 'greeting' ? '/api/v1/chatbot/greet' : '/api/v1/chatbot';
  return h(
    'li',
    { className: `api-request${event.delivered ? '' : ' refused'}` },
    `POST ${path} \u2192 ${event.status} \u00b7 ${event.delivered ? 'delivered' : `not delivered: ${show(event.notDelivered)}`}`,
    event.answerId ? ` \u00b7 answerId ${event.answerId}` : '',
    list(event.addressedBy).length > 0 ? ` \u00b7 by ${list(event.addressedBy).join(', ')}` : '',
    event.delivered ? null : duringNote(event),
  );
}

/**
 * The method and path of a refused request: an api.request names them, an answer or greeting has its own.
 *
 * @param {RequestEvent} event
 */
function requestOf(event) {
  if (event.type === 'api.request') return `${text(event.method)} ${text(event.path)}`;
  return event.type === 'greeting' ? 'POST /api/v1/chatbot/greet' : 'POST /api/v1/chatbot';
}

/**
 * Who sent a request, from the User-Agent the sandbox kept with its event: core's own commands are
 * named as such (a `core reply` typed in a shell is not the bot), anything else by what it says it
 * is; '' when the request had none.
 *
 * @param {RequestEvent} event
 */
export function requester(event) {
  const agent = text(event.userAgent);
  if (agent === '') return '';
  const core = /^core-cli\/(\S+)/.exec(agent);
  if (core) return `sent by core ${core[1]} (a core command, such as core reply)`;
  return `sent by ${agent.length > 80 ? `${agent.slice(0, 79)}\u2026` : agent}`;
}

/**
 * One refused request tied to no conversation, for the strip at the top: status, request, message,
 * where, who sent it, and links to the conversations it may belong to (`candidates`: those whose
 * deliveries were in flight when it came, else the latest active one before it).
 *
 * @param {RequestEvent} event
 * @param {boolean} showTenant
 * @param {string[]} candidates
 * @param {(sessionId: string) => void} open
 */
export function refusalItem(event, showTenant, candidates, open) {
  const inFlight = list(event.during).length > 0;
  const sandboxWide = event.tenant === '' || (event.type === 'api.request' && event.scope === 'sandbox');
  const where = sandboxWide ? 'sandbox-wide' : showTenant ? `tenant ${text(event.tenant)}` : '';
  const message = text(event.error) || (event.type === 'api.request' ? '' : text(event.notDelivered));
  const sender = requester(event);
  return h(
    'li',
    { className: 'refusal', dataset: { seq: String(event.seq) } },
    h('span', { className: 'refusal-status' }, String(event.status)),
    ` ${requestOf(event)}`,
    message ? ` \u00b7 ${message}` : '',
    where ? ` \u00b7 ${where}` : '',
    sender ? [' \u00b7 ', h('span', { className: 'refusal-requester' }, sender)] : '',
    h('span', { className: 'muted' }, ` \u00b7 ${text(event.time).slice(11, 23)}`),
    candidates.length === 0
      ? null
      : h(
          'span',
          {
            className: 'refusal-candidates',
            title: inFlight
              ? 'the deliveries that were in flight when it came'
              : 'no delivery was in flight when it came: the latest conversation of its tenant started before it',
          },
          inFlight ? ' \u00b7 during the deliveries of ' : ' \u00b7 may belong to ',
          candidates.map((sessionId, i) => [
            i > 0 ? ', ' : '',
            h(
              'a',
              {
                href: `?session=${encodeURIComponent(sessionId)}`,
                dataset: { session: sessionId },
                on: {
                  click: (/** @type {MouseEvent} */ click) => {
                    if (click.ctrlKey || click.metaKey || click.shiftKey || click.button !== 0) return;
                    click.preventDefault();
                    open(sessionId);
                  },
                },
              },
              sessionId,
            ),
          ]),
        ),
  );
}

/**
 * What the exchange's summary line says about the webhook.
 *
 * @param {EventOf<'customer.message'>} message
 * @param {EventOf<'webhook.attempt'>[]} attempts
 */
function webhookSummary(message, attempts) {
  if (message.deliveryId === null) return `No webhook: ${show(message.noWebhook)}`;
  const latest = attempts.at(-1);
  if (latest === undefined) return 'Webhook: sending';
  const status = latest.status === null ? text(latest.error) || 'no answer' : String(latest.status);
  if (latest.outcome === 'delivered') return `Webhook: delivered, ${status} in ${latest.latencyMs} ms`;
  if (latest.outcome === 'retrying') return `Webhook: ${status}, retrying`;
  return `Webhook: failed, ${status}`;
}

/**
 * The exchange under a customer message: the webhook attempts, redeliver, and the bot's API requests.
 *
 * @param {EventOf<'customer.message'>} message
 * @param {Exchange | undefined} exchange
 * @param {RenderContext} ctx
 */
export function exchangePanel(message, exchange, ctx) {
  const attempts = exchange?.attempts ?? [];
  const requests = exchange?.requests ?? [];
  const answers = requests.filter((r) => r.type !== 'api.request').length;
  const refused = requests.filter(isRefusal).length;
  const crafted = craftedOf(exchange);
  // The bot's mistakes the sandbox let through: a forged delivery accepted, a replay answered twice (one
  // the sandbox refused is counted as a refusal, as the badge does; its bubble says what it was).
  const mistakes = [...attempts, ...requests].flatMap((event) => {
    const mistake = isRefusal(event) ? null : mistakeOf(event, ctx.resent);
    return mistake === null ? [] : [mistake];
  });
  const latest = attempts.at(-1);
  const canRedeliver = message.deliveryId !== null && ctx.botConnected && latest !== undefined && latest.outcome !== 'retrying';
  const key = `${message.sessionId} ${message.questionId}`;
  const details = h(
    'details',
    {
      className: `exchange${refused > 0 ? ' has-refusal' : ''}${mistakes.length > 0 ? ' has-mistake' : ''}${crafted.length > 0 ? ' crafted' : ''}`,
      open: ctx.openExchanges.has(key),
      dataset: { exchange: key },
    },
    h(
      'summary',
      {},
      mistakes.length > 0 ? `\u2717 ${mistakes.length === 1 ? '1 mistake' : `${mistakes.length} mistakes`} of the bot \u00b7 ` : '',
      refused > 0 ? `\u2717 ${refused === 1 ? '1 request refused' : `${refused} requests refused`} \u00b7 ` : '',
      crafted.length > 0 ? `Crafted delivery: ${crafted.map((each) => each.what).join('; ')} \u00b7 ` : '',
      webhookSummary(message, attempts),
      ` \u00b7 ${answers === 1 ? '1 bot request' : `${answers} bot requests`}`,
      requests.length > answers ? ` \u00b7 ${requests.length - answers} refused before an answer` : '',
    ),
    mistakes.length === 0
      ? null
      : h(
          'ul',
          { className: 'mistakes', 'aria-label': 'Mistakes of the bot' },
          mistakes.map((mistake) => h('li', {}, h('strong', {}, 'Mistake of the bot: '), mistake)),
        ),
    crafted.length === 0
      ? null
      : h(
          'p',
          { className: 'crafted-note' },
          'The sandbox crafted this delivery on purpose (POST /_sandbox/probes, as core check-bot does): ',
          crafted.map((each, i) => [i > 0 ? '; ' : '', h('strong', {}, each.craft), `: ${each.what}`]),
          '.',
        ),
    message.deliveryId === null
      ? null
      : h(
          'div',
          { className: 'delivery' },
          h(
            'p',
            {},
            `MESSAGE webhook ${message.deliveryId}`,
            latest ? ` to ${text(latest.url)}` : '',
            ' ',
            h(
              'button',
              {
                type: 'button',
                className: 'redeliver',
                disabled: !canRedeliver,
                title: canRedeliver ? 'send the same webhook again (same webhook-id)' : 'available once the attempts have ended',
                on: { click: () => ctx.actions.redeliver(String(message.deliveryId)) },
              },
              'Redeliver',
            ),
          ),
          attempts.length === 0
            ? h('p', { className: 'muted' }, 'No attempt recorded yet.')
            : h(
                'table',
                { className: 'attempts' },
                h('caption', { className: 'visually-hidden' }, 'Webhook attempts'),
                h(
                  'thead',
                  {},
                  h(
                    'tr',
                    {},
                    ['Attempt', 'Status', 'Latency', 'Outcome', 'Bot\u2019s answer'].map((name) => h('th', { scope: 'col' }, name)),
                  ),
                ),
                h('tbody', {}, attempts.map(attemptRow)),
              ),
        ),
    h('p', { className: 'requests-title' }, 'The bot\u2019s API requests'),
    requests.length === 0 ? h('p', { className: 'muted' }, 'None yet.') : h('ul', { className: 'requests' }, requests.map(requestLine)),
  );
  details.addEventListener('toggle', () => {
    if (details.open) ctx.openExchanges.add(key);
    else ctx.openExchanges.delete(key);
  });
  return details;
}

/** @param {EventOf<'handover'>} event */
const targets = (event) =>
  [
    ['users', event.userIds],
    ['skills', event.skillIds],
    ['units', event.unitIds],
  ]
    .filter(([, ids]) => list(ids).length > 0)
    .map(([name, ids]) => `${name} ${list(ids).join(', ')}`)
    .join(' \u00b7 ') || 'any agent';

/**
 * A line in the conversation: started, handed over, given back, a refused API request.
 *
 * @param {PageEvent} event
 */
export function systemLine(event) {
  let content;
  switch (event.type) {
    case 'conversation.started':
      content = `Conversation started on ${event.channel} (${channelName(event.channel)}) by ${event.by === 'customer' ? 'the customer' : `a bot ${event.by}`} \u00b7 coreClientId ${event.coreClientId}${event.clientId !== null ? ` \u00b7 clientId ${event.clientId}` : ''}`;
      break;
    case 'handover':
      content =
        event.scope === 'thread'
          ? `Handed over to agents (${event.code}) \u00b7 ${targets(event)}`
          : `Question ${show(event.questionIndex)} passed to agents (${event.code}) \u00b7 ${targets(event)}`;
      break;
    case 'handover.routed':
      content = `${event.scope === 'thread' ? 'Thread' : 'Question'} with agent ${show(event.agentId)} (${event.agentName})${event.fromQueue ? ' from the queue' : ''} \u00b7 ${event.matched.length > 0 ? `matched by ${event.matched.join(' and ')}` : 'no targets: any agent'} \u00b7 rule: each target list given narrows (any one of a list, all lists), then the least busy online agent under capacity`;
      break;
    case 'handover.queued':
      content = `${event.scope === 'thread' ? 'Thread' : 'Question'} queued: ${event.why} \u00b7 rule: each target list given narrows (any one of a list, all lists), then the least busy online agent under capacity`;
      break;
    case 'agent.message':
      content = `Agent ${event.agentName} (${show(event.agentId)}): ${event.text}`;
      break;
    case 'released':
      content = `Given back to the bot${event.questions > 0 ? ` with ${event.questions} question${event.questions === 1 ? '' : 's'}` : ''}`;
      break;
    case 'api.request':
      content = `API request refused: ${event.method} ${event.path} \u2192 ${event.status}${event.error ? ` \u00b7 ${event.error}` : ''}`;
      break;
    case 'bridge.forward':
      content =
        `Sent on to the platform${event.forcedInvalid ? ` although refused here (${event.localStatus}, --forward-invalid)` : ''}: ` +
        `${event.method} ${event.path} \u2192 ${event.status === null ? `not reached (${event.error ?? 'no answer'})` : event.status}` +
        `${event.body ? ` \u00b7 ${event.body}` : ''}`;
      break;
    case 'probe.check':
      content = `core check-bot: this conversation plays the check ${event.check}${event.verdict === null ? '' : ` \u00b7 ${event.verdict}${event.message ? `: ${event.message}` : ''}`}`;
      break;
    case 'bridge.webhook':
      content = `A platform delivery passed on as it came (signature ${event.signature}): ${event.problem} \u00b7 the bot answered ${event.botStatus ?? event.error ?? 'nothing'}`;
      break;
    default:
      return null;
  }
  return h(
    'li',
    { className: `system system-${event.type.replace('.', '-')}`, dataset: { seq: String(event.seq), kind: event.type } },
    content,
  );
}

/**
 * The inactivity reasons of one tenant as a table.
 *
 * @param {string} tenant
 * @param {import('../model.js').PageReasonRecord[]} reasons
 * @param {boolean} showTenant
 */
export function reasonsTable(tenant, reasons, showTenant) {
  return h(
    'table',
    { className: 'reasons' },
    h(
      'caption',
      { className: showTenant ? '' : 'visually-hidden' },
      showTenant ? `Tenant ${tenant}` : `Inactivity reasons of tenant ${tenant}`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Colour', 'Code', 'Names', 'Active'].map((name) => h('th', { scope: 'col' }, name)),
      ),
    ),
    h(
      'tbody',
      {},
      reasons.map((record) => {
        /** @type {Body} */
        const reason = isObject(record.reason) ? record.reason : {};
        const color = typeof reason.color === 'string' && /^#[0-9a-f]{6}$/i.test(reason.color) ? reason.color : null;
        const swatch = h('span', { className: 'swatch', 'aria-hidden': 'true' });
        if (color) swatch.style.backgroundColor = color;
        return h(
          'tr',
          { dataset: { code: text(record.code) }, className: reason.active === false ? 'inactive' : '' },
          h('td', {}, swatch, ' ', color ?? 'none'),
          h('td', {}, text(record.code)),
          h(
            'td',
            {},
            list(reason.reasons).map((t, i) => [
              i > 0 ? ', ' : '',
              h('span', { lang: text(t.locale) }, `${text(t.locale)}: ${text(t.name)}`),
            ]),
          ),
          h('td', {}, reason.active === false ? 'no' : 'yes'),
        );
      }),
    ),
  );
}
