import { describe, expect, it } from 'vitest';
import { clockCheck, MAX_SKEW_MS, skewMs, type Probe } from '../../src/commands/doctor/clock.js';
import { nodeCheck } from '../../src/commands/doctor/run.js';

/**
 * The clock check's arithmetic, on fixed times: the service's Date header (to the second, so read
 * as the middle of its second) against the middle of the exchange on this machine; a skew of 5
 * minutes passes, one second more fails.
 */

const sent = Date.parse('2026-11-20T10:00:00.000Z');

/** A probe answered at once, the service's clock `offsetMs` ahead: the Date header is its second. */
function probe(offsetMs: number, roundTripMs = 0): Probe {
  const serverNow = sent + roundTripMs / 2 + offsetMs;
  return { date: new Date(Math.floor(serverNow / 1000) * 1000).toUTCString(), sentAt: sent, answeredAt: sent + roundTripMs };
}

describe('the clock check', () => {
  it.each([
    ['in step', 0, 'pass', "the service's clock agrees with this machine's (within a second)"],
    ['exactly 5 minutes ahead: the limit passes', MAX_SKEW_MS - 500, 'pass', "the service's clock is 5m ahead of this machine's"],
    ['exactly 5 minutes behind', -MAX_SKEW_MS, 'pass', "the service's clock is 5m behind this machine's"],
    ['5 minutes and a second behind', -MAX_SKEW_MS - 1000, 'fail', /^the service's clock is 5m1s behind .*refused/],
    ['5 minutes and a second ahead: one past the limit fails', MAX_SKEW_MS + 500, 'fail', /^the service's clock is 5m1s ahead .*refused/],
    ['10 minutes behind', -10 * 60_000, 'fail', /^the service's clock is 10m behind/],
  ] as const)('%s', (_what, offset, status, message) => {
    const result = clockCheck(probe(offset));
    expect(result.status).toBe(status);
    expect(result.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
    expect(result.fix !== undefined).toBe(status === 'fail');
  });

  it('reads the middle of the exchange, so a slow answer does not look like a skew', () => {
    // The service made its answer 2 s after the request left, in the second 10:00:02: skew 0 to the second.
    expect(Math.abs(skewMs(probe(0, 4000))!)).toBeLessThan(1000);
  });

  it('is skipped without a Date header, or with one that does not parse', () => {
    expect(clockCheck({ date: undefined, sentAt: sent, answeredAt: sent }).status).toBe('skip');
    expect(clockCheck({ date: 'yesterday-ish', sentAt: sent, answeredAt: sent }).status).toBe('skip');
  });
});

describe('the node check', () => {
  it.each([
    ['20.12.0', 'pass'],
    ['20.11.1', 'fail'],
    ['22.0.0', 'pass'],
    ['18.20.4', 'fail'],
  ] as const)('Node %s: %s', (version, status) => {
    const result = nodeCheck(version);
    expect(result.status).toBe(status);
    if (status === 'fail') expect(result.fix).toContain('20.12');
  });
});
