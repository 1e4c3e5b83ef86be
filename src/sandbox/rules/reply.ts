import type { Problem } from '../../errors.js';
import { flatten } from '../../payload/json.js';
import { notDeliveredReasons, type EventFields, type NewEvent } from '../events.js';
import type { Client, Question, RandomIds, ReplyFields, TenantView, Thread } from '../model.js';
import { addressReply, replyAddressing } from './addressing.js';
import { isRepeatedAnswerId } from './answer-id.js';
import { channelWarnings } from './channel.js';
import { flatOrNull, threadStarted } from './conversation-client.js';
import { emailAddressing } from './email-addressing.js';
import { handoverEvent, handoverOf, withAgents } from './handover.js';
import { routingEvent } from './routing.js';
import { freeCoreClientId } from './ids.js';
import type { Refusal } from './refusal.js';
import { secondAnswer } from './second-answer.js';

/** What the rules of a bot answer depend on besides the tenant: the sandbox's options. */
export interface ReplyRules {
  maxEvents: number;
  duplicates: 'strict' | 'soft';
}

/**
 * The outcome of a valid bot answer against the tenant (docs/sandbox.md, "Answers are checked
 * against the state"). `warnings` are the rules' own, added after the schema's.
 */
export type ReplyDecision =
  | { kind: 'refused'; refusal: Refusal; warnings: Problem[] }
  | {
      kind: 'repeat' | 'deliver';
      question: Question | undefined;
      thread: Thread | undefined;
      client: Client | undefined;
      warnings: Problem[];
    };

/**
 * The rules in their order: the question named must exist (404) and be one question (400); an
 * EMAIL question is addressed by sessionId and questionIndex (chatbot rule 2, 400); a repeated
 * answerId is 200, not delivered (chatbot rule 6), checked before the rules below so a retry of a
 * delivered answer never meets them; a thread or question with agents takes no answer (409); in
 * strict mode a second answer is refused (chatbot rule 7, 409); otherwise delivered. An answer
 * addressed by client to a client or thread not kept is delivered into one the store makes.
 */
export function decideReply(view: TenantView, reply: ReplyFields, rules: ReplyRules): ReplyDecision {
  const addressed = addressReply(view, reply, rules.maxEvents);
  if (!addressed.ok) return { kind: 'refused', refusal: addressed.refusal, warnings: [] };
  const { question, thread, client } = addressed;
  const warnings = [...addressed.warnings];
  const email = emailAddressing(reply, question, thread);
  if (email) return { kind: 'refused', refusal: email, warnings };
  warnings.push(...channelWarnings(reply, thread?.channel ?? 'WEB'));
  if (isRepeatedAnswerId(view, reply.answerId ?? null)) return { kind: 'repeat', question, thread, client, warnings };
  const refusal = withAgents(thread, question) ?? secondAnswer(reply, question, rules.duplicates);
  if (refusal) return { kind: 'refused', refusal, warnings };
  return { kind: 'deliver', question, thread, client, warnings };
}

/** What the API's side knows of a valid bot answer or greeting besides its fields. */
export interface RequestMeta {
  requestId: string;
  /** The request body exactly as received, identifiers as bigint. */
  body: unknown;
  /** The size of the request body as received (the event budget counts what the event holds instead). */
  bodyBytes?: number;
  /** What the schema warned about. */
  warnings: Problem[];
  /** A reply's formattedText as safe HTML, for the page (BotAnswerEvent.formattedHtml). */
  formattedHtml?: string | null;
  /** The request's User-Agent, as userAgentOf (src/sandbox/exchange.ts) keeps it. */
  userAgent: string | null;
}

/**
 * A bot answer's outcome: its status (and the Error body's message), and the events that record it
 * (a thread made for an answer by client, the answer itself at `answer`, a hand-over).
 */
export interface ReplyOutcome {
  status: 200 | 400 | 404 | 409;
  error: string | null;
  events: NewEvent[];
  /** Where in `events` the bot.answer event is. */
  answer: number;
}

type AnswerFields = EventFields<'bot.answer'>;

const questionFields = (question: Question | undefined) => ({
  questionId: question?.questionId ?? null,
  questionIndex: question?.questionIndex ?? null,
});

/**
 * The events of a valid bot answer, decided by `decideReply`: refused (a bot.answer with its status),
 * a repeat of a delivered answerId (chatbot rule 6: 200, not delivered), or delivered: into the
 * question's thread, or the client's latest, or a new WEB thread (and client) for an answer by client
 * to one the tenant does not keep; followed by the hand-over it makes.
 */
export function replyOutcome(view: TenantView, reply: ReplyFields, meta: RequestMeta, rules: ReplyRules, ids: RandomIds): ReplyOutcome {
  const decision = decideReply(view, reply, rules);
  const answer = {
    type: 'bot.answer' as const,
    kind: 'reply' as const,
    requestId: meta.requestId,
    answerId: reply.answerId ?? null,
    addressedBy: replyAddressing(reply),
    warnings: [...meta.warnings, ...decision.warnings],
    body: meta.body,
    userAgent: meta.userAgent,
    formattedHtml: meta.formattedHtml == null ? null : flatten(meta.formattedHtml),
    during: [],
  };
  if (decision.kind === 'refused') {
    const { status, error, notDelivered, sessionId, question } = decision.refusal;
    const event: AnswerFields = {
      ...answer,
      ...{ sessionId, status, error, delivered: false, notDelivered, questionAlreadyAnswered: question?.answered ?? false },
      ...{ coreClientId: question?.thread.client.coreClientId ?? null, ...questionFields(question) },
    };
    return { status, error, events: [event], answer: 0 };
  }
  const { question, thread, client } = decision;
  const answered = { ...answer, questionAlreadyAnswered: question?.answered ?? false, ...questionFields(question) };
  if (decision.kind === 'repeat') {
    // Chatbot rule 6: accepted, not delivered again.
    const event: AnswerFields = {
      ...answered,
      ...{ sessionId: thread?.sessionId ?? null, coreClientId: thread?.client.coreClientId ?? client?.coreClientId ?? null },
      ...{ status: 200, error: null, delivered: false, notDelivered: notDeliveredReasons.duplicateAnswerId },
    };
    return { status: 200, error: null, events: [event], answer: 0 };
  }
  const events: NewEvent[] = [];
  let target: { sessionId: string; coreClientId: bigint };
  if (thread === undefined) {
    // An answer by client to a client with no thread kept: a WEB thread for it (and the client, when not kept).
    const owner = client ?? { coreClientId: reply.coreClientId ?? freeCoreClientId(view), clientId: flatOrNull(reply.clientId) };
    const started = threadStarted(owner, 'WEB', 'reply', ids);
    events.push(started);
    target = started;
  } else target = { sessionId: thread.sessionId, coreClientId: thread.client.coreClientId };
  const event: AnswerFields = {
    ...answered,
    ...{ sessionId: target.sessionId, coreClientId: target.coreClientId },
    ...{ status: 200, error: null, delivered: true, notDelivered: null },
  };
  events.push(event);
  const handover = handoverOf(reply, thread, question);
  if (handover !== null) {
    events.push(handoverEvent(handover, target.sessionId, meta.requestId));
    // Routed at once to an agent, or queued (src/sandbox/rules/routing.ts).
    const { scope, question: passed, targets } = handover;
    const questionId = scope === 'question' ? (passed?.questionId ?? null) : null;
    events.push(routingEvent(view, { sessionId: target.sessionId, scope, questionId, targets }));
  }
  return { status: 200, error: null, events, answer: events.indexOf(event) };
}
