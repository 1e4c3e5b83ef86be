import type { QuestionType } from '../events.js';
import type { Thread } from '../model.js';

/**
 * A customer message is a new question of its thread: type EMAIL on an EMAIL thread, TEXT otherwise
 * (docs/sandbox.md, "State"). It goes to the bot as a MESSAGE webhook only when a bot is connected
 * and the thread is with the bot; `noWebhook` says why not (null: a webhook is sent).
 */
export function customerQuestion(thread: Thread, botConnected: boolean): { questionType: QuestionType; noWebhook: string | null } {
  const questionType: QuestionType = thread.channel === 'EMAIL' ? 'EMAIL' : 'TEXT';
  const noWebhook = !botConnected
    ? 'no bot is connected (start the sandbox with --bot-url)'
    : thread.owner === 'agents'
      ? 'the thread is with agents'
      : null;
  return { questionType, noWebhook };
}
