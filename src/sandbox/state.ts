import type { Problem } from '../errors.js';
import type { Greeting, Reason, Reply } from '../payload/index.js';
import type { DuplicateMode } from './options.js';
import { isActive, storedReason } from './seed.js';

/**
 * The sandbox's memory: per tenant, every bot answer and greeting it accepted for handling, the
 * answerIds and questions already answered, and the inactivity reasons. Nothing is shared between
 * tenants (docs/api.md, "What the service does": every request belongs to one tenant, named by X-Tenant-Name).
 *
 * Every method is synchronous. Node runs one callback at a time, so a check and the write that
 * follows it (answerId seen? then remember it) cannot interleave with another request: that is
 * what makes de-duplication safe under concurrent requests.
 */

export type MessageKind = 'reply' | 'greeting';

/** Why an answer was not delivered. */
export const notDeliveredReasons = {
  duplicateAnswerId: 'duplicate answerId',
  strictDuplicate: 'question already answered (strict mode)',
} as const;
export type NotDelivered = (typeof notDeliveredReasons)[keyof typeof notDeliveredReasons];

export interface MessageRecord {
  /** Arrival order across all tenants, from 1. */
  seq: number;
  tenant: string;
  kind: MessageKind;
  /** The X-Request-Id of the answer the sandbox gave. */
  requestId: string;
  /** When the sandbox handled it, ISO 8601 UTC. */
  time: string;
  answerId: string | null;
  /**
   * How the message was addressed. A reply lists every way it carries, in the order of the table
   * of docs/api.md, addressing rule 1 (coreClientId, questionId, sessionId+questionIndex, clientId);
   * a greeting names the one identifier used (clientId wins over coreClientId, greet rule 3).
   */
  addressedBy: string[];
  delivered: boolean;
  notDelivered: NotDelivered | null;
  /** A reply to a question that already had a bot answer (chatbot rule 7), whatever the mode did with it. */
  questionAlreadyAnswered: boolean;
  /** What the schema warned about (a deprecated field, say), though the payload was valid. */
  warnings: Problem[];
  /** The request body exactly as received, identifiers as bigint. */
  body: unknown;
}

export interface ReasonRecord {
  tenant: string;
  code: string;
  reason: Reason;
  /** null while the reason is as seeded. */
  updatedAt: string | null;
  /** The X-Request-Id of the last update; null while the reason is as seeded. */
  requestId: string | null;
}

export interface RequestMeta {
  requestId: string;
  body: unknown;
  warnings: Problem[];
}

export type ReplyOutcome = 'delivered' | 'duplicate-answer-id' | 'rejected-strict-duplicate';

export type ReasonUpdate = { ok: true; record: ReasonRecord } | { ok: false; status: 404 | 409; message: string };

// The fields of a reply the sandbox's rules read; a structural view so this file states its needs.
interface ReplyAddress {
  answerId?: string | null | undefined;
  clientId?: string | null | undefined;
  coreClientId?: bigint | null | undefined;
  questionId?: bigint | null | undefined;
  sessionId?: string | null | undefined;
  questionIndex?: bigint | null | undefined;
}

interface GreetingAddress {
  clientId?: string | null | undefined;
  coreClientId?: bigint | null | undefined;
}

interface TenantState {
  messages: MessageRecord[];
  /** answerIds of delivered answers (chatbot rule 6). */
  answerIds: Set<string>;
  /** Keys of questions that have a delivered bot answer (chatbot rule 7); see questionKeys. */
  answeredQuestions: Set<string>;
  reasons: Map<string, ReasonRecord>;
  /** How many of `reasons` are active, kept up to date so an update need not count the whole store. */
  activeCount: number;
}

export interface SandboxStateConfig {
  tenants: readonly string[];
  seedReasons: readonly Reason[];
  duplicates: DuplicateMode;
  maxActiveReasons: number;
}

export class SandboxState {
  private readonly tenants = new Map<string, TenantState>();
  private seq = 0;

  constructor(private readonly config: SandboxStateConfig) {
    for (const name of config.tenants) this.tenants.set(name, this.fresh(name));
  }

  get tenantNames(): string[] {
    return [...this.tenants.keys()];
  }

  hasTenant(name: string): boolean {
    return this.tenants.has(name);
  }

  /**
   * Handles a valid bot answer. A repeated answerId is answered but not delivered (chatbot rule
   * 6); it is checked first, so a client retrying an answer the sandbox already delivered never
   * meets the strict-mode rejection. A second answer to an answered question is rejected in
   * strict mode and delivered in soft mode (chatbot rule 7). Only delivered answers claim their answerId
   * and question: a rejected answer can be corrected and sent again under the same answerId.
   */
  reply(tenant: string, reply: Reply, meta: RequestMeta): { outcome: ReplyOutcome; record: MessageRecord; answered: string[] } {
    const state = this.state(tenant);
    const address: ReplyAddress = reply;
    const answerId = address.answerId ?? null;
    const keys = questionKeys(address);
    const answered = keys.filter(({ key }) => state.answeredQuestions.has(key)).map(({ label }) => label);
    const questionAlreadyAnswered = answered.length > 0;

    let outcome: ReplyOutcome;
    if (answerId !== null && state.answerIds.has(answerId)) outcome = 'duplicate-answer-id';
    else if (questionAlreadyAnswered && this.config.duplicates === 'strict') outcome = 'rejected-strict-duplicate';
    else outcome = 'delivered';

    if (outcome === 'delivered') {
      if (answerId !== null) state.answerIds.add(answerId);
      for (const { key } of keys) state.answeredQuestions.add(key);
    }
    const record = this.record(state, tenant, 'reply', meta, {
      answerId,
      addressedBy: replyAddressing(address),
      delivered: outcome === 'delivered',
      notDelivered:
        outcome === 'duplicate-answer-id'
          ? notDeliveredReasons.duplicateAnswerId
          : outcome === 'rejected-strict-duplicate'
            ? notDeliveredReasons.strictDuplicate
            : null,
      questionAlreadyAnswered,
    });
    return { outcome, record, answered };
  }

  /** Handles a valid greeting: always delivered, addressed by clientId when given (greet rules 1–3). */
  greeting(tenant: string, greeting: Greeting, meta: RequestMeta): MessageRecord {
    const state = this.state(tenant);
    const address: GreetingAddress = greeting;
    return this.record(state, tenant, 'greeting', meta, {
      answerId: null,
      addressedBy: address.clientId != null ? ['clientId'] : address.coreClientId != null ? ['coreClientId'] : [],
      delivered: true,
      notDelivered: null,
      questionAlreadyAnswered: false,
    });
  }

  /**
   * Replaces an existing reason: translations, colour and flags all come from the update, and an
   * absent `active` means true (docs/api.md, reason field rule 4). Unknown code: 404 naming it
   * (reason rule 1). More active reasons than the limit: 409 (reason rule 2).
   */
  updateReason(tenant: string, update: Reason, meta: { requestId: string }): ReasonUpdate {
    const state = this.state(tenant);
    const current = state.reasons.get(update.code);
    if (current === undefined) {
      return { ok: false, status: 404, message: `no inactivity reason with code '${update.code}'` };
    }
    const next = storedReason(update);
    const active = state.activeCount - (isActive(current.reason) ? 1 : 0) + (isActive(next) ? 1 : 0);
    if (active > this.config.maxActiveReasons && active > state.activeCount) {
      return {
        ok: false,
        status: 409,
        message:
          `too many active inactivity reasons: activating '${update.code}' would make ${active} active, ` +
          `the limit is ${this.config.maxActiveReasons}`,
      };
    }
    const record: ReasonRecord = {
      tenant,
      code: update.code,
      reason: next,
      updatedAt: new Date().toISOString(),
      requestId: meta.requestId,
    };
    state.reasons.set(update.code, record);
    state.activeCount = active;
    return { ok: true, record };
  }

  /** Every recorded message in arrival order, of one tenant or all. */
  messages(tenant?: string): MessageRecord[] {
    return this.selected(tenant)
      .flatMap((state) => state.messages)
      .sort((a, b) => a.seq - b.seq);
  }

  /** Every reason, of one tenant or all, tenant by tenant. */
  reasons(tenant?: string): ReasonRecord[] {
    return this.selected(tenant).flatMap((state) => [...state.reasons.values()]);
  }

  /** Returns one tenant, or all, to the seed state: no messages, no answerIds, the seed reasons. */
  reset(tenant?: string): string[] {
    const names = tenant === undefined ? this.tenantNames : [tenant];
    for (const name of names) {
      this.state(name);
      this.tenants.set(name, this.fresh(name));
    }
    return names;
  }

  private fresh(tenant: string): TenantState {
    const reasons = new Map<string, ReasonRecord>();
    for (const reason of this.config.seedReasons) {
      // A copy per tenant, so an update in one tenant can never show in another.
      reasons.set(reason.code, { tenant, code: reason.code, reason: structuredClone(reason), updatedAt: null, requestId: null });
    }
    let activeCount = 0;
    for (const record of reasons.values()) if (isActive(record.reason)) activeCount += 1;
    return { messages: [], answerIds: new Set(), answeredQuestions: new Set(), reasons, activeCount };
  }

  private state(tenant: string): TenantState {
    const state = this.tenants.get(tenant);
    if (state === undefined) throw new RangeError(`unknown tenant '${tenant}'`);
    return state;
  }

  private selected(tenant: string | undefined): TenantState[] {
    return tenant === undefined ? [...this.tenants.values()] : [this.state(tenant)];
  }

  private record(
    state: TenantState,
    tenant: string,
    kind: MessageKind,
    meta: RequestMeta,
    fields: Pick<MessageRecord, 'answerId' | 'addressedBy' | 'delivered' | 'notDelivered' | 'questionAlreadyAnswered'>,
  ): MessageRecord {
    this.seq += 1;
    const record: MessageRecord = {
      seq: this.seq,
      tenant,
      kind,
      requestId: meta.requestId,
      time: new Date().toISOString(),
      ...fields,
      warnings: meta.warnings,
      body: meta.body,
    };
    state.messages.push(record);
    return record;
  }
}

/**
 * The keys under which a reply marks its question as answered: its questionId, and its sessionId
 * with questionIndex (the two ways that name a question, docs/api.md, addressing rule 1).
 * A reply addressed only by client (coreClientId or clientId) is bound to no question, so it is
 * never a second answer.
 */
function questionKeys(address: ReplyAddress): { key: string; label: string }[] {
  const keys: { key: string; label: string }[] = [];
  if (address.questionId != null) keys.push({ key: `questionId:${address.questionId}`, label: `questionId ${address.questionId}` });
  if (address.sessionId != null && address.questionIndex != null) {
    keys.push({
      key: `session:${address.questionIndex}:${address.sessionId}`,
      label: `sessionId ${address.sessionId} with questionIndex ${address.questionIndex}`,
    });
  }
  return keys;
}

function replyAddressing(address: ReplyAddress): string[] {
  const ways: string[] = [];
  if (address.coreClientId != null) ways.push('coreClientId');
  if (address.questionId != null) ways.push('questionId');
  if (address.sessionId != null && address.questionIndex != null) ways.push('sessionId+questionIndex');
  if (address.clientId != null) ways.push('clientId');
  return ways;
}
