#!/usr/bin/env node
// The baseline of bench/batch.mjs: got alone sending the same updates as `core reason update -f`,
// written as a script would: each NDJSON line PUT as it is, `concurrency` requests in flight over
// kept-alive connections, got's own retry on 429/5xx, nothing checked, nothing printed but a count.
// It loads the same got build as core (dist/vendor/got.cjs), so the comparison is of what each does
// around got, not of two builds of it.
//
//   node bench/got-alone.mjs --url URL --file FILE --concurrency N [--got PATH] [--token T] [--tenant T]
import { createReadStream } from 'node:fs';
import { Agent } from 'node:http';
import { resolve, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
};
const url = `${option('--url')}/api/v1/inactivity/reasons`;
const file = option('--file');
const concurrency = Number(option('--concurrency', '4'));
const gotFile = resolve(option('--got', join(import.meta.dirname, '..', 'dist', 'vendor', 'got.cjs')));
const { got } = await import(pathToFileURL(gotFile).href);

const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const headers = {
  'content-type': 'application/json',
  'x-tenant-name': option('--tenant', 'sandbox'),
  authorization: `Bearer ${option('--token', 'sandbox-token')}`,
};

let ok = 0;
let failed = 0;
const running = new Set();
const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  while (running.size >= concurrency) await Promise.race(running);
  const task = got
    .put(url, { body: line, headers, agent: { http: agent }, throwHttpErrors: false, retry: { limit: 2, methods: ['PUT'] } })
    .then(
      (response) => (response.statusCode === 200 ? (ok += 1) : (failed += 1)),
      () => (failed += 1),
    )
    .finally(() => running.delete(task));
  running.add(task);
}
await Promise.all(running);
agent.destroy();
console.error(`${ok} succeeded, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
