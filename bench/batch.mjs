#!/usr/bin/env node
// Throughput and memory of `core reason update -f` (docs/reasons.md, "Speed and memory"),
// measured against a baseline taken in the same run (docs/architecture.md, "Adding tests": timing
// lives in bench/, as ratios, since absolute times vary from machine to machine). Uses the built
// binary: run `npm run build` first, then `node bench/batch.mjs`.
//
//   (a) core reason update -f 1000.ndjson          (default concurrency 4, kept-alive connections)
//   (b) a sequential bash loop of curl -X PUT       (the same 1,000 requests, one process each)
//   (c) core reason update -f 100000.ndjson         (peak RSS: memory must not grow with the file,
//       compared with the same run on 10,000 reasons)
//
// (a) and (b) talk to `core sandbox` in a child process, seeded with the reasons they update. (c)
// measures the client's memory and talks to a minimal node:http server in this process that answers
// 200: the sandbox checks the limit of active reasons by counting its whole store on every update,
// so with 100,000 reasons it, not the client, would set the pace (about 200 updates a second).
// Options: --small N (default 1000), --large N (default 100000), --concurrency N (default 4),
// --bin PATH (another build of bin.js).
// Installs nothing; needs bash and curl for (b), and uses /usr/bin/time -v for peak RSS when present.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const binAt = args.indexOf('--bin');
const bin = binAt >= 0 ? resolve(args[binAt + 1]) : join(root, 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.error(`${bin} is missing: run \`npm run build\` first`);
  process.exit(1);
}

const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const SMALL = option('--small', 1000);
const LARGE = option('--large', 100_000);
const CONCURRENCY = option('--concurrency', 4);

const work = mkdtempSync(join(tmpdir(), 'core-bench-batch-'));
// A clean environment: no config file, no CORE_* from the machine, and no NODE_EXTRA_CA_CERTS
// (it adds about 55 ms to every Node 20 start, as docs/performance.md notes).
const env = { PATH: process.env.PATH, HOME: work, XDG_CONFIG_HOME: join(work, '.config'), LANG: 'C' };
const nodeEnv = { ...env };

const reasonOf = (i) => ({
  code: `BENCH-${String(i).padStart(6, '0')}`,
  reasons: [
    { locale: 'en', name: `Bench reason ${i}` },
    { locale: 'de', name: `Testgrund ${i}` },
  ],
  color: '#336699',
  active: false,
  system: false,
});

async function writeNdjson(path, count) {
  const out = createWriteStream(path);
  for (let i = 1; i <= count; i += 1) {
    if (!out.write(`${JSON.stringify(reasonOf(i))}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function writeSeed(path, count) {
  const out = createWriteStream(path);
  out.write('[');
  for (let i = 1; i <= count; i += 1) {
    if (!out.write(`${i > 1 ? ',' : ''}${JSON.stringify(reasonOf(i))}`)) await once(out, 'drain');
  }
  out.end(']');
  await once(out, 'finish');
}

/** Starts `core sandbox --port 0` seeded from `seed`, and reads its base URL from its first line. */
async function startSandbox(seed) {
  const child = spawn(process.execPath, [bin, 'sandbox', '--port', '0', '--reasons', seed, '--max-active-reasons', '1000000'], {
    env: nodeEnv,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let text = '';
  const url = await new Promise((resolvePromise, reject) => {
    child.stdout.on('data', (chunk) => {
      text += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(text);
      if (match) resolvePromise(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited (${code}) before listening: ${text}`)));
  });
  child.stdout.resume();
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** A server that answers every request 200 with an X-Request-Id, as the API's successes look. */
async function startMinimalServer() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('X-Request-Id', randomUUID());
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: () =>
      new Promise((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

const hasTimeV = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-v', 'true'], { stdio: 'ignore' }).status === 0;

/** Runs a command, returning its wall time, exit code and peak RSS (KB, or null when unmeasurable). */
async function measure(command, commandArgs, childEnv) {
  const started = performance.now();
  let child;
  let peakKb = null;
  let stderr = '';
  if (hasTimeV) {
    child = spawn('/usr/bin/time', ['-v', command, ...commandArgs], { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  } else {
    child = spawn(command, commandArgs, { env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
  }
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  let poll;
  if (!hasTimeV) {
    peakKb = 0;
    poll = setInterval(() => {
      const ps = spawnSync('ps', ['-o', 'rss=', '-p', String(child.pid)], { encoding: 'utf8' });
      const kb = Number(ps.stdout.trim());
      if (Number.isFinite(kb) && kb > peakKb) peakKb = kb;
    }, 50);
  }
  const [code] = await once(child, 'exit');
  const ms = performance.now() - started;
  if (poll) clearInterval(poll);
  if (hasTimeV) {
    const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    peakKb = match ? Number(match[1]) : null;
    const exit = /Exit status: (\d+)/.exec(stderr);
    return { ms, code: exit ? Number(exit[1]) : code, peakKb, stderr };
  }
  return { ms, code, peakKb: peakKb || null, stderr };
}

const coreEnv = (url) => ({ ...nodeEnv, CORE_BASE_URL: url, CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token' });
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const rate = (count, ms) => `${Math.round(count / (ms / 1000)).toLocaleString('en-US')}/s`;
const mb = (kb) => (kb === null ? 'n/a' : `${(kb / 1024).toFixed(0)} MB`);

function lastLine(text) {
  return (
    text
      .trim()
      .split('\n')
      .filter((line) => !/^\s/.test(line) && !line.startsWith('Command being timed'))
      .pop() ?? ''
  );
}

const rows = [];
let small;
let loop = null;
let large;
let tenthRun;
try {
  console.error(`bench: writing inputs in ${work}`);
  const smallFile = join(work, `${SMALL}.ndjson`);
  const smallSeed = join(work, `seed-${SMALL}.json`);
  await writeNdjson(smallFile, SMALL);
  await writeSeed(smallSeed, SMALL);

  const sandbox = await startSandbox(smallSeed);
  try {
    console.error(`bench: (a) core reason update -f ${SMALL}.ndjson --concurrency ${CONCURRENCY}`);
    small = await measure(
      process.execPath,
      [bin, 'reason', 'update', '-f', smallFile, '--concurrency', String(CONCURRENCY)],
      coreEnv(sandbox.url),
    );
    if (small.code !== 0) throw new Error(`core reason update exited ${small.code}: ${small.stderr}`);

    const haveCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
    const haveBash = spawnSync('bash', ['-c', 'true'], { stdio: 'ignore' }).status === 0;
    if (haveCurl && haveBash) {
      console.error(`bench: (b) sequential curl loop over the same ${SMALL} reasons`);
      const script = [
        'set -u',
        'failed=0',
        'while IFS= read -r line; do',
        `  status=$(printf '%s' "$line" | curl -s -o /dev/null -w '%{http_code}' -X PUT "$URL/api/v1/inactivity/reasons" \\`,
        `    -H 'Content-Type: application/json' -H 'X-Tenant-Name: sandbox' -H 'Authorization: Bearer sandbox-token' -d @-)`,
        '  [ "$status" = 200 ] || failed=$((failed + 1))',
        `done < "$FILE"`,
        '[ "$failed" = 0 ] || { echo "$failed requests failed" >&2; exit 1; }',
      ].join('\n');
      loop = await measure('bash', ['-c', script], { ...env, URL: sandbox.url, FILE: smallFile });
      if (loop.code !== 0) throw new Error(`the curl loop failed: ${loop.stderr}`);
    } else {
      console.error('bench: (b) skipped: bash or curl is not installed');
    }
  } finally {
    await sandbox.stop();
  }

  console.error(`bench: writing ${LARGE.toLocaleString('en-US')} reasons`);
  const largeFile = join(work, `${LARGE}.ndjson`);
  await writeNdjson(largeFile, LARGE);
  const tenth = Math.max(1, Math.round(LARGE / 10));
  const tenthFile = join(work, `${tenth}.ndjson`);
  await writeNdjson(tenthFile, tenth);
  const minimal = await startMinimalServer();
  try {
    // The same run on a tenth of the reasons, so the memory of (c) is compared like with like.
    console.error(`bench: (c0) core reason update -f ${tenth}.ndjson --concurrency ${CONCURRENCY}`);
    tenthRun = await measure(
      process.execPath,
      [bin, 'reason', 'update', '-f', tenthFile, '--concurrency', String(CONCURRENCY)],
      coreEnv(minimal.url),
    );
    if (tenthRun.code !== 0) throw new Error(`core reason update exited ${tenthRun.code}: ${tenthRun.stderr.slice(-2000)}`);
    console.error(`bench: (c) core reason update -f ${LARGE}.ndjson --concurrency ${CONCURRENCY}`);
    large = await measure(
      process.execPath,
      [bin, 'reason', 'update', '-f', largeFile, '--concurrency', String(CONCURRENCY)],
      coreEnv(minimal.url),
    );
    if (large.code !== 0) throw new Error(`core reason update exited ${large.code}: ${large.stderr.slice(-2000)}`);
  } finally {
    await minimal.stop();
  }

  rows.push([
    `(a) core reason update, ${SMALL.toLocaleString('en-US')} reasons, concurrency ${CONCURRENCY}`,
    seconds(small.ms),
    rate(SMALL, small.ms),
    mb(small.peakKb),
  ]);
  if (loop) rows.push([`(b) sequential curl loop, ${SMALL.toLocaleString('en-US')} reasons`, seconds(loop.ms), rate(SMALL, loop.ms), '-']);
  rows.push([
    `(c0) core reason update, ${tenth.toLocaleString('en-US')} reasons, minimal server`,
    seconds(tenthRun.ms),
    rate(tenth, tenthRun.ms),
    mb(tenthRun.peakKb),
  ]);
  rows.push([
    `(c) core reason update, ${LARGE.toLocaleString('en-US')} reasons, minimal server`,
    seconds(large.ms),
    rate(LARGE, large.ms),
    mb(large.peakKb),
  ]);

  const widths = [0, 1, 2, 3].map((i) =>
    Math.max(...[['run', 'time', 'rate', 'peak RSS'][i], ...rows.map((r) => r[i])].map((s) => s.length)),
  );
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  console.log(line(['run', 'time', 'rate', 'peak RSS']));
  console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log('');
  if (loop)
    console.log(
      `curl loop / core: ${(loop.ms / small.ms).toFixed(1)}x (core is that many times faster on ${SMALL.toLocaleString('en-US')} reasons)`,
    );
  if (tenthRun.peakKb !== null && large.peakKb !== null) {
    const how = hasTimeV ? '/usr/bin/time -v' : 'ps -o rss, polled every 50 ms';
    console.log(
      `peak RSS, ${LARGE.toLocaleString('en-US')} vs ${tenth.toLocaleString('en-US')} reasons: ${(large.peakKb / tenthRun.peakKb).toFixed(2)}x for 10x the reasons (${how})`,
    );
  }
  console.log(`summary of (c): ${lastLine(large.stderr)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
