import type { Problem } from '../errors.js';
import type { Channel } from '../payload/channels.js';

export { CHANNELS, type Channel } from '../payload/channels.js';

/**
 * The sandbox's event log: everything that happens in a tenant, in order, as the page, `core
 * customer`, `core test` and GET /_sandbox/events read it. Every event has a `seq` (increasing
 * across all tenants, never reused), its `tenant`, the `sessionId` of its thread (null when it
 * belongs to none), its `time` and a `type`; the rest depends on the type. The shapes are the
 * sandbox's own (docs/sandbox.md, "Events"), since the API shows none (docs/api.md, gap 5 and gap 8).
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
  scope: 'conversation' | 'tenant' | 'sandbox';
  method: string;
  path: string;
  status: number;
  requestId: string;
  /** The Error body's message; null for a success. */
  error: string | null;
  named: NamedIdentifiers;
  /** The request's User-Agent (its first 200 characters): who sent it, where the sender says; null without one. */
  userAgent: string | null;
}

export interface ReasonUpdatedEvent extends EventBase {
  type: 'reason.updated';
  requestId: string;
  code: string;
  reason: unknown;
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
  | WebhookAttemptEvent
  | ApiRequestEvent
  | ReasonUpdatedEvent
  | ResetEvent;

export type EventType = SandboxEvent['type'];

/** Events without the fields the log fills in. */
export type NewEvent = SandboxEvent extends infer E ? (E extends SandboxEvent ? Omit<E, 'seq' | 'time' | 'tenant'> : never) : never;

/**
 * A queue of items in seq order that drops from the front: push at the back, shift at the front,
 * both O(1) amortised, and binary search by seq. An array with a moving start, compacted once the
 * dead front is as long as the live part.
 */
export class SeqQueue<T extends { seq: number }> {
  private items: (T | undefined)[] = [];
  private start = 0;

  get length(): number {
    return this.items.length - this.start;
  }

  push(item: T): void {
    this.items.push(item);
  }

  first(): T | undefined {
    return this.items[this.start];
  }

  last(): T | undefined {
    return this.length === 0 ? undefined : this.items[this.items.length - 1];
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.start];
    this.items[this.start] = undefined;
    this.start += 1;
    if (this.start >= 1024 && this.start * 2 >= this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
    return item;
  }

  /** The position (0-based, from the first kept item) of the first item with seq > after. */
  indexAfter(after: number): number {
    let lo = this.start;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid] as T).seq <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo - this.start;
  }

  at(index: number): T | undefined {
    return index < 0 || index >= this.length ? undefined : this.items[this.start + index];
  }

  /** Items with seq > after, in order. */
  *after(after: number): Generator<T> {
    for (let i = this.indexAfter(after); i < this.length; i += 1) yield this.items[this.start + i] as T;
  }
}

/** A page of items: what was asked for, and the `after` of the next page (null when this was the last). */
export interface Page<T> {
  items: T[];
  next: number | null;
}

/**
 * The first `limit` items of a source in seq order that `keep` accepts; `next` is the `after` of the
 * following page when more items follow (the seq of the last item given, or `after` itself for a
 * page of 0 items), else null. Reads at most one item past the page, never the whole source.
 */
export function page<T extends { seq: number }>(
  source: Iterable<T>,
  after: number,
  limit: number,
  keep: (item: T) => boolean = () => true,
): Page<T> {
  const items: T[] = [];
  for (const item of source) {
    if (!keep(item)) continue;
    if (items.length === limit) return { items, next: items.at(-1)?.seq ?? after };
    items.push(item);
  }
  return { items, next: null };
}

/** Merges sources that are each in seq order into one in seq order (the tenants' logs, for a listing of all). */
export function* mergeBySeq<T extends { seq: number }>(sources: Iterable<T>[]): Generator<T> {
  const iterators = sources.map((source) => source[Symbol.iterator]());
  const heads = iterators.map((iterator) => iterator.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i += 1) {
      const head = heads[i]!;
      if (!head.done && (best === -1 || head.value.seq < (heads[best]!.value as T).seq)) best = i;
    }
    if (best === -1) return;
    yield heads[best]!.value as T;
    heads[best] = iterators[best]!.next();
  }
}
