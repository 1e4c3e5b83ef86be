import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import {
  backoffMs,
  MAX_ASKED_WAITS,
  MAX_PACED_WAITS,
  parseRetryAfter,
  sendRequest,
  type HttpRequest,
  type HttpResponse,
  type RetryInfo,
} from '../../src/http/client.js';
import { Throttle } from '../../src/http/throttle.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function request(url: string, extra: Partial<HttpRequest> = {}): HttpRequest {
  return {
    method: 'POST',
    url: `${url}/api/v1/chatbot`,
    headers: { 'Content-Type': 'application/json' },
    body: '{"text":"hi","answerId":"a-1"}',
    timeoutMs: 5_000,
    retries: 2,
    retryable: true,
    ...extra,
  };
}

describe('parseRetryAfter', () => {
  it.each([
    ['2', 2000],
    ['0', 0],
    ['1.5', 1500],
    [undefined, null],
    ['', null],
    ['soon', null],
  ])('reads %j as %j ms', (value, expected) => {
    expect(parseRetryAfter(value)).toBe(expected);
  });

  it('reads an HTTP date as the time left until it', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
  });
});

describe('backoffMs', () => {
  it.each([
    [1, 240, 360],
    [2, 480, 720],
    [3, 960, 1440],
    [10, 6400, 9600],
  ])('waits between %i-th bounds %i and %i ms', (attempt, low, high) => {
    expect(backoffMs(attempt, () => 0)).toBe(low);
    expect(backoffMs(attempt, () => 1)).toBe(high);
  });
});

describe('sendRequest', () => {
  it('repeats a 503 and sends the very same bytes the second time', async () => {
    server = await startRecordingServer([{ status: 503 }, { status: 200 }]);
    const response = await sendRequest(request(server.url));
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(2);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.equals(server.requests[0]!.body)).toBe(true);
  });

  // The waits core plans are read from onRetry, never timed: each Retry-After below asks for a wait
  // that core's own backoff (240 to 360 ms before the second attempt) cannot produce.
  it.each([
    ['0 seconds', '0', 0],
    ['an HTTP date already past', 'Thu, 01 Jan 2026 00:00:00 GMT', 0],
  ])('honours a Retry-After of %s on a 429: no wait, then the second attempt', async (_case, retryAfter, expected) => {
    server = await startRecordingServer([{ status: 429, headers: { 'Retry-After': retryAfter } }, { status: 200 }]);
    const waits: number[] = [];
    const response = await sendRequest(request(server.url, { onRetry: (info) => waits.push(info.delayMs) }));
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(2);
    expect(waits).toEqual([expected]);
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['30 seconds', '30', [30_000, 30_000]],
    // A date has whole seconds, and the clock moves on before core reads it: about 45 s, far above any backoff.
    ['an HTTP date 45 seconds ahead', () => new Date(Date.now() + 45_000).toUTCString(), [30_000, 45_000]],
  ])('honours a Retry-After of %s on a 503: plans that wait before the next attempt', async (_case, retryAfter, [low, high]) => {
    const value = typeof retryAfter === 'function' ? retryAfter() : retryAfter;
    server = await startRecordingServer([{ status: 503, headers: { 'Retry-After': value } }, { status: 200 }]);
    // The wait is not sat through: as soon as it is planned, the retries are called off, as Ctrl-C does.
    const stop = new AbortController();
    const waits: number[] = [];
    const response = await sendRequest(
      request(server.url, {
        retrySignal: stop.signal,
        onRetry: (info) => {
          waits.push(info.delayMs);
          stop.abort();
        },
      }),
    );
    expect(response.status).toBe(503);
    expect(response.attempts).toBe(1);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(low!);
    expect(waits[0]).toBeLessThanOrEqual(high!);
    expect(server.requests).toHaveLength(1);
  });

  it('does not repeat when Retry-After asks for more than a minute, and says why', async () => {
    server = await startRecordingServer([{ status: 429, headers: { 'Retry-After': '61' } }, { status: 200 }]);
    const reasons: string[] = [];
    const response = await sendRequest(
      request(server.url, { onNoRetry: (reason) => reasons.push(reason), onRetry: () => reasons.push('repeated') }),
    );
    expect(response.status).toBe(429);
    expect(response.attempts).toBe(1);
    expect(reasons).toEqual(['not repeated: the service asked to wait 61 s (Retry-After), more than the 60 s core waits']);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['a 429', 429],
    ['a 503', 503],
  ])('waits as %s with Retry-After asks even with no retries left: such waits are not retries', async (_name, status) => {
    server = await startRecordingServer([{ status, headers: { 'Retry-After': '0' } }, { status: 200 }]);
    const infos: RetryInfo[] = [];
    const response = await sendRequest(request(server.url, { retries: 0, onRetry: (info) => infos.push(info) }));
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(2);
    expect(infos).toEqual([{ attempt: 2, delayMs: 0, reason: `HTTP ${status}`, asked: true, paced: false, counted: false, retry: 0 }]);
  });

  it('keeps its retries for other failures after waits the service asked for', async () => {
    server = await startRecordingServer([
      { status: 429, headers: { 'Retry-After': '0' } },
      { status: 503, headers: { 'Retry-After': '0' } },
      { status: 500 },
      { status: 200 },
    ]);
    const response = await sendRequest(request(server.url, { retries: 1 }));
    expect(response.status).toBe(200);
    expect(server.requests).toHaveLength(4);
  });

  it(`stops after ${MAX_ASKED_WAITS} waits asked for by a service that never stops asking, and says why`, async () => {
    server = await startRecordingServer([{ status: 429, headers: { 'Retry-After': '0' } }]);
    const reasons: string[] = [];
    const response = await sendRequest(request(server.url, { retries: 2, onNoRetry: (reason) => reasons.push(reason) }));
    expect(response.status).toBe(429);
    expect(response.attempts).toBe(MAX_ASKED_WAITS + 1);
    expect(server.requests).toHaveLength(MAX_ASKED_WAITS + 1);
    expect(reasons).toEqual([`not repeated: the service asked to wait ${MAX_ASKED_WAITS} times (Retry-After) and still refuses`]);
  });

  it('repeats a 503 without Retry-After with its own backoff, taking one of the retries', async () => {
    server = await startRecordingServer([{ status: 503 }, { status: 503 }]);
    const infos: RetryInfo[] = [];
    const response = await sendRequest(request(server.url, { retries: 1, onRetry: (info) => infos.push(info) }));
    expect(response.status).toBe(503);
    expect(response.attempts).toBe(2);
    expect(infos).toHaveLength(1);
    expect(infos[0]).toMatchObject({ attempt: 2, reason: 'HTTP 503', asked: false, paced: false, counted: true, retry: 1 });
    expect(infos[0]!.delayMs).toBeGreaterThanOrEqual(240);
    expect(infos[0]!.delayMs).toBeLessThanOrEqual(360);
  });

  it('never makes more than retries + 1 attempts', async () => {
    server = await startRecordingServer([{ status: 500 }]);
    const response = await sendRequest(request(server.url, { retries: 2 }));
    expect(response.status).toBe(500);
    expect(server.requests).toHaveLength(3);
  });

  it('does not repeat a request that is not retryable', async () => {
    server = await startRecordingServer([{ status: 503 }, { status: 200 }]);
    const response = await sendRequest(request(server.url, { retryable: false }));
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(1);
  });

  it.each([400, 401, 404, 409])('does not repeat a %i', async (status) => {
    server = await startRecordingServer([{ status }]);
    await sendRequest(request(server.url));
    expect(server.requests).toHaveLength(1);
  });

  it('repeats after the connection is reset and succeeds', async () => {
    server = await startRecordingServer([{ reset: true }, { status: 200 }]);
    const response = await sendRequest(request(server.url));
    expect(response.status).toBe(200);
    expect(server.requests).toHaveLength(2);
  });

  it('reads X-Request-Id from the answer', async () => {
    server = await startRecordingServer([{ status: 200, headers: { 'X-Request-Id': 'rid-42' } }]);
    const response = await sendRequest(request(server.url));
    expect(response.requestId).toBe('rid-42');
  });

  it('keeps at most maxBodyBytes of a large body and marks it cut', async () => {
    server = await startRecordingServer([{ status: 500, body: 'x'.repeat(1_000_000) }]);
    const response = await sendRequest(request(server.url, { retries: 0, maxBodyBytes: 4096 }));
    expect(response.body.length).toBe(4096);
    expect(response.truncated).toBe(true);
  });

  it('fails with ECONNREFUSED when nothing listens', async () => {
    server = await startRecordingServer();
    const url = server.url;
    await server.close();
    server = undefined;
    const error = await sendRequest(request(url, { retries: 0 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
    expect((error as NetworkError).exitCode).toBe(6);
  });

  it('fails with ETIMEDOUT when the answer is later than the time limit', async () => {
    server = await startRecordingServer([{ hang: true }]);
    const error = await sendRequest(request(server.url, { retries: 0, timeoutMs: 200 })).catch((e: unknown) => e);
    expect((error as NetworkError).code).toBe('ETIMEDOUT');
    expect((error as NetworkError).message).toMatch(/within 200ms/);
  });
});

describe('sendRequest: a 429 without Retry-After (docs/security.md, "Rate limits")', () => {
  // The backoff is shortened where the test is not about it: these tests count attempts and read
  // the waits core plans, they never time them.
  const quick = { backoff: () => 1 };
  const bodyOf = (id: string) => `{"text":"hi","answerId":"${id}"}`;
  const idOf = (text: string) => (JSON.parse(text) as { answerId: string }).answerId;
  /**
   * Another request of the same run, queued at once with the rank of a request older than any
   * here, so that it goes before the repeat about to ask (src/http/throttle.ts, the order of slots).
   */
  const another = (url: string, throttle: Throttle, id: string): Promise<HttpResponse> =>
    throttle.acquire(undefined, -1).then((slot) => sendRequest(request(url, { ...quick, throttle, slot: slot!, body: bodyOf(id) })));

  it.each([0, 1, 2])(
    'repeats a lone request that is always answered 429 exactly retries (%i) times, each repeat taking one, then fails',
    async (retries) => {
      server = await startRecordingServer([{ status: 429 }]);
      const infos: RetryInfo[] = [];
      const response = await sendRequest(request(server.url, { ...quick, retries, onRetry: (info) => infos.push(info) }));
      expect(response.status).toBe(429);
      expect(response.attempts).toBe(retries + 1);
      expect(server.requests).toHaveLength(retries + 1);
      expect(infos.map(({ paced, counted, retry }) => ({ paced, counted, retry }))).toEqual(
        Array.from({ length: retries }, (_, i) => ({ paced: true, counted: true, retry: i + 1 })),
      );
    },
  );

  it('plans a backoff that doubles while nothing gets through: about 300 ms, then 600 ms', async () => {
    server = await startRecordingServer([{ status: 429 }, { status: 429 }, { status: 200 }]);
    const waits: number[] = [];
    const response = await sendRequest(request(server.url, { retries: 2, onRetry: (info) => waits.push(info.delayMs) }));
    expect(response.status).toBe(200);
    expect(waits).toHaveLength(2);
    expect(waits[0]).toBeGreaterThanOrEqual(240);
    expect(waits[0]).toBeLessThanOrEqual(360);
    expect(waits[1]).toBeGreaterThanOrEqual(480);
    expect(waits[1]).toBeLessThanOrEqual(720);
  });

  it('uses none of the retries while other requests of the run are answered: with retries 0 it is still repeated', async () => {
    // "a" is refused twice; before its first attempt and between its attempts, another request of
    // the run is answered. One request at a time, so the order is known.
    server = await startRecordingServer((r) => (idOf(r.text) === 'a' && r.attempt <= 2 ? { status: 429 } : { status: 200 }));
    const url = server.url;
    const throttle = new Throttle(1);
    await sendRequest(request(url, { throttle, body: bodyOf('b0') }));
    const others: Promise<HttpResponse>[] = [];
    const infos: RetryInfo[] = [];
    const response = await sendRequest(
      request(url, {
        ...quick,
        throttle,
        retries: 0,
        body: bodyOf('a'),
        onRetry: (info) => {
          infos.push(info);
          others.push(another(url, throttle, `b${infos.length}`));
        },
      }),
    );
    expect((await Promise.all(others)).map((r) => r.status)).toEqual([200, 200]);
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(3);
    expect(infos.map(({ paced, counted, retry }) => ({ paced, counted, retry }))).toEqual([
      { paced: true, counted: false, retry: 0 },
      { paced: true, counted: false, retry: 0 },
    ]);
    expect(server.requests.map((r) => idOf(r.text))).toEqual(['b0', 'a', 'b1', 'a', 'b2', 'a']);
  });

  it(`stops after ${MAX_PACED_WAITS} repeats in a row of a request refused while the others get through, and says why`, async () => {
    server = await startRecordingServer((r) => (idOf(r.text) === 'a' ? { status: 429 } : { status: 200 }));
    const url = server.url;
    const throttle = new Throttle(1);
    const others: Promise<HttpResponse>[] = [];
    const infos: RetryInfo[] = [];
    const reasons: string[] = [];
    const response = await sendRequest(
      request(url, {
        ...quick,
        throttle,
        body: bodyOf('a'),
        onRetry: (info) => {
          infos.push(info);
          others.push(another(url, throttle, `b${infos.length}`));
        },
        onNoRetry: (reason) => reasons.push(reason),
      }),
    );
    await Promise.all(others);
    expect(response.status).toBe(429);
    expect(response.attempts).toBe(MAX_PACED_WAITS + 1);
    // The first 429 came before anything of the run was answered: it took one of the two retries.
    expect(infos.filter((info) => info.counted)).toHaveLength(1);
    expect(reasons).toEqual([`not repeated: the service answered 429 ${MAX_PACED_WAITS + 1} times in a row, with no Retry-After`]);
  });

  it('pauses the whole run: a request of the run that starts during the pause is sent only once it ends', async () => {
    server = await startRecordingServer((r) => (idOf(r.text) === 'a' && r.attempt === 1 ? { status: 429 } : { status: 200 }));
    const url = server.url;
    const throttle = new Throttle(4);
    let other: Promise<HttpResponse> | undefined;
    let planned = 0;
    const response = await sendRequest(
      request(url, {
        backoff: () => 100,
        throttle,
        body: bodyOf('a'),
        onRetry: (info) => {
          planned = info.delayMs;
          other = sendRequest(request(url, { throttle, body: bodyOf('b') }));
        },
      }),
    );
    expect(response.status).toBe(200);
    expect((await other!).status).toBe(200);
    expect(planned).toBe(100);
    const [first, ...after] = server.requests;
    expect(after.map((r) => idOf(r.text)).sort()).toEqual(['a', 'b']);
    // The server's own record of arrivals, as the batch test of Retry-After reads it: "b" arrived
    // no sooner than the pause after the refusal of "a" allowed (a slow machine only widens the gap).
    for (const r of after) expect(r.at - first!.at).toBeGreaterThanOrEqual(planned);
  });

  it("pauses for the run's step when it is longer than the request's own", async () => {
    server = await startRecordingServer([{ status: 429 }, { status: 200 }]);
    const throttle = new Throttle(1);
    // The run so far: one answer, then a 429 without Retry-After (step 1), then another after a
    // pause that let nothing through (step 2). Each attempt starts after the previous answer.
    for (const outcome of ['answered', 'slow-down', 'slow-down'] as const) {
      const slot = await throttle.acquire();
      await new Promise((resolve) => setTimeout(resolve, 2));
      slot!.release(outcome);
    }
    expect(throttle.step).toBe(2);
    const infos: RetryInfo[] = [];
    const response = await sendRequest(
      request(server.url, { backoff: (step) => step * 10, throttle, onRetry: (info) => infos.push(info) }),
    );
    expect(response.status).toBe(200);
    // Its own step is 1 (its first 429); the run's, 2.
    expect(infos.map((info) => info.delayMs)).toEqual([20]);
  });

  it('keeps a 503 without Retry-After an ordinary retry, even while the run gets through', async () => {
    server = await startRecordingServer((r) => (idOf(r.text) === 'a' ? { status: 503 } : { status: 200 }));
    const url = server.url;
    const throttle = new Throttle(1);
    await sendRequest(request(url, { throttle, body: bodyOf('b0') }));
    const infos: RetryInfo[] = [];
    const response = await sendRequest(
      request(url, { ...quick, throttle, retries: 1, body: bodyOf('a'), onRetry: (info) => infos.push(info) }),
    );
    expect(response.status).toBe(503);
    expect(response.attempts).toBe(2);
    expect(infos.map(({ paced, counted, retry }) => ({ paced, counted, retry }))).toEqual([{ paced: false, counted: true, retry: 1 }]);
    expect(throttle.pausedFor).toBe(0);
  });
});
