#!/usr/bin/env node
// How fast `core check-bot --fuzz` plays against a bot that answers at once (the example bot of
// docs/examples/bot/, in its own process), the sandbox and the bot included: the goal is 1,000 fuzzed
// conversations in at most 60 s on a 2-core machine with a peak RSS of at most 200 MB (the check-bot
// process, sandbox included). The baseline, measured in the same run, is `--only answers` (one plain
// check, the sandbox started the same way), so the figure is also a ratio that a loaded machine moves
// less. Peak RSS is the process's VmHWM read from /proc while it runs. Needs `npm run build` first.
// BENCH_FUZZ_RUNS sets N (default 1000; --quick: 200). It also prints the CPU time of check-bot and of
// the bot (user + system, from /proc) and the machine's load average before and after: on a shared
// machine the wall time follows the load, the CPU time much less. A flawless bot must break no rule
// in the 1,000 conversations: the run fails if it does (this is the N = 1,000 check the tests leave
// out of CI).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = resolve(import.meta.dirname, '..');
const bin = process.env.BENCH_BIN ? resolve(process.env.BENCH_BIN) : join(root, 'dist', 'bin.js');
const runs = Number(process.env.BENCH_FUZZ_RUNS ?? (process.argv.includes('--quick') ? 200 : 1000));
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
const home = mkdtempSync(join(tmpdir(), 'core-bench-fuzz-'));
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

/** The peak resident set of a running process, in kB (0 once it is gone). */
function peakKb(pid) {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The CPU time (user + system) a running process has used, in seconds (0 once it is gone). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name; in clock ticks (100 a second).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** One run of the built check-bot with `args`: wall time (ms), peak RSS (kB), CPU seconds of it and of the bot; fails unless it exits 0. */
function run(args) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [bin, 'check-bot', '--bot-url', `http://127.0.0.1:${botPort}/webhook`, '--port', String(sandboxPort), '--timeout', '10s', ...args],
    { env: { ...base, CORE_SANDBOX_WEBHOOK_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let peak = 0;
  let cpu = 0;
  const botBefore = cpuSeconds(bot.pid);
  const poll = setInterval(() => {
    peak = Math.max(peak, peakKb(child.pid));
    cpu = Math.max(cpu, cpuSeconds(child.pid));
  }, 100);
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((ok, fail) =>
    child.once('exit', (code) => {
      clearInterval(poll);
      // Exit 3 is a finding (a flaky timeout on a loaded machine, say): the figures stand, the findings are printed.
      const botCpu = cpuSeconds(bot.pid) - botBefore;
      if (code === 0 || code === 3) ok({ ms: performance.now() - started, peakKb: peak, cpu, botCpu, failed: code === 3 ? output : null });
      else fail(new Error(`exit ${code}:\n${output}`));
    }),
  );
}

let baseline;
let fuzzed;
const loadBefore = loadavg()[0];
try {
  baseline = await run(['--only', 'answers']);
  fuzzed = await run(['--fuzz', String(runs), '--seed', '1']);
} finally {
  bot.kill();
}
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const goalMs = (60_000 * runs) / 1000;
console.log(`the bot: docs/examples/bot/bot.mjs, answering at once; seed 1`);
console.log(`baseline, --only answers: ${seconds(baseline.ms)}`);
console.log(
  `--fuzz ${runs}: ${seconds(fuzzed.ms)}, ${((runs * 1000) / fuzzed.ms).toFixed(1)} conversations/s ` +
    `(goal: at most ${seconds(goalMs)}) ${fuzzed.ms <= goalMs ? 'met' : 'NOT MET'}`,
);
console.log(`  ratio to the baseline: ${(fuzzed.ms / baseline.ms).toFixed(1)}x`);
console.log(
  `  CPU: check-bot (the sandbox in it) ${fuzzed.cpu.toFixed(1)} s, the bot ${fuzzed.botCpu.toFixed(1)} s ` +
    `(${((fuzzed.cpu * 1000) / runs).toFixed(0)} ms and ${((fuzzed.botCpu * 1000) / runs).toFixed(0)} ms a conversation)`,
);
console.log(
  `  load average (1 min) before and after: ${loadBefore.toFixed(1)}, ${loadavg()[0].toFixed(1)} (${availableParallelism()} cores)`,
);
console.log(
  `peak RSS of check-bot --fuzz: ${(fuzzed.peakKb / 1024).toFixed(0)} MB (goal: at most 200 MB) ${fuzzed.peakKb <= 200 * 1024 ? 'met' : 'NOT MET'}`,
);
if (fuzzed.failed !== null) {
  console.log('NOT MET: the example bot should break no rule; what the run found:');
  console.log(fuzzed.failed);
  process.exitCode = 1;
}
