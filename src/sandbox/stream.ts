import type { ServerResponse } from 'node:http';
import { stringifyJson } from '../payload/json.js';
import { page, type SandboxEvent } from './events.js';
import type { Answer, Exchange, Handler } from './exchange.js';
import type { SandboxState } from './state.js';

/**
 * GET /_sandbox/events: the event log as Server-Sent Events (docs/sandbox.md, "Events"). Each event
 * is one message, `id: <seq>` and `data: <the event as one line of JSON>`, with no `event:` field, so
 * an EventSource's onmessage sees them all. `?after=SEQ` (or the Last-Event-ID header a reconnecting
 * EventSource sends) replays the kept events after SEQ first; without either, the stream starts with
 * the next event. `?tenant=` and `?session=` narrow it: `?session=` to the conversation's events and
 * the refusals not tied to any conversation (docs/sandbox.md, "Events") of its tenant or of the whole
 * sandbox, so that whoever waits on one conversation sees a refusal it may have caused.
 *
 * A client that does not read is not waited for: past `maxBufferedBytes` of unsent data its stream is
 * closed, and it can reconnect with Last-Event-ID. No stream slows a request or another stream.
 */

export const streamLimits = {
  /** Streams open at once; one more is answered 503. */
  maxStreams: 256,
  /** Unsent bytes a stream may hold before it is closed. */
  maxBufferedBytes: 8 * 1024 * 1024,
  /** A comment line this often keeps proxies and idle timers from closing the stream. */
  heartbeatMs: 15_000,
} as const;

export interface StreamDeps {
  state: SandboxState;
  /** The open streams, ended by the sandbox's close(). */
  open: Set<ServerResponse>;
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

const frame = (event: SandboxEvent) => `id: ${event.seq}\ndata: ${stringifyJson(event)}\n\n`;

/**
 * A refusal tied to no conversation that a stream of one conversation of `tenant` also carries: one
 * of the same tenant, or a sandbox-wide one (a request naming no tenant, or one the sandbox does not
 * serve). A refusal is an api.request, a bot answer or a greeting with a status of 400 or more.
 */
export function untiedRefusalFor(event: SandboxEvent, tenant: string): boolean {
  if (event.sessionId !== null) return false;
  if (event.type !== 'api.request' && event.type !== 'bot.answer' && event.type !== 'greeting') return false;
  if (event.status < 400) return false;
  const scope = (event as { scope?: unknown }).scope;
  return event.tenant === tenant || event.tenant === '' || scope === 'sandbox';
}

export function eventStream(deps: StreamDeps): Handler {
  const { state, open } = deps;
  return async (ex: Exchange): Promise<Answer> => {
    const tenant = ex.query.get('tenant') ?? undefined;
    const sessionId = ex.query.get('session') ?? undefined;
    if (tenant !== undefined && !state.hasTenant(tenant)) {
      return { status: 404, error: `no tenant '${tenant}' (tenants: ${state.tenantNames.join(', ')})`, what: 'unknown tenant' };
    }
    const thread = sessionId === undefined ? undefined : state.thread(sessionId);
    if (sessionId !== undefined && thread === undefined) {
      return { status: 404, error: `no conversation with sessionId '${sessionId}'`, what: 'unknown conversation' };
    }
    const afterText = ex.query.get('after');
    const lastEventId = ex.req.headers['last-event-id'];
    const starts = [afterText, Array.isArray(lastEventId) ? lastEventId[0] : lastEventId].filter(
      (v): v is string => v !== undefined && v !== null,
    );
    for (const text of starts) {
      if (!/^\d{1,15}$/.test(text))
        return { status: 400, error: `'${text}' is not a seq: use a whole number of 0 or more`, what: 'invalid: after' };
    }
    if (open.size >= streamLimits.maxStreams) {
      return {
        status: 503,
        error: `${open.size} event streams are open, the most the sandbox serves`,
        headers: { 'Retry-After': '1' },
        what: 'too many streams',
      };
    }
    const after = starts.length > 0 ? Math.max(...starts.map(Number)) : state.lastSeq;
    const wanted = (event: SandboxEvent) =>
      (tenant === undefined || event.tenant === tenant) &&
      (sessionId === undefined ||
        event.sessionId === sessionId ||
        // Not one from before the conversation started: it cannot have been caused by it.
        (thread !== undefined && event.seq > thread.startedSeq && untiedRefusalFor(event, thread.tenant)));

    const { res } = ex;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Request-Id': ex.requestId,
      'X-Accel-Buffering': 'no',
    });
    res.write(`: core sandbox events after seq ${after}\n\n`);
    open.add(res);

    let live = false;
    let sent = after;
    const held: SandboxEvent[] = [];
    const write = (event: SandboxEvent) => {
      if (res.destroyed || event.seq <= sent) return;
      sent = event.seq;
      res.write(frame(event));
      if (res.writableLength > streamLimits.maxBufferedBytes) res.destroy();
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

    // The kept events after `after`, waiting for the socket to drain as needed; events that happen
    // meanwhile are held, then sent after the replay, each once.
    void (async () => {
      // A page at a time, each read in one go: the log may change between pages, never during one.
      for (;;) {
        if (res.destroyed) return;
        // A conversation's replay reads the whole log, not only the thread's: the refusals tied to no
        // conversation are not in the thread's.
        const source = state.events({ tenant: sessionId !== undefined ? undefined : tenant, after: sent });
        const batch = page(source, sent, 500, wanted);
        let full = false;
        for (const event of batch.items) {
          sent = event.seq;
          full = !res.write(frame(event));
        }
        if (full) await drained(res);
        if (batch.next === null) break;
      }
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
