import { notDeliveredReasons } from '../events.js';
import type { Question, ReplyFields, Thread } from '../model.js';
import type { Refusal } from './refusal.js';

/**
 * Chatbot rule 2 (docs/api.md): an answer to an EMAIL question is addressed by sessionId and
 * questionIndex, not by questionId alone; an answer addressed by client whose latest thread is EMAIL
 * is refused too (one email address can have several threads). Null when the rule is kept.
 */
export function emailAddressing(address: ReplyFields, question: Question | undefined, thread: Thread | undefined): Refusal | null {
  const bySession = address.sessionId != null && address.questionIndex != null;
  if (question !== undefined) {
    if (question.type !== 'EMAIL' || bySession) return null;
    return {
      status: 400,
      notDelivered: notDeliveredReasons.emailAddressing,
      error:
        `question ${question.questionId} came by EMAIL: address the answer by sessionId '${question.thread.sessionId}' ` +
        `and questionIndex ${question.questionIndex}, not by questionId alone (docs/api.md, chatbot rule 2)`,
      sessionId: question.thread.sessionId,
      question,
    };
  }
  if (thread?.channel !== 'EMAIL') return null;
  return {
    status: 400,
    notDelivered: notDeliveredReasons.emailAddressing,
    error:
      `the client's latest thread '${thread.sessionId}' is EMAIL: address the answer by sessionId and questionIndex ` +
      '(docs/api.md, chatbot rule 2; one email address can have several threads)',
    sessionId: thread.sessionId,
  };
}
