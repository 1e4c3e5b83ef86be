#!/usr/bin/env node
// `core test` as a load generator (docs/performance.md, "Driving a bot"), against a reference
// written with bare node:http, both measured in this run with the same bot process
// (bench/instant-bot.mjs: acknowledges each webhook, then posts its answer through the API).
//
//   (1) throughput: one-exchange conversations (customer message -> signed MESSAGE webhook -> the
//       bot's answer through the API) per second, `core test --concurrency 32` against the bare
//       reference at 32 lanes (goal >= 0.5x), and `core test` at 32 against itself at 1 (goal >= 4x);
//   (2) memory: peak RSS of `core test` over many conversations and over `--repeat` of one (goal
//       <= 150 MB, flat in N);
//   (3) measurement truth: the p50 latency `core test` reports for the instant bot at concurrency 32
//       (goal < 50 ms) and for a bot that sleeps 200 ms (goal 200-230 ms);
//   (4) the sandbox under load: `core sandbox` as a process of its own, driven over HTTP by
//       `core test --sandbox URL --concurrency 32`, with the page's event stream open and read
//       (goal: the exchange rate of (1), >= 0.5x the reference), and its peak RSS after as many
//       customer messages again through --repeat (--quick 5,000; else 100,000).
//
// The wall time of a `core test` run includes its start-up and its sandbox's; nothing is subtracted.
// Peak RSS is VmHWM of /proc/<pid>/status (Linux), read until the process ends.
//   --quick       smaller counts (a few seconds each)
//   --count N     conversations for (1) (default 1000; --quick 300)
// Run `npm run build` first.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.error(`${bin} is missing: run \`npm run build\` first`);
  process.exit(2);
}
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const COUNT = option('--count', quick ? 300 : 1000);
const MEMORY_CONVERSATIONS = quick ? 1000 : 5000;
const REPEAT = quick ? 5000 : 100_000;
const SANDBOX_MESSAGES = quick ? 5000 : 100_000;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const KEY = Buffer.alloc(32, 7);
const dir = mkdtempSync(join(tmpdir(), 'core-bench-exchange-'));
const env = { PATH: process.env.PATH, HOME: dir, CORE_SANDBOX_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' };
const help = await run([bin, 'test', '--help']);
const hasRepeat = help.stdout.includes('--repeat');

function freePort() {
  return new Promise((ok) => {
    const s = createNetServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

function run(argv, { onSpawn } = {}) {
  return new Promise((ok) => {
    const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
        if (kb > peakKb) peakKb = kb;
      } catch {
        // The process has ended.
      }
    }, 50);
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    onSpawn?.(child);
    const started = performance.now();
    child.on('close', (code) => {
      clearInterval(poll);
      ok({ code, stdout, stderr, seconds: (performance.now() - started) / 1000, peakMb: peakKb / 1024 });
    });
  });
}

async function startBot(api, sleepMs = 0) {
  const child = spawn(process.execPath, [join(root, 'bench', 'instant-bot.mjs')], {
    env: { ...env, BENCH_BOT_API: api, BENCH_BOT_SLEEP_MS: String(sleepMs) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((ok) => child.stdout.once('data', (d) => ok(Number(String(d).trim()))));
  return { url: `http://127.0.0.1:${port}/webhook`, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) };
}

/** The bare reference: a platform of node:http (customer endpoint, signed webhook, answer endpoint). */
async function reference(lanes, total) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const waiting = new Map();
  const answeredEarly = new Set();
  let questionId = 0;
  let botUrl = '';
  const send = (url, body, headers) =>
    new Promise((ok, fail) => {
      const req = request(url, {
        method: 'POST',
        agent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': body.length, ...headers },
      });
      req.on('error', fail);
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => ok(res.statusCode));
      });
      req.end(body);
    });
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.url === '/api/v1/chatbot') {
        const id = JSON.parse(raw.toString()).questionId;
        res.writeHead(200).end();
        const resolveWait = waiting.get(String(id));
        if (resolveWait) resolveWait();
        else answeredEarly.add(String(id));
        return;
      }
      // A customer message: a question, then the signed webhook.
      questionId += 1;
      const id = questionId;
      const body = Buffer.from(
        JSON.stringify({ type: 'MESSAGE', tenant: 'sandbox', message: { questionId: id, text: JSON.parse(raw.toString()).text } }),
      );
      const deliveryId = `msg_${id}`;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const signature = createHmac('sha256', KEY).update(`${deliveryId}.${timestamp}.`).update(body).digest('base64');
      res.writeHead(201, { 'Content-Type': 'application/json' }).end(`{"questionId":${id}}`);
      void send(botUrl, body, { 'webhook-id': deliveryId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  const bot = await startBot(base);
  botUrl = bot.url;
  let next = 0;
  const lane = async () => {
    while (next < total) {
      next += 1;
      const body = Buffer.from('{"text":"hi"}');
      const text = await new Promise((ok, fail) => {
        const req = request(`${base}/messages`, {
          method: 'POST',
          agent,
          headers: { 'Content-Type': 'application/json', 'Content-Length': body.length },
        });
        req.on('error', fail);
        req.on('response', (r) => {
          let t = '';
          r.on('data', (c) => (t += c));
          r.on('end', () => ok(t));
        });
        req.end(body);
      });
      const id = String(JSON.parse(text).questionId);
      // The answer can arrive before the 201 has been read.
      if (answeredEarly.delete(id)) continue;
      await new Promise((ok) => waiting.set(id, ok));
      waiting.delete(id);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: lanes }, lane));
  const seconds = (performance.now() - started) / 1000;
  await bot.stop();
  server.closeAllConnections();
  server.close();
  agent.destroy();
  return total / seconds;
}

function conversationsFile(n) {
  const lines = ['name: bench', 'conversations:'];
  for (let i = 1; i <= n; i += 1) lines.push(`  - name: c${i}`, '    steps: [{customer: hi}, {bot: {text: echo}}]');
  const file = join(dir, `conversations-${n}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function coreTest(file, extra, sleepMs = 0, sandboxUrl = undefined) {
  const port = await freePort();
  const bot = sandboxUrl === undefined ? await startBot(`http://127.0.0.1:${port}`, sleepMs) : undefined;
  const report = join(dir, 'report.json');
  rmSync(report, { force: true });
  const where = bot ? ['--bot-url', bot.url, '--port', String(port)] : ['--sandbox', sandboxUrl];
  const result = await run([bin, 'test', file, ...where, '--reporter', 'json', '--output', report, ...extra]);
  await bot?.stop();
  if (result.code !== 0) {
    console.error(`core test exited ${result.code}:\n${result.stderr.slice(-2000)}`);
    process.exitCode = 1;
  }
  let json = null;
  try {
    json = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    // No report: the run failed (said above).
  }
  return { ...result, json };
}

/** The p50 latency a JSON report gives, over its conversations (the largest p50 of any). */
function reportedP50(json) {
  const found = [];
  const walk = (value) => {
    if (value && typeof value === 'object') {
      if (value.latencyMs && typeof value.latencyMs.p50 === 'number') found.push(value.latencyMs.p50);
      for (const child of Object.values(value)) walk(child);
    }
  };
  walk(json);
  return found.length === 0 ? null : found.sort((a, b) => a - b)[Math.floor(found.length / 2)];
}

const line = (what, value, goal, pass) =>
  console.log(`${pass === null ? '  ' : pass ? 'ok' : '!!'} ${what}: ${value}${goal ? `  (goal ${goal})` : ''}`);

// (1) throughput
const file = conversationsFile(COUNT);
const ref32 = await reference(32, COUNT);
// The floor's own gain from 1 lane to 32 bounds what any client can gain on this machine.
const ref1 = await reference(1, COUNT);
const core32 = await coreTest(file, ['--concurrency', '32']);
const core1 = await coreTest(file, ['--concurrency', '1']);
const rate32 = COUNT / core32.seconds;
const rate1 = COUNT / core1.seconds;
console.log(`(1) ${COUNT} one-exchange conversations`);
line('bare node:http reference, 32 lanes', `${ref32.toFixed(0)} exchanges/s`, '', null);
line('bare node:http reference, 1 lane', `${ref1.toFixed(0)} exchanges/s (32 lanes / 1: ${(ref32 / ref1).toFixed(2)}x)`, '', null);
line('core test --concurrency 32', `${rate32.toFixed(0)} conversations/s (${core32.seconds.toFixed(2)} s)`, '', null);
line('core test --concurrency 1', `${rate1.toFixed(0)} conversations/s (${core1.seconds.toFixed(2)} s)`, '', null);
line('core test at 32 / reference', `${(rate32 / ref32).toFixed(2)}x`, '>= 0.5x', rate32 / ref32 >= 0.5);
line('core test at 32 / at 1', `${(rate32 / rate1).toFixed(2)}x`, '>= 4x', rate32 / rate1 >= 4);

// (2) memory
console.log(`(2) peak RSS of core test (sandbox in the same process)`);
const small = await coreTest(conversationsFile(MEMORY_CONVERSATIONS / 10), ['--concurrency', '32']);
const large = await coreTest(conversationsFile(MEMORY_CONVERSATIONS), ['--concurrency', '32']);
line(`${MEMORY_CONVERSATIONS / 10} conversations`, `${small.peakMb.toFixed(0)} MB`, '', null);
line(`${MEMORY_CONVERSATIONS} conversations`, `${large.peakMb.toFixed(0)} MB`, '<= 150 MB', large.peakMb <= 150);
if (hasRepeat) {
  const one = conversationsFile(1);
  const repeatSmall = await coreTest(one, ['--concurrency', '32', '--repeat', String(REPEAT / 10)]);
  const repeatLarge = await coreTest(one, ['--concurrency', '32', '--repeat', String(REPEAT)]);
  line(`--repeat ${REPEAT / 10}`, `${repeatSmall.peakMb.toFixed(0)} MB (${repeatSmall.seconds.toFixed(1)} s)`, '', null);
  line(
    `--repeat ${REPEAT}`,
    `${repeatLarge.peakMb.toFixed(0)} MB (${repeatLarge.seconds.toFixed(1)} s)`,
    '<= 150 MB',
    repeatLarge.peakMb <= 150,
  );

  // (3) measurement truth
  console.log('(3) the latency core test reports');
  const instant = await coreTest(one, ['--concurrency', '32', '--repeat', quick ? '300' : '1000']);
  const slow = await coreTest(one, ['--concurrency', '32', '--repeat', quick ? '64' : '200'], 200);
  const p50 = reportedP50(instant.json);
  const slowP50 = reportedP50(slow.json);
  line('instant bot, p50 at concurrency 32', p50 === null ? 'not reported' : `${p50} ms`, '< 50 ms', p50 !== null && p50 < 50);
  line(
    'bot sleeping 200 ms, p50',
    slowP50 === null ? 'not reported' : `${slowP50} ms`,
    '200-230 ms',
    slowP50 !== null && slowP50 >= 200 && slowP50 <= 230,
  );
} else {
  console.log('   --repeat: not in this build; (2) over --repeat and (3) skipped');
}

// (4) core sandbox, its page's stream open
{
  console.log("(4) core sandbox (its own process) driven over HTTP by core test --sandbox, the page's event stream open");
  const port = await freePort();
  const bot = await startBot(`http://127.0.0.1:${port}`);
  let sandboxPid = 0;
  let ready;
  const listening = new Promise((ok) => (ready = ok));
  const sandboxRun = run([bin, 'sandbox', '--port', String(port), '--bot-url', bot.url], {
    onSpawn: (child) => {
      sandboxPid = child.pid;
      child.stdout.once('data', () => ready());
    },
  });
  await listening;
  const base = `http://127.0.0.1:${port}`;
  // The page's stream: every event of the sandbox, read as it comes.
  let streamed = 0;
  const page = request(`${base}/_sandbox/events`, { headers: { Accept: 'text/event-stream' } });
  page.on('response', (res) => res.on('data', (chunk) => (streamed += chunk.length)));
  page.on('error', () => {});
  page.end();
  const withPage = await coreTest(file, ['--concurrency', '32'], 0, base);
  const rate = COUNT / withPage.seconds;
  line(
    'core test --sandbox, --concurrency 32, page open',
    `${rate.toFixed(0)} conversations/s (${withPage.seconds.toFixed(2)} s)`,
    '',
    null,
  );
  line('that / reference', `${(rate / ref32).toFixed(2)}x`, '>= 0.5x', rate / ref32 >= 0.5);
  const many = await coreTest(conversationsFile(1), ['--concurrency', '32', '--repeat', String(SANDBOX_MESSAGES)], 0, base);
  let sandboxKb = 0;
  try {
    sandboxKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${sandboxPid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    // Not Linux.
  }
  line(
    `core sandbox after ${SANDBOX_MESSAGES + COUNT} customer messages`,
    `peak RSS ${(sandboxKb / 1024).toFixed(0)} MB (${many.seconds.toFixed(1)} s; the page's stream read ${(streamed / 1e6).toFixed(0)} MB)`,
    '',
    null,
  );
  page.destroy();
  process.kill(sandboxPid, 'SIGTERM');
  await sandboxRun;
  await bot.stop();
}

rmSync(dir, { recursive: true, force: true });
