import type { CheckLabel, SandboxEvent } from '../events.js';
import type { Assignment, Handover, LastBotMessage, QueuedHandover, ReasonRecord } from '../model.js';
import type { SandboxModel } from './apply.js';
import type { TenantState } from './tenant.js';

/**
 * The whole model as plain data, references between its records written as their identifiers
 * (a thread's client as its coreClientId, a question's thread as its sessionId) and every map in
 * its order: two models that give the same digest hold the same state. It is how a replay of the
 * event log is compared with the model it rebuilds (test/sandbox/store/replay.test.ts).
 */
export interface ModelDigest {
  lastSeq: number;
  sessions: [string, string][];
  tenants: TenantDigest[];
}

export interface TenantDigest {
  name: string;
  bytes: number;
  activeCount: number;
  nextClientId: bigint;
  nextQuestionId: bigint;
  nextLargeQuestionId: bigint;
  log: SandboxEvent[];
  clients: { coreClientId: bigint; clientId: string | null; lastSeq: number; latest: string | null }[];
  clientsByExternalId: [string, bigint][];
  threads: {
    sessionId: string;
    tenant: string;
    channel: string;
    subject: string | null;
    client: bigint;
    owner: string;
    handover: Handover | null;
    agentId: bigint | null;
    questions: bigint[];
    nextIndex: bigint;
    startedSeq: number;
    startedAt: string;
    lastSeq: number;
    log: number[];
    lastBotMessage: LastBotMessage | null;
    check: CheckLabel | null;
  }[];
  questions: {
    questionId: bigint;
    seq: number;
    questionIndex: bigint;
    type: string;
    thread: string;
    answered: boolean;
    withAgents: Handover | null;
    agentId: bigint | null;
  }[];
  answerIds: [string, number][];
  deliveries: {
    deliveryId: string;
    tenant: string;
    sessionId: string;
    questionId: bigint;
    body: string;
    seq: number;
    redeliveries: number;
    inFlight: boolean;
  }[];
  reasons: [string, ReasonRecord][];
  agents: {
    id: bigint;
    name: string;
    skills: bigint[];
    units: bigint[];
    status: string;
    reason: string | null;
    capacity: number;
    assigned: Assignment[];
  }[];
  queue: QueuedHandover[];
}

export function digestOf(model: SandboxModel): ModelDigest {
  return {
    lastSeq: model.lastSeq,
    sessions: [...model.sessions].map(([sessionId, tenant]) => [sessionId, tenant.name]),
    tenants: [...model.tenants.values(), model.sandboxWide].map(tenantDigest),
  };
}

function tenantDigest(tenant: TenantState): TenantDigest {
  return {
    name: tenant.name,
    bytes: tenant.bytes,
    activeCount: tenant.activeCount,
    nextClientId: tenant.nextClientId,
    nextQuestionId: tenant.nextQuestionId,
    nextLargeQuestionId: tenant.nextLargeQuestionId,
    log: [...tenant.log.after(0)],
    clients: [...tenant.clients.values()].map((client) => ({
      coreClientId: client.coreClientId,
      clientId: client.clientId,
      lastSeq: client.lastSeq,
      latest: client.latest?.sessionId ?? null,
    })),
    clientsByExternalId: [...tenant.clientsByExternalId].map(([clientId, client]) => [clientId, client.coreClientId]),
    threads: [...tenant.threads.values()].map((thread) => ({
      sessionId: thread.sessionId,
      tenant: thread.tenant,
      channel: thread.channel,
      subject: thread.subject,
      client: thread.client.coreClientId,
      owner: thread.owner,
      handover: thread.handover,
      agentId: thread.agentId,
      questions: [...thread.questions.after(0)].map((question) => question.questionId),
      nextIndex: thread.nextIndex,
      startedSeq: thread.startedSeq,
      startedAt: thread.startedAt,
      lastSeq: thread.lastSeq,
      log: [...thread.log.after(0)].map((event) => event.seq),
      lastBotMessage: thread.lastBotMessage,
      check: thread.check,
    })),
    questions: [...tenant.questions.values()].map((question) => ({
      questionId: question.questionId,
      seq: question.seq,
      questionIndex: question.questionIndex,
      type: question.type,
      thread: question.thread.sessionId,
      answered: question.answered,
      withAgents: question.withAgents,
      agentId: question.agentId,
    })),
    answerIds: [...tenant.answerIds],
    deliveries: [...tenant.deliveries.values()].map((delivery) => ({
      deliveryId: delivery.deliveryId,
      tenant: delivery.tenant,
      sessionId: delivery.sessionId,
      questionId: delivery.questionId,
      body: delivery.body.toString('utf8'),
      seq: delivery.seq,
      redeliveries: delivery.redeliveries,
      inFlight: delivery.inFlight,
    })),
    reasons: [...tenant.reasons],
    agents: [...tenant.agents.values()].map((agent) => ({
      id: agent.id,
      name: agent.name,
      skills: [...agent.skills],
      units: [...agent.units],
      status: agent.status,
      reason: agent.reason,
      capacity: agent.capacity,
      assigned: [...agent.assigned.values()],
    })),
    queue: [...tenant.queue.values()],
  };
}
