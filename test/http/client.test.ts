import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors.js';
import { backoffMs, parseRetryAfter, sendRequest, type HttpRequest } from '../../src/http/client.js';
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

  it('honours Retry-After on a 429', async () => {
    server = await startRecordingServer([{ status: 429, headers: { 'Retry-After': '0' } }, { status: 200 }]);
    const response = await sendRequest(request(server.url));
    expect(response.status).toBe(200);
    expect(response.attempts).toBe(2);
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
    server = await startRecordingServer([{ status: 200, delayMs: 2_000 }]);
    const error = await sendRequest(request(server.url, { retries: 0, timeoutMs: 200 })).catch((e: unknown) => e);
    expect((error as NetworkError).code).toBe('ETIMEDOUT');
    expect((error as NetworkError).message).toMatch(/within 200 ms/);
  });
});
