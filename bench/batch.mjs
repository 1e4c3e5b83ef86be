#!/usr/bin/env node
// Throughput, rate limits and memory of `core reason update -f` (docs/reasons.md, "Speed and
// memory"), each against a baseline taken in the same run (docs/architecture.md, "Adding tests":
// timing lives in bench/, as ratios, since absolute times vary from machine to machine). Uses the
// built binary: run `npm run build` first, then `node bench/batch.mjs`.
//
//   (a) core reason update -f 1000.ndjson        (default concurrency 4, kept-alive connections)
//   (g) got alone, the same 1,000 PUTs           (bench/got-alone.mjs: got as a script would load it,
//                                                 the package as installed in node_modules, the same
//                                                 concurrency, nothing checked, printed or recorded)
//   (g') got alone, core's build of got          (the same, loading dist/vendor/got.cjs, which the
//                                                 build rewrites where Node 20 is slow: tsup.config.ts,
//                                                 gotNativeOptions)
//   (s) got's stream API alone                   (bench/got-alone.mjs --stream on core's build: one got
//                                                 instance with the shared options normalised once, a
//                                                 stream per request: the floor of a client built on got)
//   (h) node:http alone                          (bench/http-alone.mjs: an Agent with keepAlive,
//                                                 http.request per line, nothing else)
//   (b) a sequential bash loop of curl -X PUT    (the same 1,000 requests, one process each)
//   (r) core reason update -f 200.ndjson against a service that allows N requests a second
//       (a token bucket of N, answering 429 with Retry-After, then the same answering 429 without
//       it), at --concurrency 1, 4, 16 and 64: failures (there must be none) and the time against
//       items / N
//   (c) core reason update -f 100000.ndjson      (peak RSS: memory must not grow with the file,
//       compared with the same run on 10,000 reasons)
//
// (a), (g) and (b) talk to `core sandbox` in a child process, seeded with the reasons they update,
// then to a minimal loopback server in this process (bare node:http answering 200 `{}`), so that the
// clients' own cost is compared without the sandbox's; each against the same loop of curl to the
// same server. (a), (g), (g'), (s) and (h) are run --rounds times, interleaved, and their medians compared,
// with each client's CPU time (user + system, from /usr/bin/time -v): on a machine shared with other
// work the wall times move with the load, the CPU a client spends per request much less. (r) and (c) talk to
// servers in a child process: (c) to a minimal node:http server that answers 200 (the sandbox counts
// its whole store on every update, so with 100,000 reasons it, not the client, would set the pace).
//
// Options: --quick, --small N[,N...] (default 1000,10000; each size gets its throughput rows), --large N (default 100000), --concurrency N (default 4),
// --rounds N (default 5), --rate N (default 20 requests a second), --items N (default 200),
// --bin PATH (another build of bin.js), --before PATH (an older build, measured in the same run
// for every row of core, with after/before ratios), --only a,r,c (some parts only).
// Installs nothing; needs bash and curl for (b), and uses /usr/bin/time -v for peak RSS when present.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { createServer } from 'node:http';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const text = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const option = (name, fallback) => Number(text(name, fallback));
const bin = resolve(text('--bin', join(root, 'dist', 'bin.js')));
const beforeBin = text('--before') === undefined ? null : resolve(text('--before'));
for (const file of [bin, beforeBin]) {
  if (file !== null && !existsSync(file)) {
    console.error(`${file} is missing: run \`npm run build\` first`);
    process.exit(1);
  }
}
// --small 1000,10000: the throughput rows at each size (the first also runs the curl loop).
// --quick: 1,000 only, 3 rounds, a 10,000-line memory run.
const QUICK = args.includes('--quick');
const SIZES = text('--small', QUICK ? '1000' : '1000,10000')
  .split(',')
  .map(Number);
const SMALL = Math.max(...SIZES);
const LARGE = option('--large', QUICK ? 10_000 : 100_000);
const CONCURRENCY = option('--concurrency', 4);
const ROUNDS = option('--rounds', QUICK ? 3 : 5);
const RATE = option('--rate', 20);
const ITEMS = option('--items', 200);
const ONLY = new Set(text('--only', 'a,r,c').split(','));
// got as installed, for (g): what a script using got would load.
const installedGot = join(root, 'node_modules', 'got', 'dist', 'source', 'index.js');
const builds = [{ label: 'after', bin }, ...(beforeBin ? [{ label: 'before', bin: beforeBin }] : [])];

const work = mkdtempSync(join(tmpdir(), 'core-bench-batch-'));
// A clean environment: no config file, no CORE_* from the machine, and no NODE_EXTRA_CA_CERTS
// (it adds about 55 ms to every Node 20 start, as docs/performance.md notes).
const env = {
  PATH: process.env.PATH,
  HOME: work,
  XDG_CONFIG_HOME: join(work, '.config'),
  XDG_CACHE_HOME: join(work, '.cache'),
  LANG: 'C',
};

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

async function writeLines(path, count, line) {
  const out = createWriteStream(path);
  for (let i = 1; i <= count; i += 1) {
    if (!out.write(line(i))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}
const writeNdjson = (path, count) => writeLines(path, count, (i) => `${JSON.stringify(reasonOf(i))}\n`);
async function writeSeed(path, count) {
  await writeLines(path, count, (i) => `${i === 1 ? '[' : ','}${JSON.stringify(reasonOf(i))}${i === count ? ']' : ''}`);
}

/** Starts a child process and reads its base URL from the first line matching `pattern`. */
async function startChild(command, commandArgs, pattern) {
  const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'ignore'] });
  let seen = '';
  child.stdout.on('data', (chunk) => {
    // The sandbox logs every request: only the start is kept.
    if (seen.length < 64 * 1024) seen += chunk.toString();
  });
  const url = await new Promise((resolvePromise, reject) => {
    const look = () => {
      const match = pattern.exec(seen);
      if (match) resolvePromise(match[1]);
    };
    child.stdout.on('data', look);
    child.on('exit', (code) => reject(new Error(`${command} exited (${code}) before listening: ${seen}`)));
  });
  return {
    url,
    /** Stops the child and returns what it printed last (the counts of the rate-limited server). */
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      return seen.trim().split('\n').pop() ?? '';
    },
  };
}

const startSandbox = (seed, binary) =>
  startChild(
    process.execPath,
    [binary, 'sandbox', '--port', '0', '--reasons', seed, '--max-active-reasons', '1000000'],
    /listening on (http:\/\/\S+)/,
  );

/**
 * A minimal server (200 to everything, with an X-Request-Id), or with `rate` a service that allows
 * `rate` requests a second: a token bucket holding at most `rate` tokens, refilled continuously,
 * answering 429 with Retry-After (whole seconds until the next token, at least 1) when it is empty,
 * or with no Retry-After at all when `retryAfter` is false. It counts what it answered and prints
 * the counts on SIGTERM.
 */
function startServer(rate, retryAfter = true) {
  const source = `
    const http = require('node:http');
    const { randomUUID } = require('node:crypto');
    const rate = ${rate ?? 0};
    const retryAfter = ${retryAfter};
    let tokens = rate, last = performance.now(), ok = 0, limited = 0;
    const take = () => {
      if (rate === 0) return 0;
      const now = performance.now();
      tokens = Math.min(rate, tokens + ((now - last) / 1000) * rate);
      last = now;
      if (tokens >= 1) { tokens -= 1; return 0; }
      return Math.max(1, Math.ceil((1 - tokens) / rate));
    };
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const wait = take();
        res.setHeader('X-Request-Id', randomUUID());
        if (wait > 0) { limited += 1; res.statusCode = 429; if (retryAfter) res.setHeader('Retry-After', String(wait)); res.setHeader('Content-Type', 'application/json'); res.end('{"message":"rate limited"}'); return; }
        ok += 1;
        res.end();
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
    process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ ok, limited }) + '\\n', () => process.exit(0)); });
  `;
  return startChild(process.execPath, ['-e', source], /listening on (http:\/\/\S+)/);
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
    const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
    const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
    const cpuMs = user && system ? (Number(user[1]) + Number(system[1])) * 1000 : null;
    return { ms, code: exit ? Number(exit[1]) : code, peakKb, cpuMs, stderr };
  }
  return { ms, code, peakKb: peakKb || null, cpuMs: null, stderr };
}

const coreEnv = (url) => ({ ...env, CORE_BASE_URL: url, CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token' });
const update = (binary, file, concurrency = CONCURRENCY) => [binary, 'reason', 'update', '-f', file, '--concurrency', String(concurrency)];
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const rate = (count, ms) => `${Math.round(count / (ms / 1000)).toLocaleString('en-US')}/s`;
const mb = (kb) => (kb === null ? 'n/a' : `${(kb / 1024).toFixed(0)} MB`);
const n = (count) => count.toLocaleString('en-US');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `${seconds(Math.min(...xs))}–${seconds(Math.max(...xs))}`;
const failed = (run, what) => {
  if (run.code !== 0) throw new Error(`${what} exited ${run.code}: ${run.stderr.slice(-2000)}`);
  return run;
};

function table(header, rows) {
  const widths = header.map((_, i) => Math.max(...[header, ...rows].map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
  for (const row of rows) console.log(line(row));
  console.log('');
}

/** A bare node:http server in this process: 200 with `{}` to every request, nothing checked or kept. */
async function startLoopback() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2' });
      res.end('{}');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * (a), (g), (g'), (s) and (h) against one server, for each size: core, got alone (installed and built), got's stream API alone and
 * node:http alone --rounds times, interleaved (medians compared); then, for the first size only, the
 * curl loop once, all sending the same updates to the same server.
 */
async function throughput(server) {
  for (const size of SIZES) {
    const file = fileOf(size);
    const clients = [
      ...builds.map((b) => ({
        label: `(a) core reason update${builds.length > 1 ? `, ${b.label}` : ''}`,
        key: b.label,
        args: update(b.bin, file),
        env: coreEnv(server.url),
      })),
      {
        label: '(g) got alone (the package as installed)',
        key: 'got',
        args: [
          join(root, 'bench', 'got-alone.mjs'),
          '--got',
          installedGot,
          '--url',
          server.url,
          '--file',
          file,
          '--concurrency',
          String(CONCURRENCY),
        ],
        env,
      },
      {
        label: "(g') got alone, core's build of got",
        key: 'got-build',
        args: [join(root, 'bench', 'got-alone.mjs'), '--url', server.url, '--file', file, '--concurrency', String(CONCURRENCY)],
        env,
      },
      {
        label: "(s) got's stream API alone",
        key: 'stream',
        args: [join(root, 'bench', 'got-alone.mjs'), '--stream', '--url', server.url, '--file', file, '--concurrency', String(CONCURRENCY)],
        env,
      },
      {
        label: '(h) node:http alone',
        key: 'http',
        args: [join(root, 'bench', 'http-alone.mjs'), '--url', server.url, '--file', file, '--concurrency', String(CONCURRENCY)],
        env,
      },
    ];
    const times = new Map(clients.map((c) => [c.key, []]));
    const cpus = new Map(clients.map((c) => [c.key, []]));
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.error(`bench: (a), (g), (g'), (s), (h): ${n(size)} reasons against ${server.name}, round ${round} of ${ROUNDS}`);
      for (const client of clients) {
        const run = failed(await measure(process.execPath, client.args, client.env), client.label);
        times.get(client.key).push(run.ms);
        if (run.cpuMs !== null) cpus.get(client.key).push(run.cpuMs);
      }
    }
    let loop = null;
    if (size === SIZES[0]) loop = await curlLoop(server, file, size);
    const got = median(times.get('got'));
    const http = median(times.get('http'));
    console.log(
      `(a) throughput: ${n(size)} reasons, concurrency ${CONCURRENCY}, against ${server.name}; median of ${ROUNDS} interleaved rounds`,
    );
    const rows = clients.map((client) => {
      const t = median(times.get(client.key));
      const cpu = cpus.get(client.key).length > 0 ? median(cpus.get(client.key)) : null;
      return [
        client.label,
        seconds(t),
        spread(times.get(client.key)),
        rate(size, t),
        `${(got / t).toFixed(2)}x`,
        `${(http / t).toFixed(2)}x`,
        cpu === null ? '-' : `${seconds(cpu)} (${Math.round((cpu * 1000) / size)} µs each)`,
        loop ? `${(loop.ms / t).toFixed(1)}x` : '-',
      ];
    });
    if (loop)
      rows.push([
        '(b) sequential curl loop',
        seconds(loop.ms),
        '-',
        rate(size, loop.ms),
        `${(got / loop.ms).toFixed(2)}x`,
        `${(http / loop.ms).toFixed(2)}x`,
        '-',
        '1.0x',
      ]);
    table(
      [
        'run',
        'median',
        'range',
        'rate',
        'vs got alone (goal >= 1.0x)',
        'vs node:http alone (goal >= 0.4x)',
        'CPU time (user + sys)',
        'vs the curl loop',
      ],
      rows,
    );
  }
}

/** (b): a sequential bash loop of curl, one process per request; null when bash or curl is missing. */
async function curlLoop(server, file, size) {
  const haveCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
  const haveBash = spawnSync('bash', ['-c', 'true'], { stdio: 'ignore' }).status === 0;
  if (!haveCurl || !haveBash) {
    console.error('bench: (b) skipped: bash or curl is not installed');
    return null;
  }
  console.error(`bench: (b) sequential curl loop over the same ${n(size)} reasons against ${server.name}`);
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
  return failed(await measure('bash', ['-c', script], { ...env, URL: server.url, FILE: file }), 'the curl loop');
}

const fileOf = (size) => join(work, `${size}.ndjson`);
const smallSeed = join(work, `seed-${SMALL}.json`);
try {
  console.error(`bench: writing inputs in ${work}`);
  for (const size of SIZES) await writeNdjson(fileOf(size), size);
  await writeSeed(smallSeed, SMALL);

  if (ONLY.has('a')) {
    // The same runs against two servers: `core sandbox` (which validates and stores every update, so
    // it is a large part of the time) and a bare node:http server in this process answering 200 `{}`
    // (so what is compared is the clients' own cost).
    const sandbox = await startSandbox(smallSeed, bin);
    const loopback = await startLoopback();
    try {
      for (const server of [
        { name: 'core sandbox', url: sandbox.url },
        { name: 'a minimal loopback server (node:http in the bench, 200 {})', url: loopback.url },
      ]) {
        await throughput(server);
      }
    } finally {
      await sandbox.stop();
      await loopback.stop();
    }
  }

  if (ONLY.has('r')) {
    const itemsFile = join(work, `${ITEMS}.ndjson`);
    await writeNdjson(itemsFile, ITEMS);
    const ideal = (ITEMS / RATE) * 1000;
    const rows = [];
    for (const retryAfter of [true, false]) {
      for (const build of builds) {
        for (const concurrency of [1, 4, 16, 64]) {
          const kind = retryAfter ? 'Retry-After' : 'no Retry-After';
          console.error(
            `bench: (r) ${build.label}, ${ITEMS} reasons at --concurrency ${concurrency} against ${RATE} requests a second, 429 with ${kind}`,
          );
          const server = await startServer(RATE, retryAfter);
          const run = await measure(process.execPath, update(build.bin, itemsFile, concurrency), coreEnv(server.url));
          const counts = JSON.parse((await server.stop()) || '{}');
          const summary = /(\d[\d,]*) succeeded, (\d[\d,]*) failed/.exec(run.stderr);
          if (summary === null) console.error(`bench: (r) ${build.label} exited ${run.code}: ${run.stderr.slice(-500)}`);
          rows.push([
            `(r) ${kind}, ${builds.length === 1 ? '' : `${build.label}, `}--concurrency ${concurrency}`,
            String(run.code),
            summary ? summary[2] : '?',
            String(counts.limited ?? '?'),
            seconds(run.ms),
            `${(run.ms / ideal).toFixed(2)}x`,
          ]);
        }
      }
    }
    console.log(
      `(r) rate limits: ${n(ITEMS)} reasons against a service that allows ${RATE} requests a second (items / N = ${seconds(ideal)})`,
    );
    table(['run', 'exit', 'failed', 'answered 429', 'time', 'time / (items / N)'], rows);
  }

  if (ONLY.has('c')) {
    console.error(`bench: writing ${n(LARGE)} reasons`);
    const largeFile = join(work, `${LARGE}.ndjson`);
    await writeNdjson(largeFile, LARGE);
    const tenth = Math.max(1, Math.round(LARGE / 10));
    const tenthFile = join(work, `${tenth}.ndjson`);
    await writeNdjson(tenthFile, tenth);
    const minimal = await startServer();
    const rows = [];
    const peaks = new Map();
    try {
      for (const build of builds) {
        for (const [count, file] of [
          [tenth, tenthFile],
          [LARGE, largeFile],
        ]) {
          console.error(`bench: (c) ${build.label}, core reason update -f ${count}.ndjson --concurrency ${CONCURRENCY}`);
          const run = failed(await measure(process.execPath, update(build.bin, file), coreEnv(minimal.url)), `core (${build.label})`);
          peaks.set(`${build.label} ${count}`, run.peakKb);
          rows.push([`(c) ${build.label}, ${n(count)} reasons, minimal server`, seconds(run.ms), rate(count, run.ms), mb(run.peakKb)]);
        }
      }
    } finally {
      await minimal.stop();
    }
    console.log(`(c) memory: peak RSS (${hasTimeV ? '/usr/bin/time -v' : 'ps -o rss, polled every 50 ms'})`);
    table(['run', 'time', 'rate', 'peak RSS'], rows);
    for (const build of builds) {
      const small = peaks.get(`${build.label} ${tenth}`);
      const large = peaks.get(`${build.label} ${LARGE}`);
      if (small && large) console.log(`${build.label}: ${n(LARGE)} reasons take ${(large / small).toFixed(2)}x the memory of ${n(tenth)}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
