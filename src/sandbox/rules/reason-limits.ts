import type { Reason } from '../../payload/index.js';
import type { EventFields } from '../events.js';
import type { TenantView } from '../model.js';
import { isActive, storedReason } from '../seed.js';

/**
 * An update of an inactivity reason (docs/api.md, reason rules): an unknown code is 404 naming it
 * (reason rule 1); more active reasons than the limit is 409 (reason rule 2), unless the update
 * does not add to the count (a tenant seeded over the limit can still switch reasons off). The
 * stored reason writes out the default `active: true` (reason field rule 4).
 */
export type ReasonDecision = { ok: true; reason: Reason; activeCount: number } | { ok: false; status: 404 | 409; message: string };

export function decideReasonUpdate(view: TenantView, update: Reason, maxActiveReasons: number): ReasonDecision {
  const current = view.reasons.get(update.code);
  if (current === undefined) return { ok: false, status: 404, message: `no inactivity reason with code '${update.code}'` };
  const next = storedReason(update);
  const active = view.activeCount - (isActive(current.reason) ? 1 : 0) + (isActive(next) ? 1 : 0);
  if (active > maxActiveReasons && active > view.activeCount) {
    return {
      ok: false,
      status: 409,
      message:
        `too many active inactivity reasons: activating '${update.code}' would make ${active} active, ` +
        `the limit is ${maxActiveReasons}`,
    };
  }
  return { ok: true, reason: next, activeCount: active };
}

/** The event of a reason update the limits allow (the reason as stored), or the refusal. */
export function reasonUpdate(
  view: TenantView,
  update: Reason,
  maxActiveReasons: number,
  requestId: string,
): { ok: true; event: EventFields<'reason.updated'> } | { ok: false; status: 404 | 409; message: string } {
  const decided = decideReasonUpdate(view, update, maxActiveReasons);
  if (!decided.ok) return decided;
  return { ok: true, event: { type: 'reason.updated', sessionId: null, requestId, code: update.code, reason: decided.reason } };
}
