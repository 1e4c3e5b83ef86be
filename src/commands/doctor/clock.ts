import { formatDuration } from '../../text/duration.js';
import type { DoctorCheck } from './report.js';

/**
 * The service's clock against this machine's, from the Date header of its answer (RFC 9110: the
 * time the answer was made, to the second). A MESSAGE webhook carries the sender's time in
 * webhook-timestamp, and a bot refuses one more than 5 minutes from its own clock (Standard
 * Webhooks' tolerance, which the sandbox's deliveries and core check-bot's timestamp.stale and
 * timestamp.future checks follow): a skew beyond that makes every delivery look stale or forged.
 */

/** The skew beyond which webhook timestamps are refused. */
export const MAX_SKEW_MS = 5 * 60_000;

export interface Probe {
  /** The Date header, as sent; undefined when there was none. */
  date: string | undefined;
  /** This machine's time when the request went out, and when the answer came (ms since the epoch). */
  sentAt: number;
  answeredAt: number;
}

/**
 * The service's clock minus this machine's, in ms: the Date header (the middle of its second)
 * against the middle of the exchange here. Undefined without a Date header that parses.
 */
export function skewMs(probe: Probe): number | undefined {
  if (probe.date === undefined) return undefined;
  const served = Date.parse(probe.date);
  if (Number.isNaN(served)) return undefined;
  return served + 500 - (probe.sentAt + probe.answeredAt) / 2;
}

export function clockCheck(probe: Probe): DoctorCheck {
  const base = { id: 'clock', name: 'clock' };
  const skew = skewMs(probe);
  if (skew === undefined) return { ...base, status: 'skip', message: 'not compared: the service sent no Date header' };
  const size = Math.abs(skew);
  const words =
    size < 1500
      ? "agrees with this machine's (within a second)"
      : `is ${formatDuration(Math.round(size / 1000) * 1000)} ${skew > 0 ? 'ahead of' : 'behind'} this machine's`;
  if (size <= MAX_SKEW_MS) return { ...base, status: 'pass', message: `the service's clock ${words}` };
  return {
    ...base,
    status: 'fail',
    message: `the service's clock ${words}: webhook timestamps more than ${formatDuration(MAX_SKEW_MS)} off are refused, so a bot on this machine takes every delivery for stale or forged`,
    fix: "set the clock of this machine (or of the service) right, with NTP: timedatectl set-ntp true, or your system's time settings",
  };
}
