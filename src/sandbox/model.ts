import type { Reason } from '../payload/index.js';
import type { Channel, CheckLabel, JsonRead, Owner, QuestionType, SandboxEvent } from './events.js';
import type { ReadonlySeqQueue } from './seq.js';

/**
 * The shapes of what the sandbox keeps per tenant (docs/sandbox.md, "State"): clients, threads,
 * their questions, deliveries and reasons. Types only, and read-only: the store (src/sandbox/store/)
 * holds them and changes them in one place, by applying events (src/sandbox/store/apply.ts); the
 * rules (src/sandbox/rules/) read them through a TenantView, decide, and return the events.
 */

/** The identifiers the sandbox makes start here, in ranges apart, so a bot that mixes them up meets a 404. */
export const firstIds = { coreClientId: 1001n, questionId: 5001n } as const;

/**
 * 2^53: past it a double cannot hold every integer, so `JSON.parse` rounds an identifier (9007199254740993
 * reads as 9007199254740992). `--large-ids` starts the identifiers this far up, and the probe of
 * `ids.precision` asks a question this far above the tenant's next one (docs/check-bot.md).
 */
export const LARGE_ID_OFFSET = 2n ** 53n;

/** Where the identifiers start: the ones above, or with `largeIds` the same 2^53 further up. */
export function firstIdsOf(largeIds: boolean): { coreClientId: bigint; questionId: bigint } {
  return largeIds
    ? { coreClientId: firstIds.coreClientId + LARGE_ID_OFFSET, questionId: firstIds.questionId + LARGE_ID_OFFSET }
    : { ...firstIds };
}

export { maxCustomerText } from './limits.js';

/** The hand-over of a thread (SWITCH_TO_HUMAN) or of a question (UNCLEAR_QUESTION) and its targets. */
export interface Handover {
  code: 'SWITCH_TO_HUMAN' | 'UNCLEAR_QUESTION';
  seq: number;
  time: string;
  userIds: bigint[];
  skillIds: bigint[];
  unitIds: bigint[];
}

/** The bot's last delivered message in a thread: what the customer can press or pick. */
export interface LastBotMessage {
  seq: number;
  quickReplies: Record<string, unknown>[];
  messageListPicker: Record<string, unknown> | null;
  /** List pickers are shown on IM threads only (docs/api.md, list rule 1). */
  listShown: boolean;
}

export interface Client {
  readonly coreClientId: bigint;
  readonly clientId: string | null;
  /** The seq of the last event of this client or any of its threads; it is forgotten once that event is dropped. */
  readonly lastSeq: number;
  /** Where an answer addressed by client goes: the client's most recent thread still kept. */
  readonly latest: Thread | null;
}

/** Where a hand-over is held: a thread (SWITCH_TO_HUMAN) or one question of it (UNCLEAR_QUESTION). */
export interface Assignment {
  /** The thread's sessionId for a thread, `sessionId/questionId` for a question (`assignmentKey`). */
  readonly key: string;
  readonly sessionId: string;
  readonly scope: 'thread' | 'question';
  readonly questionId: bigint | null;
  /** The seq of the hand-over event. */
  readonly seq: number;
}

/** A hand-over waiting in the queue, with the targets it is routed by. */
export interface QueuedHandover extends Assignment {
  readonly targets: Targets;
}

/** The targets of a hand-over (the reply's userIds, skillIds and unitIds). */
export interface Targets {
  readonly userIds: readonly bigint[];
  readonly skillIds: readonly bigint[];
  readonly unitIds: readonly bigint[];
}

/** The key of an assignment: one per thread, one per question handed over. */
export const assignmentKey = (sessionId: string, questionId: bigint | null): string =>
  questionId === null ? sessionId : `${sessionId}/${questionId}`;

/** An agent of a tenant (docs/sandbox.md, "Agents"). */
export interface Agent {
  readonly id: bigint;
  readonly name: string;
  readonly skills: readonly bigint[];
  readonly units: readonly bigint[];
  readonly status: 'online' | 'away';
  /** The inactivity reason's code while away; null while online. */
  readonly reason: string | null;
  /** How many hand-overs (threads and questions) the agent holds at once. */
  readonly capacity: number;
  /** What the agent holds now, by assignment key, in the order routed. */
  readonly assigned: ReadonlyMap<string, Assignment>;
}

/** An agent as configured (`core sandbox --agents FILE`, docs/sandbox.md, "Agents"): how every tenant starts. */
export interface AgentSeed {
  readonly id: bigint;
  readonly name: string;
  readonly skills: readonly bigint[];
  readonly units: readonly bigint[];
  readonly capacity: number;
  readonly status: 'online' | 'away';
  readonly reason: string | null;
}

export interface Question {
  /** The seq of the customer message that asked it. */
  readonly seq: number;
  readonly questionId: bigint;
  readonly questionIndex: bigint;
  readonly type: QuestionType;
  readonly thread: Thread;
  readonly answered: boolean;
  readonly withAgents: Handover | null;
  /** The agent the question was routed to; null while queued or with the bot. */
  readonly agentId: bigint | null;
}

export interface Thread {
  readonly tenant: string;
  readonly sessionId: string;
  readonly channel: Channel;
  /** The subject of an EMAIL thread, when one was given (a seed's); null otherwise. */
  readonly subject: string | null;
  readonly client: Client;
  readonly owner: Owner;
  readonly handover: Handover | null;
  /** The agent the thread was routed to (SWITCH_TO_HUMAN); null while queued or with the bot. */
  readonly agentId: bigint | null;
  readonly questions: ReadonlySeqQueue<Question>;
  /** The questionIndex of the thread's next question. */
  readonly nextIndex: bigint;
  readonly startedSeq: number;
  readonly startedAt: string;
  readonly lastSeq: number;
  readonly log: ReadonlySeqQueue<SandboxEvent>;
  readonly lastBotMessage: LastBotMessage | null;
  /** The check of core check-bot the thread plays, as the latest probe.check event said; null for any other thread. */
  readonly check: CheckLabel | null;
}

/** A MESSAGE webhook to send: the exact bytes, kept for retries and redelivery. */
export interface Delivery {
  readonly deliveryId: string;
  readonly tenant: string;
  readonly sessionId: string;
  readonly questionId: bigint;
  readonly body: Buffer;
  /** The seq of the customer message; the delivery is forgotten with it. */
  readonly seq: number;
  /** The redeliveries asked for so far (webhook.redelivery events): the series its next attempts belong to. */
  readonly redeliveries: number;
  /** From the customer message or a redelivery until an attempt that is not followed by another (delivered or failed). */
  readonly inFlight: boolean;
}

export interface ReasonRecord {
  readonly tenant: string;
  readonly code: string;
  readonly reason: Reason;
  /** null while the reason is as seeded. */
  readonly updatedAt: string | null;
  /** The X-Request-Id of the last update; null while the reason is as seeded. */
  readonly requestId: string | null;
}

/** What the state says about a thread: the summary GET /_sandbox/conversations lists. */
export interface ConversationView {
  tenant: string;
  sessionId: string;
  channel: Channel;
  /** The subject of an EMAIL thread, when one was given (a seed's); null otherwise. */
  subject: string | null;
  coreClientId: bigint;
  clientId: string | null;
  owner: Owner;
  handover: Handover | null;
  /**
   * Who has the thread now: the bot, an agent (`agentId`), or the queue (handed over, no agent
   * yet). A question passed with UNCLEAR_QUESTION leaves the thread with the bot.
   */
  holder: 'bot' | 'agent' | 'queue';
  agentId: bigint | null;
  /** Questions handed to agents with UNCLEAR_QUESTION, by questionIndex. */
  questionsWithAgents: bigint[];
  questions: number;
  startedSeq: number;
  startedAt: string;
  lastSeq: number;
  lastBotMessage: LastBotMessage | null;
  /** The check of core check-bot the conversation plays (its id, its verdict once known); null for any other. */
  check: CheckLabel | null;
}

/** A conversation's summary as the page reads it (src/sandbox/page/json.js: identifiers number or BigInt). */
export type PageConversation = JsonRead<ConversationView, number | bigint>;

/** A reason record as the page reads it. */
export type PageReasonRecord = JsonRead<ReasonRecord, number | bigint>;

/**
 * What a rule may read of one tenant: the store's maps, read-only. The store's tenant record has
 * these fields (and more); a rule's unit test builds one from plain maps.
 */
export interface TenantView {
  readonly name: string;
  readonly clients: ReadonlyMap<bigint, Client>;
  readonly clientsByExternalId: ReadonlyMap<string, Client>;
  readonly threads: ReadonlyMap<string, Thread>;
  readonly questions: ReadonlyMap<bigint, Question>;
  /** answerIds of delivered answers (chatbot rule 6), with the seq of the answer that claimed each. */
  readonly answerIds: ReadonlyMap<string, number>;
  /** The MESSAGE webhooks kept, by deliveryId. */
  readonly deliveries: ReadonlyMap<string, Delivery>;
  readonly reasons: ReadonlyMap<string, ReasonRecord>;
  /** How many of `reasons` are active. */
  readonly activeCount: number;
  /** The tenant's agents, by id, in the order they were configured. */
  readonly agents: ReadonlyMap<bigint, Agent>;
  /** Hand-overs waiting for an agent, by assignment key, oldest first. */
  readonly queue: ReadonlyMap<string, QueuedHandover>;
  /** Where the next coreClientId the sandbox makes is looked for: the first one from here no client has. */
  readonly nextClientId: bigint;
  /** The questionId of the tenant's next question. */
  readonly nextQuestionId: bigint;
  /** The questionId of the tenant's next question asked above 2^53 (a probe's `largeIds`, src/sandbox/probe.ts). */
  readonly nextLargeQuestionId: bigint;
}

/** A tenant as the readers see it (listings, sizes): its view, its event log and the bytes that log holds. */
export interface KeptTenant extends TenantView {
  readonly log: ReadonlySeqQueue<SandboxEvent>;
  /** What the kept events hold, in bytes (src/sandbox/store/bytes.ts), against maxEventBytes. */
  readonly bytes: number;
}

/**
 * The identifiers a rule draws at random (src/sandbox/random.ts), handed to it by the store: a
 * sessionId no kept thread of the sandbox has, a deliveryId no kept delivery of the tenant has.
 * The counted ones (coreClientId, questionId) a rule reads from the view.
 */
export interface RandomIds {
  sessionId(): string;
  deliveryId(): string;
}

// The fields of a bot answer the rules read; a structural view so the rules state their needs.
export interface ReplyFields {
  answerId?: string | null | undefined;
  clientId?: string | null | undefined;
  coreClientId?: bigint | null | undefined;
  questionId?: bigint | null | undefined;
  sessionId?: string | null | undefined;
  questionIndex?: bigint | null | undefined;
  code?: string | null | undefined;
  userIds?: Iterable<bigint> | null | undefined;
  skillIds?: Iterable<bigint> | null | undefined;
  unitIds?: Iterable<bigint> | null | undefined;
}
