import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import { backoffMs, MAX_ASKED_WAITS, parseRetryAfter, sendRequest, type HttpRequest, type RetryInfo } from '../../src/http/client.js';
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
    expect(infos).toEqual([{ attempt: 2, delayMs: 0, reason: `HTTP ${status}`, asked: true, retry: 0 }]);
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
    expect(infos[0]).toMatchObject({ attempt: 2, reason: 'HTTP 503', asked: false, retry: 1 });
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
