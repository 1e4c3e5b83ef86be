#!/usr/bin/env node
// A bridged exchange against a direct one (docs/bridge.md, "Performance"), side by side in one run.
//
// A second `core sandbox` plays the real platform. Direct: its webhook goes to a bot, which answers
// through it. Bridged: its webhook goes to `core bridge`, which sends it on to a bot of the same code,
// which answers through the bridge, which checks the answer and sends it on to the platform. One
// exchange is a customer message written on the platform (POST /_sandbox/conversations/{id}/messages)
// until the platform's event stream shows the bot's answer to it. COUNT exchanges at concurrency 1
// and at 16, direct and bridged in alternate rounds; prints exchanges per second and the ratio of a
// bridged exchange's time to a direct one's (goal <= 1.3x).
//
//   --quick     fewer exchanges (COUNT 100; else 600), one round
// Run `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'dist', 'bin.js');
const quick = process.argv.includes('--quick');
const COUNT = quick ? 100 : 600;
const ROUNDS = quick ? 1 : 2;
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
const direct = `http://127.0.0.1:${directPort}`;
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
const directBot = await bot(() => ({ base: direct, token: REAL_TOKEN }));
const bridgedBot = await bot(() => ({ base: bridgeUrl, token: 'sandbox-token' }));
const sandboxArgs = (port, botUrl) => ['sandbox', '--port', String(port), '--tenant', TENANT, '--token', REAL_TOKEN, '--bot-url', botUrl];
const processes = [
  start([...sandboxArgs(directPort, directBot.url), '--webhook-secret', SECRET], env),
  start([...sandboxArgs(bridgedPort, `${bridgeUrl}/webhook`), '--webhook-secret', SECRET], env),
  start(['bridge', '-p', 'real', '--bot-url', bridgedBot.url, '--port', String(bridgePort)], env),
];
await Promise.all(processes.map((each) => each.ready));
const streams = { direct: answers(direct), bridged: answers(platform) };
// Warm-up, not timed: connections opened, code compiled.
await exchanges(direct, streams.direct, 50, 8);
await exchanges(platform, streams.bridged, 50, 8);

console.log(`core bridge: ${COUNT} exchanges per row, ${ROUNDS} round(s), direct and bridged alternately`);
for (const concurrency of [1, 16]) {
  const time = { direct: 0, bridged: 0 };
  for (let round = 0; round < ROUNDS; round += 1) {
    time.direct += await exchanges(direct, streams.direct, COUNT, concurrency);
    time.bridged += await exchanges(platform, streams.bridged, COUNT, concurrency);
  }
  const rate = (ms) => ((COUNT * ROUNDS) / (ms / 1000)).toFixed(0);
  const ratio = time.bridged / time.direct;
  console.log(
    `concurrency ${String(concurrency).padStart(2)}: direct ${rate(time.direct)}/s, bridged ${rate(time.bridged)}/s; ` +
      `a bridged exchange takes ${ratio.toFixed(2)}x a direct one (goal <= 1.3x)`,
  );
}
streams.direct.close();
streams.bridged.close();
for (const each of processes) each.child.kill('SIGTERM');
directBot.server.close();
bridgedBot.server.close();
agent.destroy();
