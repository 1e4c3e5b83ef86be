import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { NetworkError } from '../errors.js';

/**
 * The HTTP layer: one request over got, with the retry rules of docs/security.md ("Retries") applied
 * here so that every attempt carries exactly the same bytes (for a reply, the same answerId:
 * docs/api.md, chatbot rule 6). got's own retry is off: its defaults never retry POST, and doing it
 * here keeps the policy, the Retry-After handling and the attempt count in one place.
 */

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** How many times a failed attempt may be repeated (the profile's `retries`). */
  retries: number;
  /** Whether this request may be repeated at all: only those that cannot deliver twice. */
  retryable: boolean;
  signal?: AbortSignal;
  /**
   * Once aborted, no further attempt starts, but the attempt in flight is not cut off (unlike
   * `signal`). A batch uses it on Ctrl-C: a request that reached the service keeps its outcome.
   */
  retrySignal?: AbortSignal;
  agent?: { http?: HttpAgent; https?: HttpsAgent };
  /** The proxy the agent goes through, printable (no credentials), for messages. */
  proxy?: string;
  /** The private CA file trusted besides the system's (--ca-file, caFile), for messages. */
  caFile?: string;
  /** Told before each repeat, for --verbose and progress output. */
  onRetry?: (info: RetryInfo) => void;
  /** Told when an answer that could be repeated is not, because its Retry-After asks for too long a wait. */
  onNoRetry?: (reason: string) => void;
  /** The largest part of a response body kept in memory; the rest is read and dropped. */
  maxBodyBytes?: number;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body, cut to maxBodyBytes. */
  body: string;
  /** True when the body was longer than maxBodyBytes, or did not arrive whole. */
  truncated: boolean;
  /** Why the body is incomplete: the status came, the rest of the answer did not. */
  incomplete?: string;
  requestId: string | null;
  durationMs: number;
  attempts: number;
  /** The HTTP version of the answer, for --verbose. */
  httpVersion: string;
}

/** Network error codes worth another attempt. DNS "not found" is not: it will not heal in seconds. */
const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Failures to open a connection: through a proxy, they are the proxy's. */
const PROXY_LEG_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The longest Retry-After the tool waits for; a longer one ends the retries. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BASE_BACKOFF_MS = 300;
const MAX_BACKOFF_MS = 8_000;

export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** Reads Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || text.trim() === '') return null;
  if (/^\d+(\.\d+)?$/.test(text.trim())) return Math.round(Number(text.trim()) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Exponential backoff with jitter: 300 ms, 600 ms, 1.2 s ... capped at 8 s. */
export function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Sends a request, repeating it as the retry rules allow. Resolves with the last answer (any
 * status); rejects with a NetworkError when no answer came on the last attempt.
 */
export async function sendRequest(request: HttpRequest): Promise<HttpResponse> {
  const started = performance.now();
  let attempt = 0;
  for (;;) {
    attempt += 1;
    let outcome: HttpResponse | NetworkError;
    try {
      outcome = await attemptOnce(request);
    } catch (error) {
      outcome = toNetworkError(error, request);
    }
    const canRepeat = request.retryable && attempt <= request.retries && !request.signal?.aborted && !request.retrySignal?.aborted;
    let delay: number | null = null;
    let reason = '';
    if (outcome instanceof NetworkError) {
      if (canRepeat && RETRYABLE_CODES.has(outcome.code)) {
        delay = backoffMs(attempt);
        reason = outcome.code;
      }
    } else if (canRepeat && isRetryableStatus(outcome.status)) {
      const retryAfter = parseRetryAfter(outcome.headers['retry-after']);
      if (retryAfter === null) delay = backoffMs(attempt);
      else if (retryAfter <= MAX_RETRY_AFTER_MS) delay = retryAfter;
      else {
        request.onNoRetry?.(
          `not repeated: the service asked to wait ${Math.round(retryAfter / 1000)} s (Retry-After), more than the ${MAX_RETRY_AFTER_MS / 1000} s core waits`,
        );
      }
      reason = `HTTP ${outcome.status}`;
    }
    if (outcome instanceof NetworkError) outcome.attempts = attempt;
    if (delay === null) {
      if (outcome instanceof NetworkError) throw outcome;
      return { ...outcome, attempts: attempt, durationMs: Math.round(performance.now() - started) };
    }
    request.onRetry?.({ attempt: attempt + 1, delayMs: delay, reason });
    const stopWaiting =
      request.retrySignal && request.signal
        ? AbortSignal.any([request.signal, request.retrySignal])
        : (request.retrySignal ?? request.signal);
    const waited = await sleep(delay, stopWaiting);
    if (!waited) {
      if (outcome instanceof NetworkError) throw outcome;
      return { ...outcome, attempts: attempt, durationMs: Math.round(performance.now() - started) };
    }
  }
}

/**
 * One attempt, bounded: it settles within `timeoutMs`, or at once when `signal` aborts, whatever the
 * connection is doing. got's own time limit and signal destroy the request, but a request still
 * waiting for its socket (a proxy that accepts the connection and never answers CONNECT) then emits
 * nothing at all, and would wait forever; so the attempt keeps its own deadline and abort listener,
 * and settles the promise itself.
 */
async function attemptOnce(request: HttpRequest): Promise<HttpResponse> {
  const { got } = await import('got');
  const maxBody = request.maxBodyBytes ?? 64 * 1024;
  const started = performance.now();
  return new Promise<HttpResponse>((resolve, reject) => {
    if (request.signal?.aborted) return reject(abortError());
    const stream = got.stream(request.url, {
      method: request.method,
      headers: request.headers,
      // got refuses a body on a GET, even an empty one; any other method is given its body, empty or
      // not, since got's stream would otherwise wait for one to be written into it.
      ...(request.method === 'GET' ? {} : { body: request.body }),
      timeout: { request: request.timeoutMs },
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: false,
      decompress: true,
      ...(request.agent ? { agent: request.agent } : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    let response: { statusCode: number; statusMessage?: string; headers: HttpResponse['headers']; httpVersion: string } | undefined;
    let settled = false;
    const answer = (incomplete?: string): HttpResponse => {
      const requestId = response!.headers['x-request-id'];
      return {
        status: response!.statusCode,
        statusText: response!.statusMessage ?? '',
        headers: response!.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        truncated: truncated || incomplete !== undefined,
        ...(incomplete !== undefined ? { incomplete } : {}),
        requestId: (Array.isArray(requestId) ? requestId[0] : requestId) ?? null,
        durationMs: Math.round(performance.now() - started),
        attempts: 1,
        httpVersion: response!.httpVersion,
      };
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      cleanUp();
      stream.destroy();
      // The service already gave its verdict (a 500 whose body is slow or cut short): that status is
      // the outcome, not "no answer". A success whose body breaks off stays a network failure, as
      // before: whether it is complete cannot be told.
      if (response !== undefined && (response.statusCode < 200 || response.statusCode >= 300)) {
        const timedOut = (error as { code?: string }).code === 'ETIMEDOUT';
        resolve(answer(timedOut ? `the rest did not arrive within ${formatMs(request.timeoutMs)}` : 'the connection closed'));
        return;
      }
      reject(error);
    };
    const deadline = setTimeout(() => {
      fail(Object.assign(new Error(`Timeout awaiting the answer for ${request.timeoutMs}ms`), { code: 'ETIMEDOUT', name: 'TimeoutError' }));
    }, request.timeoutMs);
    const onAbort = () => fail(abortError());
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const cleanUp = () => {
      clearTimeout(deadline);
      request.signal?.removeEventListener('abort', onAbort);
    };
    stream.on('response', (res: typeof response) => {
      response = res;
    });
    stream.on('data', (chunk: Buffer) => {
      if (kept < maxBody) {
        const room = maxBody - kept;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        kept += Math.min(room, chunk.length);
        if (chunk.length > room) truncated = true;
      } else {
        truncated = true;
      }
    });
    // Not once: an error after the attempt settled must find a listener, or it would end the process.
    stream.on('error', fail);
    stream.once('end', () => {
      if (settled) return;
      if (!response) return fail(new NetworkError('the connection closed before an answer arrived', 'ECONNRESET'));
      settled = true;
      cleanUp();
      resolve(answer());
    });
  });
}

function abortError(): Error {
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ERR_ABORTED' });
}

/** Turns whatever got or the socket threw into a NetworkError with a plain message. */
export function toNetworkError(error: unknown, request: Pick<HttpRequest, 'url' | 'timeoutMs' | 'proxy' | 'caFile'>): NetworkError {
  if (error instanceof NetworkError) return error;
  const err = error as { code?: string; message?: string; name?: string; cause?: unknown };
  let code = typeof err.code === 'string' ? err.code : 'ENETWORK';
  const host = safeHost(request.url);
  let message: string;
  if (code === 'EPROXY') {
    // Made by the tunnel agent (src/http/agents.ts): it names the proxy and its answer.
    message = err.message ?? 'the proxy refused the connection';
  } else if (request.proxy && PROXY_LEG_CODES.has(code)) {
    // Through a proxy, the only connection this machine opens is to the proxy.
    message = `cannot reach the proxy ${request.proxy} (${code})`;
  } else if (err.name === 'AbortError' || code === 'ERR_ABORTED') {
    code = 'EABORTED';
    message = 'interrupted before the answer arrived: the service may or may not have applied it';
  } else if (code === 'ETIMEDOUT') {
    message = `no answer from ${host}${request.proxy ? ` (through the proxy ${request.proxy})` : ''} within ${formatMs(request.timeoutMs)}`;
  } else if (code === 'ECONNREFUSED') {
    message = `${host} refused the connection`;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    message = `cannot resolve the host name ${host}`;
  } else if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
    message = `${host} closed the connection before answering`;
  } else if (code === 'HPE_HEADER_OVERFLOW') {
    // Node reads at most 16 KB of headers; the answer may be HTTP, only too large to read.
    message = `${host} answered with headers larger than the 16 KB core reads`;
    code = 'EPROTO';
  } else if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_')) {
    message = `${host} did not answer with HTTP`;
    code = 'EPROTO';
  } else if (/wrong version number|packet length too long|unknown protocol/i.test(err.message ?? '')) {
    // OpenSSL's words for an answer that is not TLS at all: most often a plain http port.
    message = `${host} did not answer with TLS: it may serve plain http on that port (then use an http:// base URL)`;
    code = 'EPROTO';
  } else if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    // The certificate is trusted but names other hosts: no CA file can fix that.
    message = `TLS failure talking to ${host}: its certificate is for other host names (${(err.message ?? code).trim()}); use a host name the certificate names in the base URL`;
  } else if (/CERT|SSL|TLS|EPROTO|SIGNATURE/.test(code)) {
    const hint = !/CERT|SIGNATURE|ISSUER/.test(code)
      ? ''
      : request.caFile !== undefined
        ? `; the certificate is not signed by the CA of ${request.caFile} nor by one the system trusts`
        : '; if the service uses a private CA, give its certificate with --ca-file FILE';
    message = `TLS failure talking to ${host}: ${(err.message ?? code).trim()}${hint}`;
  } else {
    message = `request to ${host} failed: ${(err.message ?? code).trim()}`;
  }
  return new NetworkError(message, code, { cause: error });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the service';
  }
}

export function formatMs(ms: number): string {
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}
