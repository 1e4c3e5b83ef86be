#!/usr/bin/env node
// A bridged exchange against a direct one (docs/bridge.md, "Performance"), side by side in one run.
//
// A second `core sandbox` plays the real platform. Direct: its webhook goes to a bot, which answers
// through it. Bridged: its webhook goes to `core bridge`, which sends it on to a bot of the same code,
// which answers through the bridge, which checks the answer and sends it on to the platform. The two
// "real" sandboxes are started with the same flags; the two bots are the same code in this process,
// and every hop (this process to the sandboxes, the sandboxes to the bots and the bridge, the bots to
// the bridge and the sandbox, the bridge to the bot and the platform) uses kept-alive connections. One
// exchange is a new conversation and a customer message written on the platform (POST
// /_sandbox/conversations, then POST /_sandbox/conversations/{id}/messages) until the platform's event
// stream shows the bot's answer to it. COUNT exchanges at concurrency 1 and at 16, direct and bridged
// in alternate rounds; prints exchanges per second and the ratio of a bridged exchange's time to a
// direct one's (goal <= 1.3x), and, on Linux, the CPU time every process of the exchange used
// (this one with the bots, the sandboxes, the bridge) per exchange: a figure the load of a shared
// machine moves less than the wall time. Each process's stderr is read, as a terminal would.
//
//   --quick     fewer exchanges (COUNT 100; else 600), one round
//   --runs N    the whole measurement N times over the same processes (default 1), then the medians
//   --floor     a third side: bench/bare-forwarder.mjs (bare node:http, no checks, no records) in the
//               bridge's place, before a third sandbox started as the others: what the two extra hops
//               cost by themselves on this machine
// Run `npm run build` first; BENCH_BIN=/path/to/bin.js measures another build (the bridge and the sandboxes alike).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = process.env.BENCH_BIN ? resolve(process.env.BENCH_BIN) : join(root, 'dist', 'bin.js');
const quick = process.argv.includes('--quick');
const COUNT = quick ? 100 : 600;
const ROUNDS = quick ? 1 : 2;
const runsAt = process.argv.indexOf('--runs');
const FLOOR = process.argv.includes('--floor');
const RUNS = runsAt === -1 ? 1 : Math.max(1, Number(process.argv[runsAt + 1]) || 1);
const TENANT = 'acme';
const REAL_TOKEN = 'bench-real-token-1234';
const SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

const freePort = () =>
  new Promise((done) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

function call(method, url, body, headers = {}) {
  return new Promise((done, fail) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const req = request(url, { method, agent, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (data += chunk));
      res.on('end', () => done({ status: res.statusCode, text: data }));
    });
    req.on('error', fail);
    req.end(text);
  });
}

/** A bot that acknowledges each delivery, then answers it through `target()`. */
async function bot(target) {
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      res.writeHead(200).end();
      const { message } = JSON.parse(raw);
      const { base, token } = target();
      // Once the run is over the processes may be gone before an answer is: not a failure of the run.
      call(
        'POST',
        `${base}/api/v1/chatbot`,
        { questionId: message.questionId, text: `echo ${message.text}` },
        {
          Authorization: `Bearer ${token}`,
          'X-Tenant-Name': TENANT,
        },
      ).catch(() => {});
    });
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${server.address().port}/webhook` };
}

function start(argv, env) {
  const child = spawn(process.execPath, [bin, ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.resume();
  const ready = new Promise((done, fail) => {
    child.stdout.on('data', () => /CORE_WEBHOOK_SECRET/.test(out) && done(out));
    child.once('exit', (code) => fail(new Error(`${argv[0]} exited ${code}`)));
  });
  return { child, ready };
}

/** The platform's answers, by sessionId, from its event stream. */
function answers(base) {
  const waiting = new Map();
  const req = request(`${base}/_sandbox/events?tenant=${TENANT}`, { agent: false }, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6))
          .join('');
        buffer = buffer.slice(end + 2);
        if (data === '') continue;
        const event = JSON.parse(data);
        if (event.type === 'bot.answer' && event.delivered) waiting.get(event.sessionId)?.();
      }
    });
  });
  req.on('error', () => {});
  req.end();
  return { answered: (sessionId) => new Promise((done) => waiting.set(sessionId, done)), close: () => req.destroy() };
}

async function exchanges(platform, stream, count, concurrency) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const { text } = await call('POST', `${platform}/_sandbox/conversations`, { tenant: TENANT });
        const { sessionId } = JSON.parse(text);
        const answered = stream.answered(sessionId);
        await call('POST', `${platform}/_sandbox/conversations/${sessionId}/messages`, { text: 'Where is my order?' });
        await answered;
      }
    }),
  );
  return performance.now() - started;
}

const [directPort, bridgedPort, bridgePort] = [await freePort(), await freePort(), await freePort()];
const directUrl = `http://127.0.0.1:${directPort}`;
const platform = `http://127.0.0.1:${bridgedPort}`;
const bridgeUrl = `http://127.0.0.1:${bridgePort}`;
const home = mkdtempSync(join(tmpdir(), 'core-bench-bridge-'));
mkdirSync(join(home, '.config', 'core'), { recursive: true });
writeFileSync(
  join(home, '.config', 'core', 'config.yaml'),
  `profiles:\n  real:\n    baseUrl: ${platform}\n    tenant: ${TENANT}\n    token: ${REAL_TOKEN}\n`,
  {
    mode: 0o600,
  },
);
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, 'data') };
const directBot = await bot(() => ({ base: directUrl, token: REAL_TOKEN }));
const bridgedBot = await bot(() => ({ base: bridgeUrl, token: 'sandbox-token' }));
const sandboxArgs = (port, botUrl) => ['sandbox', '--port', String(port), '--tenant', TENANT, '--token', REAL_TOKEN, '--bot-url', botUrl];
const processes = [
  start([...sandboxArgs(directPort, directBot.url), '--webhook-secret', SECRET], env),
  start([...sandboxArgs(bridgedPort, `${bridgeUrl}/webhook`), '--webhook-secret', SECRET], env),
  start(['bridge', '-p', 'real', '--bot-url', bridgedBot.url, '--port', String(bridgePort)], env),
];
await Promise.all(processes.map((each) => each.ready));
const streams = { direct: answers(directUrl), bridged: answers(platform) };
// Warm-up, not timed: connections opened, code compiled.
await exchanges(directUrl, streams.direct, 50, 8);
await exchanges(platform, streams.bridged, 50, 8);

/** --floor: a third sandbox, whose webhook goes to the bare forwarder, which sends it on to a third bot. */
let floor = null;
if (FLOOR) {
  const floorPort = await freePort();
  const floorPlatform = `http://127.0.0.1:${floorPort}`;
  let forwarderUrl = '';
  const floorBot = await bot(() => ({ base: forwarderUrl, token: 'sandbox-token' }));
  const forwarder = spawn(process.execPath, [join(root, 'bench', 'bare-forwarder.mjs')], {
    env: { ...env, FORWARD_BOT: floorBot.url, FORWARD_PLATFORM: floorPlatform, FORWARD_TOKEN: REAL_TOKEN },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  forwarderUrl = await new Promise((done) => forwarder.stdout.once('data', (chunk) => done(`http://127.0.0.1:${String(chunk).trim()}`)));
  const sandbox = start([...sandboxArgs(floorPort, `${forwarderUrl}/webhook`), '--webhook-secret', SECRET], env);
  await sandbox.ready;
  floor = { url: floorPlatform, bot: floorBot, forwarder, sandbox, stream: answers(floorPlatform) };
  await exchanges(floorPlatform, floor.stream, 50, 8);
}

/** CPU time (user + system, ms) of a process so far, from /proc; null where there is none (not Linux). */
function cpuOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, in clock ticks (USER_HZ, 100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
const [directSandbox, platformSandbox, bridgeProcess] = processes.map((each) => each.child.pid);
function cpuNow() {
  const own = process.cpuUsage();
  return {
    own: (own.user + own.system) / 1000,
    direct: cpuOf(directSandbox),
    platform: cpuOf(platformSandbox),
    bridge: cpuOf(bridgeProcess),
  };
}

/** COUNT exchanges at `concurrency` on one side, ROUNDS times: the wall time, and the CPU time of the processes that side uses. */
async function side(base, stream, concurrency, processNames) {
  const before = cpuNow();
  const wall = await exchanges(base, stream, COUNT, concurrency);
  const after = cpuNow();
  const cpu = Object.fromEntries(processNames.map((name) => [name, after[name] === null ? null : after[name] - before[name]]));
  return { wall, cpu };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const perExchange = (ms) => (ms / (COUNT * ROUNDS)).toFixed(2);

console.log(`core bridge: ${COUNT} exchanges per row, ${ROUNDS} round(s), direct and bridged alternately, ${RUNS} run(s)`);
const results = { 1: [], 16: [] };
for (let run = 0; run < RUNS; run += 1) {
  for (const concurrency of [1, 16]) {
    const time = { direct: 0, bridged: 0, floor: 0 };
    const cpu = { own: { direct: 0, bridged: 0 }, direct: 0, platform: 0, bridge: 0 };
    let cpuKnown = true;
    for (let round = 0; round < ROUNDS; round += 1) {
      const direct = await side(directUrl, streams.direct, concurrency, ['own', 'direct']);
      const bridged = await side(platform, streams.bridged, concurrency, ['own', 'platform', 'bridge']);
      time.direct += direct.wall;
      time.bridged += bridged.wall;
      if (floor !== null) time.floor += (await side(floor.url, floor.stream, concurrency, ['own'])).wall;
      cpuKnown &&= direct.cpu.direct !== null && bridged.cpu.platform !== null && bridged.cpu.bridge !== null;
      cpu.own.direct += direct.cpu.own;
      cpu.own.bridged += bridged.cpu.own;
      cpu.direct += direct.cpu.direct ?? 0;
      cpu.platform += bridged.cpu.platform ?? 0;
      cpu.bridge += bridged.cpu.bridge ?? 0;
    }
    const rate = (ms) => ((COUNT * ROUNDS) / (ms / 1000)).toFixed(0);
    const ratio = time.bridged / time.direct;
    const cpuDirect = cpu.own.direct + cpu.direct;
    const cpuBridged = cpu.own.bridged + cpu.platform + cpu.bridge;
    const floorRatio = floor === null ? null : time.floor / time.direct;
    results[concurrency].push({ ratio, floorRatio, cpuRatio: cpuKnown ? cpuBridged / cpuDirect : null, bridge: cpu.bridge });
    console.log(
      `concurrency ${String(concurrency).padStart(2)}: direct ${rate(time.direct)}/s, bridged ${rate(time.bridged)}/s; ` +
        `a bridged exchange takes ${ratio.toFixed(2)}x a direct one (goal <= 1.3x)` +
        (cpuKnown
          ? `; CPU ms an exchange: direct ${perExchange(cpuDirect)} (this process ${perExchange(cpu.own.direct)}, sandbox ${perExchange(cpu.direct)}), ` +
            `bridged ${perExchange(cpuBridged)} (this process ${perExchange(cpu.own.bridged)}, platform ${perExchange(cpu.platform)}, ` +
            `bridge ${perExchange(cpu.bridge)}): ${(cpuBridged / cpuDirect).toFixed(2)}x`
          : '') +
        (floorRatio === null ? '' : `; the bare forwarder in its place: ${rate(time.floor)}/s, ${floorRatio.toFixed(2)}x`),
    );
  }
}
if (RUNS > 1) {
  for (const concurrency of [1, 16]) {
    const rows = results[concurrency];
    const cpuRatios = rows.map((row) => row.cpuRatio).filter((value) => value !== null);
    console.log(
      `median of ${RUNS} runs, concurrency ${String(concurrency).padStart(2)}: ${median(rows.map((row) => row.ratio)).toFixed(2)}x` +
        (cpuRatios.length === rows.length
          ? ` (CPU ${median(cpuRatios).toFixed(2)}x; the bridge ${perExchange(median(rows.map((row) => row.bridge)))} ms an exchange)`
          : '') +
        (floor === null ? '' : `; the bare forwarder ${median(rows.map((row) => row.floorRatio)).toFixed(2)}x`),
    );
  }
}
streams.direct.close();
streams.bridged.close();
if (floor !== null) {
  floor.stream.close();
  floor.sandbox.child.kill('SIGTERM');
  floor.forwarder.kill('SIGTERM');
  floor.bot.server.close();
}
for (const each of processes) each.child.kill('SIGTERM');
directBot.server.close();
bridgedBot.server.close();
agent.destroy();
