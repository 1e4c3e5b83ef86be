import { stringifyJson } from '../../payload/json.js';
import { messageDelivery } from '../../payload/message.js';
import type { CustomerMessageEvent } from '../events.js';
import type { Delivery, Thread } from '../model.js';

/** What a delivery keeps besides its body's bytes, for the event budget. */
export const DELIVERY_OVERHEAD = 160;

/** The MESSAGE webhook of a customer message: its exact bytes, kept for retries and redelivery (docs/sandbox.md, "The MESSAGE webhook"). */
export function newDelivery(thread: Thread, event: CustomerMessageEvent, deliveryId: string): Delivery {
  // Built through the contract's schema (src/payload/message.ts): a delivery that breaks it is never sent.
  const body = messageDelivery({
    type: 'MESSAGE',
    tenant: thread.tenant,
    timestamp: new Date().toISOString(),
    message: {
      questionId: event.questionId,
      questionIndex: event.questionIndex,
      sessionId: thread.sessionId,
      coreClientId: thread.client.coreClientId,
      clientId: thread.client.clientId,
      type: event.questionType,
      channel: thread.channel,
      text: event.text,
      receivedAt: event.time,
      quickReply: event.quickReply,
      listItem: event.listItem,
    },
  });
  return {
    deliveryId,
    tenant: thread.tenant,
    sessionId: thread.sessionId,
    questionId: event.questionId,
    body: Buffer.from(stringifyJson(body), 'utf8'),
    seq: event.seq,
    redeliveries: 0,
    inFlight: false,
  };
}
