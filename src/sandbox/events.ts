import type { Problem } from '../errors.js';
import type { Channel } from '../payload/channels.js';
import type { Craft } from './page/crafts.js';
import { isRefusal } from './page/refusal.js';

export { CHANNELS, type Channel } from '../payload/channels.js';
export { CRAFTS, type Craft } from './page/crafts.js';
export { isRefusal };

/**
 * The sandbox's event: everything that happens in a tenant, in order, as the store applies it
 * (src/sandbox/store/apply.ts) and as the page, `core customer`, `core test`, `core check-bot`, the
 * library and GET /_sandbox/events read it. Every event has a `seq` (increasing across all tenants,
 * never reused), its `tenant`, the `sessionId` of its thread (null when it belongs to none), its
 * `time` and a `type`; the rest depends on the type. The shapes are the sandbox's own
 * (docs/sandbox.md, "Events"), since the API shows none (docs/api.md, gap 5 and gap 8).
 *
 * This is the one type of an event. Its JSON form (one object, identifiers exact) is written and read
 * by src/sandbox/event-json.ts; the page reads the same JSON as `PageEvent`, checked against
 * these types through JSDoc (tsconfig.page.json).
 */

export type QuestionType = 'TEXT' | 'EMAIL';
export type Owner = 'bot' | 'agents';

interface EventBase {
  seq: number;
  tenant: string;
  sessionId: string | null;
  /** When it happened, ISO 8601 UTC with milliseconds. */
  time: string;
}

/** Why a bot answer or greeting was not delivered to the customer. */
export const notDeliveredReasons = {
  duplicateAnswerId: 'duplicate answerId',
  strictDuplicate: 'question already answered (strict mode)',
  threadWithAgents: 'thread with agents',
  questionWithAgents: 'question with agents',
  unknownQuestion: 'unknown question',
  emailAddressing: 'EMAIL question not addressed by sessionId and questionIndex',
  conflictingAddress: 'the answer names two different questions',
} as const;
export type NotDelivered = (typeof notDeliveredReasons)[keyof typeof notDeliveredReasons];

export interface ConversationStartedEvent extends EventBase {
  type: 'conversation.started';
  sessionId: string;
  channel: Channel;
  coreClientId: bigint;
  clientId: string | null;
  /** What opened the thread: the customer's side, a bot answer addressed by client, or a greeting. */
  by: 'customer' | 'reply' | 'greeting';
  /** The subject of an EMAIL thread, when one was given (a seed's); absent otherwise. */
  subject?: string;
}

export interface CustomerMessageEvent extends EventBase {
  type: 'customer.message';
  sessionId: string;
  channel: Channel;
  coreClientId: bigint;
  clientId: string | null;
  questionId: bigint;
  questionIndex: bigint;
  questionType: QuestionType;
  text: string;
  /** The button pressed, as the bot sent it; null for a typed message or a list pick. */
  quickReply: Record<string, unknown> | null;
  listItem: { identifier: string; title: string } | null;
  /** The MESSAGE webhook's delivery id; null when no webhook was sent (see `noWebhook`). */
  deliveryId: string | null;
  /** Why no webhook was sent: no bot connected, or the thread is with agents. */
  noWebhook: string | null;
}

/**
 * A MESSAGE webhook delivery that was in flight (an attempt sent to the bot, its answer not yet come)
 * when a request was refused: the exchange the refusal may belong to.
 */
export interface DeliveryInFlight {
  sessionId: string;
  questionId: bigint;
  deliveryId: string;
}

/** What a bot answer and a greeting have in common: the record GET /_sandbox/messages lists. */
interface MessageFields {
  /** The X-Request-Id of the sandbox's answer to the request. */
  requestId: string;
  /** The HTTP status the sandbox answered. */
  status: number;
  /** The message of the Error body when the status is not 200. */
  error: string | null;
  answerId: string | null;
  /**
   * How the message was addressed. A reply lists every way it carries, in the order of
   * docs/api.md, addressing rule 1; a greeting names the one identifier used (greet rule 3).
   */
  addressedBy: string[];
  delivered: boolean;
  notDelivered: NotDelivered | null;
  /** A reply to a question that already had a bot answer (chatbot rule 7), whatever the mode did with it. */
  questionAlreadyAnswered: boolean;
  /** The client the message went to; null when it found none. */
  coreClientId: bigint | null;
  /** What the schema warned about, and where the message broke a rule of the thread's channel. */
  warnings: Problem[];
  /** The request body exactly as received, identifiers as bigint. */
  body: unknown;
  /** The request's User-Agent (its first 200 characters): who sent it, where the sender says; null without one. */
  userAgent: string | null;
  /** For a refusal its body ties to no conversation: the deliveries in flight when it came (`duringDelivery`); else empty. */
  during: DeliveryInFlight[];
}

export interface BotAnswerEvent extends EventBase, MessageFields {
  type: 'bot.answer';
  kind: 'reply';
  /** The question answered: named by the reply, or none for a reply addressed by client. */
  questionId: bigint | null;
  questionIndex: bigint | null;
  /**
   * The reply's formattedText as safe HTML (src/markdown/safe-html.ts), written once when the answer
   * is recorded, for the page; null when the reply has no formattedText.
   */
  formattedHtml: string | null;
}

export interface GreetingEvent extends EventBase, MessageFields {
  type: 'greeting';
  kind: 'greeting';
}

export interface HandoverEvent extends EventBase {
  type: 'handover';
  /** SWITCH_TO_HUMAN hands over the thread, UNCLEAR_QUESTION one question. */
  scope: 'thread' | 'question';
  code: 'SWITCH_TO_HUMAN' | 'UNCLEAR_QUESTION';
  questionId: bigint | null;
  questionIndex: bigint | null;
  userIds: bigint[];
  skillIds: bigint[];
  unitIds: bigint[];
  /** The request of the answer that handed over. */
  requestId: string;
}

export interface ReleasedEvent extends EventBase {
  type: 'released';
  sessionId: string;
  /** How many questions handed over with UNCLEAR_QUESTION came back with the thread. */
  questions: number;
  /** Whether the thread itself was with agents. */
  thread: boolean;
}

/**
 * A delivery sent again (POST /_sandbox/deliveries/{deliveryId}/redeliver, or a probe's replay): a
 * new series of attempts under the same webhook-id, whose attempts follow.
 */
export interface WebhookRedeliveryEvent extends EventBase {
  type: 'webhook.redelivery';
  sessionId: string;
  deliveryId: string;
  questionId: bigint;
  /** 1 for the first redelivery, 2 for the second, ...: the `redelivery` of the attempts that follow. */
  redelivery: number;
}

export interface WebhookAttemptEvent extends EventBase {
  type: 'webhook.attempt';
  deliveryId: string;
  questionId: bigint;
  /** 1 for the first attempt of a series, 2 for its first retry, ... */
  attempt: number;
  /** 0 for the first series, 1 for the first redelivery, ... */
  redelivery: number;
  url: string;
  /** The bot's status; null when no answer came (timeout, network failure). */
  status: number | null;
  /** What went wrong, for a failure: "timeout after 10000 ms", "ECONNREFUSED", "redirect to ... not followed". */
  error: string | null;
  /** From sending the request to the answer's status (or the failure). */
  latencyMs: number;
  /** The first 2 KB of the bot's answer body, as text. */
  body: string;
  /** Whether the bot sent more than was kept (the connection was then closed). */
  bodyTruncated: boolean;
  /** delivered (2xx), retrying (another attempt follows) or failed (the last attempt failed). */
  outcome: 'delivered' | 'retrying' | 'failed';
  /** When retrying: how long until the next attempt, and whether Retry-After set it. */
  retryInMs: number | null;
  retryAfter: boolean;
  /**
   * The craft of an attempt the sandbox made wrong or unusual on purpose (POST /_sandbox/probes, what
   * `core check-bot` sends: a tampered body, another secret, a stale timestamp, a replay ...); null
   * for an ordinary attempt. src/sandbox/page/crafts.js says what each craft is and which a bot must refuse.
   */
  craft: Craft | null;
}

/** What `core check-bot` said of the check a conversation of its own plays: its id, and its verdict once known. */
export interface CheckLabel {
  /** The check's id, as core check-bot names it (`signature.tampered`). */
  check: string;
  /** null while the check runs. */
  verdict: 'pass' | 'fail' | null;
  /** What the check found, with its verdict; null before. */
  message: string | null;
}

/**
 * A conversation labelled as a check's (POST /_sandbox/probes/checks): `core check-bot` plays each
 * check in a conversation of its own and says which check it is when it starts it, then the verdict.
 * The latest label is the conversation's (GET /_sandbox/conversations lists it as `check`).
 */
export interface ProbeCheckEvent extends EventBase, CheckLabel {
  type: 'probe.check';
  sessionId: string;
}

/** The identifiers a request body named, read even when the request was refused before its body was checked. */
export interface NamedIdentifiers {
  questionId: bigint | null;
  questionIndex: bigint | null;
  sessionId: string | null;
  coreClientId: bigint | null;
  clientId: string | null;
}

/**
 * An API request that did not get as far as a bot answer, greeting or reason update (401, 403, 400,
 * 404, 409, 413, 415, an injected fault ...): a refusal. It is tied to the conversation its body names
 * (`sessionId`, scope "conversation"); else it is tenant-wide (`sessionId` null, scope "tenant"); a
 * request that named no tenant served here is sandbox-wide (`tenant` "", scope "sandbox").
 */
export interface ApiRequestEvent extends EventBase {
  type: 'api.request';
  scope: 'conversation' | 'delivery' | 'tenant' | 'sandbox';
  method: string;
  path: string;
  status: number;
  requestId: string;
  /** The Error body's message; null for a success. */
  error: string | null;
  named: NamedIdentifiers;
  /** The request's User-Agent (its first 200 characters): who sent it, where the sender says; null without one. */
  userAgent: string | null;
  /**
   * For a refusal its body ties to no conversation: the tenant's deliveries in flight when it came.
   * With exactly one, the refusal is that exchange's (`sessionId` is its conversation, scope
   * "delivery"); with several it stays tenant-wide and names them all. Empty otherwise.
   */
  during: DeliveryInFlight[];
}

export interface ReasonUpdatedEvent extends EventBase {
  type: 'reason.updated';
  requestId: string;
  code: string;
  reason: unknown;
}

/** The kinds of target a routing matched (docs/sandbox.md, "Agents": the combining rule). */
export type TargetKind = 'userIds' | 'skillIds' | 'unitIds';

/** Why a hand-over waits in the queue. */
export const queuedReasons = {
  noMatch: 'no agent matches the targets',
  unavailable: 'all matching agents are away or full',
} as const;
export type QueuedWhy = (typeof queuedReasons)[keyof typeof queuedReasons];

/**
 * A hand-over (a thread with SWITCH_TO_HUMAN, a question with UNCLEAR_QUESTION) given to one agent:
 * right after the hand-over, or later from the queue when a matching agent comes online or has room.
 */
export interface HandoverRoutedEvent extends EventBase {
  type: 'handover.routed';
  sessionId: string;
  scope: 'thread' | 'question';
  questionId: bigint | null;
  agentId: bigint;
  /** The agent's name, as it was when routed. */
  agentName: string;
  /** The targets that narrowed the choice (empty: the hand-over named none, any agent of the tenant). */
  matched: TargetKind[];
  /** Whether it waited in the queue first. */
  fromQueue: boolean;
}

/** A hand-over no agent can take now: it waits in the tenant's queue. */
export interface HandoverQueuedEvent extends EventBase {
  type: 'handover.queued';
  sessionId: string;
  scope: 'thread' | 'question';
  questionId: bigint | null;
  why: QueuedWhy;
}

/** An agent's status changed (POST /_sandbox/agents/{id}/status): online, or away with an active reason's code. */
export interface AgentStatusEvent extends EventBase {
  type: 'agent.status';
  agentId: bigint;
  /** Named apart from `status`, which other events hold an HTTP status in. */
  agentStatus: 'online' | 'away';
  /** The inactivity reason's code when away; null when online. */
  reason: string | null;
}

/** An agent wrote in a thread it holds (a thread or a question of it routed to the agent). */
export interface AgentMessageEvent extends EventBase {
  type: 'agent.message';
  sessionId: string;
  agentId: bigint;
  agentName: string;
  text: string;
}

/** A tenant returned to its start state: the first event of its fresh log ("" for the sandbox-wide log, reset with all). */
/**
 * A bot's API request a bridge (`core bridge`, src/bridge/) sent on to the real platform, after the
 * sandbox's own checks: the platform's answer as it came back to the bot.
 */
export interface BridgeForwardEvent extends EventBase {
  type: 'bridge.forward';
  requestId: string;
  method: string;
  path: string;
  /** What the sandbox's checks answered: 200, or the refusal sent on anyway with --forward-invalid. */
  localStatus: number;
  /** Sent on although the sandbox refused it (--forward-invalid). */
  forcedInvalid: boolean;
  /** The platform's status; null when it could not be reached. */
  status: number | null;
  /** Why the platform could not be reached, or null. */
  error: string | null;
  /** The platform's answer body, cut to the kept size. */
  body: string;
  bodyTruncated: boolean;
  latencyMs: number;
}

/**
 * A webhook delivery a bridge received from the real platform and could not take as a customer
 * message (its signature did not verify, its body could not be read, or its fields break the sandbox's
 * MESSAGE schema): passed on to the bot as it came, and recorded as such.
 */
export interface BridgeWebhookEvent extends EventBase {
  type: 'bridge.webhook';
  /** 'failed': the platform's secret is known and the signature did not verify; 'unchecked': no secret known. */
  signature: 'verified' | 'failed' | 'unchecked';
  /** Why it was not taken as a customer message. */
  problem: string;
  /** The bot's status, or null when it was not reached. */
  botStatus: number | null;
  error: string | null;
  bodyBytes: number;
}

export interface ResetEvent extends EventBase {
  type: 'sandbox.reset';
}

export type SandboxEvent =
  | ConversationStartedEvent
  | CustomerMessageEvent
  | BotAnswerEvent
  | GreetingEvent
  | HandoverEvent
  | ReleasedEvent
  | WebhookRedeliveryEvent
  | WebhookAttemptEvent
  | ApiRequestEvent
  | ReasonUpdatedEvent
  | BridgeForwardEvent
  | BridgeWebhookEvent
  | HandoverRoutedEvent
  | HandoverQueuedEvent
  | AgentStatusEvent
  | AgentMessageEvent
  | ProbeCheckEvent
  | ResetEvent;

export type EventType = SandboxEvent['type'];

/** The event of one type. */
export type EventOf<T extends EventType> = Extract<SandboxEvent, { type: T }>;

/** Events without the fields the store fills in as it records them: what a rule returns. */
export type NewEvent = SandboxEvent extends infer E ? (E extends SandboxEvent ? Omit<E, 'seq' | 'time' | 'tenant'> : never) : never;

/** The fields of one type of event that a rule returns. */
export type EventFields<T extends EventType> = Omit<EventOf<T>, 'seq' | 'time' | 'tenant'>;

/**
 * A value as a JSON reader gives it back: every bigint read as `Int`. The page reads integers up to
 * 2^53 as numbers and larger ones as BigInt (src/sandbox/page/json.js), so an identifier there is
 * `number | bigint`; the numbers of an event (seq, status, attempt, ...) stay numbers.
 */
export type JsonRead<T, Int> = T extends bigint
  ? Int
  : T extends readonly (infer U)[]
    ? JsonRead<U, Int>[]
    : T extends object
      ? { [K in keyof T]: JsonRead<T[K], Int> }
      : T;

/** An event as the page reads it from the event stream and the listings (src/sandbox/page/json.js). */
export type PageEvent = SandboxEvent extends infer E ? (E extends SandboxEvent ? JsonRead<E, number | bigint> : never) : never;

/** The page's event of one type (the page's JSDoc names them: `import('../events.js').PageEventOf<'handover'>`). */
export type PageEventOf<T extends EventType> = Extract<PageEvent, { type: T }>;

/** The events that may be refusals of the bot's requests (`isRefusal`): its API requests, answers and greetings. */
export type RequestEventType = 'api.request' | 'bot.answer' | 'greeting';

/**
 * A refusal tied to no conversation that a stream of one conversation of `tenant` also carries
 * (docs/sandbox.md, "Events"): one of the same tenant, or a sandbox-wide one (a request naming no
 * tenant, or one the sandbox does not serve). A refusal is an api.request, a bot answer or a greeting
 * with a status of 400 or more (`isRefusal`).
 */
export function untiedRefusalFor(
  event: { sessionId: string | null; type: string; status?: unknown; tenant: string; scope?: unknown },
  tenant: string,
): boolean {
  if (event.sessionId !== null || !isRefusal(event)) return false;
  return event.tenant === tenant || event.tenant === '' || event.scope === 'sandbox';
}
