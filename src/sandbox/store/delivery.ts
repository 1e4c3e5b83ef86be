import { stringifyJson } from '../../payload/json.js';
import { checkedMessageDelivery, messageDelivery } from '../../payload/message.js';
import type { CustomerMessageEvent } from '../events.js';
import type { DeliveryState } from './tenant.js';

/** What a delivery keeps besides its body's bytes, for the event budget. */
export const DELIVERY_OVERHEAD = 160;

/**
 * The MESSAGE webhook of a customer message that has a deliveryId: its exact bytes (UTF-8), kept for retries
 * and redelivery (docs/sandbox.md, "The MESSAGE webhook"). Made from the event alone, so that applying
 * the same event again makes the same bytes; the webhook's timestamp is the message's time. In flight
 * from the start: the sender takes it as soon as it is recorded.
 */
export function newDelivery(event: CustomerMessageEvent & { deliveryId: string }): DeliveryState {
  // Built through the contract's schema (src/payload/message.ts): a delivery that breaks it is never sent.
  const body = messageDelivery(deliveryBody(event));
  return {
    deliveryId: event.deliveryId,
    tenant: event.tenant,
    sessionId: event.sessionId,
    questionId: event.questionId,
    body: Buffer.from(stringifyJson(body)),
    seq: event.seq,
    redeliveries: 0,
    inFlight: true,
  };
}

/**
 * What breaks the contract in the delivery `newDelivery` would make of `event`, or undefined when
 * nothing does: asked before an event made of fields from outside (a bridged message) is recorded,
 * since recording it makes its delivery.
 */
export function deliveryProblem(event: CustomerMessageEvent): string | undefined {
  const checked = checkedMessageDelivery(deliveryBody(event));
  return checked.ok ? undefined : checked.problems.join('; ');
}

/** The MESSAGE webhook's body of a customer message, before it is checked against the contract. */
function deliveryBody(event: CustomerMessageEvent): unknown {
  return {
    type: 'MESSAGE',
    tenant: event.tenant,
    timestamp: event.time,
    message: {
      questionId: event.questionId,
      questionIndex: event.questionIndex,
      sessionId: event.sessionId,
      coreClientId: event.coreClientId,
      clientId: event.clientId,
      type: event.questionType,
      channel: event.channel,
      text: event.text,
      receivedAt: event.time,
      quickReply: event.quickReply,
      listItem: event.listItem,
    },
  };
}
