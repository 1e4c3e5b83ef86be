import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import type { AttemptFields } from './rules/delivery.js';
import { secretKey, signature } from './signature.js';
import type { Delivery } from './state.js';

/**
 * The MESSAGE webhook sender (docs/sandbox.md, "The MESSAGE webhook"). Each delivery runs in the
 * background on its own timers and sockets: `deliver` returns at once, so the API side never waits
 * for a bot, and a bot that calls the API from inside its webhook handler meets a free server.
 *
 * One attempt: POST the delivery's exact bytes, signed for this attempt (Standard Webhooks 1.0), with
 * a time limit for the whole attempt; read at most 2 KB of the answer, then drop the connection
 * (a bot that answers 10 MB costs 2 KB). Redirects are not followed. A 2xx is delivered; a
 * timeout, a network failure or any other status is tried again, `retries` times, after the bot's
 * Retry-After (bounded by `maxRetryAfterMs`) or else after a doubling backoff, under the same
 * webhook-id. Every attempt is reported to `record`.
 *
 * At most `maxConcurrent` attempts are in flight at once (a bot that never answers once held 9,287
 * sockets for 15,000 messages); the next ones wait in a queue of at most `maxQueued`, first come first
 * served, retries included. An attempt that finds the queue full is not sent: it is recorded as a
 * failed attempt whose error says so, and the delivery can be sent again with a redelivery.
 *
 * The sender changes nothing of a delivery: whether one is in flight, and which series its attempts
 * belong to, are the state's (the customer message, webhook.redelivery and webhook.attempt events).
 */

export interface WebhookConfig {
  /**
   * Awaited before a delivery's first attempt (the sandbox with a state file: its customer message on
   * disk); false sends nothing (the write failed and the delivery was taken back).
   */
  ready?: ((delivery: Delivery) => Promise<boolean>) | undefined;
  url: string;
  secret: string;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  maxRetryAfterMs: number;
  userAgent: string;
  /** Attempts in flight at once; the next ones wait. */
  maxConcurrent: number;
  /** Told when an attempt of a delivery is sent; the function it returns, when its answer came (or it failed). */
  sending?: ((delivery: Delivery) => () => void) | undefined;
  /** Attempts that may wait for one in flight to end; one more is recorded as failed, not sent. */
  maxQueued: number;
}

export type AttemptRecord = AttemptFields;

/** How much of a bot's answer body is kept: the rest is not read. */
export const KEPT_BODY_BYTES = 2048;

/** The longest backoff between two attempts, whatever the doubling reaches. */
const MAX_BACKOFF_MS = 60_000;

export interface AttemptResult {
  status: number | null;
  error: string | null;
  latencyMs: number;
  body: string;
  bodyTruncated: boolean;
  retryAfterMs: number | null;
}

export class WebhookSender {
  private readonly key: Buffer;
  private readonly agent: HttpAgent;
  /** The bot's address, read once: each attempt's request is made from it without parsing the URL again. */
  private readonly target: ReturnType<typeof urlToHttpOptions>;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly requests = new Set<{ destroy(error?: Error): void }>();
  /** Attempts in flight (each holds a slot until it ends), and those waiting for a slot. */
  private active = 0;
  private waiting: (() => void)[] = [];
  private closed = false;
  /** A connection to the bot opened before the first delivery (warm()), for the first request that needs one. */
  private warmSocket: Socket | undefined;
  /** Takes off the listeners that watch the warm connection while it waits, when a request takes it. */
  private warmRelease: (() => void) | undefined;

  constructor(
    private readonly config: WebhookConfig,
    private readonly record: (delivery: Delivery, attempt: AttemptRecord) => void,
    private readonly log: (line: string) => void = () => {},
  ) {
    this.key = secretKey(config.secret);
    this.target = urlToHttpOptions(new URL(config.url));
    // The sender keeps the number of attempts in flight within maxConcurrent itself; the agent's own
    // bound is the same, so it never queues behind it.
    const options = { keepAlive: true, maxSockets: config.maxConcurrent };
    this.agent = config.url.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
    // The first request that needs a connection takes the one warm() opened, while it is still open.
    const create = this.agent.createConnection.bind(this.agent) as (...args: unknown[]) => unknown;
    (this.agent as unknown as { createConnection: (...args: unknown[]) => unknown }).createConnection = (...args: unknown[]) => {
      const warm = this.warmSocket;
      this.warmSocket = undefined;
      this.warmRelease?.();
      this.warmRelease = undefined;
      if (warm !== undefined && !warm.destroyed && warm.readyState === 'open') return warm;
      warm?.destroy();
      return create(...args);
    };
  }

  /**
   * Opens the connection the first delivery will use, so that the time a `core test` step's
   * `within` measures holds no connect of the sandbox's making (docs/testing-bots.md, "A bot's first
   * answer"). Resolves once connected, refused, or after `limitMs`; never throws. A bot that is not
   * listening yet (the usual case for `core sandbox`, started first) costs nothing: the first
   * delivery connects as before. Plain http only: for https the handshake stays with the first
   * delivery. A connection the bot closes before it is used is dropped.
   */
  warm(limitMs: number): Promise<void> {
    if (this.closed || !this.config.url.startsWith('http:')) return Promise.resolve();
    const url = new URL(this.config.url);
    return new Promise((resolve) => {
      const socket = netConnect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) });
      const timer = setTimeout(() => {
        socket.destroy();
        resolve();
      }, limitMs);
      const drop = () => {
        clearTimeout(timer);
        if (this.warmSocket === socket) {
          this.warmSocket = undefined;
          this.warmRelease = undefined;
        }
        socket.destroy();
        resolve();
      };
      // Refused, reset, or closed by the bot before a request took it (its keep-alive time, say): never
      // handed out. Read while it waits (a bot sends nothing unasked), so that the bot's close is seen.
      socket.on('error', drop);
      socket.on('end', drop);
      socket.on('close', drop);
      socket.once('connect', () => {
        clearTimeout(timer);
        if (this.closed) {
          drop();
          return;
        }
        this.warmSocket = socket;
        this.warmRelease = () => {
          socket.off('error', drop);
          socket.off('end', drop);
          socket.off('close', drop);
        };
        socket.resume();
        resolve();
      });
    });
  }

  /** Starts a series of attempts for `delivery` (its first, or a redelivery) and returns at once. */
  deliver(delivery: Delivery): void {
    if (this.closed) return;
    const { ready } = this.config;
    if (ready !== undefined) {
      void ready(delivery).then(
        (go) => {
          if (go) this.send(delivery);
        },
        () => {},
      );
      return;
    }
    this.send(delivery);
  }

  private send(delivery: Delivery): void {
    if (this.closed) return;
    const series = delivery.redeliveries;
    let current = 1;
    const run = async (attempt: number): Promise<void> => {
      current = attempt;
      if (!this.takeSlot()) {
        if (this.waiting.length >= this.config.maxQueued) {
          this.overflow(delivery, attempt, series);
          return;
        }
        await new Promise<void>((resolve) => this.waiting.push(resolve));
        if (this.closed) return;
      }
      let result: AttemptResult;
      const answered = this.config.sending?.(delivery);
      try {
        result = await this.attempt(delivery);
      } finally {
        answered?.();
        this.releaseSlot();
      }
      if (this.closed) return;
      const delivered = result.status !== null && result.status >= 200 && result.status < 300;
      const last = attempt > this.config.retries;
      const retryInMs = delivered || last ? null : (result.retryAfterMs ?? this.backoff(attempt));
      const outcome = delivered ? 'delivered' : last ? 'failed' : 'retrying';
      this.record(delivery, {
        attempt,
        redelivery: series,
        url: this.config.url,
        status: result.status,
        error: result.error,
        latencyMs: result.latencyMs,
        body: result.body,
        bodyTruncated: result.bodyTruncated,
        outcome,
        retryInMs,
        retryAfter: retryInMs !== null && result.retryAfterMs !== null,
      });
      this.log(
        `webhook ${delivery.deliveryId} attempt ${attempt}${series > 0 ? ` (redelivery ${series})` : ''} -> ` +
          `${result.status ?? result.error ?? 'no answer'} in ${result.latencyMs} ms: ${outcome}` +
          (retryInMs !== null ? `, next in ${retryInMs} ms${result.retryAfterMs !== null ? ' (Retry-After)' : ''}` : ''),
      );
      if (retryInMs === null) return;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void run(attempt + 1);
      }, retryInMs);
      this.timers.add(timer);
    };
    void run(1).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      this.log(`webhook ${delivery.deliveryId} stopped: ${reason}`);
      // Recorded as the series' last attempt, so that the delivery can be sent again.
      try {
        this.record(delivery, failedAttempt(this.config.url, current, series, `stopped: ${reason}`));
      } catch {
        // The record itself failed: the log line says what happened.
      }
    });
  }

  /** Attempts in flight and attempts waiting for a slot, for the sandbox's inspection. */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.active, queued: this.waiting.length };
  }

  private takeSlot(): boolean {
    if (this.active >= this.config.maxConcurrent) return false;
    this.active++;
    return true;
  }

  /** An attempt ended: its slot goes to the longest waiting attempt, if any. */
  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.active--;
    else next();
  }

  /** An attempt that found the queue full: recorded as failed, with the reason, and not sent. */
  private overflow(delivery: Delivery, attempt: number, series: number): void {
    const error =
      `not sent: ${this.active} attempts to the bot are in flight and ${this.waiting.length} are waiting, ` +
      `the most the sandbox holds; send it again with POST /_sandbox/deliveries/${delivery.deliveryId}/redeliver`;
    this.record(delivery, failedAttempt(this.config.url, attempt, series, error));
    this.log(`webhook ${delivery.deliveryId} attempt ${attempt}${series > 0 ? ` (redelivery ${series})` : ''} -> ${error}: failed`);
  }

  /** Stops every attempt in flight and every retry waiting; nothing more is recorded. */
  close(): void {
    this.closed = true;
    // Waiting attempts see `closed` and end without sending.
    for (const wake of this.waiting.splice(0)) wake();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const request of this.requests) request.destroy(new Error('the sandbox is stopping'));
    this.requests.clear();
    this.warmSocket?.destroy();
    this.warmSocket = undefined;
    this.agent.destroy();
  }

  private backoff(attempt: number): number {
    return Math.min(this.config.backoffMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  }

  /** The headers every attempt carries besides the webhook-* ones. */
  baseHeaders(tenant: string): Record<string, string> {
    return { 'Content-Type': 'application/json', 'User-Agent': this.config.userAgent, 'X-Tenant-Name': tenant };
  }

  /**
   * One POST of exactly these headers and body to the bot, with the time limit of an attempt, not
   * retried and not recorded: the crafted deliveries of src/sandbox/probe.ts, which record it themselves.
   */
  probe(headers: Record<string, string>, body: Buffer): Promise<AttemptResult> {
    if (this.closed) {
      return Promise.resolve({
        status: null,
        error: 'the sandbox is stopping',
        latencyMs: 0,
        body: '',
        bodyTruncated: false,
        retryAfterMs: null,
      });
    }
    return this.post(headers, body);
  }

  /** One signed POST; never throws: a failure is a result with `error`. */
  private attempt(delivery: Delivery): Promise<AttemptResult> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      ...this.baseHeaders(delivery.tenant),
      'webhook-id': delivery.deliveryId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature(this.key, delivery.deliveryId, timestamp, delivery.body),
    };
    return this.post(headers, delivery.body);
  }

  private post(given: Record<string, string>, body: Buffer): Promise<AttemptResult> {
    const headers = { ...given, 'Content-Length': String(body.length) };
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      let latencyMs: number | null = null;
      const send = this.config.url.startsWith('https:') ? httpsRequest : httpRequest;
      const req = send({ ...this.target, method: 'POST', headers, agent: this.agent });
      this.requests.add(req);
      const finish = (result: Omit<AttemptResult, 'latencyMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.requests.delete(req);
        resolve({ ...result, latencyMs: latencyMs ?? elapsed() });
      };
      const fail = (error: string) => finish({ status: null, error, body: '', bodyTruncated: false, retryAfterMs: null });
      const timer = setTimeout(() => {
        fail(`timeout after ${this.config.timeoutMs} ms`);
        req.destroy();
      }, this.config.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => fail(error.code ?? error.message));
      req.on('response', (res: IncomingMessage) => {
        latencyMs = elapsed();
        const status = res.statusCode ?? 0;
        readKept(
          res,
          () => settled,
          (body, truncated) => {
            let error: string | null = null;
            if (status >= 300 && status < 400) {
              const location = res.headers.location;
              error = `redirect${location ? ` to ${location}` : ''} not followed`;
            }
            finish({ status, error, body, bodyTruncated: truncated, retryAfterMs: this.retryAfter(res.headers['retry-after']) });
          },
        );
      });
      req.end(body);
    });
  }

  /** Retry-After as seconds or an HTTP date, in milliseconds, bounded; null when absent or unreadable. */
  private retryAfter(header: string | undefined): number | null {
    if (header === undefined) return null;
    const text = header.trim();
    let ms: number;
    if (/^\d+$/.test(text)) ms = Number(text) * 1000;
    else {
      const date = Date.parse(text);
      if (Number.isNaN(date)) return null;
      ms = Math.max(0, date - Date.now());
    }
    return Math.min(ms, this.config.maxRetryAfterMs);
  }
}

/** An attempt that was not sent, or not finished: failed, with the reason, and not retried. */
function failedAttempt(url: string, attempt: number, series: number, error: string): AttemptRecord {
  return {
    attempt,
    redelivery: series,
    url,
    status: null,
    error,
    latencyMs: 0,
    body: '',
    bodyTruncated: false,
    outcome: 'failed',
    retryInMs: null,
    retryAfter: false,
  };
}

/**
 * Reads at most KEPT_BODY_BYTES of an answer and calls `done` with them (whether more was cut off)
 * when the answer ends, fails, or passes the limit: then the rest of a large answer is never taken
 * off the socket. `done` may be called more than once; chunks that come once `settled` are ignored.
 */
function readKept(res: IncomingMessage, settled: () => boolean, done: (body: string, truncated: boolean) => void): void {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  const end = () => done(Buffer.concat(chunks).toString('utf8'), truncated);
  res.on('data', (chunk: Buffer) => {
    if (settled()) return;
    const room = KEPT_BODY_BYTES - kept;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      kept += room;
      truncated = true;
      end();
      // Read no more: the rest of a large answer is never taken off the socket.
      res.destroy();
      return;
    }
    chunks.push(chunk);
    kept += chunk.length;
  });
  res.on('end', end);
  res.on('error', () => end());
  res.on('aborted', () => end());
}
