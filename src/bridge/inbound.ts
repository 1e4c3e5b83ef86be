import type { Answer, Exchange, Handler } from '../sandbox/exchange.js';
import { readBody } from '../sandbox/http.js';
import type { Delivery } from '../sandbox/model.js';
import { maxBodyBytes } from '../sandbox/options.js';
import { newDeliveryId, secretKey, signature } from '../sandbox/signature.js';
import type { SandboxState } from '../sandbox/state.js';
import type { AttemptRecord, AttemptResult, WebhookSender } from '../sandbox/webhook.js';
import { readDelivery, type WebhookMap } from './map.js';
import { verificationProblem } from './verify.js';

/**
 * The bridge's inbound side (docs/bridge.md, "Inbound"): POST /webhook takes the real platform's
 * MESSAGE webhook. A delivery that verifies (or, with no platform secret known, any delivery) and
 * reads as a customer message is recorded with the platform's identifiers, then sent to the bot with
 * its exact bytes, signed with the local secret, and retried as the sandbox retries; the platform is
 * answered with the bot's last answer once the attempts end. A delivery whose signature does not
 * verify is passed on with its own headers (the bot, verifying with the local secret, refuses it as
 * it would the real one); one that cannot be read, or whose fields break the sandbox's MESSAGE schema
 * (so that the sandbox's own form of it, the page's "Redeliver", cannot be made), is passed on once,
 * signed with the local secret. Either is recorded as a bridge.webhook event, and no question.
 */

export interface InboundDeps {
  state: SandboxState;
  sender: WebhookSender;
  tenant: string;
  /** The local secret the bot verifies with. */
  localSecret: string;
  /** The platform's secret (the profile's webhookSecret), or null when not known. */
  platformSecret: string | null;
  map: WebhookMap;
}

export interface Inbound {
  handler: Handler;
  /** Told of each webhook attempt: ends the wait of the platform's request once its delivery's attempts end. */
  attempted(delivery: Delivery, attempt: AttemptRecord): void;
  /** Answers every platform request still waiting (the bridge is stopping). */
  close(): void;
}

const STOPPING: AttemptRecord = {
  attempt: 0,
  redelivery: 0,
  url: '',
  status: null,
  error: 'the bridge is stopping',
  latencyMs: 0,
  body: '',
  bodyTruncated: false,
  outcome: 'failed',
  retryInMs: null,
  retryAfter: false,
};

export function inbound(deps: InboundDeps): Inbound {
  const { state, sender, tenant } = deps;
  /** The platform requests waiting for their delivery's attempts to end, by deliveryId. */
  const waiting = new Map<string, ((attempt: AttemptRecord) => void)[]>();
  const wait = (deliveryId: string) =>
    new Promise<AttemptRecord>((resolve) => {
      const list = waiting.get(deliveryId) ?? [];
      list.push(resolve);
      waiting.set(deliveryId, list);
    });

  /** A delivery passed on as it came: its own signature kept, or signed with the local secret. */
  async function passOn(ex: Exchange, bytes: Buffer, kind: 'failed' | 'verified' | 'unchecked', problem: string): Promise<Answer> {
    const headers = sender.baseHeaders(tenant);
    const original = (name: string) => ex.req.headers[name];
    if (kind === 'failed') {
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
        const value = original(name);
        if (typeof value === 'string') headers[name] = value;
      }
    } else {
      const id = typeof original('webhook-id') === 'string' ? (original('webhook-id') as string) : newDeliveryId();
      const timestamp = Math.floor(Date.now() / 1000);
      Object.assign(headers, {
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(secretKey(deps.localSecret), id, timestamp, bytes),
      });
    }
    const result = await sender.probe(headers, bytes);
    state.bridgeRecord(tenant, {
      type: 'bridge.webhook',
      sessionId: null,
      signature: kind,
      problem,
      botStatus: result.status,
      error: result.error,
      bodyBytes: bytes.length,
    });
    return botAnswer(result, `passed on as it came (${problem})`);
  }

  const handler: Handler = async (ex) => {
    const read = await readBody(ex.req, maxBodyBytes);
    if (!read.ok) {
      return { status: 413, error: `webhook body larger than ${maxBodyBytes} bytes`, what: 'webhook body too large', close: true };
    }
    const bytes = read.bytes;
    const problem = deps.platformSecret === null ? undefined : verificationProblem(deps.platformSecret, ex.req.headers, bytes);
    if (problem !== undefined) return passOn(ex, bytes, 'failed', problem);
    const kind = deps.platformSecret === null ? 'unchecked' : 'verified';
    const parsed = readDelivery(bytes, deps.map);
    if (!parsed.ok) return passOn(ex, bytes, kind, parsed.problem);
    const taken = state.bridgedMessage(tenant, parsed.message);
    if (!taken.ok)
      return passOn(
        ex,
        bytes,
        kind,
        `read, but the sandbox's MESSAGE delivery cannot be made of it (core schema message): ${taken.problem}`,
      );
    const { event, delivery } = taken;
    if (delivery === undefined) return passOn(ex, bytes, kind, 'the question is known but its delivery is no longer kept');
    const outcome = wait(delivery.deliveryId);
    if (event !== null) sender.deliver({ ...delivery, body: bytes });
    else if (!delivery.inFlight) {
      // The platform delivering a question again: a redelivery, as the sandbox records one.
      const again = state.redeliver(delivery.deliveryId);
      if (again.ok) sender.deliver({ ...again.delivery, body: bytes });
    }
    // A delivery still being attempted: this request waits for the same end as the first.
    return botAnswer(await outcome, `delivered to the bot as question ${parsed.message.questionId} (${kind})`, parsed.message.sessionId);
  };

  return {
    handler,
    attempted(delivery, attempt) {
      if (attempt.outcome === 'retrying') return;
      const list = waiting.get(delivery.deliveryId);
      waiting.delete(delivery.deliveryId);
      for (const resolve of list ?? []) resolve(attempt);
    },
    close() {
      for (const list of waiting.values()) for (const resolve of list) resolve(STOPPING);
      waiting.clear();
    },
  };
}

/** The platform's answer: the bot's own status and body, or a 502/504 that says why the bot gave none. */
function botAnswer(result: Pick<AttemptResult, 'status' | 'error' | 'body'>, what: string, sessionId?: string): Answer {
  if (result.status === null) {
    const timedOut = /time/i.test(result.error ?? '');
    return {
      status: timedOut ? 504 : 502,
      error: `the bot gave no answer: ${result.error ?? 'no answer'}`,
      what: `${what}; the bot gave no answer`,
    };
  }
  const body = result.body;
  const json = /^\s*[[{]/.test(body);
  return {
    status: result.status,
    ...(body === '' ? {} : { raw: { contentType: json ? 'application/json' : 'text/plain; charset=utf-8', text: body } }),
    what: `${what}; the bot answered ${result.status}${sessionId === undefined ? '' : ` session=${sessionId}`}`,
  };
}
