import { request as httpRequest, type Agent, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { InterruptedError, NetworkError } from '../errors.js';
import { formatBytes } from '../input/bytes.js';
import { parseJson, stringifyJson } from '../payload/json.js';
import { trimEndOf } from '../text/trim.js';
import { formatDuration } from '../text/duration.js';
import type { SandboxAnswer } from './connection.js';

/**
 * A small client of the sandbox's own endpoints (docs/sandbox.md, "The customer's side"), on
 * node:http: JSON requests here, the event stream in src/platform/event-stream.ts. These are not API
 * requests: they carry no token and go straight to the sandbox (no proxy), which is a local tool.
 */

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

/**
 * Starts one request to a path of the sandbox's own, tracked and bounded by `init.timeoutMs` until it
 * is answered (`answered()` stops the clock); a failure before then goes to `onError` as a
 * NetworkError (InterruptedError after Ctrl-C). What to do with the answer is the caller's.
 */
export function startRequest(
  init: ClientInit,
  method: string,
  path: string,
  headers: Record<string, string>,
  onError: (error: Error) => void,
): { req: ClientRequest; url: URL; answered: () => void } {
  const url = target(init.baseUrl, path);
  const req = send(url)(url, requestOptions(init, method, headers));
  track(init, req);
  const timer = setTimeout(
    () => req.destroy(Object.assign(new Error(`no answer within ${formatDuration(init.timeoutMs)}`), { code: 'ETIMEDOUT' })),
    init.timeoutMs,
  );
  req.on('error', (error: NodeJS.ErrnoException) => {
    clearTimeout(timer);
    onError(init.signal.aborted ? new InterruptedError('interrupted') : networkError(error, url));
  });
  return { req, url, answered: () => clearTimeout(timer) };
}

export function networkError(error: NodeJS.ErrnoException, url: URL): NetworkError {
  const code = error.code ?? 'ENETWORK';
  return new NetworkError(`no answer from the sandbox at ${url.origin}: ${error.message}`, code, {
    hint: 'start it with core sandbox, and point core at it with the export lines it prints (CORE_BASE_URL)',
    cause: error,
  });
}

/**
 * The most the client reads of an answer of the sandbox's (docs/sandbox.md, "Bounds"). Its answers to
 * these requests are a few hundred bytes; a server that answers without end (a wrong --sandbox URL)
 * grew core test, check-bot and core customer to 6 GB. Past the bound the request fails: a JSON
 * answer cut is no answer.
 */
export const MAX_SANDBOX_ANSWER_BYTES = 1024 * 1024;

/** The error of an answer past `limit`, for the request to be destroyed with. */
export const tooLarge = (what: string, limit: number) =>
  Object.assign(new Error(`${what} is larger than ${formatBytes(limit)}: this is not a sandbox of core's`), { code: 'ETOOLARGE' });

/** One JSON request; a network failure, a time-out or an answer past MAX_SANDBOX_ANSWER_BYTES is a NetworkError (exit 6). */
export function requestJson(init: ClientInit, method: 'GET' | 'POST', path: string, body?: unknown): Promise<SandboxAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(stringifyJson(body), 'utf8');
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (payload) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const { req, url, answered } = startRequest(init, method, path, headers, reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_SANDBOX_ANSWER_BYTES) req.destroy(tooLarge('its answer', MAX_SANDBOX_ANSWER_BYTES));
        else chunks.push(chunk);
      });
      res.on('end', () => {
        answered();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, json: text === '' ? undefined : jsonOf(text), text });
      });
      res.on('error', (error) => {
        answered();
        reject(networkError(error, url));
      });
    });
    req.end(payload);
  });
}

/** A body read losslessly (identifiers as bigint); undefined when it is not JSON. */
export function jsonOf(text: string): unknown {
  try {
    return parseJson(text);
  } catch {
    return undefined;
  }
}
