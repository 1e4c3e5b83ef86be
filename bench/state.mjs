#!/usr/bin/env node
// The sandbox's state on disk (docs/performance.md, "State on disk"), with the built binary and library:
//
//   (a) `core test --concurrency 32` driving the example bot (docs/examples/bot/bot.mjs, a process of its
//       own) through COUNT one-exchange conversations (--count, default 1000), with `--state FILE` (a new
//       file each run) against the same run in memory: exchanges per second of the whole process, and of
//       its run (durationMs of its JSON report); rounds interleaved (--rounds, default 3), medians
//       compared. Goal: with --state at least 0.8x in memory.
//   (b) a start that replays 100,000 events (--events N): the file is written by `core sandbox --state`
//       itself (--max-events N, the bench's bot answering each customer message through the API), cut
//       to exactly N events; then `core sandbox --state FILE --max-events N` from its spawn to its
//       listening (the export lines on stdout) against `node -e` reading the same file and
//       JSON.parse-ing each line, interleaved (--rounds), medians compared; peak RSS of the sandbox
//       (VmHWM once it listens, and of `node -e` at its end). Goals: at most 3 s, at most 3x, at most
//       300 MB.
//       `--file PATH` replays PATH, written first when it does not exist (and then kept).
//   (c) the append rate: the library's sandbox (dist/sandbox.mjs) in this process with `state`, under
//       LANES customers writing at once (--lanes, default 64; no bot, so each message is one
//       customer.message event and a request of its own), events written per second against the same
//       load in memory, and the fdatasync calls made (FileHandle.prototype.datasync counted in this
//       process): how many requests' events one sync carried (group commit).
//
// Run `npm run build` first, then `node bench/state.mjs` (`--quick`: smaller counts, one round;
// `--only a,b,c` for some parts).
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchOptions } from './options.mjs';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'dist', 'bin.js');
const library = join(root, 'dist', 'sandbox.mjs');
if (!existsSync(bin) || !existsSync(library)) {
  console.error(`${bin} or ${library} is missing: run \`npm run build\` first`);
  process.exit(2);
}
const options = benchOptions();
const { quick } = options;
const option = options.number;
const COUNT = option('--count', quick ? 300 : 1000);
const ROUNDS = option('--rounds', quick ? 1 : 3);
const EVENTS = option('--events', quick ? 20_000 : 100_000);
const LANES = option('--lanes', 64);
const MESSAGES = option('--messages', quick ? 2000 : 10_000);
const only = options.only(['a', 'b', 'c']);
const SECRET = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
const dir = mkdtempSync(join(tmpdir(), 'core-bench-state-'));
const env = { PATH: process.env.PATH, HOME: dir, CORE_SANDBOX_WEBHOOK_SECRET: SECRET, NO_COLOR: '1' };

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const line = (what, value, goal, pass) =>
  console.log(`${pass === null ? '  ' : pass ? 'ok' : '!!'} ${what}: ${value}${goal ? `  (goal ${goal})` : ''}`);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

function freePort() {
  return new Promise((ok) => {
    const server = createNetServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

/** The CPU time (user and system, seconds) a running process has used, from /proc/<pid>/stat (ticks of 1/100 s). */
const cpuOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const peakKbOf = (pid) => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

/** Runs node with `argv` to its end: exit code, output, wall seconds, peak RSS (VmHWM polled). */
function run(argv, childEnv = env) {
  return new Promise((ok) => {
    const started = performance.now();
    const child = spawn(process.execPath, argv, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        peakKb = Math.max(peakKb, peakKbOf(child.pid));
      } catch {
        // Ended.
      }
    }, 20);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => {
      clearInterval(poll);
      ok({ code, stdout, stderr, seconds: (performance.now() - started) / 1000, peakMb: peakKb / 1024 });
    });
  });
}

/** The example bot of docs/examples/bot/, answering to the sandbox on `sandboxPort`. */
async function startExampleBot(sandboxPort) {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'docs', 'examples', 'bot', 'bot.mjs')], {
    env: {
      ...env,
      PORT: String(port),
      CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
      CORE_TENANT: 'sandbox',
      CORE_TOKEN: 'sandbox-token',
      CORE_WEBHOOK_SECRET: SECRET,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // It logs every message on stdout; its first line says it listens.
  await new Promise((ok) => child.stdout.once('data', ok));
  child.stdout.resume();
  return { url: `http://127.0.0.1:${port}/webhook`, stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGTERM'))) };
}

// ---- (a) core test with --state against in memory ------------------------------------------------

function conversationsFile(n) {
  const lines = ['name: bench', 'conversations:'];
  for (let i = 1; i <= n; i += 1) lines.push(`  - name: c${i}`, `    steps: [{customer: hi ${i}}, {bot: {text: "You said: hi ${i}"}}]`);
  const file = join(dir, `conversations-${n}.yaml`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function coreTest(file, state) {
  const port = await freePort();
  const bot = await startExampleBot(port);
  const report = join(dir, 'report.json');
  rmSync(report, { force: true });
  const stateArgs = [];
  if (state) {
    const stateFile = join(dir, 'core-test-state.ndjson');
    rmSync(stateFile, { force: true });
    stateArgs.push('--state', stateFile);
  }
  const argv = [
    bin,
    'test',
    file,
    '--bot-url',
    bot.url,
    '--port',
    String(port),
    '--concurrency',
    '32',
    '--reporter',
    'json',
    '--output',
    report,
  ];
  const result = await run([...argv, ...stateArgs]);
  await bot.stop();
  if (result.code !== 0) {
    console.error(`core test${state ? ' --state' : ''} exited ${result.code}:\n${result.stderr.slice(-2000)}`);
    process.exitCode = 1;
  }
  let durationMs = Number.NaN;
  try {
    durationMs = JSON.parse(readFileSync(report, 'utf8')).durationMs;
  } catch {
    // No report: said above.
  }
  return { rate: COUNT / result.seconds, runRate: (COUNT * 1000) / durationMs };
}

if (only.includes('a')) {
  console.log(
    `(a) core test --concurrency 32, the example bot, ${COUNT} one-exchange conversations, ${ROUNDS} interleaved rounds (load ${load()})`,
  );
  const file = conversationsFile(COUNT);
  const memory = [];
  const onDisk = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    // Alternating which goes first, so neither always meets the machine warmer.
    if (round % 2 === 0) {
      memory.push(await coreTest(file, false));
      onDisk.push(await coreTest(file, true));
    } else {
      onDisk.push(await coreTest(file, true));
      memory.push(await coreTest(file, false));
    }
  }
  const rate = (runs, key) => median(runs.map((each) => each[key]));
  for (const [key, what] of [
    ['rate', 'the whole process'],
    ['runRate', 'its run (durationMs)'],
  ]) {
    const inMemory = rate(memory, key);
    const withState = rate(onDisk, key);
    line(`in memory, ${what}`, `${inMemory.toFixed(0)} exchanges/s`, '', null);
    line(`--state, ${what}`, `${withState.toFixed(0)} exchanges/s`, '', null);
    line(`--state / in memory, ${what}`, `${(withState / inMemory).toFixed(2)}x`, '>= 0.8x', withState / inMemory >= 0.8);
  }
  console.log(
    `   rounds, whole process: memory ${memory.map((r) => r.rate.toFixed(0)).join(' ')}; --state ${onDisk.map((r) => r.rate.toFixed(0)).join(' ')} (load ${load()})`,
  );
}

// ---- (b) a start that replays EVENTS events ------------------------------------------------------

/** A JSON POST over `agent`: the status and the body's text. */
function post(agent, url, body, headers = {}) {
  return new Promise((ok, fail) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = request(url, {
      method: 'POST',
      agent,
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length, ...headers },
    });
    req.on('error', fail);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => ok({ status: res.statusCode, text }));
    });
    req.end(payload);
  });
}

/** Starts `core sandbox` with `argv`; resolves when it listens, with the time from spawn and its peak RSS then. */
function startSandbox(argv) {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, 'sandbox', ...(argv.includes('--port') ? [] : ['--port', '0']), ...argv], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /^export CORE_BASE_URL=(\S+)$/m.exec(out);
      if (match && out.endsWith('\n')) {
        const seconds = (performance.now() - started) / 1000;
        child.stdout.resume();
        ok({
          base: match[1],
          seconds,
          peakMb: peakKbOf(child.pid) / 1024,
          cpu: cpuOf(child.pid),
          stderr: () => stderr,
          stop: () => new Promise((r) => (child.once('exit', r), child.kill('SIGINT'))),
        });
      }
    });
    child.once('exit', (code) => fail(new Error(`core sandbox exited ${code}: ${stderr}`)));
  });
}

const countLines = (path) => {
  const bytes = readFileSync(path);
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines += 1;
  return lines;
};

/** Writes a state file of exactly `events` events through `core sandbox --state` itself: customers, the bot's answers, webhook attempts. */
async function writeStateFile(path, events) {
  rmSync(path, { force: true });
  const sandboxPort = await freePort();
  const bot = await startExampleBot(sandboxPort);
  const sandbox = await startSandbox([
    '--state',
    path,
    '--max-events',
    String(events),
    '--bot-url',
    bot.url,
    '--port',
    String(sandboxPort),
  ]);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  // Each conversation: its start, then customer messages (each a question, a webhook attempt and an answer).
  const lane = async (n) => {
    const { sessionId } = JSON.parse((await post(agent, `${sandbox.base}/_sandbox/conversations`, {})).text);
    for (let i = 0; i < 8; i += 1) {
      const r = await post(agent, `${sandbox.base}/_sandbox/conversations/${sessionId}/messages`, {
        text: `message ${n}.${i}: where is my order?`,
      });
      if (r.status !== 201) throw new Error(`a customer message: ${r.status} ${r.text}`);
    }
  };
  let lanes = 0;
  while (countLines(path) < events + 1) {
    await Promise.all(Array.from({ length: 32 }, () => lane((lanes += 1))));
    // Let the bot's answers land before counting again.
    await new Promise((r) => setTimeout(r, 200));
  }
  agent.destroy();
  await sandbox.stop();
  await bot.stop();
  // Cut to the header and the first `events` events: a prefix of the log is a log.
  const bytes = readFileSync(path);
  let at = -1;
  for (let lines = 0; lines < events + 1; lines += 1) at = bytes.indexOf(10, at + 1);
  truncateSync(path, at + 1);
  rmSync(`${path}.lock`, { force: true });
}

if (only.includes('b')) {
  // --file PATH: the state file to replay, written there first when it does not exist (and kept).
  const file = options.text('--file');
  const path = file !== undefined ? resolve(file) : join(dir, `state-${EVENTS}.ndjson`);
  const writing = performance.now();
  const given = existsSync(path);
  if (!given) await writeStateFile(path, EVENTS);
  const size = statSync(path).size;
  const made = given ? `${path}, as given` : `written by core sandbox --state in ${((performance.now() - writing) / 1000).toFixed(1)} s`;
  console.log(
    `\n(b) a start replaying ${EVENTS.toLocaleString('en')} events (${(size / 1024 / 1024).toFixed(1)} MB, ${made}), ` +
      `${ROUNDS} interleaved rounds (load ${load()})`,
  );
  const reader = `const fs=require('fs');let n=0;for(const l of fs.readFileSync(process.argv[1],'utf8').split('\\n'))if(l){JSON.parse(l);n++}if(n!==${EVENTS + 1})process.exit(1);const u=process.cpuUsage();console.log((u.user+u.system)/1e6)`;
  const reads = [];
  const starts = [];
  const readPeaks = [];
  const startPeaks = [];
  const readCpu = [];
  const startCpu = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const read = await run(['-e', reader, path]);
    if (read.code !== 0) throw new Error(`node -e read the file wrong: ${read.stderr}`);
    reads.push(read.seconds);
    readPeaks.push(read.peakMb);
    readCpu.push(Number(read.stdout.trim()));
    const copy = join(dir, 'replayed.ndjson');
    copyFileSync(path, copy);
    const sandbox = await startSandbox(['--state', copy, '--max-events', String(EVENTS)]);
    await sandbox.stop();
    const said = /restored from .* \((\d+) events read\)/.exec(sandbox.stderr());
    if (said === null || Number(said[1]) !== EVENTS)
      throw new Error(`the sandbox did not say it read ${EVENTS} events: ${sandbox.stderr()}`);
    starts.push(sandbox.seconds);
    startPeaks.push(sandbox.peakMb);
    startCpu.push(sandbox.cpu);
  }
  const read = median(reads);
  const start = median(starts);
  line('node -e, JSON.parse per line', `${read.toFixed(2)} s, peak RSS ${median(readPeaks).toFixed(0)} MB`, '', null);
  line('core sandbox --state, spawn to listening', `${start.toFixed(2)} s`, 'at most 3 s', start <= 3);
  line('the start / node -e', `${(start / read).toFixed(2)}x`, 'at most 3x', start / read <= 3);
  // On a shared machine the wall times carry the waits for a core; the CPU times do not.
  line('node -e, its CPU time', `${median(readCpu).toFixed(2)} s`, '', null);
  line('the start, its CPU time when it listens', `${median(startCpu).toFixed(2)} s`, 'at most 3 s', median(startCpu) <= 3);
  line(
    'the start / node -e, CPU time',
    `${(median(startCpu) / median(readCpu)).toFixed(2)}x`,
    'at most 3x',
    median(startCpu) / median(readCpu) <= 3,
  );
  line('peak RSS of the start', `${median(startPeaks).toFixed(0)} MB`, 'at most 300 MB', median(startPeaks) <= 300);
  console.log(
    `   rounds: node -e ${reads.map((s) => s.toFixed(2)).join(' ')} s (CPU ${readCpu.map((s) => s.toFixed(2)).join(' ')}); ` +
      `start ${starts.map((s) => s.toFixed(2)).join(' ')} s (CPU ${startCpu.map((s) => s.toFixed(2)).join(' ')}) (load ${load()})`,
  );
}

// ---- (c) the append rate, and how many requests one sync carries ----------------------------------

if (only.includes('c')) {
  const { startSandbox: startLibrary } = await import(pathToFileURL(library).href);
  // Every fdatasync of this process, counted: the state file's are the only ones.
  const probe = await open(join(dir, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe);
  await probe.close();
  let syncs = 0;
  const datasync = prototype.datasync;
  prototype.datasync = function counted(...rest) {
    syncs += 1;
    return datasync.apply(this, rest);
  };
  const measure = async (state, lanes, messages) => {
    const sandbox = await startLibrary({ ...(state ? { state } : {}), maxEvents: messages + lanes + 10 });
    const agent = new Agent({ keepAlive: true, maxSockets: lanes });
    const sessions = [];
    for (let i = 0; i < lanes; i += 1)
      sessions.push(JSON.parse((await post(agent, `${sandbox.url}/_sandbox/conversations`, {})).text).sessionId);
    const seqBefore = sandbox.events().at(-1)?.seq ?? 0;
    const syncsBefore = syncs;
    let next = 0;
    let requests = 0;
    const started = performance.now();
    await Promise.all(
      sessions.map(async (sessionId) => {
        while (next < messages) {
          next += 1;
          const r = await post(agent, `${sandbox.url}/_sandbox/conversations/${sessionId}/messages`, { text: `message ${next}` });
          if (r.status !== 201) throw new Error(`a customer message: ${r.status} ${r.text}`);
          requests += 1;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const events = (sandbox.events().at(-1)?.seq ?? 0) - seqBefore;
    const made = syncs - syncsBefore;
    agent.destroy();
    await sandbox.close();
    return { rate: events / seconds, events, requests, syncs: made };
  };
  // One customer at a time (each request waits for its own sync: the rate a sequential client sees),
  // then LANES at once (the syncs shared: group commit).
  for (const [lanes, messages] of [
    [1, Math.max(100, Math.floor(MESSAGES / 10))],
    [LANES, MESSAGES],
  ]) {
    console.log(
      `\n(c) ${messages.toLocaleString('en')} customer messages from ${lanes} customer${lanes === 1 ? '' : 's'} at once, the library's sandbox in this process, ${ROUNDS} interleaved rounds (load ${load()})`,
    );
    // An untimed warm-up of both, so that neither is timed with this process's code still cold.
    await measure(null, lanes, messages);
    await measure(join(dir, `append-warm-${lanes}.ndjson`), lanes, messages);
    const memory = [];
    const onDisk = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const path = join(dir, `append-${lanes}-${round}.ndjson`);
      rmSync(path, { force: true });
      memory.push(await measure(null, lanes, messages));
      onDisk.push(await measure(path, lanes, messages));
      if (countLines(path) < onDisk.at(-1).events + 1) throw new Error(`${path} holds fewer lines than the events recorded`);
    }
    const inMemory = median(memory.map((r) => r.rate));
    const withState = median(onDisk.map((r) => r.rate));
    const perSync = median(onDisk.map((r) => r.requests / Math.max(1, r.syncs)));
    line('in memory', `${inMemory.toFixed(0)} events/s`, '', null);
    line('with state, written and synced before each answer', `${withState.toFixed(0)} events/s`, '', null);
    line('with state / in memory', `${(withState / inMemory).toFixed(2)}x`, '', null);
    line(
      'requests answered per fdatasync',
      `${perSync.toFixed(1)} (${onDisk.map((r) => `${r.requests} requests, ${r.syncs} syncs`).join('; ')})`,
      lanes === 1 ? '' : 'more than 1: group commit',
      lanes === 1 ? null : perSync > 1,
    );
    console.log(
      `   rounds: memory ${memory.map((r) => r.rate.toFixed(0)).join(' ')}; state ${onDisk.map((r) => r.rate.toFixed(0)).join(' ')} events/s (load ${load()})`,
    );
  }
}

rmSync(dir, { recursive: true, force: true });
