import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringifyJson } from '../payload/json.js';
import type { Answer, Exchange } from './exchange.js';
import { errorBody, splitTarget } from './http.js';
import { ownPath } from './routes.js';

/**
 * The sandbox's HTTP server (docs/sandbox.md, "Bounds"): its time limits and connection cap, each
 * request made an Exchange and handed to the router, its Answer written (after any latency), an
 * exception answered 500 without its message, and the listening socket opened.
 */

export interface ServerLimits {
  /** The time a client has to send a request's headers, in milliseconds. */
  headersTimeoutMs: number;
  /** The time a client has to send a whole request, body included, in milliseconds. */
  requestTimeoutMs: number;
  /** The most connections open at once (capConnections). */
  maxConnections: number;
}

export interface Answering {
  /** Delays every answer by this many milliseconds (after the request has been handled). */
  latencyMs: number;
  /** Aborted by close(): cuts every latency wait short so in-flight requests are answered at once. */
  closing: AbortSignal;
  log: (line: string) => void;
}

/** The status line, headers and body of an answer, as written. */
function answerBody(ex: Exchange, answer: Answer, closing: AbortSignal): { headers: Record<string, string | number>; payload: string } {
  // An answer that carries its own request id (a bridge passing the platform's answer on) keeps it alone.
  const own = answer.headers !== undefined && Object.keys(answer.headers).some((name) => name.toLowerCase() === 'x-request-id');
  const headers: Record<string, string | number> = own ? { ...answer.headers } : { 'X-Request-Id': ex.requestId, ...answer.headers };
  let payload = '';
  if (answer.error !== undefined) {
    payload = JSON.stringify(errorBody(ex.method, ex.path, answer.error));
    headers['Content-Type'] = 'application/json';
  } else if (answer.json !== undefined) {
    // stringifyJson keeps the identifiers (bigint) exact.
    payload = `${stringifyJson(answer.json, 2)}\n`;
    headers['Content-Type'] = 'application/json';
  } else if (answer.raw !== undefined) {
    payload = answer.raw.text;
    headers['Content-Type'] = answer.raw.contentType;
  }
  headers['Content-Length'] = Buffer.byteLength(payload);
  if (answer.close || closing.aborted) headers.Connection = 'close';
  return { headers, payload };
}

/** Writes `answer` to the exchange's response (an event stream has written its own) and logs its line. */
export async function send(ex: Exchange, answer: Answer, answering: Answering): Promise<void> {
  const { log, closing } = answering;
  const tenant = answer.tenant ?? ex.tenant;
  const line = `${ex.method} ${ex.path} tenant=${tenant || '-'} ${answer.status} ${ex.requestId} ${answer.what}`;
  if (answer.streamed) {
    log(line);
    return;
  }
  if (answering.latencyMs > 0) {
    // The delay comes after the request was handled, as with a slow network: a client that
    // times out and retries meets the state its first attempt already changed.
    await sleep(answering.latencyMs, undefined, { signal: closing }).catch(() => {});
  }
  if (ex.res.destroyed) {
    log(`${line} (client gone before the answer)`);
    return;
  }
  const { headers, payload } = answerBody(ex, answer, closing);
  ex.res.writeHead(answer.status, headers);
  ex.res.end(payload);
  if (answer.close) {
    // Stop reading the oversized body: once the answer is flushed, drop the connection. The
    // short grace lets the client read the answer before the socket goes away.
    ex.res.once('finish', () => setTimeout(() => ex.req.socket.destroy(), 100).unref());
  }
  log(line);
}

/** One request as the routes see it: the tenant is X-Tenant-Name on the API's side, ?tenant= on the sandbox's own endpoints. */
function exchangeOf(req: IncomingMessage, res: ServerResponse): Exchange {
  const { path, query } = splitTarget(req.url);
  const header = req.headers['x-tenant-name'];
  return {
    req,
    res,
    requestId: randomUUID(),
    method: req.method ?? 'GET',
    path,
    query,
    tenant: ownPath(path) ? (query.get('tenant') ?? undefined) : Array.isArray(header) ? header[0] : header,
    params: [],
    bodyBytes: 0,
  };
}

/** Routes one request and writes its answer; a handler's exception is answered 500. */
async function serveOne(ex: Exchange, route: (ex: Exchange) => Answer | Promise<Answer>, answering: Answering): Promise<void> {
  const { req, method, path } = ex;
  const { log } = answering;
  let answer: Answer;
  try {
    answer = await route(ex);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (req.destroyed && !req.complete) {
      log(`${method} ${path} tenant=${ex.tenant || '-'} - ${ex.requestId} client gone: ${message}`);
      return;
    }
    // The answer says no more than that: an exception's message may hold a path of this machine
    // (docs/security.md, "The sandbox"). The log line, on the user's own terminal, has it.
    answer = {
      status: 500,
      error: `internal sandbox error (request ${ex.requestId}; the sandbox's log has the details)`,
      what: `internal error: ${message}`,
    };
  }
  await send(ex, answer, answering).catch((error: unknown) => {
    log(
      `${method} ${path} tenant=${ex.tenant || '-'} - ${ex.requestId} could not answer: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}

/** How long an idle kept-alive connection stays open (docs/sandbox.md, "Bounds"). */
export const KEEP_ALIVE_MS = 65_000;

/** The HTTP server, not yet listening: each request routed by `route` and answered. */
export function sandboxServer(limits: ServerLimits, route: (ex: Exchange) => Answer | Promise<Answer>, answering: Answering): Server {
  // A client has headersTimeoutMs to send its headers and requestTimeoutMs for the whole request
  // (Node's defaults, 60 s and 300 s, let slow clients hold connections for minutes); Node checks them
  // every connectionsCheckingInterval, a fraction of the shorter one.
  const headersTimeout = limits.headersTimeoutMs;
  const serverOptions = {
    headersTimeout,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
  const server = createServer(serverOptions, (req, res) => {
    void serveOne(exchangeOf(req, res), route, answering);
  });
  // An idle kept-alive connection stays open 65 s rather than Node's 5 s: longer than the clients'
  // own idle limits (fetch's 4 s), so a client does not reuse a connection the sandbox has just
  // closed ("other side closed" on a busy machine). Idle ones make room at the connection cap.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  capConnections(server, limits.maxConnections, answering.log);
  return server;
}

/** Listens on `host` and `port`; after start-up an error of the listening socket is logged, not thrown. */
export async function listen(server: Server, host: string, port: number, log: (line: string) => void): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening);
      reject(error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port });
  });
  // An unhandled 'error' event (too many open files, say) would end the process.
  server.on('error', (error) => log(`server error: ${error.message}`));
}

/** Stops listening and closes every connection: idle ones at once, one still sending a body after a second. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
    // A client still sending a body would hold the server open; a second is enough to finish.
    setTimeout(() => server.closeAllConnections(), 1000).unref();
  });
}

/**
 * The connection cap (docs/sandbox.md, "Bounds"): at most `max` connections open at once. At the cap,
 * a new connection closes the oldest connection that is idle (kept alive between requests) or has not
 * yet sent a whole request's headers (a slow-header attack), so a client that sends its request at
 * once is served whatever such connections hold; when every connection is busy with a request (event
 * streams included), the new one is closed at once. Either is logged, at most once every 5 seconds.
 */
export function capConnections(server: Server, max: number, log: (line: string) => void): void {
  const open = new Set<Socket>();
  // The connections that may be closed to make room, longest idle first (a Set keeps insertion order).
  const idle = new Set<Socket>();
  let refused = 0;
  let evicted = 0;
  let lastReport = -Infinity;
  const report = () => {
    const now = performance.now();
    if (now - lastReport < 5000) return;
    lastReport = now;
    log(
      `connections: ${open.size} open, the most the sandbox serves (${max}); ` +
        `${evicted} idle or slow ones closed to make room, ${refused} new ones refused so far`,
    );
  };
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const oldest = idle.values().next();
      if (oldest.done === true) {
        refused++;
        report();
        socket.destroy();
        return;
      }
      evicted++;
      report();
      open.delete(oldest.value);
      idle.delete(oldest.value);
      oldest.value.destroy();
    }
    open.add(socket);
    idle.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      idle.delete(socket);
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const { socket } = req;
    idle.delete(socket);
    res.once('finish', () => {
      if (open.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
}
