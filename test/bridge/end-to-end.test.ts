import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/processes.js';
import { baseEnv, runBuilt, startBuilt, type BuiltProcess } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';

/**
 * `core bridge` end to end, as a user runs it (docs/bridge.md). No real tenant is reachable here, so
 * a second `core sandbox` plays the real platform: its webhook points at the bridge, its token and
 * secret are the profile's (never the bridge's local ones). A bot of the test's own verifies each
 * delivery with the secret it was given and answers through the base URL it was given.
 */

const REAL_TOKEN = 'real-platform-token-4f1c9a7e';
const REAL_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const LOCAL_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const TENANT = 'acme';

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  verifiedWith: 'local' | 'real' | 'none';
}

interface Sent {
  text: string;
  status: number;
  body: string;
}

/** Where the bot answers and with what: switched between the bridge and a plain sandbox. */
const target = { base: '', token: '', secret: LOCAL_SECRET, tenant: TENANT };
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

async function answer(body: Record<string, unknown>, text: string): Promise<void> {
  const response = await fetch(`${target.base}/api/v1/chatbot`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${target.token}`, 'X-Tenant-Name': target.tenant },
    body: JSON.stringify(body),
  });
  const record = { text, status: response.status, body: await response.text() };
  sent.push(record);
  for (const waiter of waiters.splice(0).filter((w) => (w.when(record) ? (w.resolve(record), false) : true))) waiters.push(waiter);
}

/** The bot: verifies with the secret it was given, answers 200 at once, then answers the question through its base URL. */
function bot(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const verifiedWith = verifies(target.secret, req.headers, raw) ? 'local' : verifies(REAL_SECRET, req.headers, raw) ? 'real' : 'none';
      deliveries.push({ headers: req.headers, body: raw.toString(), verifiedWith });
      if (verifiedWith !== 'local') {
        res.writeHead(401).end('{"error":"bad signature"}');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
      const { message } = JSON.parse(raw.toString()) as {
        message: { questionId: number; sessionId: string; questionIndex: number; type: string; text: string };
      };
      const { questionId, sessionId, questionIndex, type, text } = message;
      const address = type === 'EMAIL' && !text.includes('wrong') ? { sessionId, questionIndex } : { questionId };
      void (async () => {
        await answer({ ...address, answerId: `a-${questionId}-1`, text: `You said: ${text}` }, text);
        if (text.includes('twice')) await answer({ ...address, answerId: `a-${questionId}-2`, text: `Again: ${text}` }, `${text} (again)`);
      })();
    });
  });
}

function answered(when: (s: Sent) => boolean, what: string): Promise<Sent> {
  const done = sent.find(when);
  return happens(done ? Promise.resolve(done) : new Promise((resolve) => waiters.push({ when, resolve })), what, 30_000);
}

async function realJson(path: string): Promise<unknown> {
  return (await fetch(`${real.url}${path}`)).json();
}

/** A customer of the real platform writes in a new conversation on `channel`. */
async function customerWrites(text: string, channel = 'WEB'): Promise<string> {
  const started = (await (
    await fetch(`${real.url}/_sandbox/conversations`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ tenant: TENANT, channel }),
    })
  ).json()) as { sessionId: string };
  const said = await fetch(`${real.url}/_sandbox/conversations/${started.sessionId}/messages`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(said.status).toBe(201);
  return started.sessionId;
}

const real = { url: '', process: undefined as BuiltProcess | undefined };
let bridge: BuiltProcess;
let bridgeUrl = '';
let botServer: Server;
let botUrl = '';
let home = '';
let env: Record<string, string | undefined>;

beforeAll(async () => {
  botServer = bot();
  await new Promise<void>((resolve) => botServer.listen(0, '127.0.0.1', resolve));
  botUrl = `http://127.0.0.1:${(botServer.address() as { port: number }).port}/webhook`;
  const [realPort, bridgePort] = [await freePort(), await freePort()];
  real.url = `http://127.0.0.1:${realPort}`;
  bridgeUrl = `http://127.0.0.1:${bridgePort}`;
  env = baseEnv();
  home = env.HOME!;
  mkdirSync(join(home, '.config', 'core'), { recursive: true });
  writeFileSync(
    join(home, '.config', 'core', 'config.yaml'),
    `profiles:\n  real:\n    baseUrl: ${real.url}\n    tenant: ${TENANT}\n    token: ${REAL_TOKEN}\n    webhookSecret: ${REAL_SECRET}\n`,
    { mode: 0o600 },
  );
  // The real platform: strict about second answers, its webhook at the bridge.
  real.process = startBuilt(
    ['sandbox', '--port', String(realPort), '--tenant', TENANT, '--token', REAL_TOKEN, '--duplicates', 'strict'].concat([
      '--bot-url',
      `${bridgeUrl}/webhook`,
      '--webhook-secret',
      REAL_SECRET,
      '--webhook-retries',
      '0',
    ]),
    { env },
  );
  await happens(real.process.printed('stdout', /CORE_WEBHOOK_SECRET/), 'the real sandbox to start', 60_000);
  bridge = startBuilt(['bridge', '-p', 'real', '--bot-url', botUrl, '--port', String(bridgePort), '--webhook-secret', LOCAL_SECRET], {
    env,
  });
  await happens(bridge.printed('stdout', /CORE_WEBHOOK_SECRET/), 'the bridge to start', 60_000);
  const exported = Object.fromEntries([...bridge.stdout().matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
  Object.assign(target, { base: exported.CORE_BASE_URL, token: exported.CORE_TOKEN, tenant: exported.CORE_TENANT });
}, 180_000);

afterAll(async () => {
  for (const running of [bridge, real.process]) {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  }
  await new Promise((resolve) => botServer?.close(resolve));
});

describe('core bridge between a bot and a real tenant', () => {
  it("prints the sandbox export lines with the local token and secret, never the profile's", () => {
    expect(bridge.stdout()).toContain(`export CORE_BASE_URL=${bridgeUrl}`);
    expect(bridge.stdout()).toContain(`export CORE_TENANT=${TENANT}`);
    expect(target.token).toBe('sandbox-token');
    expect(bridge.stdout()).toContain(`export CORE_WEBHOOK_SECRET=${LOCAL_SECRET}`);
    expect(bridge.stdout() + bridge.stderr()).not.toContain(REAL_TOKEN);
    expect(bridge.stdout() + bridge.stderr()).not.toContain(REAL_SECRET.slice(6));
  });

  it('delivers a real customer message to the bot signed with the local secret, and the answer reaches the platform with the real token', async () => {
    const sessionId = await customerWrites('Where is my order?');
    const reply = await answered((s) => s.text === 'Where is my order?', 'the bot to answer through the bridge');
    expect(reply.status).toBe(200);
    const delivery = deliveries.find((d) => d.body.includes('Where is my order?'))!;
    expect(delivery.verifiedWith).toBe('local');
    expect(JSON.stringify(delivery.headers)).not.toContain(REAL_TOKEN);
    // The platform has the answer (it accepted the real token), in the customer's thread.
    const messages = (await realJson(`/_sandbox/messages?tenant=${TENANT}&limit=1000`)) as {
      messages: { body: { text?: string }; sessionId: string; delivered: boolean }[];
    };
    expect(messages.messages.filter((m) => m.body.text === 'You said: Where is my order?')).toMatchObject([{ sessionId, delivered: true }]);
    // The bridge kept the conversation under the platform's own sessionId.
    const kept = await fetch(`${bridgeUrl}/_sandbox/conversations/${sessionId}`);
    expect(kept.status).toBe(200);
  });

  it('refuses an EMAIL answer addressed by questionId alone, and the platform never sees it', async () => {
    const sessionId = await customerWrites('wrong address please', 'EMAIL');
    const reply = await answered((s) => s.text === 'wrong address please', 'the bot to answer the EMAIL question');
    expect(reply.status).toBe(400);
    expect(reply.body).toMatch(/EMAIL/);
    const events = JSON.stringify(await realJson(`/_sandbox/conversations/${sessionId}?limit=1000`));
    expect(events).not.toContain('bot.answer');
    expect(events).not.toContain('api.request');
  });

  it("passes the platform's own 409 and its body back to the bot as they came", async () => {
    await customerWrites('answer twice');
    const second = await answered((s) => s.text === 'answer twice (again)', 'the second answer');
    expect(second.status).toBe(409);
    // The platform's error body, as the real sandbox writes it.
    expect(JSON.parse(second.body)).toMatchObject({ uri: '/api/v1/chatbot', message: expect.stringMatching(/strict duplicate mode/) });
  });

  it('passes a delivery whose signature does not verify on with its own signature, which the bot refuses', async () => {
    const body = JSON.stringify({ type: 'MESSAGE', message: { text: 'forged' } });
    const response = await fetch(`${bridgeUrl}/webhook`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,AAAA',
      },
      body,
    });
    expect(response.status).toBe(401);
    expect(deliveries.at(-1)!.body).toBe(body);
    expect(deliveries.at(-1)!.verifiedWith).toBe('none');
  });

  it("passes a delivery it can read but whose text breaks the sandbox's schema on to the bot, and the bot's answer back to the platform", async () => {
    const now = new Date().toISOString();
    const message = { questionId: 880_001, questionIndex: 1, sessionId: 'platform-thread-empty', coreClientId: 31, clientId: null };
    const body = JSON.stringify({
      type: 'MESSAGE',
      tenant: TENANT,
      timestamp: now,
      message: { ...message, type: 'TEXT', channel: 'WEB', text: '', receivedAt: now, quickReply: null, listItem: null },
    });
    const id = 'msg_empty_text';
    const timestamp = Math.floor(Date.now() / 1000);
    const key = Buffer.from(REAL_SECRET.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
    const response = await fetch(`${bridgeUrl}/webhook`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': `v1,${mac}`,
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"ok":true}');
    expect(deliveries.at(-1)!.body).toBe(body);
    expect(deliveries.at(-1)!.verifiedWith).toBe('local');
    await happens(bridge.printed('stderr', /core schema message\)?: message\.text/), 'the log line naming the empty text', 30_000);
  });

  it('saves bridged conversations as tests with personal data replaced, and they pass against the bot through a plain sandbox', async () => {
    await customerWrites('Mail me at jane.doe@corp.example please');
    await answered((s) => s.text.startsWith('Mail me at'), 'the answer to the mail');
    const out = mkdtempSync(join(tmpdir(), 'core-bridge-tests-'));
    const recorded = await runBuilt(['bridge', 'record', '--out', out, '--sandbox', bridgeUrl], { env });
    expect(recorded.stderr).not.toContain(REAL_TOKEN);
    expect(recorded.code).toBe(0);
    const files = readdirSync(out);
    expect(files.length).toBeGreaterThanOrEqual(3);
    const all = files.map((file) => readFileSync(join(out, file), 'utf8')).join('\n');
    expect(all).not.toContain('jane.doe@corp.example');
    expect(all).toContain('person-1@example.com');
    expect(all).not.toContain(REAL_TOKEN);

    // A plain sandbox, and the bot pointed at it; only the conversations the bot answers rightly.
    const plainPort = await freePort();
    const plain = startBuilt(['sandbox', '--port', String(plainPort), '--bot-url', botUrl, '--webhook-secret', LOCAL_SECRET], { env });
    try {
      await happens(plain.printed('stdout', /CORE_WEBHOOK_SECRET/), 'the plain sandbox to start', 60_000);
      Object.assign(target, { base: `http://127.0.0.1:${plainPort}`, token: 'sandbox-token', tenant: 'sandbox' });
      const passing = files.filter((file) => !/wrong|twice/.test(file)).map((file) => join(out, file));
      expect(passing.length).toBeGreaterThanOrEqual(2);
      const run = await runBuilt(['test', ...passing, '--sandbox', `http://127.0.0.1:${plainPort}`], { env });
      expect(run.stderr + run.stdout).toMatch(/passed/);
      expect(run.code, run.stdout + run.stderr).toBe(0);
    } finally {
      plain.child.kill('SIGTERM');
      await plain.exited;
    }
  });

  it("never shows the real token or the platform secret in the bridge's events or page", async () => {
    const events = await (await fetch(`${bridgeUrl}/_sandbox/conversations?limit=1000`)).text();
    const page = await (await fetch(`${bridgeUrl}/`)).text();
    for (const text of [events, page, bridge.stdout(), bridge.stderr()]) {
      expect(text).not.toContain(REAL_TOKEN);
      expect(text).not.toContain(REAL_SECRET.slice(6));
    }
  });
});
