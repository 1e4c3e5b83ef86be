import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';
import { testFolder } from '../test-command/platform.js';

/**
 * A server that answers without end where a sandbox is expected (docs/sandbox.md, "Bounds"): `--sandbox
 * URL`, or a base URL, naming something else. core read its whole answer into memory: check-bot, core
 * test and core customer grew to 6 GB. Now the client reads at most 1 MB of an answer and 16 MB of one
 * event, then gives up: exit 6, naming the bound. The server here stops at 64 MB, so a client with no
 * bound reads all of it (and the test sees it did) rather than running the machine out of memory.
 */

const SERVED_BYTES = 64 * 1024 * 1024;

async function endless(kind: 'json' | 'events') {
  const chunk = Buffer.alloc(64 * 1024, kind === 'json' ? '[' : 'a');
  let closed!: () => void;
  const sent = { bytes: 0, closedEarly: new Promise<void>((resolve) => (closed = resolve)) };
  const write = (res: ServerResponse) => {
    while (sent.bytes < SERVED_BYTES) {
      sent.bytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', () => write(res));
    }
    res.end();
  };
  const server = createServer((req, res) => {
    req.resume();
    res.on('close', () => {
      if (!res.writableFinished) closed();
    });
    res.writeHead(200, { 'Content-Type': req.url?.startsWith('/_sandbox/events') ? 'text/event-stream' : 'application/json' });
    write(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on('connection', (socket) => onTestFinished(() => void socket.destroy()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent };
}

describe('an answer without end where a sandbox is expected', () => {
  it.each([
    ['core customer say', (url: string) => ['customer', 'say', 'Hi', '--base-url', url]],
    ['core check-bot --sandbox', (url: string) => ['check-bot', '--sandbox', url]],
    ['core test --sandbox', (url: string) => ['test', 'a.yaml', '--sandbox', url]],
  ])('%s: exit 6 once 1 MB of it is read, the connection closed', async (_, argv) => {
    const server = await endless('json');
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' });
    const result = await runInProcess(argv(server.url), { cwd: folder });
    expect(result.code).toBe(6);
    expect(result.stderr, result.stderr).toContain('its answer is larger than 1.0 MB');
    await happens(server.sent.closedEarly, 'the client closing the connection before the answer ended');
    expect(server.sent.bytes).toBeLessThan(SERVED_BYTES);
  });
});
