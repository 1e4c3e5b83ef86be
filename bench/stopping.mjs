#!/usr/bin/env node
// How fast the built binary stops (docs/exit-codes.md, "Stopping": within 2 s of one SIGTERM or
// SIGHUP; each attempt ends at --timeout), against a baseline measured in the same run: a Node
// process that does nothing, ended by the same signal. The median of interleaved runs of each case.
// Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const bin = process.env.BENCH_BIN ? resolve(process.env.BENCH_BIN) : join(root, 'dist', 'bin.js');
const runs = Number(process.env.BENCH_RUNS ?? 7);
if (!existsSync(bin)) {
  console.error('dist/bin.js is missing: run `npm run build` first');
  process.exit(2);
}

// A proxy that accepts and never answers CONNECT, and a service that never answers: the two ways a
// request waits with nothing to read. Both count what reached them, so a signal is sent only once
// requests are in flight.
const sockets = new Set();
let connects = 0;
const proxy = createTcpServer((socket) => {
  sockets.add(socket);
  socket.on('error', () => {});
  socket.once('data', () => (connects += 1));
});
let received = 0;
const hanging = createHttpServer((request) => {
  request.resume();
  request.on('end', () => (received += 1));
});
hanging.on('connection', (socket) => sockets.add(socket));
await Promise.all([proxy, hanging].map((server) => new Promise((ok) => server.listen(0, '127.0.0.1', ok))));

const dir = mkdtempSync(join(tmpdir(), 'core-bench-stopping-'));
const reasons = join(dir, 'reasons.ndjson');
writeFileSync(
  reasons,
  Array.from({ length: 100 }, (_, i) => JSON.stringify({ code: `B${i}`, reasons: [{ locale: 'en', name: `Name ${i}` }] })).join('\n'),
);
const env = (extra) => ({
  PATH: process.env.PATH,
  HOME: dir,
  XDG_CONFIG_HOME: join(dir, '.config'),
  CORE_TENANT: 'acme',
  CORE_TOKEN: 'bench-stopping-token',
  ...extra,
});
const viaProxy = env({ CORE_BASE_URL: 'https://api.example.test', HTTPS_PROXY: `http://127.0.0.1:${proxy.address().port}` });
const toHanging = env({ CORE_BASE_URL: `http://127.0.0.1:${hanging.address().port}` });

const until = async (check) => {
  while (!check()) await new Promise((ok) => setTimeout(ok, 5));
};

/** Starts `argv`, waits until `ready()`, sends `signal`, and returns ms from the signal to the exit. */
async function stopTime(argv, childEnv, signal, ready) {
  const child = spawn(argv[0], argv.slice(1), { env: childEnv, stdio: ['ignore', 'pipe', 'ignore'] });
  child.stdout.resume();
  const exited = new Promise((ok) => child.on('close', (code, sig) => ok(code ?? sig)));
  await ready(child);
  const start = performance.now();
  child.kill(signal);
  const code = await exited;
  return { ms: performance.now() - start, code };
}

const cases = [
  {
    // A started Node process that exits on SIGTERM at once: what stopping costs with nothing to do.
    name: 'baseline: node waiting, exits on SIGTERM',
    run: () =>
      stopTime(
        [process.execPath, '-e', "process.on('SIGTERM', () => process.exit(130)); setInterval(() => {}, 1000); console.log('ready')"],
        env({}),
        'SIGTERM',
        (child) => new Promise((ok) => child.stdout.once('data', ok)),
      ),
  },
  {
    name: 'reply through a proxy that never answers, SIGTERM',
    run: async () => {
      const before = connects;
      return stopTime([process.execPath, bin, 'reply', '--core-client-id', '1', '-t', 'x', '--timeout', '10m'], viaProxy, 'SIGTERM', () =>
        until(() => connects > before),
      );
    },
  },
  {
    name: 'batch of 100 through a proxy that never answers, SIGTERM',
    run: async () => {
      const before = connects;
      const report = join(dir, `report-${Math.random()}.ndjson`);
      const result = await stopTime(
        [process.execPath, bin, 'reason', 'update', '-f', reasons, '--timeout', '10m', '--report', report],
        viaProxy,
        'SIGTERM',
        () => until(() => connects >= before + 4),
      );
      const lines = readFileSync(report, 'utf8').trim().split('\n').length;
      if (lines !== 100) throw new Error(`the report holds ${lines} lines, not 100`);
      return result;
    },
  },
  {
    name: 'batch of 100 to a service that never answers, SIGHUP',
    run: async () => {
      const before = received;
      const report = join(dir, `report-${Math.random()}.ndjson`);
      const result = await stopTime(
        [process.execPath, bin, 'reason', 'update', '-f', reasons, '--timeout', '10m', '--report', report],
        toHanging,
        'SIGHUP',
        () => until(() => received >= before + 4),
      );
      const lines = readFileSync(report, 'utf8').trim().split('\n').length;
      if (lines !== 100) throw new Error(`the report holds ${lines} lines, not 100`);
      return result;
    },
  },
];

const times = cases.map(() => []);
const codes = cases.map(() => new Set());
for (let round = 0; round < runs; round += 1) {
  for (const [index, c] of cases.entries()) {
    const { ms, code } = await c.run();
    times[index].push(ms);
    codes[index].add(code);
  }
}

// --timeout: one attempt (retries 0 through a profile) against the proxy, from start to exit.
const config = join(dir, 'core.json');
writeFileSync(config, JSON.stringify({ profiles: { p: { retries: 0 } } }));
const attempt = [];
for (let round = 0; round < runs; round += 1) {
  const start = performance.now();
  await new Promise((ok) =>
    spawn(process.execPath, [bin, 'reply', '--core-client-id', '1', '-t', 'x', '--timeout', '500ms', '--config', config], {
      env: viaProxy,
      stdio: 'ignore',
    }).on('close', ok),
  );
  attempt.push(performance.now() - start);
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const base = median(times[0]);
console.log(`${runs} runs each, median; baseline ${base.toFixed(0)} ms\n`);
console.log('| case | signal to exit | ratio to baseline | exit codes |');
console.log('|---|---:|---:|---|');
for (const [index, c] of cases.entries()) {
  const ms = median(times[index]);
  console.log(`| ${c.name} | ${ms.toFixed(0)} ms | ${(ms / base).toFixed(1)} | ${[...codes[index]].join(', ')} |`);
}
console.log(`\n--timeout 500ms through a proxy that never answers, one attempt: ${median(attempt).toFixed(0)} ms from start to exit`);

for (const socket of sockets) socket.destroy();
proxy.close();
hanging.close();
