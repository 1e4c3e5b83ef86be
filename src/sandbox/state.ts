import type { Problem } from '../errors.js';
import type { Greeting, Reason, Reply } from '../payload/index.js';
import { flatten, stringifyJson } from '../payload/json.js';
import {
  notDeliveredReasons,
  page,
  type ApiRequestEvent,
  type BotAnswerEvent,
  type Channel,
  type CustomerMessageEvent,
  type GreetingEvent,
  type NewEvent,
  type Page,
  type ReleasedEvent,
  type SandboxEvent,
  type WebhookAttemptEvent,
} from './events.js';
import type { Listener } from './log.js';
import type { Client, ConversationView, Delivery, Question, ReasonRecord, ReplyFields, Thread } from './model.js';
import type { DuplicateMode } from './options.js';
import { replyAddressing } from './rules/addressing.js';
import { lastBotMessage, channelWarnings } from './rules/channel.js';
import { conversationClient } from './rules/conversation-client.js';
import { customerQuestion } from './rules/customer-message.js';
import { addressGreeting } from './rules/greeting-addressing.js';
import { handoverOf, releaseOf } from './rules/handover.js';
import { decideReasonUpdate } from './rules/reason-limits.js';
import { decideReply, type ReplyDecision } from './rules/reply.js';
import { namedIdentifiers, tiedSession } from './rules/tying.js';
import { recordGreeting, recordReply, type ReplyOutcome, type RequestMeta } from './answers.js';
import { DELIVERY_OVERHEAD, newDelivery } from './store/delivery.js';
import { Store } from './store/store.js';
import type { TenantStore } from './store/tenant.js';
import { conversationPage, conversationView, messagesOf, messagePageOf, type MessageRecord } from './reading.js';

/**
 * The sandbox's state, as the routes use it: each request is read by a rule (src/sandbox/rules/, pure
 * functions of the tenant's view and the request) and the outcome applied to the store
 * (src/sandbox/store/), which records it in the event log. docs/architecture.md, "The sandbox".
 */

export { notDeliveredReasons, type NotDelivered } from './events.js';
export type { SandboxEvent } from './events.js';
export type { Listener } from './log.js';
export { firstIds, maxCustomerText } from './model.js';
export type { ConversationView, Delivery, Handover, LastBotMessage, ReasonRecord, Thread } from './model.js';
export { channelWarnings } from './rules/channel.js';
export type { MessageRecord } from './reading.js';
export type { RequestMeta, ReplyOutcome } from './answers.js';

export type ReasonUpdate = { ok: true; record: ReasonRecord } | { ok: false; status: 404 | 409; message: string };

export interface SandboxStateConfig {
  tenants: readonly string[];
  seedReasons: readonly Reason[];
  duplicates: DuplicateMode;
  maxActiveReasons: number;
  maxEvents: number;
  maxEventBytes: number;
  /** Whether customer messages go to a bot (`--bot-url`): they then get a delivery. */
  botConnected: boolean;
}

/** A refused API request, as the server saw it; its body is read for the identifiers it names. */
export interface RefusedRequest {
  method: string;
  path: string;
  status: number;
  requestId: string;
  error: string | null;
  body: unknown;
}

export class SandboxState {
  private readonly store: Store;

  constructor(private readonly config: SandboxStateConfig) {
    this.store = new Store(config);
  }

  get tenantNames(): string[] {
    return this.store.tenantNames;
  }

  /** The seq of the latest event (0 before the first). */
  get lastSeq(): number {
    return this.store.log.lastSeq;
  }

  hasTenant(name: string): boolean {
    return this.store.has(name);
  }

  subscribe(listener: Listener): () => void {
    return this.store.log.subscribe(listener);
  }

  /** A kept thread, in any tenant. */
  thread(sessionId: string): Thread | undefined {
    return this.store.thread(sessionId);
  }

  // ---- the customer's side -------------------------------------------------------------------

  /** Starts a thread for the client a request names, or a new one (src/sandbox/rules/conversation-client.ts). */
  startConversation(
    name: string,
    request: { channel: Channel; coreClientId?: bigint | undefined; clientId?: string | undefined },
  ): { ok: true; thread: Thread } | { ok: false; status: 400; message: string } {
    const tenant = this.store.tenant(name);
    const decided = conversationClient(tenant, request);
    if (!decided.ok) return decided;
    let client: Client;
    if ('make' in decided) client = this.store.newClient(tenant, decided.make.coreClientId, decided.make.clientId);
    else {
      client = decided.client;
      if (decided.adoptClientId !== undefined) this.store.adoptClientId(tenant, client, decided.adoptClientId);
    }
    return { ok: true, thread: this.store.newThread(tenant, client, request.channel, 'customer') };
  }

  /**
   * A customer message in a thread: a new question, and a delivery holding the exact bytes of its
   * MESSAGE webhook when one is sent (src/sandbox/rules/customer-message.ts).
   */
  customerMessage(
    thread: Thread,
    message: { text: string; quickReply: Record<string, unknown> | null; listItem: { identifier: string; title: string } | null },
    /** A questionId above 2^53 (a probe's `largeIds`, src/sandbox/probe.ts). */
    largeId = false,
  ): { event: CustomerMessageEvent; delivery: Delivery | null } {
    const tenant = this.store.tenant(thread.tenant);
    const { questionType, noWebhook } = customerQuestion(thread, this.config.botConnected);
    const questionId = largeId ? this.store.nextLargeQuestionId(tenant) : this.store.nextQuestionId(tenant);
    const questionIndex = thread.nextIndex;
    thread.nextIndex += 1n;
    const deliveryId = noWebhook === null ? this.store.newDeliveryId(tenant) : null;
    const { sessionId, channel, client } = thread;
    const { coreClientId, clientId } = client;
    const fields: NewEvent = {
      type: 'customer.message',
      ...{ sessionId, channel, coreClientId, clientId, questionId, questionIndex, questionType },
      ...{ text: flatten(message.text), quickReply: message.quickReply, listItem: message.listItem, deliveryId, noWebhook },
    };
    let delivery: Delivery | null = null;
    const event = this.store.record(tenant, fields, (recorded) => {
      const question: Question = {
        seq: recorded.seq,
        questionId,
        questionIndex,
        type: questionType,
        thread,
        answered: false,
        withAgents: null,
      };
      thread.questions.push(question);
      tenant.questions.set(questionId, question);
      if (deliveryId === null) return 0;
      delivery = newDelivery(thread, recorded as CustomerMessageEvent, deliveryId);
      tenant.deliveries.set(deliveryId, delivery);
      return delivery.body.byteLength + DELIVERY_OVERHEAD;
    }) as CustomerMessageEvent;
    return { event, delivery };
  }

  /** A delivery still kept, in any tenant. */
  delivery(deliveryId: string): Delivery | undefined {
    for (const tenant of this.store.selected(undefined)) {
      const delivery = tenant.deliveries.get(deliveryId);
      if (delivery) return delivery;
    }
    return undefined;
  }

  /** Records one webhook attempt; the delivery's thread may be gone by now (reset, or dropped). */
  webhookAttempt(
    delivery: Delivery,
    attempt: Omit<WebhookAttemptEvent, 'seq' | 'time' | 'tenant' | 'type' | 'sessionId' | 'deliveryId' | 'questionId'>,
  ): void {
    if (!this.store.has(delivery.tenant)) return;
    const { sessionId, deliveryId, questionId } = delivery;
    this.store.record(this.store.tenant(delivery.tenant), {
      type: 'webhook.attempt',
      ...{ sessionId, deliveryId, questionId },
      ...attempt,
      body: flatten(attempt.body),
    });
  }

  /** Gives a thread back to the bot, with the questions handed over in it. Null when nothing was with agents. */
  release(thread: Thread): ReleasedEvent | null {
    const released = releaseOf(thread);
    if (released === null) return null;
    for (const question of released.questions) question.withAgents = null;
    thread.owner = 'bot';
    thread.handover = null;
    const fields: NewEvent = {
      type: 'released',
      sessionId: thread.sessionId,
      questions: released.questions.length,
      thread: released.thread,
    };
    return this.store.record(this.store.tenant(thread.tenant), fields) as ReleasedEvent;
  }

  // ---- the API (src/sandbox/answers.ts) ----------------------------------------------------------

  /** A valid bot answer, decided by src/sandbox/rules/reply.ts and applied. */
  reply(name: string, reply: Reply, meta: RequestMeta): ReplyOutcome {
    return recordReply(this.store, this.config, this.store.tenant(name), reply, meta);
  }

  /** A valid greeting: always delivered. */
  greeting(name: string, greeting: Greeting, meta: RequestMeta): GreetingEvent {
    return recordGreeting(this.store, this.store.tenant(name), greeting, meta);
  }

  /**
   * Records a refused API request (src/sandbox/rules/tying.ts): tied to the conversation its body
   * names, else tenant-wide, else sandbox-wide when it named no tenant served here.
   */
  apiRequest(name: string | undefined, request: RefusedRequest): ApiRequestEvent {
    const tenant = this.store.tenantOrSandbox(name);
    const named = namedIdentifiers(request.body);
    const sessionId = tenant.name === '' ? null : tiedSession(tenant, named);
    const scope = sessionId !== null ? 'conversation' : tenant.name === '' ? 'sandbox' : 'tenant';
    const { method, path, status, requestId, error } = request;
    const fields: NewEvent = { type: 'api.request', sessionId, scope, method, path, status, requestId, error, named };
    return this.store.record(tenant, fields) as ApiRequestEvent;
  }

  /** The conversation a request body names in a tenant (src/sandbox/rules/tying.ts), or null. */
  sessionOf(name: string, body: unknown): string | null {
    const tenant = this.store.tenantOrSandbox(name);
    return tenant.name === '' ? null : tiedSession(tenant, namedIdentifiers(body));
  }

  /** Replaces an existing reason (src/sandbox/rules/reason-limits.ts). */
  updateReason(name: string, update: Reason, meta: { requestId: string }): ReasonUpdate {
    const tenant = this.store.tenant(name);
    const decided = decideReasonUpdate(tenant, update, this.config.maxActiveReasons);
    if (!decided.ok) return decided;
    const { reason } = decided;
    const record: ReasonRecord = {
      tenant: name,
      code: update.code,
      reason,
      updatedAt: new Date().toISOString(),
      requestId: meta.requestId,
    };
    tenant.reasons.set(update.code, record);
    tenant.activeCount = decided.activeCount;
    this.store.record(tenant, { type: 'reason.updated', sessionId: null, requestId: meta.requestId, code: update.code, reason });
    return { ok: true, record };
  }

  // ---- reading (src/sandbox/reading.ts) ----------------------------------------------------------

  /** Every kept bot answer and greeting in seq order, of one tenant or all. */
  messages(tenant?: string): MessageRecord[] {
    return messagesOf(this.store.eventsOf(tenant, 0));
  }

  /** A page of the kept bot answers and greetings after `after`. */
  messagePage(tenant: string | undefined, after: number, limit: number): Page<MessageRecord> {
    return messagePageOf(this.store.eventsOf(tenant, after), after, limit);
  }

  /** Kept events after `after` in seq order, of one tenant (or all, with the sandbox-wide ones), optionally of one thread. */
  events(filter: { tenant?: string | undefined; sessionId?: string | undefined; after?: number | undefined } = {}): Iterable<SandboxEvent> {
    const after = filter.after ?? 0;
    if (filter.sessionId !== undefined) {
      const thread = this.thread(filter.sessionId);
      if (thread === undefined || (filter.tenant !== undefined && thread.tenant !== filter.tenant)) return [];
      return thread.log.after(after);
    }
    return this.store.eventsOf(filter.tenant, after);
  }

  /** A page of a thread's events after `after`. */
  threadEventPage(thread: Thread, after: number, limit: number): Page<SandboxEvent> {
    return page(thread.log.after(after), after, limit);
  }

  /** A page of the kept threads, in the order they started, of one tenant or all. */
  conversationPage(tenant: string | undefined, after: number, limit: number): Page<ConversationView> {
    return conversationPage(this.store.selected(tenant === undefined ? undefined : tenant), after, limit);
  }

  view(thread: Thread): ConversationView {
    return conversationView(thread);
  }

  /** Every reason, of one tenant or all, tenant by tenant. */
  reasons(tenant?: string): ReasonRecord[] {
    const tenants = tenant === undefined ? this.tenantNames.map((name) => this.store.tenant(name)) : [this.store.tenant(tenant)];
    return tenants.flatMap((each) => [...each.reasons.values()]);
  }

  /** How much the state holds, for tests and the bench: counts per tenant ("" for the sandbox-wide log). */
  sizesOf(name: string): Record<'events' | 'bytes' | 'clients' | 'threads' | 'questions' | 'answerIds' | 'deliveries', number> {
    const tenant = name === '' ? this.store.tenantOrSandbox('') : this.store.tenant(name);
    return {
      events: tenant.log.length,
      bytes: tenant.bytes,
      clients: tenant.clients.size,
      threads: tenant.threads.size,
      questions: tenant.questions.size,
      answerIds: tenant.answerIds.size,
      deliveries: tenant.deliveries.size,
    };
  }

  /** Returns one tenant, or all (and the sandbox-wide log), to the start state: no events, clients or threads, the seed reasons. */
  reset(tenant?: string): string[] {
    return this.store.reset(tenant);
  }
}
