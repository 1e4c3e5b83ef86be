import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBridge, startSandbox, type Bridge, type Sandbox } from '../../src/library/sandbox.js';
import { MAX_CUSTOMER_TEXT } from '../../src/payload/customer-text.js';
import { freePort } from '../helpers/processes.js';

/**
 * Platform deliveries a bridge can read (its ids are where the sandbox's format or a mapping says)
 * but from which the sandbox's own MESSAGE delivery cannot be made, because their content breaks the
 * sandbox's schema (core schema message). They are POSTed to the bridge's /webhook over loopback as
 * the real platform would, signed with the platform's secret; a bot of the test's own verifies each
 * with the bridge's local secret and answers with a body of its own. Each must reach the bot with the
 * platform's exact bytes, the bot's answer must go back to the platform, and the bridge must record
 * why it did not take the delivery as a question. The deliveries that are one step inside each limit
 * are taken as questions.
 */

const REAL_TOKEN = 'real-platform-token-c41f09ab';
const REAL_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const OTHER_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const TENANT = 'acme';
const MAX_LONG = 2n ** 63n - 1n;

interface Received {
  body: Buffer;
  headers: IncomingHttpHeaders;
  verified: boolean;
}

const received: Received[] = [];
let real: Sandbox;
let bridge: Bridge;
let mapped: Bridge;
let botServer: Server;

function sign(secret: string, id: string, timestamp: number, body: Buffer): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
}

function verifies(secret: string, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const expected = sign(secret, String(headers['webhook-id']), Number(headers['webhook-timestamp']), body);
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(expected);
}

/** The bot: 401 for a delivery that does not verify with the local secret, else 200 with a body naming its size. */
function bot(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = req.url === '/mapped' ? mapped : bridge;
      const verified = verifies(target.webhookSecret, req.headers, body);
      received.push({ body, headers: req.headers, verified });
      if (!verified) res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"bad signature"}');
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ receivedBytes: body.length }));
    });
  });
}

let nextId = 7_000;
const now = () => new Date().toISOString();

/** A delivery in the sandbox's format, every field conforming, with `change` applied to its message. */
function sandboxFormat(change: Record<string, unknown> = {}): string {
  nextId += 1;
  return JSON.stringify({
    type: 'MESSAGE',
    tenant: TENANT,
    timestamp: now(),
    message: {
      questionId: nextId,
      questionIndex: 1,
      sessionId: `platform-session-${nextId}`,
      coreClientId: 4242,
      clientId: null,
      type: 'TEXT',
      channel: 'WEB',
      text: 'Where is my order?',
      receivedAt: now(),
      quickReply: null,
      listItem: null,
      ...change,
    },
  });
}

/** The platform POSTing `body` to a bridge's /webhook, signed with `secret`. */
async function deliver(to: Bridge, body: string | Buffer, secret = REAL_SECRET): Promise<{ status: number; text: string }> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await fetch(`${to.url}/webhook`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(secret, id, timestamp, bytes),
    },
    body: bytes,
  });
  return { status: response.status, text: await response.text() };
}

beforeAll(async () => {
  botServer = bot();
  await new Promise<void>((resolve) => botServer.listen(0, '127.0.0.1', resolve));
  const botBase = `http://127.0.0.1:${(botServer.address() as { port: number }).port}`;
  real = await startSandbox({ tenants: [TENANT], token: REAL_TOKEN, webhookSecret: REAL_SECRET, webhookRetries: 0 });
  const platform = { baseUrl: real.url, tenant: TENANT, token: REAL_TOKEN, webhookSecret: REAL_SECRET };
  bridge = await startBridge({ port: await freePort(), botUrl: `${botBase}/webhook`, platform, webhookBackoffMs: 0 });
  mapped = await startBridge({
    port: await freePort(),
    botUrl: `${botBase}/mapped`,
    platform,
    webhookBackoffMs: 0,
    webhookMap: {
      questionId: '/data/question/id',
      sessionId: '/data/thread/id',
      questionIndex: '/data/question/index',
      coreClientId: '/data/client/id',
      clientId: '/data/client/externalId',
      channel: '/data/channel',
      type: '/data/question/type',
      text: '/data/text',
    },
  });
});

afterAll(async () => {
  await mapped?.close();
  await bridge?.close();
  await real?.close();
  await new Promise((resolve) => botServer?.close(resolve));
});

/** A delivery in the platform's own format, read through the mapping above. */
function platformFormat(change: { text?: unknown; id?: unknown; clientId?: unknown } = {}): string {
  nextId += 1;
  return JSON.stringify({
    event: 'message.created',
    data: {
      question: { id: change.id ?? String(nextId), index: 1, type: 'TEXT' },
      thread: { id: `mapped-thread-${nextId}` },
      client: { id: 99, externalId: change.clientId ?? 'customer-17' },
      channel: 'im',
      text: change.text ?? 'Hello there',
    },
  });
}

/** What a bridge recorded since `from` (a seq): the passed-on deliveries and the questions taken. */
function recordedSince(on: Bridge, from: number) {
  const events = on.events().filter((event) => event.seq > from);
  return {
    passedOn: events.filter((event) => event.type === 'bridge.webhook'),
    questions: events.filter((event) => event.type === 'customer.message'),
    conversations: events.filter((event) => event.type === 'conversation.started'),
  };
}

const lastSeq = (on: Bridge) => on.events().at(-1)?.seq ?? 0;

/**
 * Readable deliveries whose content breaks the sandbox's MESSAGE schema, with what the recorded
 * problem names.
 */
const NON_CONFORMING: { name: string; body: () => string; names: RegExp; mappedBridge?: boolean }[] = [
  { name: 'an empty text, with no attachments', body: () => sandboxFormat({ text: '' }), names: /text/ },
  {
    name: `a text one past ${MAX_CUSTOMER_TEXT} characters`,
    body: () => sandboxFormat({ text: 'x'.repeat(MAX_CUSTOMER_TEXT + 1) }),
    names: /text/,
  },
  { name: 'a negative questionId', body: () => sandboxFormat({ questionId: -5 }), names: /questionId/ },
  {
    name: 'a questionId one past 2^63 - 1, written as digits',
    body: () => sandboxFormat({ questionId: String(MAX_LONG + 1n) }),
    names: /questionId/,
  },
  { name: 'a negative coreClientId', body: () => sandboxFormat({ coreClientId: -1 }), names: /coreClientId/ },
  { name: 'a negative questionIndex', body: () => sandboxFormat({ questionIndex: '-3' }), names: /questionIndex/ },
  { name: 'an empty clientId', body: () => sandboxFormat({ clientId: '' }), names: /clientId/ },
  { name: 'an empty text, read through a mapping', body: () => platformFormat({ text: '' }), names: /text/, mappedBridge: true },
  {
    name: 'a negative questionId, read through a mapping',
    body: () => platformFormat({ id: '-17' }),
    names: /questionId/,
    mappedBridge: true,
  },
  {
    name: 'an empty clientId, read through a mapping',
    body: () => platformFormat({ clientId: '' }),
    names: /clientId/,
    mappedBridge: true,
  },
];

/** Deliveries the bridge cannot read at all: passed on as they came, recorded with the reason. */
const UNREADABLE: { name: string; body: () => string | Buffer; names: RegExp }[] = [
  { name: 'a channel the sandbox does not know', body: () => sandboxFormat({ channel: 'SMS' }), names: /channel/ },
  { name: 'a message type the sandbox does not know', body: () => sandboxFormat({ type: 'VOICE' }), names: /type/ },
  { name: 'a questionId that is not an integer', body: () => sandboxFormat({ questionId: 'q-12' }), names: /questionId/ },
  { name: 'an empty sessionId', body: () => sandboxFormat({ sessionId: '' }), names: /sessionId/ },
  { name: 'a body that is not JSON', body: () => 'message=hello&questionId=5', names: /not JSON/ },
  { name: 'a body that is not UTF-8', body: () => Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), names: /not JSON/ },
];

describe('a platform delivery the bridge cannot take as a question', () => {
  it.each([...NON_CONFORMING.map((c) => ({ ...c, kind: 'breaks the schema' })), ...UNREADABLE.map((c) => ({ ...c, kind: 'unreadable' }))])(
    'is passed to the bot unchanged, the bot answers the platform, and the bridge records why: $name',
    async (c) => {
      const on = 'mappedBridge' in c && c.mappedBridge === true ? mapped : bridge;
      const body = c.body();
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
      const from = lastSeq(on);
      const before = received.length;

      const answer = await deliver(on, body);

      // The bot's own answer goes back to the platform.
      expect(answer).toEqual({ status: 200, text: JSON.stringify({ receivedBytes: bytes.length }) });
      // The bot got it once, with the platform's exact bytes, signed with the local secret.
      expect(received.length - before).toBe(1);
      const got = received.at(-1)!;
      expect(got.body.equals(bytes)).toBe(true);
      expect(got.verified).toBe(true);
      // Recorded as passed on, naming why; no question, no conversation.
      const recorded = recordedSince(on, from);
      expect(recorded.questions).toEqual([]);
      expect(recorded.conversations).toEqual([]);
      expect(recorded.passedOn).toHaveLength(1);
      expect(recorded.passedOn[0]).toMatchObject({ signature: 'verified', botStatus: 200, bodyBytes: bytes.length });
      expect((recorded.passedOn[0] as { problem: string }).problem).toMatch(c.names);
    },
  );

  it("names the sandbox's schema as the reason for a readable delivery that breaks it", async () => {
    const from = lastSeq(bridge);
    await deliver(bridge, sandboxFormat({ text: '' }));
    const [event] = recordedSince(bridge, from).passedOn as { problem: string }[];
    expect(event?.problem).toMatch(/core schema message/);
    expect(event?.problem).toMatch(/message\.text/);
  });

  it('passes a delivery whose signature does not verify on with its own signature, which the bot refuses, and answers the platform with the refusal', async () => {
    const body = sandboxFormat({ text: '' });
    const from = lastSeq(bridge);
    const before = received.length;
    const answer = await deliver(bridge, body, OTHER_SECRET);
    expect(answer).toEqual({ status: 401, text: '{"error":"bad signature"}' });
    expect(received.length - before).toBe(1);
    expect(received.at(-1)!.body.toString('utf8')).toBe(body);
    expect(received.at(-1)!.verified).toBe(false);
    const recorded = recordedSince(bridge, from);
    expect(recorded.questions).toEqual([]);
    expect(recorded.passedOn).toHaveLength(1);
    expect(recorded.passedOn[0]).toMatchObject({ signature: 'failed', botStatus: 401 });
    expect((recorded.passedOn[0] as { problem: string }).problem).toMatch(/signature/);
  });

  it("refuses the bot's answer to such a delivery as an answer to a question it does not know, and the platform never sees it", async () => {
    const body = sandboxFormat({ text: '' });
    const { questionId } = (JSON.parse(body) as { message: { questionId: number } }).message;
    await deliver(bridge, body);
    const from = lastSeq(bridge);
    const response = await fetch(`${bridge.url}/api/v1/chatbot`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': TENANT },
      body: JSON.stringify({ questionId, answerId: `a-${questionId}`, text: 'Could you say that again?' }),
    });
    expect(response.status).toBe(404);
    expect(await response.text()).toContain(`no question with questionId ${questionId}`);
    expect(bridge.events().filter((event) => event.seq > from && event.type === 'bridge.forward')).toEqual([]);
  });

  it('keeps taking deliveries as questions after one it could not take', async () => {
    await deliver(bridge, sandboxFormat({ text: '' }));
    const from = lastSeq(bridge);
    const answer = await deliver(bridge, sandboxFormat({ text: 'Is anyone there?' }));
    expect(answer.status).toBe(200);
    const recorded = recordedSince(bridge, from);
    expect(recorded.passedOn).toEqual([]);
    expect(recorded.questions).toHaveLength(1);
    expect(recorded.questions[0]).toMatchObject({ text: 'Is anyone there?' });
  });
});

describe('a platform delivery one step inside each limit', () => {
  it.each([
    { name: `a text of exactly ${MAX_CUSTOMER_TEXT} characters`, body: () => sandboxFormat({ text: 'x'.repeat(MAX_CUSTOMER_TEXT) }) },
    { name: 'a one-character text', body: () => sandboxFormat({ text: '?' }) },
    { name: 'a questionId of 2^63 - 1, written as digits', body: () => sandboxFormat({ questionId: String(MAX_LONG) }) },
    { name: 'a questionId of 0', body: () => sandboxFormat({ questionId: 0 }) },
    { name: 'a coreClientId of 0', body: () => sandboxFormat({ coreClientId: 0 }) },
    { name: 'a one-character clientId', body: () => sandboxFormat({ clientId: 'c' }) },
  ])('is taken as a question and delivered to the bot: $name', async ({ body }) => {
    const bytes = Buffer.from(body(), 'utf8');
    const from = lastSeq(bridge);
    const answer = await deliver(bridge, bytes);
    expect(answer).toEqual({ status: 200, text: JSON.stringify({ receivedBytes: bytes.length }) });
    expect(received.at(-1)!.body.equals(bytes)).toBe(true);
    const recorded = recordedSince(bridge, from);
    expect(recorded.passedOn).toEqual([]);
    expect(recorded.questions).toHaveLength(1);
  });
});
