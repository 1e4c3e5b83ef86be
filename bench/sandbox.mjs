#!/usr/bin/env node
// The sandbox as a platform under load (docs/performance.md, "The sandbox"), with the built binary:
//
//   (a) peak RSS of `core sandbox` over 100,000 customer messages (--messages N), each a question,
//       a signed MESSAGE webhook to a bot in this process, and the bot's answer through the API from
//       inside its webhook handler; RSS is also read at 10% of the run, to show it levels off;
//   (b) the same with 200 conversations at once (--concurrent N), 20,000 messages;
//   (c) the webhook round trip: from POST .../messages to the bot's answer arriving on the event
//       stream (three HTTP exchanges and the stream), as a ratio against one bare node:http round trip
//       to a server in this process, both measured in this run (medians of --rounds N, default 300).
//
// Peak RSS is the sandbox process's VmHWM in /proc/<pid>/status (Linux). Installs nothing.
// Run `npm run build` first, then `node bench/sandbox.mjs`.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { join, resolve } from 'node:path';
import { benchOptions } from './options.mjs';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.error(`${bin} is missing: run \`npm run build\` first`);
  process.exit(1);
}
const options = benchOptions();
const option = options.number;
const MESSAGES = option('--messages', 100_000);
const CONCURRENT = option('--concurrent', 200);
const ROUNDS = option('--rounds', 300);
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
const KEY = Buffer.alloc(32, 3);

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

function call(base, method, path, body, headers = {}) {
  return new Promise((resolveCall, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = request(`${base}${path}`, {
      method,
      agent,
      headers: { ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}), ...headers },
    });
    req.on('error', (error) => reject(new Error(`${method} ${base}${path}: ${error.message}`)));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolveCall({ status: res.statusCode, text }));
    });
    req.end(payload);
  });
}

/** A bot that checks each signature and answers the question through the API before acknowledging. */
async function startBot(getBase) {
  let failures = 0;
  // Per questionId, what a customer waiting for the answer resolves; or that it was answered first.
  const waiting = new Map();
  const early = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const id = req.headers['webhook-id'];
      const ts = req.headers['webhook-timestamp'];
      const expected = `v1,${createHmac('sha256', KEY).update(`${id}.${ts}.`).update(raw).digest('base64')}`;
      if (req.headers['webhook-signature'] !== expected) {
        failures += 1;
        res.writeHead(401).end();
        return;
      }
      const questionId = /"questionId":(\d+)/.exec(raw.toString())[1];
      const answer = `{"text":"echo","answerId":"a-${id}","questionId":${questionId}}`;
      const sent = await call(getBase(), 'POST', '/api/v1/chatbot', answer, {
        Authorization: 'Bearer sandbox-token',
        'X-Tenant-Name': 'sandbox',
      }).catch(() => ({ status: 0 }));
      if (sent.status !== 200) {
        failures += 1;
        if (failures <= 3) console.error(`bench bot: the API answered ${sent.status}: ${sent.text}`);
      }
      res.writeHead(200).end();
      const resolveWait = waiting.get(questionId);
      if (resolveWait) {
        waiting.delete(questionId);
        resolveWait();
      } else early.add(questionId);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/webhook`,
    failures: () => failures,
    /** Resolves once the bot has answered the question. */
    answered: (questionId) => {
      const key = String(questionId);
      if (early.delete(key)) return Promise.resolve();
      return new Promise((r) => waiting.set(key, r));
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

async function startSandbox(botUrl) {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, CORE_SANDBOX_WEBHOOK_SECRET: SECRET };
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--bot-url', botUrl], { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const base = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const match = /^export CORE_BASE_URL=(\S+)$/m.exec(out);
      if (match) ok(match[1]);
    });
    child.once('exit', (code) => fail(new Error(`sandbox exited ${code}`)));
  });
  const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status())[1]);
  return {
    base,
    peakMb: () => kb('VmHWM') / 1024,
    rssMb: () => kb('VmRSS') / 1024,
    stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGINT'))),
  };
}

/**
 * Sends `total` customer messages over `lanes` conversations at once, each lane as a customer does:
 * the next message once the bot has answered the last.
 */
async function load(sb, total, lanes, onProgress) {
  let next = 0;
  // Each lane starts its own conversation right before its first message: a conversation that waited
  // while 10,000 other events happened would be forgotten, as the sandbox's memory bound says.
  const lane = async () => {
    const { sessionId } = JSON.parse((await call(sb.base, 'POST', '/_sandbox/conversations', {})).text);
    while (next < total) {
      const n = (next += 1);
      const r = await call(sb.base, 'POST', `/_sandbox/conversations/${sessionId}/messages`, { text: `message ${n}` });
      if (r.status !== 201) throw new Error(`message ${n}: ${r.status} ${r.text}`);
      await bot.answered(JSON.parse(r.text).questionId);
      onProgress?.(n);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

let base = '';
const bot = await startBot(() => base);

// (a) 100,000 messages, 8 conversations at a time.
{
  const sb = await startSandbox(bot.url);
  base = sb.base;
  const idle = sb.rssMb();
  let early;
  const started = performance.now();
  await load(sb, MESSAGES, 8, (n) => {
    if (n === Math.floor(MESSAGES / 10)) early = sb.peakMb();
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `(a) ${MESSAGES.toLocaleString('en')} customer messages, each webhooked and answered: ` +
      `${seconds.toFixed(1)} s (${Math.round(MESSAGES / seconds)} messages/s); sandbox RSS idle ${idle.toFixed(0)} MB, ` +
      `peak after ${(MESSAGES / 10).toLocaleString('en')} ${early.toFixed(0)} MB, peak over the run ${sb.peakMb().toFixed(0)} MB`,
  );
  await sb.stop();
}

// (b) 200 conversations at once.
{
  const sb = await startSandbox(bot.url);
  base = sb.base;
  const total = Math.max(CONCURRENT * 100, 20_000);
  const started = performance.now();
  await load(sb, total, CONCURRENT);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `(b) ${CONCURRENT} conversations at once, ${total.toLocaleString('en')} messages: ${seconds.toFixed(1)} s; ` +
      `sandbox peak RSS ${sb.peakMb().toFixed(0)} MB`,
  );
  await sb.stop();
}

// (c) the webhook round trip against a bare node:http round trip, interleaved.
{
  const sb = await startSandbox(bot.url);
  base = sb.base;
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
  });
  await new Promise((r) => bare.listen(0, '127.0.0.1', r));
  const bareBase = `http://127.0.0.1:${bare.address().port}`;
  const { sessionId } = JSON.parse((await call(sb.base, 'POST', '/_sandbox/conversations', {})).text);
  // The event stream of the conversation: each bot answer resolves the round that waits for it.
  let waiting;
  const stream = request(`${sb.base}/_sandbox/events?session=${sessionId}`, { agent: false });
  stream.on('response', (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      if (chunk.includes('"type":"bot.answer"')) waiting?.();
    });
  });
  stream.end();
  await new Promise((r) => setTimeout(r, 200));
  const webhook = [];
  const plain = [];
  for (let i = 0; i < ROUNDS + 20; i += 1) {
    let t = performance.now();
    await call(bareBase, 'POST', '/x', { text: 'hi' });
    const bareMs = performance.now() - t;
    t = performance.now();
    const answered = new Promise((r) => (waiting = r));
    await call(sb.base, 'POST', `/_sandbox/conversations/${sessionId}/messages`, { text: `round ${i}` });
    await answered;
    const loopMs = performance.now() - t;
    if (i >= 20) {
      plain.push(bareMs);
      webhook.push(loopMs);
    }
  }
  stream.destroy();
  bare.close();
  const ratio = median(webhook) / median(plain);
  console.log(
    `(c) customer message -> webhook -> bot answer recorded, median of ${ROUNDS}: ${median(webhook).toFixed(2)} ms; ` +
      `bare node:http round trip ${median(plain).toFixed(2)} ms; ratio ${ratio.toFixed(1)}x`,
  );
  await sb.stop();
}

await bot.close();
agent.destroy();
if (bot.failures() > 0) {
  console.error(`${bot.failures()} deliveries or answers failed`);
  process.exit(1);
}
