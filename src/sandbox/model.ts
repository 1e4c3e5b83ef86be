import type { Reason } from '../payload/index.js';
import type { Channel, JsonRead, Owner, QuestionType, SandboxEvent } from './events.js';
import type { ReadonlySeqQueue } from './seq.js';

/**
 * The shapes of what the sandbox keeps per tenant (docs/sandbox.md, "State"): clients, threads,
 * their questions, deliveries and reasons. Types only, and read-only: the store (src/sandbox/store/)
 * holds them and changes them in one place, by applying events (src/sandbox/store/apply.ts); the
 * rules (src/sandbox/rules/) read them through a TenantView, decide, and return the events.
 */

/** The identifiers the sandbox makes start here, in ranges apart, so a bot that mixes them up meets a 404. */
export const firstIds = { coreClientId: 1001n, questionId: 5001n } as const;

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

export interface Question {
  /** The seq of the customer message that asked it. */
  readonly seq: number;
  readonly questionId: bigint;
  readonly questionIndex: bigint;
  readonly type: QuestionType;
  readonly thread: Thread;
  readonly answered: boolean;
  readonly withAgents: Handover | null;
}

export interface Thread {
  readonly tenant: string;
  readonly sessionId: string;
  readonly channel: Channel;
  readonly client: Client;
  readonly owner: Owner;
  readonly handover: Handover | null;
  readonly questions: ReadonlySeqQueue<Question>;
  /** The questionIndex of the thread's next question. */
  readonly nextIndex: bigint;
  readonly startedSeq: number;
  readonly startedAt: string;
  readonly lastSeq: number;
  readonly log: ReadonlySeqQueue<SandboxEvent>;
  readonly lastBotMessage: LastBotMessage | null;
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
  coreClientId: bigint;
  clientId: string | null;
  owner: Owner;
  handover: Handover | null;
  /** Questions handed to agents with UNCLEAR_QUESTION, by questionIndex. */
  questionsWithAgents: bigint[];
  questions: number;
  startedSeq: number;
  startedAt: string;
  lastSeq: number;
  lastBotMessage: LastBotMessage | null;
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
