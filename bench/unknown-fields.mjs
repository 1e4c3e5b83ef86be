#!/usr/bin/env node
// What a payload full of unknown fields costs (docs/sandbox.md, "Bounds"): the bot answer validated
// in-process (validateReply, as core reply and the sandbox's API run it) with N unknown keys, and the
// same answer sent to a sandbox started here: the time of its 400, the size of that answer and of the
// log line it writes. Per key, the time is what matters: it stays flat when the cost per key is linear.
// Then one answer whose coreClientId has a million digits: the size of the 400 and of its log line.
//
// It bundles src/ with esbuild into a temporary folder first; installs nothing. Run
// `node bench/unknown-fields.mjs` (`--rounds N`, default 5).
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const at = args.indexOf('--rounds');
const ROUNDS = at >= 0 ? Number(args[at + 1]) : 5;

const dir = mkdtempSync(join(tmpdir(), 'core-bench-unknown-'));
try {
  const out = join(dir, 'bundle.mjs');
  await build({
    stdin: {
      contents:
        "export { validateReply } from './src/payload/reply.ts';\n" +
        "export { parseJson } from './src/payload/json.ts';\n" +
        "export { startSandbox } from './src/sandbox/server.ts';\n",
      resolveDir: root,
      loader: 'ts',
    },
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: out,
    logLevel: 'error',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const { validateReply, parseJson, startSandbox } = await import(pathToFileURL(out).href);
  const answer = (keys) => {
    const fields = [];
    // Short keys, as the probe's: 80,000 of them fit under the sandbox's 1 MB body limit.
    for (let i = 0; i < keys; i++) fields.push(`"u${i}":1`);
    return `{"text":"Hi","coreClientId":1,${fields.join(',')}}`;
  };
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

  console.log(`validateReply of a parsed answer with N unknown fields, CPU time, median of ${ROUNDS}`);
  console.log(['N', 'ms', 'µs per key', 'per key / per key at 1,000', 'problems listed'].join('\t'));
  let baseline;
  for (const keys of [1_000, 10_000, 80_000]) {
    const body = parseJson(answer(keys));
    validateReply(body);
    const spent = [];
    let listed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const started = process.cpuUsage();
      const result = validateReply(body);
      const { user, system } = process.cpuUsage(started);
      spent.push((user + system) / 1000);
      listed = result.ok ? 0 : result.problems.length;
    }
    const ms = median(spent);
    const perKey = (ms * 1000) / keys;
    baseline ??= perKey;
    // The ratio is what to read: near 1 (or below) when the cost per key is linear; the µs depend on the machine.
    console.log([keys, ms.toFixed(1), perKey.toFixed(2), (perKey / baseline).toFixed(2), listed].join('\t'));
  }

  const logs = [];
  const sandbox = await startSandbox({ port: 0, log: (line) => logs.push(line) });
  try {
    const post = async (text) => {
      const before = logs.length;
      const started = performance.now();
      const cpu = process.cpuUsage();
      const response = await fetch(`${sandbox.url}/api/v1/chatbot`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox', 'Content-Type': 'application/json' },
        body: text,
      });
      const answered = await response.text();
      const ms = performance.now() - started;
      const { user, system } = process.cpuUsage(cpu);
      const logged = logs.slice(before).reduce((size, line) => size + line.length, 0);
      return { status: response.status, ms, cpu: (user + system) / 1000, bytes: Buffer.byteLength(answered), logged };
    };
    // CPU time of this process (the sandbox and the client), not wall time: on a shared machine the wall
    // clock also counts the time other processes had the core.
    console.log('\nthe sandbox: POST /api/v1/chatbot, CPU ms of the 400 (median), its size and the log written');
    console.log(['request', 'body', 'CPU ms', '400 bytes', 'log bytes'].join('\t'));
    for (const keys of [1_000, 80_000]) {
      const text = answer(keys);
      await post(text);
      const runs = [];
      for (let round = 0; round < ROUNDS; round++) runs.push(await post(text));
      const last = runs.at(-1);
      console.log(
        [
          `${keys} unknown fields`,
          `${(text.length / 1e6).toFixed(2)} MB`,
          median(runs.map((r) => r.cpu)).toFixed(0),
          last.bytes,
          last.logged,
        ].join('\t'),
      );
    }
    const digits = `{"text":"Hi","coreClientId":${'9'.repeat(1_000_000)}}`;
    const huge = await post(digits);
    console.log(
      ['a 1,000,000-digit coreClientId', `${(digits.length / 1e6).toFixed(2)} MB`, huge.cpu.toFixed(0), huge.bytes, huge.logged].join('\t'),
    );
  } finally {
    await sandbox.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
