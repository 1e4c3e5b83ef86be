import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { secretKey, signature } from '../sandbox/signature.js';

/**
 * Standard Webhooks 1.0 verification of a delivery the real platform sent a bridge, with the
 * platform's secret (the profile's `webhookSecret`): the signature over `<id>.<timestamp>.<body>`,
 * one of the space-separated `v1,` signatures of the header, and a timestamp within five minutes of
 * this machine's clock.
 */

/** How far a delivery's timestamp may be from this machine's clock, as Standard Webhooks advises. */
export const TOLERANCE_SECONDS = 5 * 60;

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** Why a delivery does not verify with `secret`, or undefined when it does. Never names the secret. */
export function verificationProblem(secret: string, headers: IncomingHttpHeaders, body: Buffer, now = Date.now()): string | undefined {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    return 'no webhook-id, webhook-timestamp and webhook-signature headers';
  }
  if (!/^\d{1,12}$/.test(timestamp)) return `webhook-timestamp ${JSON.stringify(timestamp.slice(0, 20))} is not Unix seconds`;
  const skew = Math.abs(now / 1000 - Number(timestamp));
  if (skew > TOLERANCE_SECONDS)
    return `webhook-timestamp is ${Math.round(skew)} s from this machine's clock (at most ${TOLERANCE_SECONDS} s)`;
  const expected = Buffer.from(signature(secretKey(secret), id, Number(timestamp), body));
  const matches = signatures.split(' ').some((given) => {
    const bytes = Buffer.from(given);
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  });
  return matches ? undefined : 'the signature does not verify with the platform secret (webhookSecret of the profile)';
}
