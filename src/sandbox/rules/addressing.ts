import type { Problem } from '../../errors.js';
import { notDeliveredReasons } from '../events.js';
import type { Client, Question, ReplyFields, TenantView, Thread } from '../model.js';
import type { Refusal } from './refusal.js';

/**
 * Where a bot answer goes (docs/sandbox.md, "Answers are checked against the state"; docs/api.md,
 * addressing rule 1). Addressed by question (questionId, or sessionId with questionIndex, or both):
 * that question must exist (404) and be one question (400); it goes to the question's thread, and a
 * client it also names that is not the question's is a warning. Addressed by client (coreClientId,
 * else clientId): the client's latest thread, or none yet (the store makes them).
 */
export type Addressed =
  | { ok: true; question: Question; thread: Thread; client: Client; warnings: Problem[] }
  | { ok: true; question: undefined; thread: Thread | undefined; client: Client | undefined; warnings: Problem[] }
  | { ok: false; refusal: Refusal };

export function addressReply(view: TenantView, address: ReplyFields, maxEvents: number): Addressed {
  const named = namedQuestion(view, address, maxEvents);
  if (!named.ok) return named;
  const { question } = named;
  if (question !== undefined) {
    return { ok: true, question, thread: question.thread, client: question.thread.client, warnings: clientMismatch(address, question) };
  }
  const client =
    (address.coreClientId != null ? view.clients.get(address.coreClientId) : undefined) ??
    (address.clientId != null ? view.clientsByExternalId.get(address.clientId) : undefined);
  return { ok: true, question: undefined, thread: client?.latest ?? undefined, client, warnings: [] };
}

type Named = { ok: true; question: Question | undefined } | { ok: false; refusal: Refusal };

/** The question an answer names by questionId and by sessionId with questionIndex; undefined when it names none. */
export function namedQuestion(view: TenantView, address: ReplyFields, maxEvents: number): Named {
  const unknown = (error: string, sessionId: string | null, question?: Question): Named => ({
    ok: false,
    refusal: { status: 404, notDelivered: notDeliveredReasons.unknownQuestion, error, sessionId, question },
  });
  let byId: Question | undefined;
  let byIndex: Question | undefined;
  const namedThread = address.sessionId != null ? view.threads.get(address.sessionId) : undefined;
  if (address.questionId != null) {
    byId = view.questions.get(address.questionId);
    if (byId === undefined) {
      const error = `no question with questionId ${address.questionId} in tenant '${view.name}'${forgotten(maxEvents)}`;
      return unknown(error, namedThread?.sessionId ?? null);
    }
  }
  if (address.sessionId != null && address.questionIndex != null) {
    if (namedThread === undefined) {
      return unknown(`no thread with sessionId '${address.sessionId}' in tenant '${view.name}'${forgotten(maxEvents)}`, null, byId);
    }
    byIndex = questionAt(namedThread, address.questionIndex);
    if (byIndex === undefined) {
      const error = `thread '${address.sessionId}' has no question with questionIndex ${address.questionIndex} (${describeQuestions(namedThread)})`;
      return unknown(error, namedThread.sessionId, byId);
    }
  }
  if (byId && byIndex && byId !== byIndex) {
    const error =
      `questionId ${byId.questionId} is question ${byId.questionIndex} of thread '${byId.thread.sessionId}', ` +
      `not question ${byIndex.questionIndex} of thread '${byIndex.thread.sessionId}': name one question`;
    return {
      ok: false,
      refusal: {
        status: 400,
        notDelivered: notDeliveredReasons.conflictingAddress,
        error,
        sessionId: byIndex.thread.sessionId,
        question: byIndex,
      },
    };
  }
  return { ok: true, question: byId ?? byIndex };
}

/** Every way an answer is addressed, in the order of docs/api.md, addressing rule 1. */
/** The ways a reply can be addressed, as an answer's `addressedBy` lists them (docs/api.md, addressing rule 1). */
export type ReplyAddressing = 'coreClientId' | 'questionId' | 'sessionId+questionIndex' | 'clientId';

export function replyAddressing(address: ReplyFields): ReplyAddressing[] {
  const ways: ReplyAddressing[] = [];
  if (address.coreClientId != null) ways.push('coreClientId');
  if (address.questionId != null) ways.push('questionId');
  if (address.sessionId != null && address.questionIndex != null) ways.push('sessionId+questionIndex');
  if (address.clientId != null) ways.push('clientId');
  return ways;
}

/** The labels of the question an answer names, for messages: as the answer named it. */
export function questionLabels(address: ReplyFields): string[] {
  const labels: string[] = [];
  if (address.questionId != null) labels.push(`questionId ${address.questionId}`);
  if (address.sessionId != null && address.questionIndex != null) {
    labels.push(`sessionId ${address.sessionId} with questionIndex ${address.questionIndex}`);
  }
  return labels;
}

/** An answer naming a question and also a client that is not the question's: answered, with a warning. */
export function clientMismatch(address: ReplyFields, question: Question): Problem[] {
  const client = question.thread.client;
  const problems: Problem[] = [];
  if (address.coreClientId != null && address.coreClientId !== client.coreClientId) {
    problems.push({
      path: 'coreClientId',
      message: `question ${question.questionId} is of coreClientId ${client.coreClientId}, not ${address.coreClientId}: the sandbox answers the question`,
    });
  }
  if (address.clientId != null && address.clientId !== client.clientId) {
    problems.push({
      path: 'clientId',
      message: `question ${question.questionId} is of clientId ${client.clientId === null ? '(none)' : `'${client.clientId}'`}, not '${address.clientId}': the sandbox answers the question`,
    });
  }
  return problems;
}

/** The question of a thread with this questionIndex, among those kept. */
export function questionAt(thread: Thread, index: bigint): Question | undefined {
  const first = thread.questions.first();
  if (first === undefined) return undefined;
  return thread.questions.at(Number(index - first.questionIndex));
}

export function describeQuestions(thread: Thread): string {
  const first = thread.questions.first();
  const last = thread.questions.last();
  if (first === undefined || last === undefined) return 'it has no questions yet';
  return first === last ? `it has question ${first.questionIndex}` : `it has questions ${first.questionIndex} to ${last.questionIndex}`;
}

/** Why something named may be gone: the bounds of the event log (docs/sandbox.md, "Memory"). */
export function forgotten(maxEvents: number): string {
  return ` (the sandbox keeps the last ${maxEvents} events of a tenant, and forgets what they no longer mention)`;
}
