#!/usr/bin/env node
// The sandbox's memory against its bounds (docs/sandbox.md, "Memory"), with the built binary:
//
//   (a) peak RSS of `core sandbox` over 100,000 customer messages of 4,000 characters in one
//       tenant (--messages N), 8 conversations writing at once, no bot connected;
//   (b) peak RSS over 200 bot answers of 1 MB (a `text` of 1,000,000 characters) in each of 3
//       tenants (--answers N, --tenants N), sent one tenant after another, addressed by client.
//
// `--only a` or `--only b` runs one of them.
//
// Each runs in a fresh sandbox process; the process must stay up (a crash fails the run). RSS is
// VmHWM (peak) and VmRSS (at the end) from /proc/<pid>/status (Linux). Installs nothing.
// SANDBOX_NODE_ARGS (space-separated) are given to the sandbox's node, such as
// `--max-old-space-size=240` to show that what is kept fits in a heap of that size.
// Run `npm run build` first, then `node bench/sandbox-memory.mjs [--messages N] [--answers N] [--tenants N] [--only a|b]`.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join, resolve } from 'node:path';
import { benchOptions } from './options.mjs';

const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'dist', 'bin.js');
if (!existsSync(bin)) {
  console.error(`${bin} is missing: run \`npm run build\` first`);
  process.exit(1);
}
const options = benchOptions();
const option = options.number;
const MESSAGES = option('--messages', 100_000);
const ANSWERS = option('--answers', 200);
const TENANTS = Array.from({ length: option('--tenants', 3) }, (_, i) => `tenant${i + 1}`);
const ONLY = options.text('--only');
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

function call(base, method, path, body, headers = {}) {
  return new Promise((resolveCall, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = request(`${base}${path}`, {
      method,
      agent,
      headers: { ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}), ...headers },
    });
    req.on('error', (error) => reject(new Error(`${method} ${path}: ${error.message}`)));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolveCall({ status: res.statusCode, text }));
    });
    req.end(payload);
  });
}

async function startSandbox(extra) {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME };
  const child = spawn(
    process.execPath,
    [...(process.env.SANDBOX_NODE_ARGS ? process.env.SANDBOX_NODE_ARGS.split(' ') : []), bin, 'sandbox', '--port', '0', ...extra],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  let exited = null;
  child.once('exit', (code, signal) => (exited = { code, signal }));
  const base = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const match = /^export CORE_BASE_URL=(\S+)$/m.exec(out);
      if (match) ok(match[1]);
    });
    child.once('exit', (code) => fail(new Error(`sandbox exited ${code}`)));
  });
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]);
  return {
    base,
    alive: () => exited === null,
    why: () => `exited ${JSON.stringify(exited)}: ${stderr.split('\n').filter(Boolean).slice(-3).join(' | ')}`,
    peakMb: () => kb('VmHWM') / 1024,
    rssMb: () => kb('VmRSS') / 1024,
    stop: () => new Promise((r) => (exited ? r() : (child.once('exit', r), child.kill('SIGINT')))),
  };
}

/** A text of `length` characters of words, so it is not one repeated character. */
function words(length, seed) {
  const parts = [];
  let size = 0;
  for (let i = 0; size < length; i += 1) {
    const word = `w${(i * 7919 + seed) % 10007} `;
    parts.push(word);
    size += word.length;
  }
  return parts.join('').slice(0, length);
}

async function messages() {
  const sb = await startSandbox([]);
  const lanes = 8;
  const sessions = [];
  for (let i = 0; i < lanes; i += 1) {
    const started = await call(sb.base, 'POST', '/_sandbox/conversations', {});
    sessions.push(JSON.parse(started.text).sessionId);
  }
  let sent = 0;
  let failed = 0;
  const start = Date.now();
  await Promise.all(
    sessions.map(async (sessionId, lane) => {
      while (sent < MESSAGES && sb.alive()) {
        const n = (sent += 1);
        const result = await call(sb.base, 'POST', `/_sandbox/conversations/${sessionId}/messages`, { text: words(4000, n + lane) }).catch(
          () => ({ status: 0 }),
        );
        if (result.status !== 201) failed += 1;
      }
    }),
  );
  const line = sb.alive()
    ? `(a) ${MESSAGES} customer messages of 4,000 characters: peak RSS ${sb.peakMb().toFixed(0)} MB, RSS at the end ${sb.rssMb().toFixed(0)} MB, ${failed} failed, ${((Date.now() - start) / 1000).toFixed(0)} s`
    : `(a) CRASHED: ${sb.why()}`;
  await sb.stop();
  return line;
}

async function answers() {
  const sb = await startSandbox(TENANTS.flatMap((t) => ['--tenant', t]));
  let failed = 0;
  const start = Date.now();
  for (const tenant of TENANTS) {
    for (let i = 0; i < ANSWERS && sb.alive(); i += 1) {
      const body = JSON.stringify({ text: words(1_000_000, i), answerId: `${tenant}-${i}`, coreClientId: 1001 + (i % 10) });
      const result = await call(sb.base, 'POST', '/api/v1/chatbot', body, {
        Authorization: 'Bearer sandbox-token',
        'X-Tenant-Name': tenant,
      }).catch(() => ({ status: 0 }));
      if (result.status !== 200) failed += 1;
    }
  }
  const line = sb.alive()
    ? `(b) ${ANSWERS} answers of 1 MB in each of ${TENANTS.length} tenants: peak RSS ${sb.peakMb().toFixed(0)} MB, RSS at the end ${sb.rssMb().toFixed(0)} MB, ${failed} failed, ${((Date.now() - start) / 1000).toFixed(0)} s`
    : `(b) CRASHED: ${sb.why()}`;
  await sb.stop();
  return line;
}

console.log(`node ${process.version}`);
if (ONLY !== 'b') console.log(await messages());
if (ONLY !== 'a') console.log(await answers());
agent.destroy();
