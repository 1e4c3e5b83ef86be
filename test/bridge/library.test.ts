import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SandboxOptionsError,
  startBridge,
  startConversation,
  startSandbox,
  type Bridge,
  type BridgeOptions,
  type Sandbox,
} from '../../src/library/sandbox.js';
import { freePort } from '../helpers/processes.js';
import { happens } from '../helpers/wait.js';

/**
 * `startBridge` of core-cli/sandbox, in-process, as a bot's own test suite would use it: a second
 * sandbox of the same library plays the real platform (its webhook at the bridge, its token and
 * secret the platform's), and a bot of the test's own verifies each delivery with the bridge's local
 * secret and answers through the bridge with the local token. test/bridge/end-to-end.test.ts runs
 * the same against the built `core bridge`.
 */

const REAL_TOKEN = 'real-platform-token-7b2d51ce';
const REAL_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const TENANT = 'acme';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}
interface Sent {
  text: string;
  status: number;
  body: string;
  /** The answer's X-Request-Id, as the bot reads it (several headers of that name are joined by ", "). */
  requestId: string | null;
}

const deliveries: Delivery[] = [];
const sent: Sent[] = [];
const waiters: { when: (s: Sent) => boolean; resolve: (s: Sent) => void }[] = [];

function verifies(secret: string, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const mac = createHmac('sha256', key)
    .update(`${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.`)
    .update(body)
    .digest('base64');
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .includes(`v1,${mac}`);
}

let real: Sandbox;
let bridge: Bridge;
let botServer: Server;

/** The bot: verifies with the bridge's local secret, answers 200, then answers the question through the bridge. */
function bot(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const verified = verifies(bridge.webhookSecret, req.headers, raw);
      deliveries.push({ headers: req.headers, body: raw.toString(), verified });
      if (!verified) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200).end();
      const { message } = JSON.parse(raw.toString()) as { message: { questionId: number; type: string; text: string } };
      const answers = message.text.includes('twice') ? [1, 2] : [1];
      void (async () => {
        for (const n of answers) {
          const response = await fetch(`${bridge.url}/api/v1/chatbot`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': TENANT },
            body: JSON.stringify({
              questionId: message.questionId,
              answerId: `a-${message.questionId}-${n}`,
              text: `You said: ${message.text}`,
            }),
          });
          const record = {
            text: `${message.text}#${n}`,
            status: response.status,
            body: await response.text(),
            requestId: response.headers.get('x-request-id'),
          };
          sent.push(record);
          for (const waiter of waiters.splice(0)) {
            if (waiter.when(record)) waiter.resolve(record);
            else waiters.push(waiter);
          }
        }
      })();
    });
  });
}

function answered(text: string): Promise<Sent> {
  const done = sent.find((s) => s.text === text);
  return happens(
    done ? Promise.resolve(done) : new Promise((resolve) => waiters.push({ when: (s) => s.text === text, resolve })),
    `the answer ${text}`,
  );
}

beforeAll(async () => {
  botServer = bot();
  await new Promise<void>((resolve) => botServer.listen(0, '127.0.0.1', resolve));
  const botUrl = `http://127.0.0.1:${(botServer.address() as { port: number }).port}/webhook`;
  const bridgePort = await freePort();
  // The real platform: strict about second answers, its webhook at the bridge, signed with its own secret.
  real = await startSandbox({
    tenants: [TENANT],
    token: REAL_TOKEN,
    duplicates: 'strict',
    webhookSecret: REAL_SECRET,
    webhookRetries: 0,
    botUrl: `http://127.0.0.1:${bridgePort}/webhook`,
  });
  bridge = await startBridge({
    port: bridgePort,
    botUrl,
    platform: { baseUrl: real.url, tenant: TENANT, token: REAL_TOKEN, webhookSecret: REAL_SECRET },
    webhookBackoffMs: 0,
  });
});

afterAll(async () => {
  await bridge?.close();
  await real?.close();
  await new Promise((resolve) => botServer?.close(resolve));
});

describe('startBridge from core-cli/sandbox', () => {
  it("has the sandbox's handle, serving the platform's tenant with a local token and secret", () => {
    expect(bridge).toMatchObject({ tenants: [TENANT], botUrl: expect.stringMatching(/\/webhook$/), platformUrl: real.url });
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bridge.webhookSecret).toMatch(/^whsec_/);
    expect(bridge.webhookSecret).not.toBe(REAL_SECRET);
    for (const method of ['events', 'subscribe', 'conversation', 'messages', 'sizes', 'reasons', 'agents', 'reset', 'close'] as const) {
      expect(typeof bridge[method], method).toBe('function');
    }
  });

  it('delivers a real customer message to the bot signed with the local secret, and the answer reaches the platform with the real token', async () => {
    const customer = await startConversation(real, { tenant: TENANT });
    const exchange = await happens(customer.say('Where is my order?', { waitMs: 20_000 }), 'the bot to answer through the bridge');
    expect(exchange).toMatchObject({ ok: true, texts: ['You said: Where is my order?'] });
    const delivery = deliveries.find((d) => d.body.includes('Where is my order?'))!;
    expect(delivery.verified).toBe(true);
    expect(JSON.stringify(delivery.headers)).not.toContain(REAL_TOKEN);
    // The bridge kept the conversation under the platform's own sessionId, and the answer sent on.
    expect(bridge.conversation(customer.sessionId)?.questions).toBe(1);
    expect(bridge.events({ sessionId: customer.sessionId }).find((event) => event.type === 'bridge.forward')).toMatchObject({
      status: 200,
      localStatus: 200,
      forcedInvalid: false,
    });
  });

  it('tells subscribers of the bridged events as they are recorded', async () => {
    const seen: string[] = [];
    const stop = bridge.subscribe((event) => seen.push(event.type));
    try {
      const customer = await startConversation(real, { tenant: TENANT });
      await happens(customer.say('Hello there', { waitMs: 20_000 }), 'the answer');
      await answered('Hello there#1');
      expect(seen).toEqual(expect.arrayContaining(['customer.message', 'webhook.attempt', 'bot.answer', 'bridge.forward']));
    } finally {
      stop();
    }
  });

  it("passes the platform's own 409 and its body back to the bot as they came", async () => {
    const customer = await startConversation(real, { tenant: TENANT });
    await customer.say('answer twice', { waitMs: 20_000 });
    const second = await answered('answer twice#2');
    expect(second.status).toBe(409);
    expect(JSON.parse(second.body)).toMatchObject({ uri: '/api/v1/chatbot', message: expect.stringMatching(/strict duplicate mode/) });
    // The platform's X-Request-Id, alone: the bridge's own id is in its log and its bridge.forward event.
    const platformIds = real.events({ tenant: TENANT }).flatMap((event) => ('requestId' in event ? [event.requestId] : []));
    const bridgeIds = bridge.events({ tenant: TENANT }).flatMap((event) => (event.type === 'bridge.forward' ? [event.requestId] : []));
    expect(platformIds).toContain(second.requestId);
    expect(bridgeIds).not.toContain(second.requestId);
  });

  it('refuses an EMAIL answer addressed by questionId alone, and the platform never sees it', async () => {
    const customer = await startConversation(real, { tenant: TENANT, channel: 'EMAIL' });
    const exchange = await customer.say('By mail', { waitMs: 5_000 });
    const refused = await answered('By mail#1');
    expect(refused.status).toBe(400);
    expect(refused.body).toMatch(/EMAIL/);
    expect(exchange.answers).toEqual([]);
    expect(real.events({ sessionId: customer.sessionId }).map((event) => event.type)).not.toContain('bot.answer');
  });

  it("never holds the real token or the platform's secret in its events", () => {
    const all = JSON.stringify(bridge.events(), (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
    expect(all).not.toContain(REAL_TOKEN);
    expect(all).not.toContain(REAL_SECRET.slice(6));
  });
});

describe("startBridge's options", () => {
  const valid = (): BridgeOptions => ({
    botUrl: 'http://127.0.0.1:9/webhook',
    platform: { baseUrl: 'https://chat.example.com', tenant: 'acme', token: 'platform-token-1234' },
  });

  it.each<[string, (o: BridgeOptions) => void, string]>([
    ['no bot URL', (o) => ((o as { botUrl?: string }).botUrl = undefined), 'botUrl'],
    ['a base URL that is not a URL', (o) => (o.platform.baseUrl = 'chat.example.com'), 'platform.baseUrl'],
    ['a base URL of another scheme', (o) => (o.platform.baseUrl = 'ftp://chat.example.com'), 'platform.baseUrl'],
    ['plain http to another machine', (o) => (o.platform.baseUrl = 'http://chat.example.com'), 'platform.baseUrl'],
    ['no tenant', (o) => (o.platform.tenant = ''), 'platform.tenant'],
    ['no token and no Authorization header', (o) => delete o.platform.token, 'platform.token'],
    ["a local token that is the platform's", (o) => (o.token = 'platform-token-1234'), 'token'],
    ['a platform secret that is not whsec_ and base64', (o) => (o.platform.webhookSecret = 'secret'), 'platform.webhookSecret'],
    [
      "a local secret that is the platform's",
      (o) => (o.webhookSecret = o.platform.webhookSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`),
      'webhookSecret',
    ],
    ['a time limit of zero', (o) => (o.platform.timeoutMs = 0), 'platform.timeoutMs'],
    ['a mapping that is not a JSON pointer', (o) => (o.webhookMap = { questionId: 'data.id' }), 'webhookMap.questionId'],
    ['a mapping of an unknown field', (o) => (o.webhookMap = { answer: '/a' } as BridgeOptions['webhookMap']), 'webhookMap'],
  ])('refuses %s with SandboxOptionsError naming it', async (_what, change, path) => {
    const options = valid();
    change(options);
    const error = await startBridge(options).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SandboxOptionsError);
    expect((error as SandboxOptionsError).problems.map((p) => p.path)).toContain(path);
  });

  it.each<[string, (o: BridgeOptions) => void]>([
    ['plain http to this machine', (o) => (o.platform.baseUrl = 'http://127.0.0.1:9')],
    ['plain http elsewhere with allowHttp', (o) => Object.assign(o.platform, { baseUrl: 'http://chat.example.com', allowHttp: true })],
    [
      'an Authorization header instead of a token',
      (o) => Object.assign(o.platform, { token: undefined, headers: { authorization: 'Basic eA==' } }),
    ],
    ['a one-millisecond time limit', (o) => (o.platform.timeoutMs = 1)],
  ])('starts with %s', async (_what, change) => {
    const options = valid();
    change(options);
    const started = await startBridge(options);
    await started.close();
    expect(started.tenants).toEqual(['acme']);
  });
});
