import { describe, expect, it } from 'vitest';
import type { Reason } from '../../../src/payload/index.js';
import { decideReasonUpdate } from '../../../src/sandbox/rules/reason-limits.js';
import { world } from './world.js';

/** Reason rules 1 and 2 and field rule 4 (docs/api.md): unknown code 404, the active limit 409, `active` defaults to true. */

const update = (code: string, active?: boolean): Reason =>
  ({ code, reasons: [{ locale: 'en', name: code }], ...(active === undefined ? {} : { active }) }) as Reason;

/** A tenant with `active` active reasons and one inactive, OFF. */
function tenant(active: number) {
  const w = world();
  for (let i = 0; i < active; i += 1) w.reason(`ON${i}`, true);
  w.reason('OFF', false);
  return w.view;
}

describe('an update of an inactivity reason', () => {
  it('is a 404 naming an unknown code', () => {
    expect(decideReasonUpdate(tenant(1), update('NOPE', true), 5)).toEqual({
      ok: false,
      status: 404,
      message: "no inactivity reason with code 'NOPE'",
    });
  });

  it.each([
    ['activating one more, up to the limit', 2, 3, true, 3],
    ['activating one more, past the limit by one', 3, 3, false, 4],
    ['activating with `active` absent (it means true), past the limit', 3, 3, false, 4],
  ])('%s', (title, active, limit, ok, count) => {
    const absent = title.includes('absent');
    const decided = decideReasonUpdate(tenant(active), update('OFF', absent ? undefined : true), limit);
    if (ok) expect(decided).toEqual({ ok: true, reason: { ...update('OFF'), active: true }, activeCount: count });
    else {
      expect(decided).toEqual({
        ok: false,
        status: 409,
        message: `too many active inactivity reasons: activating 'OFF' would make ${count} active, the limit is ${limit}`,
      });
    }
  });

  it.each([
    ['keeps an active reason active at the limit', 'ON0', true, 3, 3],
    ['switches a reason off at the limit', 'ON0', false, 3, 2],
    ['switches a reason off over the limit (a seed over it can still come down)', 'ON0', false, 2, 2],
    ['keeps an active reason active over the limit (the count does not grow)', 'ON0', true, 2, 3],
    ['keeps an inactive reason inactive', 'OFF', false, 3, 3],
  ])('%s', (_, code, active, limit, count) => {
    const decided = decideReasonUpdate(tenant(3), update(code, active), limit);
    expect(decided).toEqual({ ok: true, reason: { ...update(code), active }, activeCount: count });
  });

  it('stores `active: true` for an update without `active` (field rule 4)', () => {
    const decided = decideReasonUpdate(tenant(0), update('OFF'), 5);
    expect(decided.ok && decided.reason.active).toBe(true);
  });
});
