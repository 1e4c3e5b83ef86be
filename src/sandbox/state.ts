import type { Greeting, Reason, Reply } from '../payload/index.js';
import type {
  AgentMessageEvent,
  ApiRequestEvent,
  BotAnswerEvent,
  Channel,
  CheckLabel,
  CustomerMessageEvent,
  DeliveryInFlight,
  EventFields,
  GreetingEvent,
  ProbeCheckEvent,
  ReleasedEvent,
  SandboxEvent,
  WebhookRedeliveryEvent,
} from './events.js';
import type { Listener } from './log.js';
import {
  type Agent,
  type AgentSeed,
  type ConversationView,
  type Delivery,
  type ReasonRecord,
  type ReplyFields,
  type Targets,
  type TenantView,
  type Thread,
} from './model.js';
import { activeReasonCodes, agentMessage, statusChange } from './rules/agents.js';
import { drainQueue } from './rules/routing.js';
import type { DuplicateMode } from './options.js';
import { startConversation } from './rules/conversation-client.js';
import { customerMessage, type CustomerWords } from './rules/customer-message.js';
import { bridgedMessageEvents, type BridgedMessage } from './rules/bridged.js';
import { attemptEvent, redelivery, type AttemptFields } from './rules/delivery.js';
import { greetingEvents } from './rules/greeting-addressing.js';
import { releaseEvent } from './rules/handover.js';
import { reasonUpdate } from './rules/reason-limits.js';
import { replyOutcome, type RequestMeta } from './rules/reply.js';
import { duringDelivery, namedIdentifiers, refusedRequest, tiedSession, type RefusedRequest } from './rules/tying.js';
import { page, type Page } from './seq.js';
import { Store } from './store/store.js';
import { eventsToRestore, MAX_SNAPSHOTS, Snapshots, type Snapshot } from './snapshots.js';
import { conversationPage, conversationView, messagesOf, messagePageOf, type MessageRecord } from './reading.js';

/**
 * The sandbox's state, as the routes use it: each request is read by a rule (src/sandbox/rules/, pure
 * functions of the tenant's view and the request) that returns the events recording it, and the store
 * (src/sandbox/store/) records them: it gives each its seq and time and applies it to the model, the
 * one place the model changes. docs/architecture.md, "The sandbox".
 */

export { notDeliveredReasons, type NotDelivered } from './events.js';
export type { SandboxEvent } from './events.js';
export type { Listener } from './log.js';
export { firstIds, maxCustomerText } from './model.js';
export type { ConversationView, Delivery, Handover, LastBotMessage, ReasonRecord, Thread } from './model.js';
export { channelWarnings } from './rules/channel.js';
export type { MessageRecord } from './reading.js';
export type { RequestMeta } from './rules/reply.js';
export type { BridgedMessage } from './rules/bridged.js';
export type { RefusedRequest } from './rules/tying.js';

/** An agent as GET /_sandbox/agents lists it. */
export interface AgentView {
  tenant: string;
  id: bigint;
  name: string;
  skills: bigint[];
  units: bigint[];
  status: 'online' | 'away';
  reason: string | null;
  /** Whether the reason of an agent away is still active (false: "reason no longer active"); null while online. */
  reasonActive: boolean | null;
  capacity: number;
  /** The sessionIds of the threads the agent holds (the thread, or a question of it), in the order routed. */
  threads: string[];
  /** Each hand-over held: a thread, or a question of one. */
  holds: { sessionId: string; scope: 'thread' | 'question'; questionId: bigint | null }[];
}

/** A hand-over waiting for an agent, as GET /_sandbox/agents lists it. */
export interface QueuedView {
  tenant: string;
  sessionId: string;
  scope: 'thread' | 'question';
  questionId: bigint | null;
  seq: number;
  targets: Targets;
}

function agentView(view: TenantView, agent: Agent): AgentView {
  const holds = [...agent.assigned.values()].map(({ sessionId, scope, questionId }) => ({ sessionId, scope, questionId }));
  return {
    tenant: view.name,
    id: agent.id,
    name: agent.name,
    skills: [...agent.skills],
    units: [...agent.units],
    status: agent.status,
    reason: agent.reason,
    reasonActive: agent.reason === null ? null : activeReasonCodes(view).includes(agent.reason),
    capacity: agent.capacity,
    threads: [...new Set(holds.map((held) => held.sessionId))],
    holds,
  };
}

export type ReasonUpdate = { ok: true; record: ReasonRecord } | { ok: false; status: 404 | 409; message: string };

/** A bot answer's status, and its event: a refusal carries the Error body's message. */
export type ReplyOutcome = { status: 200; event: BotAnswerEvent } | { status: 400 | 404 | 409; error: string; event: BotAnswerEvent };

export interface SandboxStateConfig {
  tenants: readonly string[];
  seedReasons: readonly Reason[];
  /** The agents every tenant starts with; none when absent. */
  seedAgents?: readonly AgentSeed[];
  duplicates: DuplicateMode;
  maxActiveReasons: number;
  maxEvents: number;
  maxEventBytes: number;
  /** Whether customer messages go to a bot (`--bot-url`): they then get a delivery. */
  botConnected: boolean;
  /** Every identifier the sandbox makes above 2^53 (`--large-ids`). */
  largeIds?: boolean;
}

export class SandboxState {
  /** What the state keeps (src/sandbox/store/): read it freely; it changes only by the events recorded here. */
  readonly store: Store;

  /**
   * The attempts sent to the bot and not answered yet, by deliveryId (with how many of its attempts
   * are out: a probe's and a series' may overlap). Not state: what the network is doing now, which a
   * refusal its body ties to nothing is tied by (rules/tying.ts, `duringDelivery`).
   */
  private readonly sending = new Map<string, { delivery: Delivery; count: number }>();
  /** The snapshots of each tenant (src/sandbox/snapshots.ts): kept beside the events, and in the state file when there is one. */
  readonly snapshots = new Snapshots();

  constructor(private readonly config: SandboxStateConfig) {
    this.store = new Store(config);
  }

  /**
   * An attempt of `delivery` is being sent to the bot: until the returned function is called (its
   * answer came, or it failed), a refusal that names nothing is taken as this exchange's.
   */
  attemptSent(delivery: Delivery): () => void {
    const entry = this.sending.get(delivery.deliveryId) ?? { delivery, count: 0 };
    entry.count += 1;
    this.sending.set(delivery.deliveryId, entry);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.count -= 1;
      if (entry.count === 0 && this.sending.get(delivery.deliveryId) === entry) this.sending.delete(delivery.deliveryId);
    };
  }

  /** The deliveries of a tenant with an attempt sent to the bot and not yet answered, oldest first. */
  inFlight(tenant: string): DeliveryInFlight[] {
    const found: DeliveryInFlight[] = [];
    for (const { delivery } of this.sending.values()) {
      if (delivery.tenant === tenant)
        found.push({ sessionId: delivery.sessionId, questionId: delivery.questionId, deliveryId: delivery.deliveryId });
    }
    return found;
  }

  /** A state of its own holding what this one holds (its events and what they did), for a trial run: no listener, no snapshot. */
  copy(): SandboxState {
    const copy = new SandboxState(this.config);
    copy.store.restore(this.store.checkpoint());
    return copy;
  }

  /** The most reasons that may be active at once in a tenant. */
  get maxActiveReasons(): number {
    return this.config.maxActiveReasons;
  }

  get tenantNames(): string[] {
    return this.store.tenantNames;
  }

  /** The seq of the latest event (0 before the first). */
  get lastSeq(): number {
    return this.store.lastSeq;
  }

  hasTenant(name: string): boolean {
    return this.store.has(name);
  }

  subscribe(listener: Listener): () => void {
    return this.store.subscribe(listener);
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
    const started = startConversation(this.store.tenant(name), request, this.store.randomIds(name));
    if (!started.ok) return started;
    this.store.recordOne(name, started.event);
    return { ok: true, thread: this.store.thread(started.event.sessionId)! };
  }

  /**
   * A customer message in a thread: a new question, and a delivery holding the exact bytes of its
   * MESSAGE webhook when one is sent (src/sandbox/rules/customer-message.ts).
   */
  customerMessage(
    thread: Thread,
    words: CustomerWords,
    options: { noWebhook?: string } = {},
  ): { event: CustomerMessageEvent; delivery: Delivery | null } {
    const name = thread.tenant;
    const view = this.store.tenant(name);
    const fields = customerMessage(view, thread, words, this.config.botConnected, this.store.randomIds(name));
    // A seeded message sends no webhook, whoever holds the thread.
    if (options.noWebhook !== undefined) Object.assign(fields, { deliveryId: null, noWebhook: options.noWebhook });
    const event = this.store.recordOne(name, fields) as CustomerMessageEvent;
    return { event, delivery: event.deliveryId === null ? null : (this.store.delivery(event.deliveryId) ?? null) };
  }

  /** A delivery still kept, in any tenant. */
  delivery(deliveryId: string): Delivery | undefined {
    return this.store.delivery(deliveryId);
  }

  /**
   * A redelivery of a kept delivery whose attempts have ended (src/sandbox/rules/delivery.ts): its
   * event, and the delivery to send again; 404 for a delivery not kept, 409 for one in flight.
   */
  redeliver(
    deliveryId: string,
  ): { ok: true; event: WebhookRedeliveryEvent; delivery: Delivery } | { ok: false; status: 404 | 409; error: string; tenant?: string } {
    const delivery = this.store.delivery(deliveryId);
    const decided = redelivery(deliveryId, delivery);
    if (!decided.ok) return delivery === undefined ? decided : { ...decided, tenant: delivery.tenant };
    const event = this.store.recordOne(delivery!.tenant, decided.event) as WebhookRedeliveryEvent;
    return { ok: true, event, delivery: delivery! };
  }

  /**
   * A customer message the real platform delivered to a bridge (src/sandbox/rules/bridged.ts): its
   * event and delivery; for a question already kept (the platform delivering it again), the kept
   * delivery and no new event. A message from which the sandbox's own delivery cannot be made (its
   * fields break the contract's schema: an empty text, a negative id) is not recorded: what breaks
   * it comes back instead.
   */
  bridgedMessage(
    name: string,
    message: BridgedMessage,
  ): { ok: true; event: CustomerMessageEvent | null; delivery: Delivery | undefined } | { ok: false; problem: string } {
    const events = bridgedMessageEvents(this.store.tenant(name), message, this.store.randomIds(name));
    if (events === null) {
      const deliveryId = this.store.deliveryOfQuestion(name, message.questionId);
      return { ok: true, event: null, delivery: deliveryId === undefined ? undefined : this.store.delivery(deliveryId) };
    }
    const question = { ...events.at(-1)!, seq: 0, tenant: name, time: new Date().toISOString() } as CustomerMessageEvent;
    const problem = this.store.deliveryProblem(question);
    if (problem !== undefined) return { ok: false, problem };
    const event = this.store.record(name, events).at(-1) as CustomerMessageEvent;
    return { ok: true, event, delivery: event.deliveryId === null ? undefined : this.store.delivery(event.deliveryId) };
  }

  /** Records what a bridge saw of the real platform: a request sent on, or a delivery it could not take. */
  bridgeRecord(name: string, fields: EventFields<'bridge.forward'> | EventFields<'bridge.webhook'>): SandboxEvent {
    return this.store.recordOne(name, fields);
  }

  /** Labels a thread as the one a check of core check-bot plays (POST /_sandbox/probes/checks): a probe.check event. */
  labelCheck(thread: Thread, label: CheckLabel): ProbeCheckEvent {
    return this.store.recordOne(thread.tenant, { type: 'probe.check', sessionId: thread.sessionId, ...label }) as ProbeCheckEvent;
  }

  /** Records one webhook attempt; the delivery's thread may be gone by now (reset, or dropped). */
  webhookAttempt(delivery: Delivery, attempt: AttemptFields): void {
    if (!this.store.has(delivery.tenant)) return;
    this.store.recordOne(delivery.tenant, attemptEvent(delivery, attempt));
  }

  /**
   * Gives a thread back to the bot, with the questions handed over in it; the agent who held it has
   * room again, so the queue is routed. Null when nothing was with agents.
   */
  release(thread: Thread): ReleasedEvent | null {
    const fields = releaseEvent(thread);
    if (fields === null) return null;
    const [released] = this.store.record(thread.tenant, [fields]);
    this.store.record(thread.tenant, drainQueue(this.store.tenant(thread.tenant)));
    return released as ReleasedEvent;
  }

  // ---- the agents (src/sandbox/rules/agents.ts, routing.ts) --------------------------------------

  /** The agents of one tenant or all, tenant by tenant, with what each holds. */
  agents(tenant?: string): AgentView[] {
    const names = tenant === undefined ? this.tenantNames : [tenant];
    return names.flatMap((name) => {
      const view = this.store.tenant(name);
      return [...view.agents.values()].map((agent) => agentView(view, agent));
    });
  }

  /** The hand-overs waiting for an agent, of one tenant or all, oldest first in each tenant. */
  queue(tenant?: string): QueuedView[] {
    const names = tenant === undefined ? this.tenantNames : [tenant];
    return names.flatMap((name) =>
      [...this.store.tenant(name).queue.values()].map(({ sessionId, scope, questionId, seq, targets }) => ({
        tenant: name,
        sessionId,
        scope,
        questionId,
        seq,
        targets,
      })),
    );
  }

  /**
   * An agent's status change (src/sandbox/rules/agents.ts), and the queued hand-overs it lets through
   * when the agent comes online: the events recorded (none when the agent was already so).
   */
  agentStatus(
    name: string,
    agentId: bigint,
    status: 'online' | 'away',
    reason: string | null,
  ): { ok: true; agent: AgentView; events: SandboxEvent[] } | { ok: false; status: 400 | 404 | 409; message: string } {
    const decided = statusChange(this.store.tenant(name), agentId, status, reason);
    if (!decided.ok) return decided;
    const events = decided.event === null ? [] : this.store.record(name, [decided.event]);
    if (decided.event !== null) events.push(...this.store.record(name, drainQueue(this.store.tenant(name))));
    const view = this.store.tenant(name);
    return { ok: true, agent: agentView(view, view.agents.get(agentId)!), events };
  }

  /** An agent's message in a thread it holds (src/sandbox/rules/agents.ts). */
  agentMessage(
    thread: Thread,
    text: unknown,
    agentId: bigint | null,
  ): { ok: true; event: AgentMessageEvent } | { ok: false; status: 400 | 404 | 409; message: string } {
    const decided = agentMessage(this.store.tenant(thread.tenant), thread, text, agentId);
    if (!decided.ok) return decided;
    return { ok: true, event: this.store.recordOne(thread.tenant, decided.event) as AgentMessageEvent };
  }

  // ---- the API -----------------------------------------------------------------------------------

  /** A valid bot answer, decided by src/sandbox/rules/reply.ts and recorded. */
  reply(name: string, reply: Reply, meta: RequestMeta): ReplyOutcome {
    const outcome = replyOutcome(this.store.tenant(name), reply as ReplyFields, meta, this.config, this.store.randomIds(name));
    const answer = outcome.events[outcome.answer];
    if (answer?.type === 'bot.answer') outcome.events[outcome.answer] = duringDelivery(answer, this.inFlight(name));
    const event = this.store.record(name, outcome.events)[outcome.answer] as BotAnswerEvent;
    return outcome.status === 200 ? { status: 200, event } : { status: outcome.status, error: outcome.error ?? '', event };
  }

  /** A valid greeting: always delivered. */
  greeting(name: string, greeting: Greeting, meta: RequestMeta): GreetingEvent {
    const events = greetingEvents(this.store.tenant(name), greeting, meta, this.store.randomIds(name));
    return this.store.record(name, events).at(-1) as GreetingEvent;
  }

  /**
   * Records a refused API request (src/sandbox/rules/tying.ts): tied to the conversation its body
   * names, else tenant-wide, else sandbox-wide when it named no tenant served here.
   */
  apiRequest(name: string | undefined, request: RefusedRequest): ApiRequestEvent {
    const tenant = this.store.tenantOrSandbox(name);
    const fields = refusedRequest(tenant, request);
    return this.store.recordOne(
      tenant.name,
      tenant.name === '' ? fields : duringDelivery(fields, this.inFlight(tenant.name)),
    ) as ApiRequestEvent;
  }

  /** The conversation a request body names in a tenant (src/sandbox/rules/tying.ts), or null. */
  sessionOf(name: string, body: unknown): string | null {
    const tenant = this.store.tenantOrSandbox(name);
    return tenant.name === '' ? null : tiedSession(tenant, namedIdentifiers(body));
  }

  /** Replaces an existing reason (src/sandbox/rules/reason-limits.ts). */
  updateReason(name: string, update: Reason, meta: { requestId: string }): ReasonUpdate {
    const decided = reasonUpdate(this.store.tenant(name), update, this.config.maxActiveReasons, meta.requestId);
    if (!decided.ok) return decided;
    this.store.recordOne(name, decided.event);
    return { ok: true, record: this.store.tenant(name).reasons.get(update.code)! };
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
    return conversationPage(this.store.selected(tenant), after, limit);
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

  // ---- snapshots (src/sandbox/snapshots.ts) --------------------------------------------------------

  /** Takes a snapshot of a tenant's kept events under `name` (replacing one of that name); 409 past the limit. */
  saveSnapshot(
    tenant: string,
    name: string,
  ): { ok: true; snapshot: Snapshot; replaced: boolean } | { ok: false; status: 409; message: string } {
    const replaced = this.snapshots.get(tenant, name) !== undefined;
    if (!replaced && this.snapshots.count(tenant) >= MAX_SNAPSHOTS)
      return {
        ok: false,
        status: 409,
        message: `tenant '${tenant}' has ${MAX_SNAPSHOTS} snapshots, the most it keeps: save under the name of one of them to replace it`,
      };
    const snapshot: Snapshot = {
      name,
      tenant,
      savedAt: new Date().toISOString(),
      seq: this.store.lastSeq,
      events: [...this.store.tenant(tenant).log.after(0)],
    };
    this.snapshots.save(snapshot);
    return { ok: true, snapshot, replaced };
  }

  /**
   * Returns a tenant to a snapshot: a reset, then the snapshot's events recorded again with new seqs
   * (their times kept). Tried on a copy first, so a snapshot this sandbox cannot take (an agent it no
   * longer has) changes nothing: 409. Returns the events recorded, the reset first.
   */
  restoreSnapshot(
    tenant: string,
    name: string,
  ): { ok: true; snapshot: Snapshot; events: SandboxEvent[] } | { ok: false; status: 404 | 409; message: string } {
    const snapshot = this.snapshots.get(tenant, name);
    if (snapshot === undefined) {
      const names = this.snapshots.list(tenant).map((each) => each.name);
      return {
        ok: false,
        status: 404,
        message: `tenant '${tenant}' has no snapshot '${name}' (${names.length === 0 ? 'it has none' : `it has ${names.join(', ')}`})`,
      };
    }
    const events = eventsToRestore(snapshot);
    try {
      const trial = this.copy();
      trial.store.reset(tenant);
      trial.store.recordAgain(tenant, events);
    } catch (error) {
      return { ok: false, status: 409, message: `snapshot '${name}' cannot be restored here: ${(error as Error).message}` };
    }
    const reset = this.store.reset(tenant).length;
    const recorded = this.store.recordAgain(tenant, events);
    return { ok: true, snapshot, events: [...this.store.eventsOf(tenant, this.store.lastSeq - recorded.length - reset)] };
  }

  /** Returns one tenant, or all (and the sandbox-wide log), to the start state: no events, clients or threads, the seed reasons. */
  reset(tenant?: string): string[] {
    return this.store.reset(tenant);
  }
}
