import { notDeliveredReasons } from '../events.js';
import type { Question, ReplyFields } from '../model.js';
import { questionLabels } from './addressing.js';
import type { Refusal } from './refusal.js';

/**
 * Chatbot rule 7 (docs/api.md): a second answer to a question that already has a delivered bot
 * answer. Strict mode refuses it (409, not delivered); soft mode delivers it, marked
 * `questionAlreadyAnswered`. An answer addressed by client names no question: never a second answer.
 */
export function secondAnswer(address: ReplyFields, question: Question | undefined, mode: 'strict' | 'soft'): Refusal | null {
  if (question === undefined || !question.answered || mode !== 'strict') return null;
  return {
    status: 409,
    notDelivered: notDeliveredReasons.strictDuplicate,
    error:
      `the question (${questionLabels(address).join('; ')}) already has a bot answer; ` +
      'in strict duplicate mode a second answer is rejected and not delivered',
    sessionId: question.thread.sessionId,
    question,
  };
}
