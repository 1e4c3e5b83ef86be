import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { NetworkError } from '../errors.js';
import { Throttle, type AttemptOutcome, type Slot } from './throttle.js';
import { formatDuration } from '../text/duration.js';

/**
 * The HTTP layer: one request over got, with the retry rules of docs/security.md ("Retries") and
 * the pace of the run ("Rate limits", src/http/throttle.ts) applied here so that every attempt
 * carries exactly the same bytes (for a reply, the same answerId: docs/api.md, chatbot rule 6).
 * got's own retry is off: its defaults never retry POST, and doing it here keeps the policy, the
 * Retry-After handling and the attempt count in one place.
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
  /** The backoff before a repeat, by its step (1, 2, ...): backoffMs unless given (tests shorten it). */
  backoff?: (step: number) => number;
  /** Told before each repeat, for --verbose and progress output. */
  onRetry?: (info: RetryInfo) => void;
  /** Told when an answer that could be repeated is not, because its Retry-After asks for too long a wait. */
  onNoRetry?: (reason: string) => void;
  /** The largest part of a response body kept in memory; the rest is read and dropped. */
  maxBodyBytes?: number;
  /** The pace of the run this request belongs to (one per session); a request of its own otherwise. */
  throttle?: Throttle;
  /** A slot of `throttle` already taken for the first attempt (a batch takes it before it starts an item). */
  slot?: Slot;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  reason: string;
  /** A wait the service asked for with Retry-After on a 429 or 503: it uses none of the retries. */
  asked: boolean;
  /** A 429 without Retry-After: the whole run waits, with backoff (docs/security.md, "Rate limits"). */
  paced: boolean;
  /** Whether this repeat uses one of the retries. */
  counted: boolean;
  /** The retries used, this one included (waits asked for are not retries). */
  retry: number;
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
/**
 * How many times in a row one request is repeated after a 429 or 503 with Retry-After while no
 * request of the run gets through, besides its retries: such waits use none of them
 * (docs/security.md, "Rate limits"), but a service that never stops asking must not hold a request
 * for ever.
 */
export const MAX_ASKED_WAITS = 10;
/**
 * How many times in a row one request is repeated after a 429 without Retry-After, however the run
 * progresses. While other requests of the run get through, such a repeat uses none of the retries
 * (docs/security.md, "Rate limits"); a service that lets the rest of a batch through but keeps
 * refusing one request must not hold it, and pause the run, for ever.
 */
export const MAX_PACED_WAITS = 20;
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

/** Waits `ms`; false as soon as one of `signals` aborts. */
function sleep(ms: number, signals: readonly AbortSignal[]): Promise<boolean> {
  return new Promise((resolve) => {
    if (signals.some((s) => s.aborted)) return resolve(false);
    const stop = () => {
      for (const s of signals) s.removeEventListener('abort', onAbort);
    };
    const timer = setTimeout(() => {
      stop();
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      stop();
      resolve(false);
    };
    for (const s of signals) s.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Sends a request, repeating it as the retry rules allow. Resolves with the last answer (any
 * status); rejects with a NetworkError when no answer came on the last attempt.
 *
 * Its duration is the exchange's, from the first attempt to the last answer, repeats and their
 * waits included; loading the HTTP library is not part of it.
 */
export async function sendRequest(request: HttpRequest): Promise<HttpResponse> {
  const client = await clientFor(request);
  const throttle = request.throttle ?? new Throttle(1);
  const backoff = request.backoff ?? backoffMs;
  // Waiting for the next attempt ends on either signal. Not AbortSignal.any: on Node 20 each call
  // leaves a WeakRef on both signals for the rest of the run, one per request of a batch.
  const stopWaiting = [request.signal, request.retrySignal].filter((s): s is AbortSignal => s !== undefined);
  const started = performance.now();
  let slot = request.slot ?? (await throttle.acquire(request.signal));
  if (slot === null) throw toNetworkError(abortError(), request);
  // Its repeats go before the attempts of requests that started after it (src/http/throttle.ts).
  const rank = slot.ticket;
  const state = firstAttempt(throttle);
  for (;;) {
    state.attempt += 1;
    let outcome: HttpResponse | NetworkError;
    try {
      outcome = await attemptOnce(request, client);
    } catch (error) {
      outcome = toNetworkError(error, request);
    }
    slot.release(paceOf(outcome));
    const repeat = nextAttempt(outcome, request, { throttle, backoff, state });
    const last = (): HttpResponse => {
      if (outcome instanceof NetworkError) throw outcome;
      return { ...outcome, attempts: state.attempt, durationMs: Math.round(performance.now() - started) };
    };
    if (repeat.delay === null) return last();
    const { delay, reason, waitAsked, paced, counted } = repeat;
    request.onRetry?.({ attempt: state.attempt + 1, delayMs: delay, reason, asked: waitAsked, paced, counted, retry: state.retried });
    // A wait the service asked for, and the backoff after a 429 without Retry-After, are the run's
    // pause, which taking the next slot waits out; any other backoff is this request's own.
    if (!waitAsked && !paced && !(await sleep(delay, stopWaiting))) return last();
    const next = await throttle.acquire(stopWaiting, rank);
    if (next === null) return last();
    slot = next;
  }
}

/** What one request has used of the retry rules, from one attempt to the next (see `nextAttempt`). */
interface RetryState {
  attempt: number;
  /** The repeats that took one of the retries. */
  retried: number;
  /** The waits in a row that a Retry-After asked for while no request of the run got through, and the run's progress then. */
  asked: number;
  progress: number;
  /**
   * For a 429 without Retry-After: how many this request met in a row; its own step of the backoff,
   * one more for each after which nothing of the run was answered (each of those takes a retry, so
   * it stays at most retries + 1), back to 1 when something was; and the run's progress this
   * request last knew of (`seen`): at its first attempt, as it was when the run was last refused a
   * request, after that, as it was at this request's previous answer.
   */
  pacedInRow: number;
  step: number;
  seen: number;
}

function firstAttempt(throttle: Throttle): RetryState {
  return { attempt: 0, retried: 0, asked: 0, progress: throttle.progress, pacedInRow: 0, step: 0, seen: throttle.progressAtRefusal };
}

/** Whether and when to repeat: `delay` null for no repeat; how the repeat counts, for `onRetry`. */
interface Repeat {
  delay: number | null;
  reason: string;
  /** A wait the service asked for (Retry-After). */
  waitAsked: boolean;
  /** The run's backoff after a 429 without Retry-After. */
  paced: boolean;
  /** Whether the repeat took one of the retries. */
  counted: boolean;
}

interface RetryContext {
  throttle: Throttle;
  backoff: (retry: number) => number;
  state: RetryState;
}

const NO_REPEAT: Repeat = { delay: null, reason: '', waitAsked: false, paced: false, counted: false };

/**
 * The retry rules after one attempt. A wait the service asks for with Retry-After uses none of the
 * retries, so even `retries: 0` waits it out (up to MAX_ASKED_WAITS times), nor does a 429 without
 * it while the run gets through (below); any other repeat takes one of the retries.
 */
function nextAttempt(outcome: HttpResponse | NetworkError, request: HttpRequest, context: RetryContext): Repeat {
  const { throttle, state } = context;
  // Whether some request of the run was answered since this request last looked: the service is
  // letting requests through, so a 429 then is pacing, not refusing.
  const progressed = throttle.progress > state.seen;
  state.seen = throttle.progress;
  const canRepeat = request.retryable && !request.signal?.aborted && !request.retrySignal?.aborted;
  let repeat = NO_REPEAT;
  if (outcome instanceof NetworkError) {
    outcome.attempts = state.attempt;
    if (canRepeat && state.retried < request.retries && RETRYABLE_CODES.has(outcome.code)) repeat = counted(context, outcome.code);
  } else if (isRetryableStatus(outcome.status)) {
    repeat = statusRepeat(outcome, request, context, canRepeat, progressed);
  }
  if (!repeat.paced) {
    state.pacedInRow = 0;
    state.step = 0;
  }
  return repeat;
}

/** A repeat after the backoff that takes one of the retries. */
function counted(context: RetryContext, reason: string): Repeat {
  context.state.retried += 1;
  return { delay: context.backoff(context.state.retried), reason, waitAsked: false, paced: false, counted: true };
}

/** After a 429 or a 5xx: paced (429 without Retry-After), the wait asked for (Retry-After), or a counted repeat. */
function statusRepeat(outcome: HttpResponse, request: HttpRequest, context: RetryContext, canRepeat: boolean, progressed: boolean): Repeat {
  const reason = `HTTP ${outcome.status}`;
  const retryAfter = parseRetryAfter(outcome.headers['retry-after']);
  const rateLimit = retryAfter !== null && (outcome.status === 429 || outcome.status === 503);
  if (outcome.status === 429 && retryAfter === null) return pacedRepeat(request, context, canRepeat, progressed);
  if (rateLimit && retryAfter > MAX_RETRY_AFTER_MS) {
    if (canRepeat) {
      request.onNoRetry?.(
        `not repeated: the service asked to wait ${Math.round(retryAfter / 1000)} s (Retry-After), more than the ${MAX_RETRY_AFTER_MS / 1000} s core waits`,
      );
    }
    return { ...NO_REPEAT, reason };
  }
  if (rateLimit) return askedRepeat(request, context, canRepeat, retryAfter, reason);
  if (canRepeat && context.state.retried < request.retries) return counted(context, reason);
  return { ...NO_REPEAT, reason };
}

/**
 * A 429 without Retry-After: the service asks the run to slow down without saying for how long, so
 * the whole run pauses for a backoff, at the longer of this request's step (a lone request: 300 ms,
 * 600 ms, 1.2 s ...) and the run's (the pace of the service as the run has learnt it, throttle.ts).
 * While other requests are answered, the service is pacing, not refusing, and the repeat uses none
 * of the retries (up to MAX_PACED_WAITS in a row); otherwise it takes one, so a lone request against
 * a service that refuses everything gives up after its retries.
 */
function pacedRepeat(request: HttpRequest, context: RetryContext, canRepeat: boolean, progressed: boolean): Repeat {
  const { throttle, state } = context;
  const reason = 'HTTP 429';
  state.pacedInRow += 1;
  state.step = progressed ? 1 : state.step + 1;
  const wait = context.backoff(Math.max(state.step, throttle.step));
  throttle.pause(wait);
  if (!canRepeat || (!progressed && state.retried >= request.retries)) {
    // Out of retries: the answer stands, as after any other failure.
    return { ...NO_REPEAT, reason };
  }
  if (state.pacedInRow > MAX_PACED_WAITS) {
    request.onNoRetry?.(`not repeated: the service answered 429 ${state.pacedInRow} times in a row, with no Retry-After`);
    return { ...NO_REPEAT, reason };
  }
  if (!progressed) state.retried += 1;
  return { delay: Math.max(wait, Math.round(throttle.pausedFor)), reason, waitAsked: false, paced: true, counted: !progressed };
}

/**
 * A 429 or 503 with Retry-After: the service says when it takes requests again, and the whole run
 * waits until then. Only waits in a row during which no request of the run got through count towards
 * the limit: in a batch that shares the service's rate, requests that are answered meanwhile show it
 * is pacing, not refusing.
 */
function askedRepeat(request: HttpRequest, context: RetryContext, canRepeat: boolean, retryAfter: number, reason: string): Repeat {
  const { throttle, state } = context;
  throttle.pause(retryAfter);
  if (throttle.progress > state.progress) {
    state.progress = throttle.progress;
    state.asked = 0;
  }
  if (canRepeat && state.asked < MAX_ASKED_WAITS) {
    state.asked += 1;
    return { delay: retryAfter, reason, waitAsked: true, paced: false, counted: false };
  }
  if (canRepeat) request.onNoRetry?.(`not repeated: the service asked to wait ${MAX_ASKED_WAITS} times (Retry-After) and still refuses`);
  return { ...NO_REPEAT, reason };
}

/** How an attempt counts for the pace of the run. */
function paceOf(outcome: HttpResponse | NetworkError): AttemptOutcome {
  if (outcome instanceof NetworkError) return 'other';
  if (outcome.status === 429) return parseRetryAfter(outcome.headers['retry-after']) === null ? 'slow-down' : 'rate-limited';
  return outcome.status < 500 ? 'answered' : 'other';
}

type GotStream = (url: string, options: Record<string, unknown>) => import('node:stream').Duplex & NodeJS.EventEmitter;
/** Starts one attempt of a request: got's stream, given only what differs from one request to the next. */
type Client = (request: HttpRequest) => ReturnType<GotStream>;

/**
 * Loads got now rather than at the first request: a batch does so before it changes V8's heap
 * settings, so that got is compiled (and its compiled code cached) under the defaults (src/heap.ts).
 */
export async function loadHttpLibrary(): Promise<void> {
  await import('got');
}

/**
 * got with the options every request of a session shares, merged and normalised once (got.extend)
 * rather than for every request: got copies and merges its options for each request it makes, and
 * the fewer given per request, the less it does (docs/performance.md, "Batches, fourth round").
 *
 * The requests of a session share their method and headers (src/send/request.ts builds them once,
 * frozen): one instance holds them with the rest, and each request gives only its URL and body. It
 * is kept with the headers object, so a batch makes one for all its requests; headers that are not
 * frozen could change after the instance was made, so they get an instance of their own each time.
 */
const sessions = new WeakMap<Readonly<Record<string, string>>, { agent: HttpRequest['agent']; method: string; client: Client }>();

async function clientFor(request: HttpRequest): Promise<Client> {
  const { agent, method } = request;
  const headers = Object.isFrozen(request.headers) ? request.headers : Object.freeze({ ...request.headers });
  const shared = sessions.get(headers);
  if (shared !== undefined && shared.agent === agent && shared.method === method) return shared.client;
  const { got } = await import('got');
  const session = got.extend({
    // The attempt keeps its own deadline and abort listener (attemptOnce), which also cover a
    // request still waiting for its socket; got's own would only duplicate them.
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    decompress: true,
    ...(agent ? { agent } : {}),
    method,
    headers,
  });
  // got refuses a body on a GET, even an empty one; any other method is given its body, empty or
  // not, since got's stream would otherwise wait for one to be written into it.
  const client: Client =
    method === 'GET'
      ? (r) => session.stream(r.url) as ReturnType<GotStream>
      : (r) => session.stream(r.url, { body: r.body }) as ReturnType<GotStream>;
  sessions.set(headers, { agent, method, client });
  return client;
}

/**
 * One attempt, bounded: it settles within `timeoutMs`, or at once when `signal` aborts, whatever the
 * connection is doing. The request is destroyed then; a request still waiting for its socket (a
 * proxy that accepts the connection and never answers CONNECT) emits nothing at all, so the attempt
 * keeps its own deadline and abort listener, and settles the promise itself.
 */
async function attemptOnce(request: HttpRequest, client: Client): Promise<HttpResponse> {
  const maxBody = request.maxBodyBytes ?? 64 * 1024;
  const started = performance.now();
  return new Promise<HttpResponse>((resolve, reject) => {
    if (request.signal?.aborted) return reject(abortError());
    const stream = client(request);
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
      // The service already gave its verdict once its status line came (a 500 whose body is slow, a
      // 200 OK whose body is cut short): that status is the outcome, not "no answer". A success
      // reported as a network failure would invite a second send, and a greeting would then greet
      // twice; the response says the body did not arrive whole instead (`incomplete`).
      if (response !== undefined) {
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
    // Only an unknown issuer means the CA given (or none) did not sign it: an expired certificate of
    // that CA is another failure, which no CA file fixes.
    const hint = /^CERT_HAS_EXPIRED$|^CERT_NOT_YET_VALID$/.test(code)
      ? "; the certificate is outside its dates of validity: the service must renew it (or this machine's clock is wrong)"
      : !UNKNOWN_ISSUER.test(code)
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

/** The TLS errors that mean the certificate's issuer is not trusted: those a CA file may fix. */
const UNKNOWN_ISSUER =
  /^(?:UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE|CERT_CHAIN_TOO_LONG|INVALID_CA)$/;

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the service';
  }
}

/** A time limit in messages, written as --timeout reads it (src/text/duration.ts). */
export const formatMs = formatDuration;
