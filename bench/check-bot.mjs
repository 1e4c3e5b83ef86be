#!/usr/bin/env node
// How long `core check-bot`'s whole battery takes against a bot that answers at once (the example bot
// of docs/examples/bot/, in its own process): the goal is under 15 s with the default --timeout of 10 s
// (docs/check-bot.md, "How long a run takes"). A check that expects no answer waits --timeout out, so
// the figure is also given as a ratio to --timeout, measured the same way with --timeout 2s. The
// median of interleaved runs of each case. Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = resolve(import.meta.dirname, '..');
const bin = process.env.BENCH_BIN ? resolve(process.env.BENCH_BIN) : join(root, 'dist', 'bin.js');
const runs = Number(process.env.BENCH_RUNS ?? (process.argv.includes('--quick') ? 1 : 3));
if (!existsSync(bin)) {
  console.error('dist/bin.js is missing: run `npm run build` first');
  process.exit(2);
}

const freePort = () =>
  new Promise((ok) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const home = mkdtempSync(join(tmpdir(), 'core-bench-check-bot-'));
const [sandboxPort, botPort] = [await freePort(), await freePort()];
const base = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config') };

const bot = spawn(process.execPath, [join(root, 'docs', 'examples', 'bot', 'bot.mjs')], {
  env: {
    ...base,
    CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
    CORE_TENANT: 'sandbox',
    CORE_TOKEN: 'sandbox-token',
    CORE_WEBHOOK_SECRET: secret,
    PORT: String(botPort),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise((ok, fail) => {
  let out = '';
  bot.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('bot listening')) ok();
  });
  bot.once('exit', () => fail(new Error(`the example bot stopped: ${out}`)));
});
bot.stdout.resume();

/** One run of the built check-bot; resolves with its wall time in ms, failing unless every check passed. */
function run(timeout) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [bin, 'check-bot', '--bot-url', `http://127.0.0.1:${botPort}/webhook`, '--port', String(sandboxPort), '--timeout', timeout],
    { env: { ...base, CORE_SANDBOX_WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((ok, fail) =>
    child.once('exit', (code) => (code === 0 ? ok(performance.now() - started) : fail(new Error(`exit ${code}:\n${output}`)))),
  );
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const times = { '10s': [], '2s': [] };
try {
  for (let i = 0; i < runs; i += 1) {
    for (const timeout of Object.keys(times)) times[timeout].push(await run(timeout));
  }
} finally {
  bot.kill();
}
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const at10 = median(times['10s']);
const at2 = median(times['2s']);
console.log(`runs: ${runs} of each, interleaved; the bot: docs/examples/bot/bot.mjs, answering at once`);
console.log(`whole battery, default --timeout 10s: ${seconds(at10)} (goal: under 15 s) ${at10 < 15_000 ? 'met' : 'NOT MET'}`);
console.log(`  ratio to --timeout: ${(at10 / 10_000).toFixed(2)}x`);
console.log(`whole battery, --timeout 2s: ${seconds(at2)}; ratio to --timeout: ${(at2 / 2_000).toFixed(2)}x`);
console.log(`what is not waiting (the 10s run less its timeout): ${seconds(at10 - 10_000)}`);
