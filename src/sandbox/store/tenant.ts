import type { Reason } from '../../payload/index.js';
import { SeqQueue, type SandboxEvent } from '../events.js';
import { firstIds, type Client, type Delivery, type Question, type ReasonRecord, type TenantView, type Thread } from '../model.js';
import { isActive } from '../seed.js';

/**
 * One tenant's memory: its event log and everything the log's events mention. Nothing is shared
 * between tenants (docs/api.md, "What the service does": every request belongs to one tenant).
 * The rules read it as a TenantView; only the store changes it.
 */
export interface TenantStore extends TenantView {
  readonly log: SeqQueue<SandboxEvent>;
  /** What the kept events hold, in bytes (src/sandbox/store/bytes.ts), against maxEventBytes. */
  bytes: number;
  readonly clients: Map<bigint, Client>;
  readonly clientsByExternalId: Map<string, Client>;
  readonly threads: Map<string, Thread>;
  readonly questions: Map<bigint, Question>;
  readonly answerIds: Map<string, number>;
  readonly deliveries: Map<string, Delivery>;
  readonly reasons: Map<string, ReasonRecord>;
  activeCount: number;
  nextClientId: bigint;
  nextQuestionId: bigint;
  /** The next questionId above 2^53 a probe may ask for (src/sandbox/probe.ts, `largeIds`). */
  nextLargeQuestionId: bigint;
}

/**
 * The first questionId above 2^53 a probe's `largeIds` takes, and the step to the next: 2^53 + 1 + 4k
 * is odd (no double holds it) and rounds to 2^53 + 4k, which no other such id rounds to and no question
 * has, so an answer naming a rounded id names no question.
 */
export const LARGE_QUESTION_IDS = { first: 2n ** 53n + 1n, step: 4n } as const;

/** A tenant as it starts: no events, clients or threads, and its own copy of the seed reasons. */
export function freshTenant(name: string, seedReasons: readonly Reason[]): TenantStore {
  const reasons = new Map<string, ReasonRecord>();
  for (const reason of seedReasons) {
    // A copy per tenant, so an update in one tenant can never show in another.
    reasons.set(reason.code, { tenant: name, code: reason.code, reason: structuredClone(reason), updatedAt: null, requestId: null });
  }
  let activeCount = 0;
  for (const record of reasons.values()) if (isActive(record.reason)) activeCount += 1;
  return {
    name,
    log: new SeqQueue(),
    bytes: 0,
    clients: new Map(),
    clientsByExternalId: new Map(),
    threads: new Map(),
    questions: new Map(),
    answerIds: new Map(),
    deliveries: new Map(),
    reasons,
    activeCount,
    nextClientId: firstIds.coreClientId,
    nextQuestionId: firstIds.questionId,
    nextLargeQuestionId: LARGE_QUESTION_IDS.first,
  };
}

/** Where the tenant forgets what no kept event mentions once `event`, its oldest, is dropped (docs/sandbox.md, "Memory"). */
export function forgetWith(tenant: TenantStore, event: SandboxEvent, forgetThread: (thread: Thread) => void): void {
  const thread = event.sessionId === null ? undefined : tenant.threads.get(event.sessionId);
  if (thread) {
    while ((thread.log.first()?.seq ?? Infinity) <= event.seq) thread.log.shift();
    if (event.type === 'customer.message') {
      while ((thread.questions.first()?.seq ?? Infinity) <= event.seq) {
        const question = thread.questions.shift();
        if (question) tenant.questions.delete(question.questionId);
      }
    }
    if (thread.lastSeq <= event.seq) forgetThread(thread);
  }
  if (event.type === 'customer.message' && event.deliveryId !== null) tenant.deliveries.delete(event.deliveryId);
  for (const [answerId, seq] of tenant.answerIds) {
    if (seq > event.seq) break;
    tenant.answerIds.delete(answerId);
  }
  if ('coreClientId' in event && event.coreClientId !== null) {
    const client = tenant.clients.get(event.coreClientId);
    if (client && client.lastSeq <= event.seq) forgetClient(tenant, client);
  }
}

export function forgetClient(tenant: TenantStore, client: Client): void {
  if (tenant.clients.get(client.coreClientId) === client) tenant.clients.delete(client.coreClientId);
  if (client.clientId !== null && tenant.clientsByExternalId.get(client.clientId) === client)
    tenant.clientsByExternalId.delete(client.clientId);
}
