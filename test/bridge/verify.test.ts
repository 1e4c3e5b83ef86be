import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOLERANCE_SECONDS, verificationProblem } from '../../src/bridge/verify.js';

/** A bridge verifies the platform's deliveries as Standard Webhooks 1.0 says, with the profile's webhookSecret. */

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const body = Buffer.from('{"type":"MESSAGE"}');
const now = 1_800_000_000_000;

function signed(id: string, timestamp: number, key = secret, payload = body) {
  const mac = createHmac('sha256', Buffer.from(key.slice(6), 'base64'))
    .update(`${id}.${timestamp}.`)
    .update(payload)
    .digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${mac}` };
}

describe('verificationProblem', () => {
  it('accepts a delivery signed with the secret', () => {
    expect(verificationProblem(secret, signed('msg_1', now / 1000), body, now)).toBeUndefined();
  });

  it('accepts one of several space-separated signatures (a secret being rotated)', () => {
    const headers = signed('msg_1', now / 1000);
    headers['webhook-signature'] = `v1,bm90IGl0 ${headers['webhook-signature']}`;
    expect(verificationProblem(secret, headers, body, now)).toBeUndefined();
  });

  it.each([
    ['at the tolerance', TOLERANCE_SECONDS, true],
    ['one second past it', TOLERANCE_SECONDS + 1, false],
    ['at the tolerance ahead', -TOLERANCE_SECONDS, true],
    ['one second past it ahead', -TOLERANCE_SECONDS - 1, false],
  ])('takes a timestamp %s (%i s old)', (_, age, ok) => {
    const problem = verificationProblem(secret, signed('msg_1', now / 1000 - age), body, now);
    if (ok) expect(problem).toBeUndefined();
    else expect(problem).toMatch(/from this machine's clock/);
  });

  it.each([
    ['another secret', signed('msg_1', now / 1000, `whsec_${randomBytes(32).toString('base64')}`), body, /does not verify/],
    ['another body', signed('msg_1', now / 1000), Buffer.from('{"type":"MESSAGE" }'), /does not verify/],
    ['no signature header', { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now / 1000) }, body, /no webhook-id/],
    ['a timestamp that is not a number', { ...signed('msg_1', now / 1000), 'webhook-timestamp': 'soon' }, body, /not Unix seconds/],
  ])('refuses a delivery with %s, never naming the secret', (_, headers, payload, problem) => {
    const found = verificationProblem(secret, headers, payload, now);
    expect(found).toMatch(problem);
    expect(found).not.toContain(secret.slice(6, 20));
  });
});
