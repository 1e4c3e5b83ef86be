import { request as httpRequest, type Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
import { request as httpsRequest } from 'node:https';
import { InterruptedError, NetworkError } from '../../errors.js';
import { parseJson, stringifyJson } from '../../payload/json.js';
import { parseEvent } from '../../sandbox/event-json.js';
import type { SandboxEvent } from '../../sandbox/events.js';
import { trimEndOf } from '../../text/trim.js';
import { formatDuration } from '../../text/duration.js';

/**
 * A small client of the sandbox's own endpoints (docs/sandbox.md, "The customer's side"), on
 * node:http: JSON requests and the event stream. These are not API requests: they carry no token
 * and go straight to the sandbox (no proxy), which is a local tool.
 */

export interface SandboxAnswer {
  status: number;
  /** The body read losslessly (identifiers as bigint); undefined when empty or not JSON. */
  json: unknown;
  text: string;
}

export interface ClientInit {
  baseUrl: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** The connections to use (keep-alive, sockets for the concurrency); Node's global agent by default. */
  agent?: Agent;
  /**
   * Given, the requests in flight are kept here instead of each listening to the signal: whoever
   * owns the set destroys them on Ctrl-C, with one listener for all (a load of requests at once
   * would otherwise add a listener each to one signal).
   */
  inFlight?: Set<ClientRequest>;
}

/** The options of one request: the agent, and the signal unless the caller tracks the requests itself. */
function requestOptions(init: ClientInit, method: string, headers: Record<string, string>) {
  return {
    method,
    headers,
    ...(init.inFlight === undefined ? { signal: init.signal } : {}),
    ...(init.agent === undefined ? {} : { agent: init.agent }),
  };
}

function track(init: ClientInit, req: ClientRequest): void {
  if (init.inFlight === undefined) return;
  init.inFlight.add(req);
  req.once('close', () => init.inFlight?.delete(req));
}

const send = (url: URL) => (url.protocol === 'https:' ? httpsRequest : httpRequest);

function target(baseUrl: string, path: string): URL {
  return new URL(`${trimEndOf(baseUrl, '/')}${path}`);
}

function networkError(error: NodeJS.ErrnoException, url: URL): NetworkError {
  const code = error.code ?? 'ENETWORK';
  return new NetworkError(`no answer from the sandbox at ${url.origin}: ${error.message}`, code, {
    hint: 'start it with core sandbox, and point core at it with the export lines it prints (CORE_BASE_URL)',
    cause: error,
  });
}

/** One JSON request; a network failure or a time-out is a NetworkError (exit 6). */
export function requestJson(init: ClientInit, method: 'GET' | 'POST', path: string, body?: unknown): Promise<SandboxAnswer> {
  const url = target(init.baseUrl, path);
  const payload = body === undefined ? undefined : Buffer.from(stringifyJson(body), 'utf8');
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (payload) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const req = send(url)(url, requestOptions(init, method, headers));
    track(init, req);
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error(`no answer within ${formatDuration(init.timeoutMs)}`), { code: 'ETIMEDOUT' })),
      init.timeoutMs,
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(init.signal.aborted ? new InterruptedError('interrupted') : networkError(error, url));
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : parseJson(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, text });
      });
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(networkError(error, url));
      });
    });
    req.end(payload);
  });
}

export interface EventStream {
  /** Resolves once the sandbox has answered 200 and the stream is open; rejects otherwise. */
  opened: Promise<void>;
  /** Resolves when the stream ends for good (the sandbox stopped and did not come back, or close()). */
  ended: Promise<void>;
  close(): void;
}

/** How a stream that was cut is opened again: `retry:` from the sandbox replaces `delayMs`. */
export interface ReconnectPolicy {
  /** The wait before the first attempt after a cut; doubled after each failed attempt, up to maxDelayMs. */
  delayMs: number;
  maxDelayMs: number;
  /** Failed attempts in a row after which the stream has ended. */
  attempts: number;
}

export const reconnectDefaults: ReconnectPolicy = { delayMs: 250, maxDelayMs: 2_000, attempts: 5 };

/**
 * The comment the sandbox opens each stream with (src/sandbox/stream.ts): where the stream starts,
 * so that a stream cut before its first event resumes there too.
 */
const OPENING_COMMENT = /^ ?core sandbox events after seq (\d{1,15})$/;

/**
 * Opens GET /_sandbox/events with `query` and hands each event, read from its JSON form
 * (src/sandbox/event-json.ts), to `onEvent`; a message that is not an event this version knows (a
 * type a later sandbox added) is passed over. A status other than 200 rejects `opened` with the
 * answer, so the caller can report it.
 *
 * The stream is read as the Server-Sent Events spec says (eventsource-parser: `data:` with or without
 * its space, several `data:` lines joined, `id:`, `retry:`, comments, CR LF and CR line ends). When
 * the connection is cut (the sandbox closes a stream that does not keep up, a proxy drops it, the
 * sandbox restarts on its port), it is opened again after `retry:` (else `policy.delayMs`), with
 * `Last-Event-ID` set to the last event's id (the seq; before any event, the seq the sandbox said the
 * stream started after), so the sandbox replays exactly the events after it: none lost, none twice.
 * Only after `policy.attempts` failed attempts in a row, or an answer other than 200 to one (the
 * conversation is gone), has the stream ended.
 */
export function openEventStream(
  init: ClientInit,
  query: string,
  onEvent: (event: SandboxEvent) => void,
  policy: ReconnectPolicy = reconnectDefaults,
): EventStream {
  const url = target(init.baseUrl, `/_sandbox/events${query}`);
  let req: ClientRequest | undefined;
  let lastEventId: string | undefined;
  let retryMs: number | undefined;
  let failures = 0;
  let closed = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let endStream!: () => void;
  const ended = new Promise<void>((resolve) => {
    endStream = () => {
      closed = true;
      clearTimeout(retryTimer);
      resolve();
    };
  });
  let openedFirst!: () => void;
  let refusedFirst!: (error: unknown) => void;
  let first = true;
  const opened = new Promise<void>((resolve, reject) => {
    openedFirst = resolve;
    refusedFirst = reject;
  });
  // A rejection nobody awaits yet must not end the process; the caller awaits `opened`.
  opened.catch(() => {});

  const parser = createParser({
    onEvent: (message) => {
      if (message.id !== undefined) lastEventId = message.id;
      const event = safeEvent(message.data);
      if (event !== undefined) onEvent(event);
    },
    onRetry: (ms) => (retryMs = ms),
    onComment: (comment) => {
      const start = OPENING_COMMENT.exec(comment);
      if (start && lastEventId === undefined) lastEventId = start[1];
    },
  });

  /** The connection is gone: the stream goes on through a new one, unless it was closed. */
  const cut = () => {
    if (closed) return;
    if (init.signal.aborted) return endStream();
    failures += 1;
    if (failures > policy.attempts) return endStream();
    const delay = Math.min((retryMs ?? policy.delayMs) * 2 ** (failures - 1), Math.max(policy.maxDelayMs, retryMs ?? 0));
    retryTimer = setTimeout(connect, delay);
  };

  function connect(): void {
    if (closed) return;
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'Cache-Control': 'no-cache' };
    if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
    // What a cut connection left half-read is not an event: the next one starts clean.
    parser.reset({ consume: false });
    const request = send(url)(url, requestOptions(init, 'GET', headers));
    req = request;
    track(init, request);
    const timer = setTimeout(
      () => request.destroy(Object.assign(new Error(`no answer within ${formatDuration(init.timeoutMs)}`), { code: 'ETIMEDOUT' })),
      init.timeoutMs,
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (first) {
        endStream();
        refusedFirst(init.signal.aborted ? new InterruptedError('interrupted') : networkError(error, url));
      } else cut();
    });
    request.on('response', (res: IncomingMessage) => {
      clearTimeout(timer);
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => {
          // A sandbox that answers, but not with the stream (the conversation is gone, too many
          // streams): the first time the caller reports it; later the stream has ended.
          if (first) refusedFirst(new StreamRefused({ status: res.statusCode ?? 0, text, json: safeJson(text) }));
          endStream();
        });
        return;
      }
      if (first) {
        first = false;
        openedFirst();
      }
      failures = 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => parser.feed(chunk));
      let gone = false;
      const done = () => {
        if (gone) return;
        gone = true;
        cut();
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    request.end();
  }

  connect();
  return {
    opened,
    ended,
    close: () => {
      endStream();
      req?.destroy();
    },
  };
}

/** The event stream was answered with another status than 200. */
export class StreamRefused extends Error {
  constructor(readonly answer: SandboxAnswer) {
    super(`the sandbox answered ${answer.status} to the event stream`);
  }
}

function safeEvent(text: string): SandboxEvent | undefined {
  try {
    return parseEvent(text);
  } catch {
    return undefined;
  }
}

function safeJson(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}
