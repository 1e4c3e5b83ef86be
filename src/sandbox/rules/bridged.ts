import { flatten } from '../../payload/json.js';
import type { Channel, EventFields, QuestionType } from '../events.js';
import type { RandomIds, TenantView } from '../model.js';

/**
 * A customer message that the real platform delivered to a bridge (`core bridge`, docs/bridge.md):
 * recorded with the platform's own identifiers, so that the bot's answers are checked against the
 * question it was asked, as the sandbox checks its own.
 */
export interface BridgedMessage {
  sessionId: string;
  channel: Channel;
  coreClientId: bigint;
  clientId: string | null;
  questionId: bigint;
  questionIndex: bigint;
  questionType: QuestionType;
  text: string;
}

/**
 * The events of a bridged message: the thread's start when the tenant does not keep it, then the
 * question, with a delivery (the bridge sends the platform's own bytes, re-signed). A questionId
 * the tenant already keeps is the platform delivering it again: no new event (null), the bridge
 * sends the kept delivery again.
 */
export function bridgedMessageEvents(
  view: TenantView,
  message: BridgedMessage,
  ids: RandomIds,
): (EventFields<'conversation.started'> | EventFields<'customer.message'>)[] | null {
  if (view.questions.has(message.questionId)) return null;
  const { sessionId, channel, coreClientId, questionId, questionIndex, questionType } = message;
  const clientId = message.clientId === null ? null : flatten(message.clientId);
  const events: (EventFields<'conversation.started'> | EventFields<'customer.message'>)[] = [];
  if (!view.threads.has(sessionId)) {
    events.push({ type: 'conversation.started', sessionId, channel, coreClientId, clientId, by: 'customer' });
  }
  events.push({
    type: 'customer.message',
    ...{ sessionId, channel, coreClientId, clientId, questionId, questionIndex, questionType },
    ...{ text: flatten(message.text), quickReply: null, listItem: null },
    ...{ deliveryId: ids.deliveryId(), noWebhook: null },
  });
  return events;
}
