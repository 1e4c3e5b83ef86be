import { request as httpRequest, type Agent, type ClientRequest, type IncomingMessage } from 'node:http';
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
  /** Resolves when the stream ends (the sandbox stopped, or close()). */
  ended: Promise<void>;
  close(): void;
}

/**
 * Opens GET /_sandbox/events with `query` and hands each event, read from its JSON form
 * (src/sandbox/event-json.ts), to `onEvent`; a message that is not an event this version knows (a
 * type a later sandbox added) is passed over. A status other than 200 rejects `opened` with the
 * answer, so the caller can report it.
 */
export function openEventStream(init: ClientInit, query: string, onEvent: (event: SandboxEvent) => void): EventStream {
  const url = target(init.baseUrl, `/_sandbox/events${query}`);
  let req: ReturnType<typeof httpRequest> | undefined;
  let endStream!: () => void;
  const ended = new Promise<void>((resolve) => (endStream = resolve));
  const opened = new Promise<void>((resolve, reject) => {
    req = send(url)(url, requestOptions(init, 'GET', { Accept: 'text/event-stream' }));
    track(init, req);
    const timer = setTimeout(
      () => req?.destroy(Object.assign(new Error(`no answer within ${formatDuration(init.timeoutMs)}`), { code: 'ETIMEDOUT' })),
      init.timeoutMs,
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      endStream();
      reject(init.signal.aborted ? new InterruptedError('interrupted') : networkError(error, url));
    });
    req.on('response', (res: IncomingMessage) => {
      clearTimeout(timer);
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => {
          endStream();
          reject(new StreamRefused({ status: res.statusCode ?? 0, text, json: safeJson(text) }));
        });
        return;
      }
      resolve();
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n');
          if (data === '') continue;
          const event = safeEvent(data);
          if (event !== undefined) onEvent(event);
        }
      });
      res.on('end', endStream);
      res.on('close', endStream);
      res.on('error', endStream);
    });
    req.end();
  });
  // A rejection nobody awaits yet must not end the process; the caller awaits `opened`.
  opened.catch(() => {});
  return { opened, ended, close: () => req?.destroy() };
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
