import type { Channel, CheckLabel, Owner, SandboxEvent } from '../events.js';
import type { Assignment, Handover, LastBotMessage, QueuedHandover, ReasonRecord } from '../model.js';
import { SeqQueue } from '../seq.js';
import { type ModelConfig, type SandboxModel, newModel } from './apply.js';
import { retainedBytes } from './bytes.js';
import { DELIVERY_OVERHEAD, newDelivery } from './delivery.js';
import { freshTenant, type ClientState, type QuestionState, type TenantState, type ThreadState } from './tenant.js';

/**
 * A model written down at one seq, so that a log can forget the events before it (compaction,
 * docs/sandbox.md, "State on disk"). A tenant keeps only its latest events; what the dropped ones
 * did (a thread they started, a reason they updated, the counters they moved on) is not in the kept
 * events, so the log cannot simply start at the first kept event. A checkpoint holds what the model
 * holds besides its events (`CheckpointState`); the kept events themselves follow it as ordinary
 * lines, and `restoreModel` puts them back in the logs without applying them again.
 */

/** What a tenant holds besides its events: everything the kept events do not say alone. */
export interface TenantCheckpoint {
  name: string;
  nextClientId: bigint;
  nextQuestionId: bigint;
  nextLargeQuestionId: bigint;
  activeCount: number;
  /** What events changed of the configured agents: status, reason, what each holds. */
  agents: { id: bigint; status: 'online' | 'away'; reason: string | null; assigned: Assignment[] }[];
  queue: QueuedHandover[];
  reasons: ReasonRecord[];
  clients: { coreClientId: bigint; clientId: string | null; lastSeq: number; latest: string | null }[];
  threads: {
    sessionId: string;
    channel: Channel;
    /** Absent in a checkpoint of a thread without a subject. */
    subject?: string | null;
    client: bigint;
    owner: Owner;
    handover: Handover | null;
    agentId: bigint | null;
    nextIndex: bigint;
    startedSeq: number;
    startedAt: string;
    lastSeq: number;
    lastBotMessage: LastBotMessage | null;
    /** Absent in a checkpoint of a thread no check of core check-bot labelled. */
    check?: CheckLabel | null;
  }[];
  /** The questions kept, by questionId, with what later events changed in them. */
  questions: { questionId: bigint; answered: boolean; withAgents: Handover | null; agentId: bigint | null }[];
  answerIds: [string, number][];
  deliveries: { deliveryId: string; redeliveries: number; inFlight: boolean }[];
}

export interface CheckpointState {
  lastSeq: number;
  tenants: TenantCheckpoint[];
  /** Every kept thread's sessionId, in the order the sandbox's index of them holds. */
  sessions: string[];
}

/** The model's state besides its events, and its kept events in seq order (every tenant's, merged). */
export function checkpointOf(model: SandboxModel): { state: CheckpointState; events: SandboxEvent[] } {
  const tenants = [...model.tenants.values(), model.sandboxWide];
  const events = tenants.flatMap((tenant) => [...tenant.log.after(0)]).sort((a, b) => a.seq - b.seq);
  return { state: { lastSeq: model.lastSeq, tenants: tenants.map(tenantCheckpoint), sessions: [...model.sessions.keys()] }, events };
}

function tenantCheckpoint(tenant: TenantState): TenantCheckpoint {
  return {
    name: tenant.name,
    nextClientId: tenant.nextClientId,
    nextQuestionId: tenant.nextQuestionId,
    nextLargeQuestionId: tenant.nextLargeQuestionId,
    activeCount: tenant.activeCount,
    agents: [...tenant.agents.values()].map((agent) => ({
      id: agent.id,
      status: agent.status,
      reason: agent.reason,
      assigned: [...agent.assigned.values()],
    })),
    queue: [...tenant.queue.values()],
    reasons: [...tenant.reasons.values()],
    clients: [...tenant.clients.values()].map((client) => ({
      coreClientId: client.coreClientId,
      clientId: client.clientId,
      lastSeq: client.lastSeq,
      latest: client.latest?.sessionId ?? null,
    })),
    threads: [...tenant.threads.values()].map((thread) => ({
      sessionId: thread.sessionId,
      channel: thread.channel,
      ...(thread.subject === null ? {} : { subject: thread.subject }),
      client: thread.client.coreClientId,
      owner: thread.owner,
      handover: thread.handover,
      agentId: thread.agentId,
      nextIndex: thread.nextIndex,
      startedSeq: thread.startedSeq,
      startedAt: thread.startedAt,
      lastSeq: thread.lastSeq,
      lastBotMessage: thread.lastBotMessage,
      ...(thread.check === null ? {} : { check: thread.check }),
    })),
    questions: [...tenant.questions.values()].map((question) => ({
      questionId: question.questionId,
      answered: question.answered,
      withAgents: question.withAgents,
      agentId: question.agentId,
    })),
    answerIds: [...tenant.answerIds],
    deliveries: [...tenant.deliveries.values()].map((delivery) => ({
      deliveryId: delivery.deliveryId,
      redeliveries: delivery.redeliveries,
      inFlight: delivery.inFlight,
    })),
  };
}

/** A checkpoint that does not fit the model it is restored into (a tenant not served, a record naming what is absent). */
export class CheckpointError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CheckpointError';
  }
}

/**
 * The model a checkpoint and its kept events (seq order, none after the checkpoint's seq) describe:
 * the same state as the model it was taken from (test/sandbox/store/checkpoint.test.ts). A tenant of
 * the checkpoint that `config` no longer serves is left out, with its threads.
 */
export function restoreModel(config: ModelConfig, state: CheckpointState, events: readonly SandboxEvent[]): SandboxModel {
  const model = newModel(config);
  const byName = new Map<string, TenantState>();
  for (const saved of state.tenants) {
    const tenant =
      saved.name === ''
        ? freshTenant('', [])
        : model.tenants.has(saved.name)
          ? freshTenant(saved.name, [], config.largeIds, config.seedAgents)
          : undefined;
    if (tenant === undefined) continue;
    restoreTenant(model, tenant, saved);
    if (saved.name === '') model.sandboxWide = tenant;
    else model.tenants.set(saved.name, tenant);
    byName.set(saved.name, tenant);
  }
  for (const event of events) {
    if (event.seq > state.lastSeq) throw new CheckpointError(`event ${event.seq} comes after the checkpoint's seq ${state.lastSeq}`);
    const tenant = byName.get(event.tenant);
    if (tenant === undefined) continue;
    tenant.log.push(event);
    const thread = event.sessionId === null ? undefined : tenant.threads.get(event.sessionId);
    if (thread && event.seq >= thread.startedSeq) thread.log.push(event);
    let held = 0;
    if (event.type === 'customer.message') {
      const saved = tenant.questions.get(event.questionId);
      if (thread && saved?.seq === -1) {
        const question: QuestionState = {
          seq: event.seq,
          questionId: event.questionId,
          questionIndex: event.questionIndex,
          type: event.questionType,
          thread,
          answered: saved.answered,
          withAgents: saved.withAgents,
          agentId: saved.agentId,
        };
        tenant.questions.set(event.questionId, question);
        thread.questions.push(question);
      }
      const delivery = event.deliveryId === null ? undefined : tenant.deliveries.get(event.deliveryId);
      if (delivery && event.deliveryId !== null) {
        const made = newDelivery({ ...event, deliveryId: event.deliveryId });
        made.redeliveries = delivery.redeliveries;
        made.inFlight = delivery.inFlight;
        tenant.deliveries.set(event.deliveryId, made);
        held = made.body.byteLength + DELIVERY_OVERHEAD;
      }
    }
    const size = retainedBytes(event) + held;
    model.sizes.set(event, size);
    tenant.bytes += size;
  }
  // A question or delivery the checkpoint names whose event is not among the kept ones is not kept.
  for (const tenant of byName.values()) {
    for (const [questionId, question] of tenant.questions) if (question.seq === -1) tenant.questions.delete(questionId);
    for (const [deliveryId, delivery] of tenant.deliveries) if (delivery.seq === -1) tenant.deliveries.delete(deliveryId);
  }
  // The index of threads by sessionId, in its order.
  const sessions = new Map(model.sessions);
  model.sessions.clear();
  for (const sessionId of state.sessions) {
    const tenant = sessions.get(sessionId);
    if (tenant !== undefined) model.sessions.set(sessionId, tenant);
  }
  for (const [sessionId, tenant] of sessions) if (!model.sessions.has(sessionId)) model.sessions.set(sessionId, tenant);
  model.lastSeq = state.lastSeq;
  return model;
}

/** A tenant's records from its checkpoint; questions and deliveries get their seq and body from their events. */
function restoreTenant(model: SandboxModel, tenant: TenantState, saved: TenantCheckpoint): void {
  tenant.nextClientId = saved.nextClientId;
  tenant.nextQuestionId = saved.nextQuestionId;
  tenant.nextLargeQuestionId = saved.nextLargeQuestionId;
  tenant.activeCount = saved.activeCount;
  for (const each of saved.agents) {
    const agent = tenant.agents.get(each.id);
    if (agent === undefined) continue; // no longer configured (--agents changed)
    agent.status = each.status;
    agent.reason = each.reason;
    agent.assigned.clear();
    for (const assignment of each.assigned) agent.assigned.set(assignment.key, assignment);
  }
  tenant.queue.clear();
  for (const queued of saved.queue) tenant.queue.set(queued.key, queued);
  tenant.reasons.clear();
  for (const record of saved.reasons) tenant.reasons.set(record.code, record);
  const latest = new Map<ClientState, string>();
  for (const each of saved.clients) {
    const client: ClientState = { coreClientId: each.coreClientId, clientId: each.clientId, lastSeq: each.lastSeq, latest: null };
    tenant.clients.set(client.coreClientId, client);
    if (client.clientId !== null) tenant.clientsByExternalId.set(client.clientId, client);
    if (each.latest !== null) latest.set(client, each.latest);
  }
  for (const each of saved.threads) {
    const client = tenant.clients.get(each.client);
    if (client === undefined)
      throw new CheckpointError(`thread '${each.sessionId}' names client ${each.client}, which the checkpoint lacks`);
    const thread: ThreadState = {
      tenant: tenant.name,
      sessionId: each.sessionId,
      channel: each.channel,
      subject: each.subject ?? null,
      client,
      owner: each.owner,
      handover: each.handover,
      agentId: each.agentId,
      questions: new SeqQueue(),
      nextIndex: each.nextIndex,
      startedSeq: each.startedSeq,
      startedAt: each.startedAt,
      lastSeq: each.lastSeq,
      log: new SeqQueue(),
      lastBotMessage: each.lastBotMessage,
      check: each.check ?? null,
    };
    tenant.threads.set(thread.sessionId, thread);
    model.sessions.set(thread.sessionId, tenant);
  }
  for (const [client, sessionId] of latest) client.latest = tenant.threads.get(sessionId) ?? null;
  for (const [answerId, seq] of saved.answerIds) tenant.answerIds.set(answerId, seq);
  // Placeholders (seq -1) until the kept events give each its thread, seq and body.
  for (const each of saved.questions) tenant.questions.set(each.questionId, placeholderQuestion(each));
  for (const each of saved.deliveries) {
    tenant.deliveries.set(each.deliveryId, {
      deliveryId: each.deliveryId,
      tenant: tenant.name,
      sessionId: '',
      questionId: 0n,
      body: Buffer.alloc(0),
      seq: -1,
      redeliveries: each.redeliveries,
      inFlight: each.inFlight,
    });
  }
}

const placeholderQuestion = (saved: TenantCheckpoint['questions'][number]): QuestionState =>
  ({
    seq: -1,
    questionId: saved.questionId,
    answered: saved.answered,
    withAgents: saved.withAgents,
    agentId: saved.agentId,
  }) as QuestionState;
