#!/usr/bin/env node
// The baseline of bench/batch.mjs: got alone sending the same updates as `core reason update -f`,
// written as a script would: each NDJSON line PUT as it is, `concurrency` requests in flight over
// kept-alive connections, got's own retry on 429/5xx, nothing checked, nothing printed but a count.
// By default it loads core's build of got (dist/vendor/got.cjs), so the comparison is of what each
// does around got; `--got node_modules/got/dist/source/index.js` loads the package as installed, as a
// script would (bench/batch.mjs runs both: the build rewrites a part of got that is slow on Node 20).
//
// With --stream it uses got the leanest way it offers instead: one instance extended once with every
// option the requests share (got.extend, so they are normalised once), and its stream API per request
// (no promise wrapper, no retry, no hooks, the body read and dropped): the floor of any client that
// sends each request through got.
//
//   node bench/got-alone.mjs --url URL --file FILE --concurrency N [--stream] [--got PATH] [--token T] [--tenant T]
import { createReadStream } from 'node:fs';
import { Agent } from 'node:http';
import { resolve, join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { benchOptions } from './options.mjs';

const options = benchOptions();
const option = options.text;
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

const lean = got.extend({
  method: 'PUT',
  headers,
  agent: { http: agent },
  retry: { limit: 0 },
  throwHttpErrors: false,
  followRedirect: false,
  decompress: false,
});
/** One PUT through got's stream API: resolves with the status, null when no answer came. */
const streamed = (body) =>
  new Promise((resolvePromise) => {
    let status = null;
    const stream = lean.stream(url, { body });
    stream.on('response', (response) => (status = response.statusCode));
    stream.on('data', () => {});
    stream.on('error', () => resolvePromise(null));
    stream.once('end', () => resolvePromise(status));
  });
const put = options.args.includes('--stream')
  ? (body) => streamed(body)
  : (body) =>
      got.put(url, { body, headers, agent: { http: agent }, throwHttpErrors: false, retry: { limit: 2, methods: ['PUT'] } }).then(
        (response) => response.statusCode,
        () => null,
      );

let ok = 0;
let failed = 0;
const running = new Set();
const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  while (running.size >= concurrency) await Promise.race(running);
  const task = put(line)
    .then((status) => (status === 200 ? (ok += 1) : (failed += 1)))
    .finally(() => running.delete(task));
  running.add(task);
}
await Promise.all(running);
agent.destroy();
console.error(`${ok} succeeded, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
