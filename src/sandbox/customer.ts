import type { Problem } from '../errors.js';
import { channelOf, notAChannel } from '../payload/channels.js';
import type { Channel } from './events.js';
import { count, invalid, readJsonObject, readPaging, type Answer, type Exchange, type Handler } from './exchange.js';
import { maxCustomerText, type LastBotMessage, type SandboxState, type Thread } from './state.js';
import type { WebhookSender } from './webhook.js';

/**
 * The customer's side over HTTP (docs/sandbox.md, "The customer's side"): start a conversation,
 * write, press a button or pick a list item (each a question, and a MESSAGE webhook when a bot is
 * connected), read conversations and their events, give a thread back to the bot, redeliver a
 * webhook. The server has already checked the Host and, for requests that change state, the
 * Content-Type.
 */

export interface CustomerDeps {
  state: SandboxState;
  /** null without --bot-url. */
  sender: WebhookSender | null;
  /** The tenant a conversation starts in when the request names none. */
  defaultTenant: string;
  /** "Save as test" replaces personal data in the saved texts unless asked to keep it (SandboxOptions.maskPersonalData). */
  maskPersonalData?: boolean;
}

const LONG_MAX = 9_223_372_036_854_775_807n;

const unknownTenant = (state: SandboxState, tenant: string): Answer => ({
  status: 404,
  error: `no tenant '${tenant}' (tenants: ${state.tenantNames.join(', ')})`,
  what: 'unknown tenant',
});

const unknownSession = (sessionId: string): Answer => ({
  status: 404,
  error: `no conversation with sessionId '${sessionId}' (it may be older than the events the sandbox keeps, or the sandbox was reset)`,
  what: 'unknown conversation',
});

/** Refuses fields a request does not take, naming them. */
function unknownFields(body: Record<string, unknown>, allowed: readonly string[]): Problem[] {
  return Object.keys(body)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ path: key, message: `unknown field; this request takes ${allowed.join(', ')}` }));
}

const withThread =
  (state: SandboxState, run: (ex: Exchange, thread: Thread) => Answer | Promise<Answer>): Handler =>
  (ex) => {
    const sessionId = ex.params[0] ?? '';
    const thread = state.thread(sessionId);
    if (thread === undefined) return unknownSession(sessionId);
    return run(ex, thread);
  };

interface StartFields {
  tenant: unknown;
  channel: Channel | undefined;
  clientId: unknown;
  coreClientId: unknown;
}

/** The fields of a conversation to start, and every problem with them. */
function startFields(body: Record<string, unknown>, defaultTenant: string): { fields: StartFields; problems: Problem[] } {
  const problems = unknownFields(body, ['tenant', 'channel', 'clientId', 'coreClientId']);
  const tenant = body.tenant ?? defaultTenant;
  if (typeof tenant !== 'string' || tenant === '')
    problems.push({ path: 'tenant', message: 'must be the name of a tenant the sandbox serves' });
  // A channel's name in any case (docs/sandbox.md, "The customer's side"): "im" is IM.
  const channelName = body.channel ?? 'WEB';
  const channel = channelOf(channelName);
  if (channel === undefined) problems.push({ path: 'channel', message: notAChannel(channelName) });
  const clientId = body.clientId;
  if (clientId !== undefined && (typeof clientId !== 'string' || clientId === '')) {
    problems.push({ path: 'clientId', message: 'must be a non-empty string (the external client ID of an authorized client)' });
  }
  const coreClientId = body.coreClientId;
  if (coreClientId !== undefined && (typeof coreClientId !== 'bigint' || coreClientId < 0n || coreClientId > LONG_MAX)) {
    problems.push({ path: 'coreClientId', message: 'must be an integer from 0 to 9223372036854775807' });
  }
  return { fields: { tenant, channel, clientId, coreClientId }, problems };
}

/** POST /_sandbox/conversations */
async function start(deps: CustomerDeps, ex: Exchange): Promise<Answer> {
  const read = await readJsonObject(ex);
  if (!read.ok) return read.answer;
  return startWith(deps, read.value);
}

/** POST /_sandbox/conversations, once its body is read. */
function startWith(deps: CustomerDeps, body: Record<string, unknown>): Answer {
  const { state } = deps;
  const { fields, problems } = startFields(body, deps.defaultTenant);
  const { tenant, channel, clientId, coreClientId } = fields;
  if (problems.length > 0) return invalid(problems);
  if (!state.hasTenant(tenant as string)) return unknownTenant(state, tenant as string);
  const started = state.startConversation(tenant as string, {
    channel: channel as Channel,
    coreClientId: coreClientId as bigint | undefined,
    clientId: clientId as string | undefined,
  });
  if (!started.ok) return { status: started.status, error: started.message, what: `refused: ${started.message}` };
  const { thread } = started;
  return {
    status: 201,
    tenant: thread.tenant,
    json: {
      tenant: thread.tenant,
      sessionId: thread.sessionId,
      coreClientId: thread.client.coreClientId,
      clientId: thread.client.clientId,
      channel: thread.channel,
    },
    what: `conversation ${thread.sessionId} started (${thread.channel}, coreClientId ${thread.client.coreClientId})`,
  };
}

/** Every problem with the body of a customer message: one of text, press or pick, a non-empty string. */
function messageProblems(body: Record<string, unknown>): Problem[] {
  const problems = unknownFields(body, ['text', 'press', 'pick']);
  const given = (['text', 'press', 'pick'] as const).filter((key) => body[key] !== undefined);
  if (given.length !== 1) {
    problems.push({ path: '', message: `send one of text, press or pick${given.length > 1 ? `, not ${given.join(' and ')}` : ''}` });
  }
  for (const key of given) {
    if (typeof body[key] !== 'string' || body[key] === '') problems.push({ path: key, message: 'must be a non-empty string' });
  }
  if (typeof body.text === 'string' && body.text.length > maxCustomerText) {
    problems.push({ path: 'text', message: `${body.text.length} characters, limit ${maxCustomerText} (a sandbox limit)` });
  }
  return problems;
}

/** POST /_sandbox/conversations/{sessionId}/messages */
async function message(deps: CustomerDeps, ex: Exchange, thread: Thread): Promise<Answer> {
  const read = await readJsonObject(ex);
  if (!read.ok) return read.answer;
  return messageWith(deps, thread, read.value);
}

/** POST /_sandbox/conversations/{sessionId}/messages, once its body is read. */
function messageWith(deps: CustomerDeps, thread: Thread, body: Record<string, unknown>): Answer {
  const problems = messageProblems(body);
  if (problems.length > 0) return invalid(problems);

  let text: string;
  let quickReply: Record<string, unknown> | null = null;
  let listItem: { identifier: string; title: string } | null = null;
  if (typeof body.text === 'string') text = body.text;
  else {
    const chosen = choose(thread, body.press as string | undefined, body.pick as string | undefined);
    if (!chosen.ok) return { status: 400, error: chosen.message, what: `refused: ${chosen.message}`, tenant: thread.tenant };
    ({ text, quickReply, listItem } = chosen);
  }
  const { event, delivery } = deps.state.customerMessage(thread, { text, quickReply, listItem });
  if (delivery && deps.sender) deps.sender.deliver(delivery);
  return {
    status: 201,
    tenant: thread.tenant,
    json: {
      tenant: thread.tenant,
      sessionId: thread.sessionId,
      seq: event.seq,
      questionId: event.questionId,
      questionIndex: event.questionIndex,
      type: event.questionType,
      deliveryId: event.deliveryId,
      noWebhook: event.noWebhook,
    },
    what:
      `question ${event.questionIndex} (questionId ${event.questionId}, ${event.questionType}) in ${thread.sessionId}` +
      (event.deliveryId ? `: webhook ${event.deliveryId}` : `: no webhook, ${event.noWebhook}`),
  };
}

/** GET /_sandbox/conversations */
function list(state: SandboxState, ex: Exchange): Answer {
  const tenant = ex.query.get('tenant') ?? undefined;
  if (tenant !== undefined && !state.hasTenant(tenant)) return unknownTenant(state, tenant);
  const paged = readPaging(ex.query);
  if (!paged.ok) return paged.answer;
  const result = state.conversationPage(tenant, paged.after, paged.limit);
  return {
    status: 200,
    json: { conversations: result.items, next: result.next },
    what: `listed ${count(result.items.length, 'conversation')}`,
  };
}

/** GET /_sandbox/conversations/{sessionId} */
function show(state: SandboxState, ex: Exchange, thread: Thread): Answer {
  const paged = readPaging(ex.query);
  if (!paged.ok) return paged.answer;
  const result = state.threadEventPage(thread, paged.after, paged.limit);
  return {
    status: 200,
    tenant: thread.tenant,
    json: { conversation: state.view(thread), events: result.items, next: result.next },
    what: `conversation ${thread.sessionId}: ${count(result.items.length, 'event')}`,
  };
}

/** POST /_sandbox/conversations/{sessionId}/release */
async function release(state: SandboxState, ex: Exchange, thread: Thread): Promise<Answer> {
  const read = await readJsonObject(ex);
  if (!read.ok) return read.answer;
  const released = state.release(thread);
  return {
    status: 200,
    tenant: thread.tenant,
    json: { released: released !== null, conversation: state.view(thread) },
    what: released ? `conversation ${thread.sessionId} given back to the bot` : `conversation ${thread.sessionId} was already with the bot`,
  };
}

/**
 * GET /_sandbox/conversations/{sessionId}/test: the conversation as a `core test` file that passes
 * again against the same bot (src/testing/record.ts), as a YAML download: the page's "save as test".
 */
async function test(deps: CustomerDeps, ex: Exchange, thread: Thread): Promise<Answer> {
  const { state } = deps;
  const personalData = ex.query.get('personal-data');
  if (personalData !== null && personalData !== 'keep' && personalData !== 'mask') {
    return invalid([{ path: 'personal-data', message: 'must be keep or mask' }]);
  }
  const loose = ex.query.get('loose');
  if (loose !== null && loose !== 'true' && loose !== 'false') return invalid([{ path: 'loose', message: 'must be true or false' }]);
  const { recordConversation, recordedYaml } = await import('../testing/record.js');
  const recorded = recordConversation(
    { sessionId: thread.sessionId, channel: thread.channel, clientId: thread.client.clientId },
    state.events({ sessionId: thread.sessionId }),
    { loose: loose === 'true', maskPersonalData: personalData === null ? deps.maskPersonalData === true : personalData === 'mask' },
  );
  const text = await recordedYaml(
    recorded,
    `Saved from the sandbox conversation ${thread.sessionId} (tenant ${thread.tenant}) on ${new Date().toISOString()}`,
  );
  return {
    status: 200,
    tenant: thread.tenant,
    raw: { contentType: 'application/yaml; charset=utf-8', text },
    headers: { 'Content-Disposition': `attachment; filename="${recorded.filename}"` },
    what: `conversation ${thread.sessionId} saved as a test (${recorded.filename})`,
  };
}

/** POST /_sandbox/deliveries/{deliveryId}/redeliver */
async function redeliver(deps: CustomerDeps, ex: Exchange): Promise<Answer> {
  const read = await readJsonObject(ex);
  if (!read.ok) return read.answer;
  const deliveryId = ex.params[0] ?? '';
  const { sender } = deps;
  // Without a bot no delivery is ever made: every deliveryId is unknown.
  if (sender === null) return { status: 404, error: `no delivery '${deliveryId}' (no bot is connected)`, what: 'unknown delivery' };
  const sent = deps.state.redeliver(deliveryId);
  if (!sent.ok) {
    return {
      status: sent.status,
      ...(sent.tenant === undefined ? {} : { tenant: sent.tenant }),
      error: sent.error,
      what: sent.status === 404 ? 'unknown delivery' : 'delivery in flight',
    };
  }
  sender.deliver(sent.delivery);
  const { redelivery } = sent.event;
  return {
    status: 202,
    tenant: sent.delivery.tenant,
    json: { deliveryId, redelivery },
    what: `redelivery ${redelivery} of ${deliveryId}`,
  };
}

export function customerHandlers(
  deps: CustomerDeps,
): Record<'start' | 'message' | 'list' | 'show' | 'release' | 'test' | 'redeliver', Handler> {
  const { state } = deps;
  return {
    start: (ex) => start(deps, ex),
    message: withThread(state, (ex, thread) => message(deps, ex, thread)),
    list: (ex) => list(state, ex),
    show: withThread(state, (ex, thread) => show(state, ex, thread)),
    release: withThread(state, (ex, thread) => release(state, ex, thread)),
    test: withThread(state, (ex, thread) => test(deps, ex, thread)),
    redeliver: (ex) => redeliver(deps, ex),
  };
}

type Chosen =
  | { ok: true; text: string; quickReply: Record<string, unknown> | null; listItem: { identifier: string; title: string } | null }
  | { ok: false; message: string };

/**
 * A pressed button or picked item of the bot's last message in the thread. A button sends its
 * shown_text (else its text) as the message (docs/api.md, quick-reply rule 3); an item sends its title.
 */
function choose(thread: Thread, press: string | undefined, pick: string | undefined): Chosen {
  const last = thread.lastBotMessage;
  if (last === null)
    return {
      ok: false,
      message: `the bot has sent no message in thread '${thread.sessionId}' yet: there is nothing to ${press !== undefined ? 'press' : 'pick'}`,
    };
  if (press !== undefined) {
    const button = last.quickReplies.find((q) => q.text === press);
    if (button === undefined) return { ok: false, message: `the bot's last message has no button '${press}'; ${offers(last, thread)}` };
    const shown = typeof button.shown_text === 'string' ? button.shown_text : undefined;
    return { ok: true, text: shown ?? String(button.text), quickReply: button, listItem: null };
  }
  const item = listItems(last).find((i) => i.identifier === pick);
  if (item === undefined) return { ok: false, message: `the bot's last message has no list item '${pick}'; ${offers(last, thread)}` };
  if (!last.listShown) {
    return {
      ok: false,
      message: `the bot's last message has a list, but lists are shown on IM threads only (docs/api.md, list rule 1) and this thread is ${thread.channel}`,
    };
  }
  return { ok: true, text: item.title, quickReply: null, listItem: item };
}

/** The items of a list picker, in order: identifier and title. */
export function listItems(last: LastBotMessage): { identifier: string; title: string }[] {
  const sections = Array.isArray(last.messageListPicker?.sections) ? (last.messageListPicker.sections as unknown[]) : [];
  const items: { identifier: string; title: string }[] = [];
  for (const section of sections) {
    const list = typeof section === 'object' && section !== null ? (section as { items?: unknown }).items : undefined;
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item !== 'object' || item === null) continue;
      const { identifier, title } = item as { identifier?: unknown; title?: unknown };
      if (typeof identifier === 'string') items.push({ identifier, title: typeof title === 'string' ? title : identifier });
    }
  }
  return items;
}

/** What the bot's last message offers, for the message of a 400. */
function offers(last: LastBotMessage, thread: Thread): string {
  const buttons = last.quickReplies.map((q) => `'${String(q.text)}'`);
  const items = listItems(last).map((i) => `'${i.identifier}' (${i.title})`);
  const parts: string[] = [];
  if (buttons.length > 0) parts.push(`buttons ${buttons.join(', ')}`);
  if (items.length > 0) parts.push(`list items ${items.join(', ')}${last.listShown ? '' : ` (not shown on a ${thread.channel} thread)`}`);
  return parts.length > 0 ? `it offers ${parts.join(' and ')}` : 'it offers no buttons and no list';
}

/** Starting a conversation and writing in it, from this process: see `directCustomer`. */
export interface DirectCustomer {
  start(body: Record<string, unknown>): Answer | Promise<Answer>;
  message(sessionId: string, body: Record<string, unknown>): Answer | Promise<Answer>;
}

/**
 * The same two requests for a client in this process (`core test` with the sandbox it starts): the
 * body as parsed JSON, the answer as the route gives it, without HTTP. Only the transport differs:
 * every rule, record and webhook is the route's own.
 */
export function directCustomer(deps: CustomerDeps): DirectCustomer {
  return {
    start: (body) => startWith(deps, body),
    message: (sessionId, body) => {
      const thread = deps.state.thread(sessionId);
      return thread === undefined ? unknownSession(sessionId) : messageWith(deps, thread, body);
    },
  };
}
