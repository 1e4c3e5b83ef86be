import { createHmac, randomBytes } from 'node:crypto';
import { randomText } from './random.js';

/**
 * Webhook signing as Standard Webhooks 1.0 describes it: the secret is `whsec_` followed by the
 * base64 of the key's bytes; a delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds)
 * and `webhook-signature: v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<raw body>")>`.
 * The body signed is the exact bytes sent, so a receiver verifies before it parses anything.
 */

export const SECRET_PREFIX = 'whsec_';

/** The key's bounds in bytes: Standard Webhooks recommends secrets of 24 to 64 bytes. */
export const secretBytes = { min: 24, max: 64, generated: 32 } as const;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Why a secret cannot be used, or undefined when it can. Never repeats the secret itself. */
export function webhookSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith(SECRET_PREFIX)) return `must start with ${SECRET_PREFIX} followed by base64, as Standard Webhooks secrets do`;
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded) || encoded === '')
    return `the part after ${SECRET_PREFIX} must be base64 (A-Z, a-z, 0-9, + and /, padded with =)`;
  const length = Buffer.from(encoded, 'base64').length;
  if (length < secretBytes.min || length > secretBytes.max) {
    return `the key is ${length} bytes; use ${secretBytes.min} to ${secretBytes.max} bytes (${SECRET_PREFIX} + base64 of 32 random bytes, say)`;
  }
  return undefined;
}

/** The HMAC key of a valid secret: the bytes its base64 part stands for. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** A new secret of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(secretBytes.generated).toString('base64')}`;
}

/** The value of the `webhook-signature` header for one attempt. */
export function signature(key: Buffer, id: string, timestamp: number, body: Buffer): string {
  const mac = createHmac('sha256', key);
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/** A delivery id in the form Standard Webhooks shows (`msg_` and a unique part). */
export function newDeliveryId(): string {
  return `msg_${randomText(15, 'base64url')}`;
}
