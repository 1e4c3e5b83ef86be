import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxDefaults } from '../../src/sandbox/options.js';
import { happens } from '../helpers/wait.js';
import { call, sandbox } from '../sandbox/helpers.js';

/**
 * Connections (docs/sandbox.md, "Bounds"): 20,500 slow-header connections once ran the sandbox out of
 * file descriptors, with Node's default time limits (60 s for headers, 300 s for a request) and no
 * cap. Now: a cap, at which idle and slow connections make room and busy ones are kept; 10 s for the
 * headers, 30 s for a whole request. Raw sockets on loopback, a bounded number of them; waits are for
 * the events themselves (a socket closed by the sandbox), bounded only to catch a hang.
 */

const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
});

interface RawSocket {
  socket: Socket;
  /** Everything the sandbox sent so far. */
  received: () => string;
  /** Settles when the sandbox closes the connection. */
  closed: Promise<void>;
}

/** A connection that sends `text` and then nothing more. */
async function rawSocket(port: number, text: string): Promise<RawSocket> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write(text);
  return { socket, received: () => received, closed };
}

const slowHeaders = (port: number) => `GET /_sandbox/info HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `;
const streamRequest = (port: number) => `GET /_sandbox/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;

/** Resolves once the sandbox has begun answering on `raw` (its status line arrived). */
async function answered(raw: RawSocket, what: string): Promise<void> {
  await happens(
    new Promise<void>((resolve) => {
      const check = () => {
        if (raw.received().startsWith('HTTP/1.1 ')) {
          raw.socket.off('data', check);
          resolve();
        }
      };
      raw.socket.on('data', check);
      check();
    }),
    what,
  );
}

describe('the connection cap', () => {
  it('the defaults: 1000 connections, 10 s for the headers, 30 s for a request', () => {
    expect([sandboxDefaults.maxConnections, sandboxDefaults.headersTimeoutMs, sandboxDefaults.requestTimeoutMs]).toEqual([
      1000, 10_000, 30_000,
    ]);
  });

  it('a normal request is answered while slow-header connections fill the cap and more', async () => {
    const sb = await sandbox({ maxConnections: 20 });
    const slow: RawSocket[] = [];
    for (let i = 0; i < 30; i++) slow.push(await rawSocket(sb.port, slowHeaders(sb.port)));
    // The oldest ten made room for the last ten.
    await happens(Promise.all(slow.slice(0, 10).map((raw) => raw.closed)), 'the ten oldest slow connections closed');
    expect((await call(sb, '/_sandbox/info', { token: null, tenant: null })).status).toBe(200);
    expect(sb.logs.some((line) => /^connections: 20 open, the most the sandbox serves \(20\)/.test(line))).toBe(true);
  });

  it('when every connection is busy, one more is closed at once and the busy ones go on', async () => {
    const sb = await sandbox({ maxConnections: 5 });
    const streams: RawSocket[] = [];
    for (let i = 0; i < 5; i++) {
      const stream = await rawSocket(sb.port, streamRequest(sb.port));
      await answered(stream, `event stream ${i + 1} opened`);
      streams.push(stream);
    }
    const extra = await rawSocket(sb.port, slowHeaders(sb.port));
    await happens(extra.closed, 'the connection over the cap closed');
    expect(extra.received()).toBe('');
    expect(streams.every((stream) => !stream.socket.destroyed)).toBe(true);
    expect(sb.logs.some((line) => / 1 new ones refused so far$/.test(line))).toBe(true);
  });
});

describe('time limits of a request', () => {
  it('a client that does not finish its headers in headersTimeoutMs is answered 408 and closed', async () => {
    const sb = await sandbox({ headersTimeoutMs: 300, requestTimeoutMs: 1000 });
    const raw = await rawSocket(sb.port, slowHeaders(sb.port));
    await happens(raw.closed, 'the slow-header connection closed');
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a client that does not finish its body in requestTimeoutMs is closed', async () => {
    const sb = await sandbox({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const raw = await rawSocket(
      sb.port,
      `POST /api/v1/chatbot HTTP/1.1\r\nHost: 127.0.0.1:${sb.port}\r\nContent-Type: application/json\r\n` +
        `Authorization: Bearer sandbox-token\r\nX-Tenant-Name: sandbox\r\nContent-Length: 100\r\n\r\n{"text":`,
    );
    await happens(raw.closed, 'the slow-body connection closed');
    expect(raw.received()).not.toMatch(/^HTTP\/1\.1 200 /);
  });

  it.each([
    [{ maxConnections: 0 }, 'maxConnections: 0 is not a count of connections'],
    [{ headersTimeoutMs: 0 }, 'headersTimeoutMs: 0 is not a time limit'],
    [{ headersTimeoutMs: 5000, requestTimeoutMs: 4000 }, "headersTimeoutMs: 5000 is longer than the request's time limit (4000 ms)"],
  ])('refuses %j', async (options, message) => {
    await expect(sandbox(options)).rejects.toThrow(message);
  });
});
