import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/**
 * The one loopback HTTP(S) server of the tests: it records every request as it arrived on the wire
 * and answers from a script. Nothing intercepts the HTTP library; the client under test opens a real
 * connection to it.
 */

/** One request as it arrived on the wire: method, path, headers and the raw body bytes. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body read as UTF-8. */
  text: string;
  /**
   * 1 the first time these exact bytes (method, path and body) arrived, 2 at their first repeat, and
   * so on: a retry sends the very same bytes, so this counts the attempts of one request.
   */
  attempt: number;
  /** When its body was complete, by this process's performance.now(), in milliseconds. */
  at: number;
}

/** What the server does with one request. */
export type ScriptedAnswer =
  | {
      status: number;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /**
       * Answer only once this settles: a gate the test opens when it has seen what it waits for.
       * There is no delay in milliseconds: a test orders events with gates, `hang` and received().
       */
      until?: PromiseLike<unknown>;
    }
  /** Drop the connection without answering. */
  | { reset: true; until?: PromiseLike<unknown> }
  /**
   * Write `status` (200 unless given) with its headers and part of the body (less than
   * `declaredLength`), then drop the connection, or with `thenHang` keep it open, sending no more.
   */
  | { partial: string; declaredLength: number; status?: number; thenHang?: boolean }
  /** Never answer; the connection stays open until the client gives up or the server closes. */
  | { hang: true };

export type Script = ScriptedAnswer[] | ((request: RecordedRequest, index: number) => ScriptedAnswer);

export interface RecordingServer {
  /** The base URL, such as http://127.0.0.1:43121 (no trailing slash). */
  url: string;
  port: number;
  /** Every request, in the order its body was complete. */
  requests: RecordedRequest[];
  /** Resolves once `count` requests have arrived (at once when they already have). */
  received(count: number): Promise<void>;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** The address to listen on; 127.0.0.1 unless given. */
  host?: string;
  /** Serve HTTPS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
}

const OK: ScriptedAnswer = { status: 200 };

/** A plain answer: `status`, with `body` as JSON (Content-Type application/json) when given. */
export function jsonAnswer(status: number, body?: unknown): ScriptedAnswer {
  if (body === undefined) return { status };
  return { status, headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) };
}

/** A promise with its resolve function outside: open a gate of `until` answers when the test is ready. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * Starts the server on loopback (or `options.host`). `script` is a list of answers taken in order
 * (the last one repeats) or a function of the request and its index. Every answer carries an
 * X-Request-Id unless the script sets one.
 */
export async function startRecordingServer(script: Script = [OK], options: ServerOptions = {}): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const attempts = new Map<string, number>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const answerFor = (request: RecordedRequest, index: number): ScriptedAnswer => {
    if (typeof script === 'function') return script(request, index);
    return script[Math.min(index, script.length - 1)] ?? OK;
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const key = `${req.method} ${req.url}\n${body.toString('base64')}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        text: body.toString('utf8'),
        attempt,
        at: performance.now(),
      };
      const index = requests.length;
      requests.push(recorded);
      const answer = answerFor(recorded, index);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      respond(req, res, answer);
    });
  };

  const server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, handler) : createHttpServer(handler);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    received: (count) => (requests.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function respond(req: IncomingMessage, res: ServerResponse, answer: ScriptedAnswer): void {
  if ('hang' in answer) return;
  if ('partial' in answer) {
    res.writeHead(answer.status ?? 200, { 'Content-Length': String(answer.declaredLength), 'X-Request-Id': randomUUID() });
    res.write(answer.partial, () => {
      if (!answer.thenHang) req.socket.destroy();
    });
    return;
  }
  const send = () => {
    if ('reset' in answer) {
      req.socket.destroy();
      return;
    }
    res.statusCode = answer.status;
    res.setHeader('X-Request-Id', randomUUID());
    for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
    res.end(answer.body ?? '');
  };
  if (answer.until) void Promise.resolve(answer.until).then(send, send);
  else send();
}
