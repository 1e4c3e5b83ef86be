import { randomBytes } from 'node:crypto';
import type { Problem } from '../errors.js';
import { parseJson, stringifyJson } from '../payload/json.js';
import { invalid, readJsonObject, type Answer, type Exchange, type Handler } from './exchange.js';
import { Faults } from './faults.js';
import { maxCustomerText, type Delivery, type SandboxState } from './state.js';
import { CRAFTS, SKEW_SECONDS, type Craft } from './page/crafts.js';
import { secretKey, signature } from './signature.js';
import { SHAPE_FIELDS, WORDS_FIELDS, shapeBody, shapeOf, shapeProblems, wordsProblems, type ProbeShape } from './probe-shape.js';
import type { AttemptResult, WebhookSender } from './webhook.js';

/**
 * Crafted deliveries and one-shot faults: what `core check-bot` grades a bot's webhook handling with
 * (docs/check-bot.md), over the sandbox's own endpoints so that it works against a running sandbox
 * as well as one it starts (docs/sandbox.md, "Probes").
 *
 * - `POST /_sandbox/probes` `{"sessionId", "craft", "text"?}` asks a customer question in the thread
 *   (a question the bot can answer like any other) and sends its MESSAGE webhook once, crafted as
 *   `craft` says: correctly signed, without the webhook-* headers, with its body changed after
 *   signing, signed with another secret, with two signatures of which only the second is valid,
 *   with a timestamp ten minutes old or ahead, with unknown fields and an unknown header, as bytes a
 *   re-serialiser changes (`raw-body`: spaces, keys in reverse order, `\u00e9` escapes, a `3.0`), or
 *   correctly signed for a question whose questionId is above 2^53 and held by no double (`large-ids`:
 *   2^53 + 1 + 4k, odd, each its own; the thread's client may be named with a coreClientId above 2^53 too).
 *   `{"deliveryId", "craft": "replay"}` sends a kept delivery again (same webhook-id and body, a new
 *   timestamp and signature). The attempt is not retried, it is recorded as every attempt is, and
 *   the answer says how the bot answered it.
 * - `POST /_sandbox/probes/faults` `{"sessionId", "status"?}` arms a fault (faults.ts): the next
 *   POST /api/v1/chatbot that names the thread (its sessionId, one of its questions or its client)
 *   is answered `status` (default 503, with Retry-After: 1) instead of being handled.
 *   `GET /_sandbox/probes/faults/{faultId}` says whether it fired, and the answerId of the request it
 *   refused, so a retry can be compared with it.
 * - `POST /_sandbox/probes/checks` `{"sessionId", "check", "verdict"?, "message"?}` labels a thread as
 *   the one a check plays (`core check-bot` says so when it starts the check, then again with its
 *   verdict, "pass" or "fail"): a probe.check event, which the page shows in the list and the header.
 */

// The crafts, what each makes of a delivery and which a bot must refuse: one list, shared with the page.
export { CRAFTS, SKEW_SECONDS, type Craft } from './page/crafts.js';

/** The unknown fields and header of the `unknown-fields` craft: names no version of the webhook uses. */
export const UNKNOWN_FIELD = 'futureField';
export const UNKNOWN_HEADER = 'X-Core-Future-Header';

export interface ProbeDeps {
  state: SandboxState;
  /** null without --bot-url. */
  sender: WebhookSender | null;
  /** The secret the sandbox signs with (`whsec_...`). */
  secret: string;
  url: string | null;
}

/** The exact request of one crafted attempt. */
export interface CraftedRequest {
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The headers and body of a crafted attempt of `delivery`, on top of `base` (Content-Type,
 * User-Agent, X-Tenant-Name). Pure but for the random keys of `wrong-secret` and `rotation`.
 */
export function craftRequest(
  craft: Craft,
  delivery: Pick<Delivery, 'deliveryId' | 'body'>,
  key: Buffer,
  now: number,
  base: Record<string, string>,
): CraftedRequest {
  const id = delivery.deliveryId;
  const signed = (body: Buffer, timestamp: number, signatureValue: string): CraftedRequest => ({
    headers: { ...base, 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureValue },
    body,
  });
  const body = delivery.body;
  switch (craft) {
    case 'signed':
    case 'replay':
    case 'fuzz':
      return signed(body, now, signature(key, id, now, body));
    case 'unsigned':
      return { headers: { ...base }, body };
    case 'tampered': {
      // Signed as sent, then the customer's text is changed: what an attacker in the middle does.
      const changed = rewrite(body, (webhook) => {
        const message = webhook.message as Record<string, unknown>;
        message.text = `${String(message.text)} (changed after signing)`;
      });
      return signed(changed, now, signature(key, id, now, body));
    }
    case 'wrong-secret':
      return signed(body, now, signature(randomBytes(32), id, now, body));
    case 'rotation':
      // Standard Webhooks: several space-separated signatures, any one of which may be valid.
      return signed(body, now, `${signature(randomBytes(32), id, now, body)} ${signature(key, id, now, body)}`);
    case 'stale':
      return signed(body, now - SKEW_SECONDS, signature(key, id, now - SKEW_SECONDS, body));
    case 'future':
      return signed(body, now + SKEW_SECONDS, signature(key, id, now + SKEW_SECONDS, body));
    case 'raw-body': {
      // Bytes a re-serialiser changes, signed as they are: a bot that signs its own JSON.stringify of
      // the parsed body, not the bytes received, refuses it.
      const written = Buffer.from(reserialised(parseJson(body.toString('utf8'))), 'utf8');
      return signed(written, now, signature(key, id, now, written));
    }
    case 'large-ids':
      // The question and its client have identifiers above 2^53; the delivery itself is as usual.
      return signed(body, now, signature(key, id, now, body));
    case 'unknown-fields': {
      const extended = rewrite(body, (webhook) => {
        webhook[UNKNOWN_FIELD] = { note: 'a field a later version of the webhook may add' };
        (webhook.message as Record<string, unknown>)[UNKNOWN_FIELD] = 'a field a later version of the message may add';
      });
      const request = signed(extended, now, signature(key, id, now, extended));
      request.headers[UNKNOWN_HEADER] = 'a header a later version may add';
      return request;
    }
  }
}

/**
 * The same JSON value written as no serialiser would write it back: spaces and line breaks around
 * every token, the keys of each object in reverse order, every character past ASCII as a `\u` escape
 * (`é` as `\u00e9`), and the questionIndex as a decimal (`3.0`). Every value is as it was.
 */
export function reserialised(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (typeof value === 'string')
    return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value))
    return value.length === 0 ? '[ ]' : `[\n${value.map((item) => `${inner}${reserialised(item, inner)}`).join(' ,\n')}\n${indent}]`;
  const entries = Object.entries(value as Record<string, unknown>).reverse();
  if (entries.length === 0) return '{ }';
  const written = entries.map(([key, item]) => {
    const text =
      key === 'questionIndex' && (typeof item === 'bigint' || typeof item === 'number') ? `${item}.0` : reserialised(item, inner);
    return `${inner}${reserialised(key)} : ${text}`;
  });
  return `{\n${written.join(' ,\n')}\n${indent}}`;
}

/** The delivery's body changed by `change`, identifiers kept exact. */
function rewrite(body: Buffer, change: (webhook: Record<string, unknown>) => void): Buffer {
  const webhook = parseJson(body.toString('utf8')) as Record<string, unknown>;
  change(webhook);
  return Buffer.from(stringifyJson(webhook), 'utf8');
}

const noBot: Answer = {
  status: 409,
  error: 'no bot is connected: start the sandbox with --bot-url URL to send it deliveries',
  what: 'refused: no bot connected',
};

/** What the probes need: the state, the sender, and the secret's key. */
interface Prober {
  state: SandboxState;
  sender: WebhookSender;
  key: Buffer;
  url: string | null;
}

/** Sends one crafted attempt (its body shaped as asked: probe-shape.ts) and records it as the delivery's attempt. */
async function sendCrafted(prober: Prober, craft: Craft, delivery: Delivery, shape?: ProbeShape): Promise<SentAttempt> {
  const { sender } = prober;
  const sent = shape === undefined ? delivery : { deliveryId: delivery.deliveryId, body: shapeBody(delivery.body, shape) };
  const request = craftRequest(craft, sent, prober.key, Math.floor(Date.now() / 1000), sender.baseHeaders(delivery.tenant));
  const answered = prober.state.attemptSent(delivery);
  const result = await sender.probe(request.headers, request.body).finally(answered);
  const delivered = result.status !== null && result.status >= 200 && result.status < 300;
  prober.state.webhookAttempt(delivery, {
    attempt: 1,
    redelivery: delivery.redeliveries,
    url: prober.url ?? '',
    status: result.status,
    error: result.error,
    latencyMs: result.latencyMs,
    body: result.body,
    bodyTruncated: result.bodyTruncated,
    outcome: delivered ? 'delivered' : 'failed',
    retryInMs: null,
    retryAfter: false,
    craft,
  });
  return { ...result, sent: request.body };
}

/** An attempt's result and the body it sent. */
type SentAttempt = AttemptResult & { sent: Buffer };

/** How the bot answered, and (`delivery`) the exact body sent, as text: a lone surrogate is written escaped, so it reads as UTF-8. */
const attemptJson = (result: SentAttempt) => ({
  status: result.status,
  error: result.error,
  latencyMs: result.latencyMs,
  body: result.body,
  delivery: result.sent.toString('utf8'),
});

/** The fields each kind of probe takes. */
function allowedFields(craft: unknown): readonly string[] {
  if (craft === 'replay') return ['craft', 'deliveryId', ...SHAPE_FIELDS];
  if (craft === 'fuzz') return ['craft', 'sessionId', 'text', ...WORDS_FIELDS, ...SHAPE_FIELDS];
  return ['craft', 'sessionId', 'text'];
}

/** Every problem with the body of POST /_sandbox/probes. */
function probeProblems(body: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const craft = body.craft;
  if (typeof craft !== 'string' || !(CRAFTS as readonly string[]).includes(craft)) {
    problems.push({ path: 'craft', message: `${JSON.stringify(craft) ?? 'absent'}: use one of ${CRAFTS.join(', ')}` });
  }
  const replay = craft === 'replay';
  const allowed = allowedFields(craft);
  for (const field of Object.keys(body)) {
    if (!allowed.includes(field)) problems.push({ path: field, message: `unknown field; this probe takes ${allowed.join(', ')}` });
  }
  const named = replay ? 'deliveryId' : 'sessionId';
  if (typeof body[named] !== 'string' || body[named] === '') problems.push({ path: named, message: 'must be a non-empty string' });
  if (replay || craft === 'fuzz') problems.push(...shapeProblems(body));
  if (craft === 'fuzz') problems.push(...wordsProblems(body));
  else if (!replay) {
    const text = probeText(body);
    if (typeof text !== 'string' || text === '' || text.length > maxCustomerText) {
      problems.push({ path: 'text', message: `must be a non-empty string of at most ${maxCustomerText} characters` });
    }
  }
  return problems;
}

const probeText = (body: Record<string, unknown>) => body.text ?? `A question sent by core check-bot (${String(body.craft)}).`;

/** `{"deliveryId", "craft": "replay"}`: a kept delivery sent again (shaped as the body asks, so as its first attempt was). */
async function replayProbe(prober: Prober, deliveryId: string, shape: ProbeShape): Promise<Answer> {
  const sent = prober.state.redeliver(deliveryId);
  if (!sent.ok) {
    return {
      status: sent.status,
      ...(sent.tenant === undefined ? {} : { tenant: sent.tenant }),
      error: sent.error,
      what: sent.status === 404 ? 'unknown delivery' : 'delivery in flight',
    };
  }
  const { delivery } = sent;
  const result = await sendCrafted(prober, 'replay', delivery, shape);
  return {
    status: 200,
    tenant: delivery.tenant,
    json: {
      craft: 'replay',
      sessionId: delivery.sessionId,
      questionId: delivery.questionId,
      deliveryId: delivery.deliveryId,
      attempt: attemptJson(result),
    },
    what: `probe replay of ${delivery.deliveryId}: the bot answered ${result.status ?? result.error}`,
  };
}

/** What the customer sent in a probe's question: the text alone, or (`fuzz`) a button pressed or an item picked. */
interface ProbeWords {
  text: string;
  quickReply: Record<string, unknown> | null;
  listItem: { identifier: string; title: string } | null;
  largeId: boolean;
}

function wordsOf(body: Record<string, unknown>): ProbeWords {
  const fuzz = body.craft === 'fuzz';
  return {
    text: probeText(body) as string,
    quickReply: fuzz ? ((body.quickReply as ProbeWords['quickReply'] | undefined) ?? null) : null,
    listItem: fuzz ? ((body.listItem as ProbeWords['listItem'] | undefined) ?? null) : null,
    largeId: fuzz && body.largeIds === true,
  };
}

/**
 * `{"sessionId", "craft", "text"?}`: a customer question in the thread, its webhook sent once as `craft`
 * says; with `fuzz`, what the customer sent and the delivery's shape as the body says (probe-shape.ts).
 */
async function craftedProbe(prober: Prober, craft: Craft, sessionId: string, words: ProbeWords, shape: ProbeShape): Promise<Answer> {
  const thread = prober.state.thread(sessionId);
  if (thread === undefined) {
    return { status: 404, error: `no conversation with sessionId '${sessionId}'`, what: 'unknown conversation' };
  }
  const { text, quickReply, listItem, largeId } = words;
  const { event, delivery } = prober.state.customerMessage(
    thread,
    // large-ids: a questionId above 2^53 that no double holds (2^53 + 1 + 4k, odd), so a bot that reads it as one answers another.
    { text, quickReply, listItem, largeId: largeId || craft === 'large-ids' },
  );
  if (delivery === null) {
    return {
      status: 409,
      tenant: thread.tenant,
      error: `no delivery was made: ${event.noWebhook ?? 'no bot'}`,
      what: 'refused: no delivery',
    };
  }
  const result = await sendCrafted(prober, craft, delivery, craft === 'fuzz' ? shape : undefined);
  return {
    status: 200,
    tenant: thread.tenant,
    json: {
      craft,
      sessionId: thread.sessionId,
      questionId: event.questionId,
      questionIndex: event.questionIndex,
      deliveryId: delivery.deliveryId,
      attempt: attemptJson(result),
    },
    what: `probe ${craft} in ${thread.sessionId}: the bot answered ${result.status ?? result.error}`,
  };
}

/** The longest check id and verdict message a label keeps. */
export const MAX_CHECK_ID = 100;
export const MAX_CHECK_MESSAGE = 2000;

const CHECK_FIELDS = ['sessionId', 'check', 'verdict', 'message'];

/** Every problem with the body of POST /_sandbox/probes/checks. */
function labelProblems(body: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  for (const field of Object.keys(body)) {
    if (!CHECK_FIELDS.includes(field)) problems.push({ path: field, message: `unknown field; a label takes ${CHECK_FIELDS.join(', ')}` });
  }
  if (typeof body.sessionId !== 'string' || body.sessionId === '')
    problems.push({ path: 'sessionId', message: 'must be a non-empty string' });
  if (typeof body.check !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(body.check) || body.check.length > MAX_CHECK_ID) {
    problems.push({
      path: 'check',
      message: `must be a check id (letters, digits, '.', '_' and '-', at most ${MAX_CHECK_ID} characters), such as signature.tampered`,
    });
  }
  const verdict = body.verdict;
  if (verdict !== undefined && verdict !== null && verdict !== 'pass' && verdict !== 'fail') {
    problems.push({ path: 'verdict', message: 'use "pass", "fail" or null (the check runs)' });
  }
  const message = body.message;
  if (message !== undefined && message !== null && (typeof message !== 'string' || message.length > MAX_CHECK_MESSAGE)) {
    problems.push({ path: 'message', message: `must be a string of at most ${MAX_CHECK_MESSAGE} characters, or null` });
  }
  return problems;
}

/** POST /_sandbox/probes/checks: the thread labelled as a check's, with its verdict once known. */
async function label(state: SandboxState, ex: Exchange): Promise<Answer> {
  const read = await readJsonObject(ex);
  if (!read.ok) return read.answer;
  const body = read.value;
  const problems = labelProblems(body);
  if (problems.length > 0) return invalid(problems);
  const sessionId = body.sessionId as string;
  const thread = state.thread(sessionId);
  if (thread === undefined) return { status: 404, error: `no conversation with sessionId '${sessionId}'`, what: 'unknown conversation' };
  const event = state.labelCheck(thread, {
    check: body.check as string,
    verdict: (body.verdict as 'pass' | 'fail' | null | undefined) ?? null,
    message: (body.message as string | null | undefined) ?? null,
  });
  return {
    status: 200,
    tenant: thread.tenant,
    json: { sessionId, check: event.check, verdict: event.verdict, message: event.message, seq: event.seq },
    what: `check ${event.check} in ${sessionId}: ${event.verdict ?? 'running'}`,
  };
}

/** POST /_sandbox/probes */
async function probe(deps: ProbeDeps, key: Buffer, ex: Exchange): Promise<Answer> {
  const read = await readJsonObject(ex);
  if (!read.ok) return read.answer;
  const body = read.value;
  const problems = probeProblems(body);
  if (problems.length > 0) return invalid(problems);
  if (deps.sender === null) return noBot;
  const prober: Prober = { state: deps.state, sender: deps.sender, key, url: deps.url };
  const shape = shapeOf(body);
  if (body.craft === 'replay') return replayProbe(prober, body.deliveryId as string, shape);
  return craftedProbe(prober, body.craft as Craft, body.sessionId as string, wordsOf(body), shape);
}

export function probeHandlers(deps: ProbeDeps): {
  probe: Handler;
  arm: Handler;
  showFault: Handler;
  label: Handler;
  intercept: (ex: Exchange, tenant: string, body: unknown) => Answer | undefined;
} {
  const key = secretKey(deps.secret);
  const faults = new Faults(deps.state);
  return {
    probe: (ex) => probe(deps, key, ex),
    arm: (ex) => faults.arm(ex),
    showFault: (ex) => faults.show(ex),
    label: (ex) => label(deps.state, ex),
    intercept: (ex, tenant, body) => faults.intercept(ex, tenant, body),
  };
}
