import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openEventStream } from '../../src/platform/event-stream.js';
import type { EventStream } from '../../src/platform/connection.js';
import type { SandboxEvent } from '../../src/sandbox/events.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { happens } from '../helpers/wait.js';
import { customerSays, startConversation } from '../sandbox/helpers.js';

/**
 * The client of the sandbox's event stream (src/platform/event-stream.ts), which `core customer`,
 * `core test` and `core check-bot` read events through: it reads the stream as the Server-Sent Events
 * spec says, and when the connection is cut it opens it again with Last-Event-ID, so that no event is
 * lost and none comes twice. The cuts are real: a TCP relay between the client and the sandbox
 * destroys the connections, at once or in the middle of an event's bytes.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Relay {
  url: string;
  /** Connections relayed so far. */
  connections: number;
  /** Destroys every open connection now. */
  cutAll(): void;
  /** Destroys each open connection once it has relayed `bytes` more bytes to the client, mid-event. */
  cutAfter(bytes: number): void;
}

/** A TCP relay on loopback to `target`, whose connections the test can cut. */
async function relay(target: URL): Promise<Relay> {
  const open = new Set<{ client: Socket; upstream: Socket; budget: number | undefined }>();
  const state = { connections: 0 };
  const server: Server = createServer((client) => {
    state.connections += 1;
    const upstream = createConnection(Number(target.port), target.hostname);
    const pair = { client, upstream, budget: undefined as number | undefined };
    open.add(pair);
    const drop = () => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (pair.budget !== undefined && chunk.length >= pair.budget) {
        client.write(chunk.subarray(0, pair.budget), drop);
        return;
      }
      if (pair.budget !== undefined) pair.budget -= chunk.length;
      client.write(chunk);
    });
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('error', drop);
    upstream.on('error', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const pair of open) pair.client.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return state.connections;
    },
    cutAll: () => {
      for (const pair of [...open]) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
    },
    cutAfter: (bytes) => {
      for (const pair of open) pair.budget = bytes;
    },
  };
}

async function sandbox(): Promise<Sandbox> {
  // The relay's port is not the sandbox's: its Host is accepted as a name of the machine's, any port.
  const started = await startSandbox({ log: () => {}, allowHosts: ['127.0.0.1'] });
  cleanups.push(() => started.close());
  return started;
}

/** An event stream through `baseUrl` whose events are kept, with a wait for the nth. */
function stream(baseUrl: string, query = '') {
  const seen: SandboxEvent[] = [];
  const waiters: Array<() => void> = [];
  const controller = new AbortController();
  const opened: EventStream = openEventStream({ baseUrl, timeoutMs: 10_000, signal: controller.signal }, query, (event) => {
    seen.push(event);
    for (const wake of waiters.splice(0)) wake();
  });
  cleanups.push(() => opened.close());
  const until = (count: number) =>
    happens(
      new Promise<void>((resolve) => {
        const check = () => (seen.length >= count ? resolve() : waiters.push(check));
        check();
      }),
      `${count} events on the stream (had ${seen.length})`,
    );
  return { stream: opened, seen, until, seqs: () => seen.map((event) => event.seq) };
}

/** Every seq the sandbox logged, in order. */
function loggedSeqs(sb: Sandbox): number[] {
  return sb.events().map((event) => event.seq);
}

describe('the event stream client, when the connection is cut', () => {
  it('opens it again with Last-Event-ID and gets the events sent while it was cut, each once', async () => {
    const sb = await sandbox();
    const through = await relay(new URL(sb.url));
    const events = stream(through.url);
    await events.stream.opened;

    const conversation = await startConversation(sb);
    await customerSays(sb, conversation.sessionId, 'first');
    await events.until(2);

    through.cutAll();
    // Events while no connection is open: the next one must replay them.
    await customerSays(sb, conversation.sessionId, 'second');
    await customerSays(sb, conversation.sessionId, 'third');
    await events.until(4);
    expect(through.connections).toBe(2);

    await customerSays(sb, conversation.sessionId, 'fourth');
    await events.until(5);
    expect(events.seqs()).toEqual(loggedSeqs(sb));
  });

  it('resumes where the stream started when it is cut before its first event', async () => {
    const sb = await sandbox();
    const before = await startConversation(sb);
    const through = await relay(new URL(sb.url));
    const events = stream(through.url);
    await events.stream.opened;
    await happens(
      new Promise<void>((resolve) => {
        const poll = () => (through.connections === 1 ? resolve() : setImmediate(poll));
        poll();
      }),
      'the relay to carry the stream',
    );

    through.cutAll();
    await customerSays(sb, before.sessionId, 'while cut');
    await events.until(1);
    // Not the conversation started before the stream opened: the stream starts after it, cut or not.
    expect(events.seqs()).toEqual(loggedSeqs(sb).slice(1));
  });

  it('drops the half of an event a cut leaves, and gets it whole on the next connection', async () => {
    const sb = await sandbox();
    const through = await relay(new URL(sb.url));
    const events = stream(through.url);
    await events.stream.opened;
    const conversation = await startConversation(sb);
    await events.until(1);

    // The next event's bytes are cut 40 bytes in: within its `data:` line.
    through.cutAfter(40);
    await customerSays(sb, conversation.sessionId, 'a message long enough that forty bytes are well inside its data line');
    await events.until(2);
    await customerSays(sb, conversation.sessionId, 'and one more');
    await events.until(3);
    expect(events.seqs()).toEqual(loggedSeqs(sb));
    expect(events.seen.map((event) => event.type)).toEqual(['conversation.started', 'customer.message', 'customer.message']);
  });

  it('survives many cuts in a row while events keep coming, losing and doubling none', async () => {
    const sb = await sandbox();
    const through = await relay(new URL(sb.url));
    const events = stream(through.url);
    await events.stream.opened;
    const conversation = await startConversation(sb);
    for (let round = 1; round <= 8; round += 1) {
      await customerSays(sb, conversation.sessionId, `message ${round}`);
      if (round % 2 === 0) through.cutAll();
      else through.cutAfter(round * 7);
    }
    await events.until(9);
    await customerSays(sb, conversation.sessionId, 'last');
    await events.until(10);
    expect(events.seqs()).toEqual(loggedSeqs(sb));
  });

  it('ends once the sandbox is gone for good, after its attempts', async () => {
    const sb = await sandbox();
    const through = await relay(new URL(sb.url));
    const events = stream(through.url);
    await events.stream.opened;
    await sb.close();
    await happens(events.stream.ended, 'the stream to end once the sandbox is gone');
  });
});

describe('the event stream client, reading the stream', () => {
  /** A server that answers GET /_sandbox/events with `body`, written as given. */
  async function serving(write: (res: ServerResponse, request: number, lastEventId: string | undefined) => void) {
    let requests = 0;
    const server = createHttpServer((req, res) => {
      requests += 1;
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      write(res, requests, req.headers['last-event-id'] as string | undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    server.unref();
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  const event = (seq: number, text: string) =>
    `{"seq":${seq},"tenant":"sandbox","time":"2026-11-28T10:00:00.000Z","type":"sandbox.reset","sessionId":null${text}}`;

  it.each([
    ['"data:" without its space', (one: string) => `id: 1\ndata:${one}\n\n`],
    ['CR LF line ends', (one: string) => `id: 1\r\ndata: ${one}\r\n\r\n`],
    // A CR may be the first half of a CR LF: the comment after it settles that.
    ['CR line ends', (one: string) => `id: 1\rdata: ${one}\r\r: more\r`],
    ['the data split over two data: lines', (one: string) => `id: 1\ndata: ${one.slice(0, 9)}\ndata: ${one.slice(9)}\n\n`],
    ['a comment and an event: field before it', (one: string) => `: hello\nevent: message\nid: 1\ndata: ${one}\n\n`],
  ])('reads an event written with %s', async (_name, frame) => {
    const one = event(1, '');
    const url = await serving((res) => res.write(frame(one)));
    const events = stream(url);
    await events.until(1);
    // Two data: lines are joined with a line break, which JSON reads as white space.
    expect(events.seqs()).toEqual([1]);
  });

  it('waits as long as retry: says before it opens the stream again, and sends the last id it read', async () => {
    const lastIds: Array<string | undefined> = [];
    const url = await serving((res, request, lastEventId) => {
      lastIds.push(lastEventId);
      if (request === 1) res.end(`retry: 50\nid: 7\ndata: ${event(7, '')}\n\n`);
      else res.write(`id: 8\ndata: ${event(8, '')}\n\n`);
    });
    const events = stream(url);
    await events.until(2);
    expect(events.seqs()).toEqual([7, 8]);
    expect(lastIds).toEqual([undefined, '7']);
  });
});
