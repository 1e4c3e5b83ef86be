import type { Reason } from '../../payload/index.js';
import type { EventOf, SandboxEvent } from '../events.js';
import { lastBotMessage } from '../rules/channel.js';
import { assignmentKey, type AgentSeed } from '../model.js';
import { freeCoreClientId } from '../rules/ids.js';
import { LARGE_ID_OFFSET } from '../model.js';
import { isActive } from '../seed.js';
import { SeqQueue } from '../seq.js';
import { retainedBytes } from './bytes.js';
import { DELIVERY_OVERHEAD, newDelivery } from './delivery.js';
import { freshTenant, LARGE_QUESTION_IDS, type ClientState, type QuestionState, type TenantState, type ThreadState } from './tenant.js';

/**
 * The one place the sandbox's model changes: `applyEvent(model, event)`. Every change of state is
 * an event (docs/sandbox.md, "Events"), applied here in seq order, whether it was just recorded
 * (src/sandbox/store/store.ts) or read back from a log: applying a tenant's events to a fresh model
 * rebuilds the same state, the bounds included (test/sandbox/store/replay.test.ts).
 *
 * Each event changes what it names (a thread started, a question asked, an answerId claimed, a
 * hand-over, a release, a delivery redelivered or ended, a reason updated, a tenant reset), goes into
 * its tenant's log and its thread's, keeps its thread and client alive, and counts the bytes it holds;
 * then the oldest events past the bounds are dropped, with what no kept event mentions.
 */

/** The bounds of each tenant's log (docs/sandbox.md, "Memory"). */
export interface ModelConfig {
  tenants: readonly string[];
  seedReasons: readonly Reason[];
  /** The agents every tenant starts with (and returns to on reset); none when absent. */
  seedAgents?: readonly AgentSeed[];
  maxEvents: number;
  maxEventBytes: number;
  /** Every identifier the sandbox makes above 2^53 (`--large-ids`). */
  largeIds?: boolean;
}

export interface SandboxModel {
  readonly config: ModelConfig;
  readonly tenants: Map<string, TenantState>;
  /** Every kept thread's tenant by sessionId, across tenants: session ids are unique in the sandbox. */
  readonly sessions: Map<string, TenantState>;
  /** Requests that named no tenant served here (tenant ""), kept within the same bounds. */
  sandboxWide: TenantState;
  /** The seq of the latest event applied (0 before the first). */
  lastSeq: number;
  /** The bytes each kept event holds, with what it keeps alive outside itself (a delivery's body). */
  readonly sizes: WeakMap<SandboxEvent, number>;
}

/** A model as the sandbox starts: each tenant with its seed reasons, no event. */
export function newModel(config: ModelConfig): SandboxModel {
  const tenants = new Map<string, TenantState>();
  for (const name of config.tenants) tenants.set(name, freshTenant(name, config.seedReasons, config.largeIds, config.seedAgents));
  return { config, tenants, sessions: new Map(), sandboxWide: freshTenant('', []), lastSeq: 0, sizes: new WeakMap() };
}

/** An event the model cannot take: out of seq order, of a tenant not served, or naming what it lacks. */
export class EventApplyError extends Error {
  constructor(event: SandboxEvent, reason: string) {
    super(`event ${event.seq} (${event.type}): ${reason}`);
    this.name = 'EventApplyError';
  }
}

/** The reducer: applies one event to the model, in place. */
export function applyEvent(model: SandboxModel, event: SandboxEvent): void {
  if (!(event.seq > model.lastSeq)) throw new EventApplyError(event, `comes after seq ${model.lastSeq}: events are applied in seq order`);
  let tenant = event.tenant === '' ? model.sandboxWide : model.tenants.get(event.tenant);
  if (tenant === undefined) throw new EventApplyError(event, `tenant '${event.tenant}' is not served`);
  if (event.type === 'sandbox.reset') tenant = reset(model, tenant);
  const held = change(model, tenant, event);
  model.lastSeq = event.seq;
  keep(model, tenant, event, held);
}

/** What the event changes besides the logs; returns the bytes it keeps alive outside itself. */
function change(model: SandboxModel, tenant: TenantState, event: SandboxEvent): number {
  switch (event.type) {
    case 'conversation.started':
      startThread(model, tenant, event);
      return 0;
    case 'customer.message':
      return ask(tenant, event);
    case 'bot.answer':
      if (event.delivered) answer(tenant, event);
      return 0;
    case 'greeting':
      if (event.delivered) delivered(tenant, event);
      return 0;
    case 'handover':
      handOver(tenant, event);
      return 0;
    case 'released':
      release(tenant, event);
      return 0;
    case 'webhook.redelivery': {
      const delivery = tenant.deliveries.get(event.deliveryId);
      if (delivery) {
        delivery.redeliveries = event.redelivery;
        delivery.inFlight = true;
      }
      return 0;
    }
    case 'webhook.attempt': {
      // A series ends with an attempt that no other follows; a redelivery can then start another.
      const delivery = tenant.deliveries.get(event.deliveryId);
      if (delivery && event.outcome !== 'retrying') delivery.inFlight = false;
      return 0;
    }
    case 'reason.updated':
      updateReason(tenant, event);
      return 0;
    case 'handover.routed':
      routed(tenant, event);
      return 0;
    case 'handover.queued':
      queued(tenant, event);
      return 0;
    case 'agent.status': {
      const agent = tenant.agents.get(event.agentId);
      if (agent === undefined) throw new EventApplyError(event, `no agent ${event.agentId} in tenant '${tenant.name}'`);
      agent.status = event.agentStatus;
      agent.reason = event.reason;
      return 0;
    }
    case 'probe.check': {
      const thread = tenant.threads.get(event.sessionId);
      if (thread) thread.check = { check: event.check, verdict: event.verdict, message: event.message };
      return 0;
    }
    case 'agent.message':
    case 'api.request':
    case 'bridge.forward':
    case 'bridge.webhook':
    case 'sandbox.reset':
      return 0;
  }
}

/** A new thread, and its client when the tenant has none with that coreClientId (or the clientId it now takes). */
function startThread(model: SandboxModel, tenant: TenantState, event: EventOf<'conversation.started'>): void {
  if (model.sessions.has(event.sessionId)) throw new EventApplyError(event, `thread '${event.sessionId}' exists already`);
  const { coreClientId, clientId } = event;
  let client = tenant.clients.get(coreClientId);
  if (client === undefined) {
    // The counter moves on past an id the sandbox would have made now, whoever named it: made ids
    // go on from where they stopped, and never come back while the model lives.
    if (coreClientId === freeCoreClientId(tenant)) tenant.nextClientId = coreClientId + 1n;
    client = { coreClientId, clientId, lastSeq: event.seq, latest: null } satisfies ClientState;
    tenant.clients.set(coreClientId, client);
    if (clientId !== null) tenant.clientsByExternalId.set(clientId, client);
  } else if (client.clientId === null && clientId !== null) {
    // A known client without clientId takes the one the conversation named.
    client.clientId = clientId;
    tenant.clientsByExternalId.set(clientId, client);
  }
  const thread: ThreadState = {
    tenant: tenant.name,
    sessionId: event.sessionId,
    channel: event.channel,
    subject: event.subject ?? null,
    client,
    owner: 'bot',
    handover: null,
    agentId: null,
    questions: new SeqQueue(),
    nextIndex: 1n,
    startedSeq: event.seq,
    startedAt: event.time,
    lastSeq: event.seq,
    log: new SeqQueue(),
    lastBotMessage: null,
    check: null,
  };
  tenant.threads.set(event.sessionId, thread);
  model.sessions.set(event.sessionId, tenant);
  client.latest = thread;
}

/** A customer message: a question of its thread, and the delivery of its MESSAGE webhook when it has one. */
function ask(tenant: TenantState, event: EventOf<'customer.message'>): number {
  const thread = tenant.threads.get(event.sessionId);
  if (thread === undefined) throw new EventApplyError(event, `no thread '${event.sessionId}' in tenant '${tenant.name}'`);
  const { questionId, questionIndex } = event;
  const question: QuestionState = {
    seq: event.seq,
    questionId,
    questionIndex,
    type: event.questionType,
    thread,
    answered: false,
    withAgents: null,
    agentId: null,
  };
  thread.questions.push(question);
  tenant.questions.set(questionId, question);
  thread.nextIndex = questionIndex + 1n;
  // Two counters of question ids meet here. A question of a probe's large ids (2^53 + 1 + 4k, the
  // fuzzer's deliveries) moves its own counter. The counter of the others moves on past every question
  // asked, but for one 2^53 or more above it (the probe of ids.precision asks one there): it then takes
  // one step, so the questions after keep their usual ids and a second probe gets an id of its own.
  const next = tenant.nextQuestionId;
  const onLattice = questionId >= LARGE_QUESTION_IDS.first && (questionId - LARGE_QUESTION_IDS.first) % LARGE_QUESTION_IDS.step === 0n;
  if (onLattice && questionId >= tenant.nextLargeQuestionId) tenant.nextLargeQuestionId = questionId + LARGE_QUESTION_IDS.step;
  if (questionId - next >= LARGE_ID_OFFSET) tenant.nextQuestionId = next + 1n;
  else if (questionId >= next && !(onLattice && questionId !== next)) tenant.nextQuestionId = questionId + 1n;
  const { deliveryId } = event;
  if (deliveryId === null) return 0;
  const delivery = newDelivery({ ...event, deliveryId });
  tenant.deliveries.set(deliveryId, delivery);
  return delivery.body.byteLength + DELIVERY_OVERHEAD;
}

/** A delivered bot answer claims its answerId (chatbot rule 6) and its question (rule 7). */
function answer(tenant: TenantState, event: EventOf<'bot.answer'>): void {
  if (event.answerId !== null) tenant.answerIds.set(event.answerId, event.seq);
  const question = questionOf(tenant, event.questionId);
  if (question) question.answered = true;
  delivered(tenant, event);
}

/** A message delivered into a thread: what the customer can now press or pick. */
function delivered(tenant: TenantState, event: EventOf<'bot.answer'> | EventOf<'greeting'>): void {
  const thread = threadOf(tenant, event.sessionId);
  if (thread) thread.lastBotMessage = lastBotMessage(event.body, event.seq, thread.channel);
}

/** SWITCH_TO_HUMAN gives the thread to agents; UNCLEAR_QUESTION one question. */
function handOver(tenant: TenantState, event: EventOf<'handover'>): void {
  const { code, seq, time, userIds, skillIds, unitIds } = event;
  const record = { code, seq, time, userIds, skillIds, unitIds };
  if (event.scope === 'thread') {
    const thread = threadOf(tenant, event.sessionId);
    if (thread) {
      thread.owner = 'agents';
      thread.handover = record;
    }
    return;
  }
  const question = questionOf(tenant, event.questionId);
  if (question) question.withAgents = record;
}

/** The thread given back to the bot, with every question of it that was with agents: off its agent, or out of the queue. */
function release(tenant: TenantState, event: EventOf<'released'>): void {
  const thread = tenant.threads.get(event.sessionId);
  if (thread === undefined) return;
  thread.owner = 'bot';
  thread.handover = null;
  for (const question of thread.questions.after(0)) {
    question.withAgents = null;
    question.agentId = null;
  }
  unassign(tenant, thread);
}

/** Every hand-over of a thread taken off its agent and out of the queue (a release, a thread forgotten). */
function unassign(tenant: TenantState, thread: ThreadState): void {
  thread.agentId = null;
  const ofThread = (assignment: { sessionId: string }) => assignment.sessionId === thread.sessionId;
  for (const agent of tenant.agents.values()) for (const [key, held] of agent.assigned) if (ofThread(held)) agent.assigned.delete(key);
  for (const [key, waiting] of tenant.queue) if (ofThread(waiting)) tenant.queue.delete(key);
}

/** A hand-over given to an agent: out of the queue (when it waited there), held by the agent. */
function routed(tenant: TenantState, event: EventOf<'handover.routed'>): void {
  const agent = tenant.agents.get(event.agentId);
  if (agent === undefined) throw new EventApplyError(event, `no agent ${event.agentId} in tenant '${tenant.name}'`);
  const { sessionId, scope, questionId } = event;
  const key = assignmentKey(sessionId, scope === 'thread' ? null : questionId);
  tenant.queue.delete(key);
  agent.assigned.set(key, { key, sessionId, scope, questionId: scope === 'thread' ? null : questionId, seq: event.seq });
  const thread = tenant.threads.get(sessionId);
  if (scope === 'thread') {
    if (thread) thread.agentId = event.agentId;
    return;
  }
  const question = questionOf(tenant, questionId);
  if (question) question.agentId = event.agentId;
}

/** A hand-over no agent can take now: into the queue, with the targets of its hand-over. */
function queued(tenant: TenantState, event: EventOf<'handover.queued'>): void {
  const { sessionId, scope, questionId } = event;
  const thread = tenant.threads.get(sessionId);
  const question = questionOf(tenant, questionId);
  const handover = scope === 'thread' ? thread?.handover : question?.withAgents;
  const targets = { userIds: handover?.userIds ?? [], skillIds: handover?.skillIds ?? [], unitIds: handover?.unitIds ?? [] };
  const key = assignmentKey(sessionId, scope === 'thread' ? null : questionId);
  tenant.queue.set(key, { key, sessionId, scope, questionId: scope === 'thread' ? null : questionId, seq: event.seq, targets });
}

function updateReason(tenant: TenantState, event: EventOf<'reason.updated'>): void {
  const reason = event.reason as Reason;
  const old = tenant.reasons.get(event.code);
  tenant.activeCount += (isActive(reason) ? 1 : 0) - (old !== undefined && isActive(old.reason) ? 1 : 0);
  tenant.reasons.set(event.code, { tenant: tenant.name, code: event.code, reason, updatedAt: event.time, requestId: event.requestId });
}

/** A tenant back to its start state but for its id counters ("" the sandbox-wide log): the reset event is the first of its fresh log. */
function reset(model: SandboxModel, old: TenantState): TenantState {
  if (old.name === '') return (model.sandboxWide = freshTenant('', []));
  for (const sessionId of old.threads.keys()) model.sessions.delete(sessionId);
  const tenant = freshTenant(old.name, model.config.seedReasons, model.config.largeIds, model.config.seedAgents);
  // The counters go on: an id handed out before the reset is never handed out again in this sandbox's life (nor,
  // through the state file, after a restart), so a bot's late answer to an old question meets a 404, not a new
  // customer's conversation.
  tenant.nextClientId = old.nextClientId;
  tenant.nextQuestionId = old.nextQuestionId;
  tenant.nextLargeQuestionId = old.nextLargeQuestionId;
  model.tenants.set(old.name, tenant);
  return tenant;
}

/** The kept thread an event names, if any. */
function threadOf(tenant: TenantState, sessionId: string | null): ThreadState | undefined {
  return sessionId === null ? undefined : tenant.threads.get(sessionId);
}

/** The kept question an event names, if any. */
function questionOf(tenant: TenantState, questionId: bigint | null): QuestionState | undefined {
  return questionId === null ? undefined : tenant.questions.get(questionId);
}

/** The kept client an event names by its coreClientId, if any. */
function clientOf(tenant: TenantState, event: SandboxEvent): ClientState | undefined {
  return 'coreClientId' in event && event.coreClientId !== null ? tenant.clients.get(event.coreClientId) : undefined;
}

/**
 * The event into its tenant's log and its thread's; its thread and client kept alive; its bytes
 * counted; then the oldest events past the bounds dropped.
 */
function keep(model: SandboxModel, tenant: TenantState, event: SandboxEvent, held: number): void {
  tenant.log.push(event);
  const thread = threadOf(tenant, event.sessionId);
  if (thread) {
    thread.log.push(event);
    thread.lastSeq = event.seq;
    thread.client.lastSeq = event.seq;
  }
  const client = clientOf(tenant, event);
  if (client) client.lastSeq = event.seq;
  const size = retainedBytes(event) + held;
  model.sizes.set(event, size);
  tenant.bytes += size;
  const { maxEvents, maxEventBytes } = model.config;
  while (tenant.log.length > maxEvents || (tenant.bytes > maxEventBytes && tenant.log.length > 1)) drop(model, tenant);
}

/** Drops the oldest event of a tenant, and whatever no kept event refers to any more (docs/sandbox.md, "Memory"). */
function drop(model: SandboxModel, tenant: TenantState): void {
  const event = tenant.log.shift();
  if (event === undefined) return;
  tenant.bytes -= model.sizes.get(event) ?? 0;
  const thread = threadOf(tenant, event.sessionId);
  if (thread) {
    while ((thread.log.first()?.seq ?? Infinity) <= event.seq) thread.log.shift();
    // A question goes with its customer message: the oldest kept, since the log drops in seq order.
    while ((thread.questions.first()?.seq ?? Infinity) <= event.seq) tenant.questions.delete(thread.questions.shift()!.questionId);
    if (thread.lastSeq <= event.seq) forgetThread(model, tenant, thread);
  }
  if (event.type === 'customer.message' && event.deliveryId !== null) tenant.deliveries.delete(event.deliveryId);
  for (const [answerId, seq] of tenant.answerIds) {
    if (seq > event.seq) break;
    tenant.answerIds.delete(answerId);
  }
  const client = clientOf(tenant, event);
  if (client && client.lastSeq <= event.seq) forgetClient(tenant, client);
}

function forgetThread(model: SandboxModel, tenant: TenantState, thread: ThreadState): void {
  // A thread forgotten frees its agent and leaves the queue: nothing can release it any more.
  unassign(tenant, thread);
  tenant.threads.delete(thread.sessionId);
  model.sessions.delete(thread.sessionId);
  // Its questions are gone already: each went with its customer message, none of which is after the thread's last event.
  if (thread.client.latest === thread) thread.client.latest = null;
  if (thread.client.lastSeq <= thread.lastSeq) forgetClient(tenant, thread.client);
}

/**
 * A client no kept event mentions. Its coreClientId is still its own: a client is forgotten only with the last
 * event of its threads, so no other can have taken the id while it was kept. Its clientId may have gone to a
 * client the tenant met since.
 */
function forgetClient(tenant: TenantState, client: ClientState): void {
  tenant.clients.delete(client.coreClientId);
  if (client.clientId !== null && tenant.clientsByExternalId.get(client.clientId) === client)
    tenant.clientsByExternalId.delete(client.clientId);
}
