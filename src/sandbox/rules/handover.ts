import { notDeliveredReasons, type EventFields } from '../events.js';
import type { Handover, Question, ReplyFields, Thread } from '../model.js';
import type { Refusal } from './refusal.js';

/**
 * Hand-over to agents and release (docs/sandbox.md, "Hand-over to agents"): a thread with agents
 * (after SWITCH_TO_HUMAN) and a question passed to agents (UNCLEAR_QUESTION) take no bot answer
 * (409) until the thread is given back.
 */
export function withAgents(thread: Thread | undefined, question: Question | undefined): Refusal | null {
  if (thread?.owner === 'agents') {
    return {
      status: 409,
      notDelivered: notDeliveredReasons.threadWithAgents,
      error:
        `the thread '${thread.sessionId}' is with agents since ${thread.handover?.code ?? 'a hand-over'}: a bot answer is not delivered ` +
        `until the thread is given back (POST /_sandbox/conversations/${thread.sessionId}/release)`,
      sessionId: thread.sessionId,
      question,
    };
  }
  if (question?.withAgents) {
    const { sessionId } = question.thread;
    return {
      status: 409,
      notDelivered: notDeliveredReasons.questionWithAgents,
      error:
        `question ${question.questionIndex} of thread '${sessionId}' was passed to agents with UNCLEAR_QUESTION: ` +
        `a bot answer to it is not delivered until the thread is given back (POST /_sandbox/conversations/${sessionId}/release)`,
      sessionId,
      question,
    };
  }
  return null;
}

/** What a delivered answer hands over: the thread (SWITCH_TO_HUMAN) or one question (UNCLEAR_QUESTION), with its targets. */
export interface HandoverDecision {
  code: Handover['code'];
  scope: 'thread' | 'question';
  /** The question answered (or passed); null for a thread hand-over addressed by client. */
  question: Question | null;
  targets: Pick<Handover, 'userIds' | 'skillIds' | 'unitIds'>;
}

/**
 * The hand-over a delivered answer makes, or null. UNCLEAR_QUESTION passes the question answered,
 * or, for an answer addressed by client, the thread's latest question (none, or a thread the answer
 * makes (undefined): no hand-over).
 */
export function handoverOf(reply: ReplyFields, thread: Thread | undefined, question: Question | undefined): HandoverDecision | null {
  const code = reply.code;
  if (code !== 'SWITCH_TO_HUMAN' && code !== 'UNCLEAR_QUESTION') return null;
  const passed = code === 'UNCLEAR_QUESTION' ? (question ?? thread?.questions.last()) : question;
  if (code === 'UNCLEAR_QUESTION' && passed === undefined) return null;
  return {
    code,
    scope: code === 'SWITCH_TO_HUMAN' ? 'thread' : 'question',
    question: passed ?? null,
    targets: { userIds: [...(reply.userIds ?? [])], skillIds: [...(reply.skillIds ?? [])], unitIds: [...(reply.unitIds ?? [])] },
  };
}

/** What giving a thread back to the bot releases: the thread itself and the questions passed to agents; null when nothing was with agents. */
export function releaseOf(thread: Thread): { thread: boolean; questions: Question[] } | null {
  const questions = [...thread.questions.after(0)].filter((question) => question.withAgents !== null);
  const wasWithAgents = thread.owner === 'agents';
  if (!wasWithAgents && questions.length === 0) return null;
  return { thread: wasWithAgents, questions };
}

/** The event of a hand-over into the thread `sessionId`, from the request `requestId`. */
export function handoverEvent(handover: HandoverDecision, sessionId: string, requestId: string): EventFields<'handover'> {
  const { code, scope, targets, question } = handover;
  return {
    type: 'handover',
    sessionId,
    scope,
    code,
    questionId: question?.questionId ?? null,
    questionIndex: question?.questionIndex ?? null,
    ...targets,
    requestId,
  };
}

/** The event that gives a thread back to the bot (POST /_sandbox/conversations/{sessionId}/release); null when nothing was with agents. */
export function releaseEvent(thread: Thread): EventFields<'released'> | null {
  const released = releaseOf(thread);
  if (released === null) return null;
  return { type: 'released', sessionId: thread.sessionId, questions: released.questions.length, thread: released.thread };
}
