import type { Reason } from '../../payload/index.js';
import type { CheckLabel, Owner, SandboxEvent } from '../events.js';
import type {
  Agent,
  AgentSeed,
  Assignment,
  Client,
  Delivery,
  Handover,
  KeptTenant,
  LastBotMessage,
  Question,
  QueuedHandover,
  ReasonRecord,
  Thread,
} from '../model.js';
import { firstIdsOf } from '../model.js';
import { isActive } from '../seed.js';
import { SeqQueue } from '../seq.js';

/**
 * What the store keeps of one tenant, in the shapes only the store writes: the read-only shapes of
 * src/sandbox/model.ts with their fields writable. Nothing outside src/sandbox/store/ imports this
 * module (.dependency-cruiser.cjs, "only-the-store-changes-the-model"): the rest of the sandbox gets
 * the read-only shapes, and the one function that writes them is `applyEvent` (apply.ts).
 */

export interface ClientState extends Client {
  clientId: string | null;
  lastSeq: number;
  latest: ThreadState | null;
}

export interface QuestionState extends Question {
  readonly thread: ThreadState;
  answered: boolean;
  withAgents: Handover | null;
  agentId: bigint | null;
}

export interface AgentState extends Agent {
  status: 'online' | 'away';
  reason: string | null;
  readonly assigned: Map<string, Assignment>;
}

export interface ThreadState extends Thread {
  readonly client: ClientState;
  owner: Owner;
  handover: Handover | null;
  agentId: bigint | null;
  readonly questions: SeqQueue<QuestionState>;
  nextIndex: bigint;
  lastSeq: number;
  readonly log: SeqQueue<SandboxEvent>;
  lastBotMessage: LastBotMessage | null;
  check: CheckLabel | null;
}

export interface DeliveryState extends Delivery {
  redeliveries: number;
  inFlight: boolean;
}

/**
 * One tenant's memory: its event log and everything the log's events mention. Nothing is shared
 * between tenants (docs/api.md, "What the service does": every request belongs to one tenant).
 */
export interface TenantState extends KeptTenant {
  readonly log: SeqQueue<SandboxEvent>;
  bytes: number;
  readonly clients: Map<bigint, ClientState>;
  readonly clientsByExternalId: Map<string, ClientState>;
  readonly threads: Map<string, ThreadState>;
  readonly questions: Map<bigint, QuestionState>;
  readonly answerIds: Map<string, number>;
  readonly deliveries: Map<string, DeliveryState>;
  readonly reasons: Map<string, ReasonRecord>;
  activeCount: number;
  readonly agents: Map<bigint, AgentState>;
  readonly queue: Map<string, QueuedHandover>;
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

/** A tenant as it starts: no events, clients or threads, its own copy of the seed reasons, the agents as configured. */
export function freshTenant(
  name: string,
  seedReasons: readonly Reason[],
  largeIds = false,
  seedAgents: readonly AgentSeed[] = [],
): TenantState {
  const first = firstIdsOf(largeIds);
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
    agents: new Map(
      seedAgents.map((seed) => [seed.id, { ...seed, skills: [...seed.skills], units: [...seed.units], assigned: new Map() }]),
    ),
    queue: new Map(),
    nextClientId: first.coreClientId,
    nextQuestionId: first.questionId,
    nextLargeQuestionId: LARGE_QUESTION_IDS.first,
  };
}
