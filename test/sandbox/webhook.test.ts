import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import type { SandboxEvent, SandboxOptions } from '../../src/sandbox/server.js';
import { gate, startRecordingServer, type RecordedRequest, type ScriptedAnswer } from '../helpers/recording-server.js';
import { happens } from '../helpers/wait.js';
import { askedQuestion, call, customerSays, eventOf, eventsOf, replyBody, sandbox, sendReply, startConversation } from './helpers.js';

/**
 * The MESSAGE webhook against a real bot on loopback (the recording server), which checks every
 * delivery with a verifier written here from the Standard Webhooks 1.0 description, not from the
 * sandbox's code: the secret is `whsec_` + base64 and the key is its decoded bytes; the signed content
 * is `<webhook-id>.<webhook-timestamp>.<raw body>`; `webhook-signature` holds space-separated
 * `v1,<base64 HMAC-SHA256>` entries, one of which must match in constant time; a timestamp more than
 * five minutes from the receiver's clock is refused.
 */

const TOLERANCE_SECONDS = 5 * 60;

function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: Buffer,
  nowSeconds = Date.now() / 1000,
): string | null {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return 'missing header';
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return 'timestamp out of tolerance';
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${id}.${timestamp}.`), rawBody]))
    .digest();
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'no matching signature';
}

const SECRET = `whsec_${Buffer.from('a fixed key of thirty-two bytes!').toString('base64')}`;

/** A bot that verifies every delivery and answers 401 to one that fails, else as the script says. */
async function verifyingBot(
  script: (request: RecordedRequest, index: number) => ScriptedAnswer = () => ({ status: 200 }),
  secret = SECRET,
) {
  const verdicts: (string | null)[] = [];
  const bot = await startRecordingServer((request, index) => {
    const verdict = verifyStandardWebhook(secret, request.headers, request.body);
    verdicts.push(verdict);
    return verdict === null ? script(request, index) : { status: 401, body: verdict };
  });
  onTestFinished(() => bot.close());
  return Object.assign(bot, { verdicts, botUrl: `${bot.url}/webhook` });
}

const withBot = (botUrl: string, extra: SandboxOptions = {}) => sandbox({ botUrl, webhookSecret: SECRET, webhookBackoffMs: 0, ...extra });

type Attempt = Extract<SandboxEvent, { type: 'webhook.attempt' }>;
const attemptsOf = (deliveryId: string) => (e: SandboxEvent) => e.type === 'webhook.attempt' && e.deliveryId === deliveryId;
const finalAttempt = (deliveryId: string) => (e: SandboxEvent) => attemptsOf(deliveryId)(e) && (e as Attempt).outcome !== 'retrying';

describe('the Standard Webhooks verifier of these tests', () => {
  it('accepts the test vector published with the Standard Webhooks reference libraries', () => {
    const headers = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    expect(
      verifyStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', headers, Buffer.from('{"test": 2432232314}'), 1614265330),
    ).toBeNull();
  });
});

describe('the MESSAGE webhook', () => {
  it('delivers one signed webhook per customer message, with the headers and the body the docs show', async () => {
    const bot = await verifyingBot();
    const sb = await withBot(bot.botUrl);
    const asked = await askedQuestion(sb, { channel: 'IM', clientId: 'ext-1' }, 'Where is my order?');
    expect(asked.deliveryId).toMatch(/^msg_[0-9a-f]{24}$/);
    await bot.received(1);
    const [request] = bot.requests;
    expect(bot.verdicts).toEqual([null]);
    expect(request).toMatchObject({ method: 'POST', url: '/webhook' });
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': expect.stringMatching(/^core-sandbox\/\d+\.\d+\.\d+/),
      'x-tenant-name': 'sandbox',
      'webhook-id': asked.deliveryId,
      'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect(parseJson(request!.text)).toEqual({
      type: 'MESSAGE',
      tenant: 'sandbox',
      timestamp: expect.any(String),
      message: {
        questionId: asked.questionId,
        questionIndex: 1n,
        sessionId: asked.sessionId,
        coreClientId: asked.coreClientId,
        clientId: 'ext-1',
        type: 'TEXT',
        channel: 'IM',
        text: 'Where is my order?',
        receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        quickReply: null,
        listItem: null,
      },
    });
    const attempt = await eventOf<Attempt>(sb, finalAttempt(asked.deliveryId!), 'the attempt recorded');
    expect(attempt).toMatchObject({ attempt: 1, redelivery: 0, status: 200, outcome: 'delivered', error: null, url: bot.botUrl });
  });

  it('writes identifiers as exact JSON numbers, past what a JavaScript number holds, and signs those bytes', async () => {
    const bot = await verifyingBot();
    const sb = await withBot(bot.botUrl);
    await askedQuestion(sb, { coreClientId: 9223372036854775807n });
    await bot.received(1);
    expect(bot.requests[0]?.text).toContain('"coreClientId":9223372036854775807');
    // Signed as sent: a signature over the body as a JavaScript number would see it does not verify.
    expect(bot.verdicts).toEqual([null]);
  });

  it('signs the exact bytes sent: the verifier refuses them tampered, under a wrong secret, or replayed late', async () => {
    const bot = await verifyingBot();
    const sb = await withBot(bot.botUrl);
    await askedQuestion(sb);
    await bot.received(1);
    const original = bot.requests[0]!;
    const headers = original.headers;
    const tampered = Buffer.from(original.text.replace('Where is my order?', 'Where is my refund?'));
    expect(verifyStandardWebhook(SECRET, headers, tampered)).toBe('no matching signature');
    expect(verifyStandardWebhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, headers, original.body)).toBe('no matching signature');
    const later = Number(headers['webhook-timestamp']) + TOLERANCE_SECONDS + 1;
    expect(verifyStandardWebhook(SECRET, headers, original.body, later)).toBe('timestamp out of tolerance');
    // Replayed to the bot itself: the tampered copy is refused, the original accepted again.
    const signed = Object.fromEntries(
      ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(headers[name])]),
    );
    const replay = (body: Buffer) => fetch(bot.botUrl, { method: 'POST', headers: signed, body }).then((r) => r.status);
    expect(await replay(tampered)).toBe(401);
    expect(await replay(original.body)).toBe(200);
  });

  it('is refused by a bot that holds another secret, and the attempts say so', async () => {
    const bot = await verifyingBot(undefined, `whsec_${Buffer.alloc(32, 9).toString('base64')}`);
    const sb = await withBot(bot.botUrl, { webhookRetries: 1 });
    const asked = await askedQuestion(sb);
    const attempts = await eventsOf<Attempt>(sb, attemptsOf(asked.deliveryId!), 2, 'two attempts');
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome, a.body])).toEqual([
      [1, 401, 'retrying', 'no matching signature'],
      [2, 401, 'failed', 'no matching signature'],
    ]);
  });

  it('retries a failed attempt under the same webhook-id, signing each attempt anew, with a doubling backoff', async () => {
    const bot = await verifyingBot((_, index) => (index < 2 ? { status: 500, body: 'oops' } : { status: 204 }));
    const sb = await withBot(bot.botUrl, { webhookBackoffMs: 10 });
    const asked = await askedQuestion(sb);
    const attempts = await eventsOf<Attempt>(sb, attemptsOf(asked.deliveryId!), 3, 'three attempts');
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome, a.retryInMs, a.retryAfter])).toEqual([
      [1, 500, 'retrying', 10, false],
      [2, 500, 'retrying', 20, false],
      [3, 204, 'delivered', null, false],
    ]);
    expect(new Set(bot.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([asked.deliveryId]));
    expect(bot.verdicts).toEqual([null, null, null]);
    expect(bot.requests.map((r) => r.text)).toEqual(Array(3).fill(bot.requests[0]!.text));
  });

  it('gives up after --webhook-retries more attempts and records the last one as failed', async () => {
    const bot = await verifyingBot(() => ({ status: 503 }));
    const sb = await withBot(bot.botUrl, { webhookRetries: 2 });
    const asked = await askedQuestion(sb);
    const last = await eventOf<Attempt>(sb, finalAttempt(asked.deliveryId!), 'the last attempt');
    expect(last).toMatchObject({ attempt: 3, outcome: 'failed', status: 503, retryInMs: null });
    expect(bot.requests).toHaveLength(3);
  });

  it.each([
    { header: '1', retryInMs: 1000, options: {} },
    { header: '3600', retryInMs: 250, options: { maxRetryAfterMs: 250 } },
  ])('waits as Retry-After: $header says (bounded by maxRetryAfterMs), and records it', async ({ header, retryInMs, options }) => {
    const bot = await verifyingBot((_, index) => (index === 0 ? { status: 429, headers: { 'Retry-After': header } } : { status: 200 }));
    const sb = await withBot(bot.botUrl, options);
    const asked = await askedQuestion(sb);
    const attempts = await eventsOf<Attempt>(sb, attemptsOf(asked.deliveryId!), 2, 'two attempts');
    expect(attempts.map((a) => [a.status, a.retryInMs, a.retryAfter])).toEqual([
      [429, retryInMs, true],
      [200, null, false],
    ]);
  });

  it('does not follow a redirect: the 3xx is a failed attempt, and the other address gets nothing', async () => {
    const bot = await verifyingBot(() => ({ status: 307, headers: { Location: '/elsewhere' } }));
    const sb = await withBot(bot.botUrl, { webhookRetries: 0 });
    const asked = await askedQuestion(sb);
    const last = await eventOf<Attempt>(sb, finalAttempt(asked.deliveryId!), 'the attempt');
    expect(last).toMatchObject({ status: 307, outcome: 'failed', error: 'redirect to /elsewhere not followed' });
    expect(bot.requests.map((r) => r.url)).toEqual(['/webhook']);
  });

  it('records a bot that does not answer in time as a timeout, and one that cannot be reached by its error code', async () => {
    const bot = await verifyingBot(() => ({ hang: true }));
    const sb = await withBot(bot.botUrl, { webhookRetries: 0, webhookTimeoutMs: 100 });
    const asked = await askedQuestion(sb);
    expect(await eventOf<Attempt>(sb, finalAttempt(asked.deliveryId!), 'the attempt')).toMatchObject({
      status: null,
      error: 'timeout after 100 ms',
      outcome: 'failed',
    });

    const closed = await startRecordingServer();
    const unreachable = `${closed.url}/webhook`;
    await closed.close();
    const other = await withBot(unreachable, { webhookRetries: 0 });
    const question = await askedQuestion(other);
    expect(await eventOf<Attempt>(other, finalAttempt(question.deliveryId!), 'the attempt')).toMatchObject({
      status: null,
      error: 'ECONNREFUSED',
    });
  });

  it('keeps the first 2 KB of a 10 MB answer, and reads no more of it', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 'x');
    const bot = await verifyingBot(() => ({ status: 200, body: big }));
    const sb = await withBot(bot.botUrl);
    const asked = await askedQuestion(sb);
    const attempt = await eventOf<Attempt>(sb, finalAttempt(asked.deliveryId!), 'the attempt');
    expect(attempt).toMatchObject({ status: 200, outcome: 'delivered', bodyTruncated: true });
    expect(attempt.body).toBe('x'.repeat(2048));
    // The API side went on meanwhile: an answer to the question is taken as usual.
    expect((await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId }))).status).toBe(200);
  });

  it('answers API requests and other deliveries while a bot holds a webhook open', async () => {
    const held = gate();
    const bot = await verifyingBot((request) => (request.text.includes('"hold"') ? { status: 200, until: held.promise } : { status: 200 }));
    const sb = await withBot(bot.botUrl, { webhookTimeoutMs: 600_000 });
    const stuck = await askedQuestion(sb, {}, 'hold');
    await bot.received(1);
    // While that delivery waits on the bot: 20 API answers and a second conversation's webhook.
    const answers = await Promise.all(Array.from({ length: 20 }, () => sendReply(sb, replyBody({ coreClientId: 5n }))));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const other = await askedQuestion(sb, {}, 'quick');
    expect(await eventOf<Attempt>(sb, finalAttempt(other.deliveryId!), 'the second delivery')).toMatchObject({ outcome: 'delivered' });
    expect(sb.events().some(attemptsOf(stuck.deliveryId!))).toBe(false);
    held.open();
    expect(await eventOf<Attempt>(sb, finalAttempt(stuck.deliveryId!), 'the held delivery')).toMatchObject({ outcome: 'delivered' });
  });

  it("takes the bot's answer sent from inside its webhook handler, before the bot answers the webhook", async () => {
    let sbUrl = '';
    const bot = await verifyingBot((request) => {
      const { message } = parseJson(request.text) as { message: { questionId: bigint } };
      const answered = call({ url: sbUrl }, '/api/v1/chatbot', {
        body: replyBody({ coreClientId: undefined, questionId: message.questionId, text: 'On its way' }),
      });
      return { status: 200, until: answered };
    });
    const sb = await withBot(bot.botUrl);
    sbUrl = sb.url;
    const asked = await askedQuestion(sb);
    await eventOf(sb, finalAttempt(asked.deliveryId!), 'the delivery');
    const types = sb.events({ sessionId: asked.sessionId }).map((e) => e.type);
    expect(types).toEqual(['conversation.started', 'customer.message', 'bot.answer', 'webhook.attempt']);
  });

  it('handles 200 conversations at once, each answered by the bot from its webhook handler', async () => {
    let sbUrl = '';
    const bot = await verifyingBot((request) => {
      const { message } = parseJson(request.text) as { message: { questionId: bigint; text: string } };
      const answered = call({ url: sbUrl }, '/api/v1/chatbot', {
        body: replyBody({ coreClientId: undefined, questionId: message.questionId, text: `echo ${message.text}` }),
      });
      return { status: 200, until: answered };
    });
    const sb = await withBot(bot.botUrl);
    sbUrl = sb.url;
    const asked = await Promise.all(Array.from({ length: 200 }, (_, i) => askedQuestion(sb, {}, `message ${i}`)));
    const delivered = await happens(
      eventsOf(sb, (e) => e.type === 'bot.answer' && e.delivered, 200, 'delivered bot answers'),
      '200 answers',
      60_000,
    );
    expect(new Set(delivered.map((e) => e.sessionId))).toEqual(new Set(asked.map((a) => a.sessionId)));
    expect(bot.verdicts.every((v) => v === null)).toBe(true);
  });

  it('redelivers a delivery under the same webhook-id with a new signature, and refuses one still in flight', async () => {
    const held = gate();
    const bot = await verifyingBot((_, index) => (index === 1 ? { status: 200, until: held.promise } : { status: 200 }));
    const sb = await withBot(bot.botUrl);
    const asked = await askedQuestion(sb);
    await eventOf(sb, finalAttempt(asked.deliveryId!), 'the first delivery');
    const redeliver = () => call(sb, `/_sandbox/deliveries/${asked.deliveryId}/redeliver`, { body: {}, token: null, tenant: null });
    const first = await redeliver();
    expect(first.status).toBe(202);
    expect(first.json).toEqual({ deliveryId: asked.deliveryId, redelivery: 1n });
    await bot.received(2);
    const busy = await redeliver();
    expect(busy.status).toBe(409);
    held.open();
    const again = await eventOf<Attempt>(
      sb,
      (e) => finalAttempt(asked.deliveryId!)(e) && (e as Attempt).redelivery === 1,
      'the redelivery',
    );
    expect(again).toMatchObject({ attempt: 1, outcome: 'delivered' });
    expect(bot.requests.map((r) => r.headers['webhook-id'])).toEqual([asked.deliveryId, asked.deliveryId]);
    expect(bot.verdicts).toEqual([null, null]);
    expect(bot.requests[1]!.text).toBe(bot.requests[0]!.text);
    expect(Number(bot.requests[1]!.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
      Number(bot.requests[0]!.headers['webhook-timestamp']),
    );
    expect((await call(sb, '/_sandbox/deliveries/msg_unknown/redeliver', { body: {}, token: null, tenant: null })).status).toBe(404);
  });

  it('sends a pressed button and a picked item with the message text the docs say', async () => {
    const bot = await verifyingBot();
    const sb = await withBot(bot.botUrl);
    const { sessionId } = await startConversation(sb, { channel: 'IM' });
    const first = await customerSays(sb, sessionId, 'Hi');
    const button = { type: 'TEXT', text: 'Sizes', shown_text: 'Show me the sizes' };
    const picker = { title: 'Pick', sections: [{ items: [{ title: 'Large', identifier: 'size-l' }] }] };
    await sendReply(
      sb,
      replyBody({ coreClientId: undefined, questionId: first.questionId, quickReplies: [button], messageListPicker: picker }),
    );
    await customerSays(sb, sessionId, { press: 'Sizes' });
    await customerSays(sb, sessionId, { pick: 'size-l' });
    await bot.received(3);
    const sent = bot.requests.map((r) => (parseJson(r.text) as { message: Record<string, unknown> }).message);
    expect(sent.slice(1).map((m) => [m.text, m.quickReply, m.listItem, m.questionIndex])).toEqual([
      ['Show me the sizes', button, null, 2n],
      ['Large', null, { identifier: 'size-l', title: 'Large' }, 3n],
    ]);
  });
});
