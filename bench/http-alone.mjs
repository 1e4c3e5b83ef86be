#!/usr/bin/env node
// The floor of bench/batch.mjs: bare node:http sending the same updates as `core reason update -f`,
// written as tightly as a script could be: each NDJSON line PUT as it is, `concurrency` requests in
// flight over kept-alive connections (an Agent with keepAlive), nothing checked, nothing retried,
// nothing printed but a count. No library is loaded, so its start-up is node's own.
//
//   node bench/http-alone.mjs --url URL --file FILE --concurrency N [--token T] [--tenant T]
import { createReadStream } from 'node:fs';
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { benchOptions } from './options.mjs';

const options = benchOptions();
const option = options.text;
const url = new URL(`${option('--url')}/api/v1/inactivity/reasons`);
const file = option('--file');
const concurrency = Number(option('--concurrency', '4'));
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const headers = {
  'content-type': 'application/json',
  'x-tenant-name': option('--tenant', 'sandbox'),
  authorization: `Bearer ${option('--token', 'sandbox-token')}`,
};

const put = (body) =>
  new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PUT',
        agent,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });

let ok = 0;
let failed = 0;
const running = new Set();
const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  while (running.size >= concurrency) await Promise.race(running);
  const task = put(line)
    .then((done) => (done ? (ok += 1) : (failed += 1)))
    .finally(() => running.delete(task));
  running.add(task);
}
await Promise.all(running);
agent.destroy();
console.error(`${ok} succeeded, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
