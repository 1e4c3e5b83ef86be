import type { Problem } from '../errors.js';
import type { Greeting, Reply } from '../payload/index.js';
import { flatten } from '../payload/json.js';
import { notDeliveredReasons, type BotAnswerEvent, type GreetingEvent, type NewEvent } from './events.js';
import type { Question, ReplyFields, Thread } from './model.js';
import { replyAddressing } from './rules/addressing.js';
import { channelWarnings, lastBotMessage } from './rules/channel.js';
import { addressGreeting } from './rules/greeting-addressing.js';
import { handoverOf } from './rules/handover.js';
import { decideReply, type ReplyDecision, type ReplyRules } from './rules/reply.js';
import type { Store } from './store/store.js';
import type { TenantStore } from './store/tenant.js';

/**
 * Bot answers and greetings: the rules decide (src/sandbox/rules/reply.ts, greeting-addressing.ts),
 * these functions apply the outcome to the store and record it.
 */

export interface RequestMeta {
  requestId: string;
  body: unknown;
  /** The size of the request body as received (the event budget counts what the event holds instead). */
  bodyBytes?: number;
  warnings: Problem[];
  /** A reply's formattedText as safe HTML, for the page (BotAnswerEvent.formattedHtml). */
  formattedHtml?: string | null;
  /** The request's User-Agent, as userAgentOf (src/sandbox/exchange.ts) keeps it. */
  userAgent: string | null;
}

export type ReplyOutcome = { status: 200; event: BotAnswerEvent } | { status: 400 | 404 | 409; error: string; event: BotAnswerEvent };

/** A valid bot answer, decided by the rules and applied: refused, a repeat (chatbot rule 6), or delivered. */
export function recordReply(store: Store, rules: ReplyRules, tenant: TenantStore, reply: Reply, meta: RequestMeta): ReplyOutcome {
  const address = reply as ReplyFields;
  const decision = decideReply(tenant, address, rules);
  const answer = {
    type: 'bot.answer' as const,
    kind: 'reply' as const,
    requestId: meta.requestId,
    answerId: address.answerId ?? null,
    addressedBy: replyAddressing(address),
    warnings: [...meta.warnings, ...decision.warnings],
    body: meta.body,
    userAgent: meta.userAgent,
    formattedHtml: meta.formattedHtml == null ? null : flatten(meta.formattedHtml),
  };
  if (decision.kind === 'refused') {
    const { status, error, notDelivered, sessionId, question } = decision.refusal;
    const fields: NewEvent = {
      ...answer,
      ...{ sessionId, status, error, delivered: false, notDelivered, questionAlreadyAnswered: question?.answered ?? false },
      ...{ coreClientId: question?.thread.client.coreClientId ?? null, ...questionFields(question) },
    };
    return { status, error, event: store.record(tenant, fields) as BotAnswerEvent };
  }
  const { question, thread, client } = decision;
  const answered = { ...answer, questionAlreadyAnswered: question?.answered ?? false, ...questionFields(question) };
  if (decision.kind === 'repeat') {
    // Chatbot rule 6: accepted, not delivered again.
    const fields: NewEvent = {
      ...answered,
      ...{ sessionId: thread?.sessionId ?? null, coreClientId: thread?.client.coreClientId ?? client?.coreClientId ?? null },
      ...{ status: 200, error: null, delivered: false, notDelivered: notDeliveredReasons.duplicateAnswerId },
    };
    return { status: 200, event: store.record(tenant, fields) as BotAnswerEvent };
  }
  return { status: 200, event: deliver(store, tenant, reply, decision, answered) };
}

/** Delivers an answer: makes the client and thread an answer by client needs, claims answerId and question, hands over. */
function deliver(
  store: Store,
  tenant: TenantStore,
  reply: Reply,
  decision: Omit<ReplyDecision & { kind: 'deliver' }, 'kind'>,
  answered: object,
): BotAnswerEvent {
  const address = reply as ReplyFields;
  const { question } = decision;
  let target = decision.thread;
  if (target === undefined) {
    const client = decision.client ?? store.newClient(tenant, address.coreClientId ?? undefined, address.clientId ?? undefined);
    target = store.newThread(tenant, client, 'WEB', 'reply');
  }
  const thread = target;
  const fields = {
    ...answered,
    ...{ sessionId: thread.sessionId, coreClientId: thread.client.coreClientId },
    ...{ status: 200, error: null, delivered: true, notDelivered: null },
  } as NewEvent;
  const event = store.record(tenant, fields, (recorded) => {
    if (address.answerId != null) tenant.answerIds.set(address.answerId, recorded.seq);
    if (question) question.answered = true;
    thread.lastBotMessage = lastBotMessage(reply, recorded.seq, thread.channel);
  }) as BotAnswerEvent;
  handOver(store, tenant, thread, question, address, event.requestId);
  return event;
}

/** The hand-over a delivered answer makes (src/sandbox/rules/handover.ts), recorded as a handover event. */
function handOver(
  store: Store,
  tenant: TenantStore,
  thread: Thread,
  question: Question | undefined,
  reply: ReplyFields,
  requestId: string,
): void {
  const handover = handoverOf(reply, thread, question);
  if (handover === null) return;
  const { code, scope, targets } = handover;
  const passed = handover.question;
  const fields: NewEvent = {
    type: 'handover',
    sessionId: thread.sessionId,
    scope,
    code,
    ...questionFields(passed ?? undefined),
    ...targets,
    requestId,
  };
  store.record(tenant, fields, (recorded) => {
    const record = { code, seq: recorded.seq, time: new Date().toISOString(), ...targets };
    if (scope === 'thread') {
      thread.owner = 'agents';
      thread.handover = record;
    } else if (passed) passed.withAgents = record;
  });
}

/** A valid greeting: always delivered, into the thread src/sandbox/rules/greeting-addressing.ts names. */
export function recordGreeting(store: Store, tenant: TenantStore, greeting: Greeting, meta: RequestMeta): GreetingEvent {
  const address = addressGreeting(tenant, greeting);
  const client = address.client ?? store.newClient(tenant, address.make.coreClientId, address.make.clientId);
  const thread = client.latest ?? store.newThread(tenant, client, 'WEB', 'greeting');
  const { requestId, body, userAgent } = meta;
  const fields: NewEvent = {
    type: 'greeting',
    kind: 'greeting',
    ...{ sessionId: thread.sessionId, requestId, status: 200, error: null, answerId: null, addressedBy: address.addressedBy },
    ...{ delivered: true, notDelivered: null, questionAlreadyAnswered: false, coreClientId: client.coreClientId },
    ...{ warnings: [...meta.warnings, ...channelWarnings(greeting, thread.channel)], body, userAgent },
  };
  return store.record(tenant, fields, (recorded) => {
    thread.lastBotMessage = lastBotMessage(greeting, recorded.seq, thread.channel);
  }) as GreetingEvent;
}

function questionFields(question: Question | undefined): { questionId: bigint | null; questionIndex: bigint | null } {
  return { questionId: question?.questionId ?? null, questionIndex: question?.questionIndex ?? null };
}
