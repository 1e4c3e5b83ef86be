import { flatten } from '../../payload/json.js';
import type { Craft, EventFields } from '../events.js';
import type { Delivery } from '../model.js';

/**
 * A MESSAGE webhook's redeliveries and attempts (docs/sandbox.md, "The MESSAGE webhook"): a kept
 * delivery (the one found by `deliveryId` in any tenant, or undefined) whose attempts have ended can be
 * sent again, as a new series under the same webhook-id; one still being attempted cannot (409), and
 * one no longer kept is unknown (404).
 */
export function redelivery(
  deliveryId: string,
  delivery: Delivery | undefined,
): { ok: true; event: EventFields<'webhook.redelivery'> } | { ok: false; status: 404 | 409; error: string } {
  if (delivery === undefined) {
    return {
      ok: false,
      status: 404,
      error: `no delivery '${deliveryId}' (it may be older than the events the sandbox keeps, or the sandbox was reset)`,
    };
  }
  if (delivery.inFlight) {
    return {
      ok: false,
      status: 409,
      error: `delivery '${deliveryId}' is still being attempted: send it again once its last attempt is recorded`,
    };
  }
  const { sessionId, questionId } = delivery;
  return { ok: true, event: { type: 'webhook.redelivery', sessionId, deliveryId, questionId, redelivery: delivery.redeliveries + 1 } };
}

/** What the sender reports of one attempt (src/sandbox/webhook.ts); `craft` only for one made on purpose (src/sandbox/probe.ts). */
export type AttemptFields = Omit<EventFields<'webhook.attempt'>, 'type' | 'sessionId' | 'deliveryId' | 'questionId' | 'craft'> & {
  craft?: Craft | null;
};

/** The event of one attempt of a delivery: its outcome ends the series unless another attempt follows. */
export function attemptEvent(delivery: Delivery, attempt: AttemptFields): EventFields<'webhook.attempt'> {
  const { sessionId, deliveryId, questionId } = delivery;
  return {
    type: 'webhook.attempt',
    ...{ sessionId, deliveryId, questionId },
    ...attempt,
    body: flatten(attempt.body),
    craft: attempt.craft ?? null,
  };
}
