import type { ServerResponse } from 'node:http';
import { eventJson } from './event-json.js';
import { untiedRefusalFor, type SandboxEvent } from './events.js';
import { page } from './seq.js';
import type { Answer, Exchange, Handler } from './exchange.js';
import type { SandboxState, Thread } from './state.js';

/**
 * GET /_sandbox/events: the event log as Server-Sent Events (docs/sandbox.md, "Events"). Each event
 * is one message, `id: <seq>` and `data: <the event as one line of JSON>`, with no `event:` field, so
 * an EventSource's onmessage sees them all. `?after=SEQ` (or the Last-Event-ID header a reconnecting
 * EventSource sends) replays the kept events after SEQ first; without either, the stream starts with
 * the next event. `?tenant=` and `?session=` narrow it: `?session=` to the conversation's events and
 * the refusals not tied to any conversation (docs/sandbox.md, "Events") of its tenant or of the whole
 * sandbox, so that whoever waits on one conversation sees a refusal it may have caused.
 *
 * A client that does not read is not waited for: past its share of unsent data its stream is closed,
 * and it can reconnect with Last-Event-ID. A stream's share is `maxBufferedBytes`, or less when many
 * streams are open: all of them together hold at most `maxTotalBufferedBytes` (256 streams of 8 MB
 * would be 2 GB). No stream slows a request or another stream.
 */

export const streamLimits = {
  /** Streams open at once; one more is answered 503. */
  maxStreams: 256,
  /** Unsent bytes one stream may hold before it is closed. */
  maxBufferedBytes: 8 * 1024 * 1024,
  /** Unsent bytes all streams together may hold: each stream's share is this over the streams open. */
  maxTotalBufferedBytes: 64 * 1024 * 1024,
  /** A comment line this often keeps proxies and idle timers from closing the stream. */
  heartbeatMs: 15_000,
} as const;

export interface StreamDeps {
  state: SandboxState;
  /** The open streams, ended by the sandbox's close(). */
  open: Set<ServerResponse>;
  /** All streams' unsent bytes together, at most; streamLimits.maxTotalBufferedBytes by default. */
  maxTotalBufferedBytes?: number;
  log?: (line: string) => void;
}

/**
 * Closes `res` when it holds more unsent bytes than its share; returns whether it did. Its share is
 * the smaller of the bound of one stream and the bound of all streams over the streams open, so
 * whatever the number of streams, together they hold at most the total (plus the frame each is
 * writing).
 */
export function overShare(res: ServerResponse, open: number, total: number, log: (line: string) => void): boolean {
  const share = Math.min(streamLimits.maxBufferedBytes, Math.floor(total / Math.max(1, open)));
  const unsent = res.writableLength;
  if (unsent <= share) return false;
  log(
    `event stream closed: ${unsent} bytes unsent, more than its share (${share} bytes, ${open} streams open, ` +
      `${total} bytes for all); the client can reconnect with Last-Event-ID`,
  );
  res.destroy();
  return true;
}

/** Resolves once the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

// A live event is written to every stream that wants it, one after another: it is serialised once, and
// every stream is handed the same bytes. Serialising a 1 MB answer for each of 256 streams held the
// event loop for a second and made 256 copies of it. Only the last event is kept: a replay reads older
// events, each for one stream.
let last: { event: SandboxEvent; bytes: Buffer } | undefined;
const frame = (event: SandboxEvent): Buffer => {
  if (last?.event !== event) last = { event, bytes: Buffer.from(`id: ${event.seq}\ndata: ${eventJson(event)}\n\n`) };
  return last.bytes;
};

interface StreamRequest {
  tenant: string | undefined;
  sessionId: string | undefined;
  thread: Thread | undefined;
  /** The stream starts after this seq. */
  after: number;
  /** Whether the stream carries an event. */
  wanted: (event: SandboxEvent) => boolean;
}

/** What a stream carries and where it starts, from ?tenant=, ?session=, ?after= and Last-Event-ID; or the answer refusing it. */
function streamRequest(state: SandboxState, open: Set<ServerResponse>, ex: Exchange): StreamRequest | { answer: Answer } {
  const tenant = ex.query.get('tenant') ?? undefined;
  const sessionId = ex.query.get('session') ?? undefined;
  if (tenant !== undefined && !state.hasTenant(tenant)) {
    return { answer: { status: 404, error: `no tenant '${tenant}' (tenants: ${state.tenantNames.join(', ')})`, what: 'unknown tenant' } };
  }
  const thread = sessionId === undefined ? undefined : state.thread(sessionId);
  if (sessionId !== undefined && thread === undefined) {
    return { answer: { status: 404, error: `no conversation with sessionId '${sessionId}'`, what: 'unknown conversation' } };
  }
  const afterText = ex.query.get('after');
  const lastEventId = ex.req.headers['last-event-id'];
  const starts = [afterText, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId].filter(
    (v): v is string => v !== undefined && v !== null,
  );
  for (const text of starts) {
    if (!/^\d{1,15}$/.test(text))
      return { answer: { status: 400, error: `'${text}' is not a seq: use a whole number of 0 or more`, what: 'invalid: after' } };
  }
  if (open.size >= streamLimits.maxStreams) {
    return {
      answer: {
        status: 503,
        error: `${open.size} event streams are open, the most the sandbox serves`,
        headers: { 'Retry-After': '1' },
        what: 'too many streams',
      },
    };
  }
  const after = starts.length > 0 ? Math.max(...starts.map(Number)) : state.lastSeq;
  const wanted = (event: SandboxEvent) =>
    (tenant === undefined || event.tenant === tenant) &&
    (sessionId === undefined ||
      event.sessionId === sessionId ||
      // Not one from before the conversation started: it cannot have been caused by it.
      (thread !== undefined && event.seq > thread.startedSeq && untiedRefusalFor(event, thread.tenant)));
  return { tenant, sessionId, thread, after, wanted };
}

interface Replay {
  state: SandboxState;
  request: StreamRequest;
  open: Set<ServerResponse>;
  total: number;
  log: (line: string) => void;
}

/**
 * The kept events after `sent`, waiting for the socket to drain as needed. Returns the seq of the
 * last event sent, or undefined when the stream ended meanwhile.
 */
async function replay(res: ServerResponse, from: number, deps: Replay): Promise<number | undefined> {
  const { state, open, total, log } = deps;
  const { tenant, sessionId, wanted } = deps.request;
  let sent = from;
  // A page at a time, each read in one go: the log may change between pages, never during one.
  for (;;) {
    if (res.destroyed) return undefined;
    // A conversation's replay reads the whole log, not only the thread's: the refusals tied to no
    // conversation are not in the thread's.
    const source = state.events({ tenant: sessionId !== undefined ? undefined : tenant, after: sent });
    const batch = page(source, sent, 500, wanted);
    let full = false;
    for (const event of batch.items) {
      if (res.destroyed) return undefined;
      sent = event.seq;
      full = !res.write(frame(event));
      // A page of 500 events of 1 MB bodies would be 500 MB: wait for the client at every full buffer.
      if (full && overShare(res, open.size, total, log)) return undefined;
      if (full) await drained(res);
    }
    if (batch.next === null) return sent;
  }
}

/** The response headers of an event stream, and its first comment line. */
function openResponse(ex: Exchange, after: number): void {
  ex.res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Request-Id': ex.requestId,
    'X-Accel-Buffering': 'no',
  });
  ex.res.write(`: core sandbox events after seq ${after}\n\n`);
}

export function eventStream(deps: StreamDeps): Handler {
  const { state, open } = deps;
  const total = deps.maxTotalBufferedBytes ?? streamLimits.maxTotalBufferedBytes;
  const log = deps.log ?? (() => {});
  return async (ex: Exchange): Promise<Answer> => {
    const request = streamRequest(state, open, ex);
    if ('answer' in request) return request.answer;
    const { tenant, sessionId, thread, after, wanted } = request;
    const { res } = ex;
    openResponse(ex, after);
    open.add(res);

    let live = false;
    let sent = after;
    const held: SandboxEvent[] = [];
    // The events of one turn of the event loop go out in one write: the connection is corked at the
    // first and uncorked once the turn's I/O is handled. node:http joins the writes of one callback;
    // under load a turn runs the callbacks of many exchanges, and a write each was a system call each
    // (docs/performance.md, "Driving a bot, fifth round"). The socket, not the response: Node 22 and
    // later cork a response by holding its chunks, then write each to the socket on its own.
    const socket = res.socket;
    let corked = false;
    const uncork = () => {
      corked = false;
      socket?.uncork();
    };
    const write = (event: SandboxEvent) => {
      if (res.destroyed || event.seq <= sent) return;
      sent = event.seq;
      if (!corked && socket) {
        corked = true;
        socket.cork();
        setImmediate(uncork);
      }
      res.write(frame(event));
      overShare(res, open.size, total, log);
    };
    const unsubscribe = state.subscribe((event) => {
      if (!wanted(event)) return;
      if (live) write(event);
      else held.push(event);
    });
    const heartbeat = setInterval(() => {
      if (!res.destroyed) res.write(': ping\n\n');
    }, streamLimits.heartbeatMs);
    heartbeat.unref();
    res.on('close', () => {
      unsubscribe();
      clearInterval(heartbeat);
      open.delete(res);
    });

    // The kept events after `after` first; events that happen meanwhile are held, then sent after
    // the replay, each once.
    void (async () => {
      const last = await replay(res, sent, { state, request, open, total, log });
      if (last === undefined) return;
      sent = last;
      for (const event of held) write(event);
      held.length = 0;
      live = true;
    })();

    return {
      status: 200,
      streamed: true,
      ...(tenant ? { tenant } : thread ? { tenant: thread.tenant } : {}),
      what: `event stream opened after seq ${after}${sessionId ? ` for ${sessionId}` : ''}`,
    };
  };
}
