import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { onTestFinished } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer, type ScriptedAnswer } from '../helpers/recording-server.js';

/**
 * Bots for `core check-bot` to grade, on the tests' recording server: flawless unless told of one
 * flaw. A flawless bot verifies the Standard Webhooks signature over the raw body (any of the
 * space-separated v1 signatures), refuses a timestamp more than five minutes from its clock,
 * answers each webhook-id once (answerId `answer-<webhook-id>`), sends a refused answer again with
 * the same answerId, addresses EMAIL answers by sessionId and questionIndex, and ignores fields it
 * does not know. It answers through the API first, then acknowledges the webhook 200.
 */

export interface Flaws {
  /** How the signature is checked: `unsigned-accepted` lets a delivery without webhook-* headers through; `not-compared` takes any v1 signature; `first-only` compares the first signature of the header alone; `reserialised` computes it over the body parsed and written again (identifiers kept exact), not over the bytes received. */
  signature?: 'unsigned-accepted' | 'not-compared' | 'first-only' | 'reserialised';
  /** Verifies with this secret instead of the sandbox's. */
  secret?: string;
  /** Reads the webhook with JSON.parse, so identifiers above 2^53 are rounded in the answer. */
  doubles?: boolean;
  /** Which timestamps are let through: `old` (no lower bound), `future` (no upper bound), `any`. */
  timestamp?: 'old' | 'future' | 'any';
  /** A redelivered webhook-id is answered again: with a new answerId, or with the same one. */
  replay?: 'new-answerId' | 'same-answerId';
  /** After a 5xx from the API: give up, or send again under a new answerId. */
  retry?: 'none' | 'new-answerId';
  /** EMAIL answers addressed by questionId. */
  emailByQuestionId?: boolean;
  /** Refuses (400) a webhook with a field it does not know. */
  strictFields?: boolean;
  /** Answers a delivery it finds invalid with this status instead of 401 (302: a redirect, which refuses nothing). */
  refusesWith?: number;
  /** Acknowledges every webhook with this status instead of 200. */
  ackStatus?: number;
  /** Acknowledges, but never answers. */
  silent?: boolean;
  /** Answers with another token than the sandbox's. */
  token?: string;
  /** Answers naming another tenant than the sandbox's in X-Tenant-Name. */
  tenant?: string;
  /** Answers with a payload the API refuses (no text). */
  invalidAnswer?: boolean;
  /** Answers before refusing a delivery it finds invalid: the check must see the answer, whatever the status. */
  answersBeforeVerifying?: boolean;
  /** Answers 500 to a message whose text is longer than this many UTF-16 units. */
  failsOverLength?: number;
  /** Drops the connection, unanswered, on a message whose text holds this (a handler that crashes). */
  crashesOn?: string;
  /** Addresses an EMAIL answer by questionId alone from the thread's second question on (questionIndex 2: it counts from 1). */
  emailByQuestionIdAfterFirst?: boolean;
  /** Reads the webhook with JSON.parse, so identifiers past 2^53 come back rounded. */
  readsIdsAsDoubles?: boolean;
  /** Answers each question twice, under two answerIds: a sandbox in strict mode refuses the second. */
  answersTwice?: boolean;
  /** Never acknowledges a delivery it takes: the connection stays open, unanswered, until the sandbox gives up. */
  hangs?: boolean;
}

export interface TestBot {
  url: string;
  server: RecordingServer;
  /** Where the bot posts its answers: the sandbox's base URL, once known. */
  connect(apiBase: string): void;
}

const KNOWN_TOP = ['type', 'tenant', 'timestamp', 'message'];
const KNOWN_MESSAGE = [
  'questionId',
  'questionIndex',
  'sessionId',
  'coreClientId',
  'clientId',
  'type',
  'channel',
  'text',
  'receivedAt',
  'quickReply',
  'listItem',
];
const TOLERANCE_SECONDS = 300;

/**
 * `whenFinished` registers the bot's closing: vitest's onTestFinished by default, which knows the test
 * only while one runs at a time; a concurrent test passes its context's own.
 */
export async function startBot(
  secret: string,
  flaws: Flaws = {},
  whenFinished: (close: () => Promise<void>) => void = onTestFinished,
): Promise<TestBot> {
  const key = Buffer.from((flaws.secret ?? secret).replace(/^whsec_/, ''), 'base64');
  let apiBase = '';
  const handled = new Set<string>();

  const refusal = (request: RecordedRequest): string | null => {
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const id = header('webhook-id');
    const timestamp = header('webhook-timestamp');
    const signatures = header('webhook-signature');
    if (!id || !timestamp || !signatures) return flaws.signature === 'unsigned-accepted' ? null : 'missing webhook-* headers';
    const age = Date.now() / 1000 - Number(timestamp);
    const tooOld = age > TOLERANCE_SECONDS && flaws.timestamp !== 'old' && flaws.timestamp !== 'any';
    const tooNew = -age > TOLERANCE_SECONDS && flaws.timestamp !== 'future' && flaws.timestamp !== 'any';
    if (!/^\d+$/.test(timestamp) || tooOld || tooNew) return 'timestamp out of tolerance';
    if (flaws.signature === 'not-compared') return signatures.startsWith('v1,') ? null : 'no v1 signature';
    const signed = flaws.signature === 'reserialised' ? Buffer.from(stringifyJson(parseJson(request.text)), 'utf8') : request.body;
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(signed).digest();
    const entries = signatures.split(' ');
    for (const entry of flaws.signature === 'first-only' ? entries.slice(0, 1) : entries) {
      const [version, value] = entry.split(',');
      const given = Buffer.from(value ?? '', 'base64');
      if (version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)) return null;
    }
    return 'no valid signature';
  };

  const post = async (answer: Record<string, unknown>): Promise<number> => {
    try {
      const response = await fetch(`${apiBase}/api/v1/chatbot`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${flaws.token ?? 'sandbox-token'}`,
          'X-Tenant-Name': flaws.tenant ?? 'sandbox',
        },
        body: flaws.doubles ? JSON.stringify(answer) : stringifyJson(answer),
      });
      await response.text();
      return response.status;
    } catch {
      return 0;
    }
  };

  const answer = async (webhook: Record<string, unknown>, webhookId: string, again: boolean): Promise<void> => {
    const message = webhook.message as Record<string, unknown>;
    const laterEmail = flaws.emailByQuestionIdAfterFirst === true && BigInt(message.questionIndex as bigint | number) >= 2n;
    const email = message.type === 'EMAIL' && !flaws.emailByQuestionId && !laterEmail;
    const answerId = again && flaws.replay === 'new-answerId' ? `answer-${randomUUID()}` : `answer-${webhookId}`;
    const body: Record<string, unknown> = {
      answerId,
      ...(email ? { sessionId: message.sessionId, questionIndex: message.questionIndex } : { questionId: message.questionId }),
      ...(flaws.invalidAnswer ? {} : { text: `You said ${String(message.text).length} characters.` }),
    };
    let status = await post(body);
    if ((status === 0 || status >= 500) && flaws.retry !== 'none') {
      status = await post(flaws.retry === 'new-answerId' ? { ...body, answerId: `answer-${randomUUID()}` } : body);
    }
    if (flaws.answersTwice) await post({ ...body, answerId: `again-${webhookId}` });
  };

  const server = await startRecordingServer((request): ScriptedAnswer => {
    const problem = refusal(request);
    if (problem !== null && !flaws.answersBeforeVerifying) return { status: flaws.refusesWith ?? 401, body: problem };
    const webhook = (flaws.readsIdsAsDoubles || flaws.doubles ? JSON.parse(request.text) : parseJson(request.text)) as Record<
      string,
      unknown
    >;
    const message = webhook.message as Record<string, unknown>;
    const text = typeof message.text === 'string' ? message.text : '';
    if (flaws.hangs) return { hang: true };
    if (flaws.crashesOn !== undefined && text.includes(flaws.crashesOn)) return { reset: true };
    if (flaws.failsOverLength !== undefined && text.length > flaws.failsOverLength) return { status: 500, body: 'internal error' };
    if (flaws.strictFields) {
      const unknown = [
        ...Object.keys(webhook).filter((field) => !KNOWN_TOP.includes(field)),
        ...Object.keys(message).filter((field) => !KNOWN_MESSAGE.includes(field)),
      ];
      if (unknown.length > 0) return { status: 400, body: `unknown fields: ${unknown.join(', ')}` };
    }
    const webhookId = String(request.headers['webhook-id'] ?? randomUUID());
    const again = handled.has(webhookId);
    handled.add(webhookId);
    const status = problem !== null ? (flaws.refusesWith ?? 401) : (flaws.ackStatus ?? 200);
    if (flaws.silent || (again && flaws.replay === undefined)) return { status };
    // The answer first, then the acknowledgement: the answer is recorded before the delivery's status.
    return { status, until: answer(webhook, webhookId, again) };
  });
  whenFinished(() => server.close());
  return { url: `${server.url}/webhook`, server, connect: (base) => (apiBase = base) };
}
