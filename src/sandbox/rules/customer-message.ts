import { flatten } from '../../payload/json.js';
import type { EventFields, QuestionType } from '../events.js';
import type { RandomIds, TenantView, Thread } from '../model.js';

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

/** What the customer sent: a text, or the button pressed or the list item picked (with the text it sends). */
export interface CustomerWords {
  text: string;
  quickReply: Record<string, unknown> | null;
  listItem: { identifier: string; title: string } | null;
  /** A questionId above 2^53 (a probe's `largeIds`, src/sandbox/probe.ts). */
  largeId?: boolean;
}

/**
 * The event of a customer message in a thread: the tenant's next questionId, the thread's next
 * questionIndex, and a deliveryId when a webhook goes out (the store keeps the delivery's bytes).
 */
export function customerMessage(
  view: TenantView,
  thread: Thread,
  words: CustomerWords,
  botConnected: boolean,
  ids: RandomIds,
): EventFields<'customer.message'> {
  const { questionType, noWebhook } = customerQuestion(thread, botConnected);
  const { sessionId, channel, client } = thread;
  return {
    type: 'customer.message',
    ...{ sessionId, channel, coreClientId: client.coreClientId, clientId: client.clientId },
    ...{
      questionId: words.largeId === true ? view.nextLargeQuestionId : view.nextQuestionId,
      questionIndex: thread.nextIndex,
      questionType,
    },
    ...{ text: flatten(words.text), quickReply: words.quickReply, listItem: words.listItem },
    ...{ deliveryId: noWebhook === null ? ids.deliveryId() : null, noWebhook },
  };
}
