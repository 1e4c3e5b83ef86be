import { afterEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/** Edges of one request: retries said out loud, Ctrl-C while waiting, redirects, odd flag values. */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const envFor = (url: string, extra: Record<string, string> = {}) =>
  baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'acme', CORE_TOKEN: 'tok-edges-1', ...extra });

describe('core reply: retries on stderr', () => {
  it('says when it tries again, and how long it waits', async () => {
    server = await startRecordingServer([{ status: 503 }, { status: 200 }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^HTTP 503: trying again in \d+ ms \(attempt 2 of 3\)$/m);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('says why it does not try again when Retry-After asks for more than a minute', async () => {
    server = await startRecordingServer([{ status: 429, headers: { 'Retry-After': '3600' } }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1'], { env: envFor(server.url) });
    expect(result.code).toBe(4);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain('not repeated: the service asked to wait 3600 s (Retry-After)');
  });

  it('exits 130, not 5, when Ctrl-C comes while it waits to try again', async () => {
    const controller = new AbortController();
    server = await startRecordingServer([{ status: 503, headers: { 'Retry-After': '10' } }]);
    // Ctrl-C once core has said it waits to try again.
    const onStderr = (text: string) => {
      if (text.includes('HTTP 503: trying again in 10.0 s')) controller.abort('SIGINT');
    };
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--json'], {
      env: envFor(server.url),
      signal: controller.signal,
      onStderr,
    });
    expect(result.code).toBe(130);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain('interrupted: no further attempt was made');
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status: 503 });
  });
});

describe('core reply: redirects', () => {
  it('does not follow a redirect, and says where it pointed', async () => {
    server = await startRecordingServer([{ status: 302, headers: { Location: 'https://new.example.com/api/v1/chatbot' } }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(4);
    expect(server.requests).toHaveLength(1);
    const doc = JSON.parse(result.stdout) as { error: { message: string } };
    expect(doc.error.message).toContain('redirected to https://new.example.com/api/v1/chatbot');
  });
});

describe('core reply: flag values', () => {
  it('reports a negative identifier as the number it is', async () => {
    const result = await runInProcess(['reply', '-t', 'x', '--core-client-id=-1', '--dry-run'], { env: envFor('http://127.0.0.1:9') });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('coreClientId: expected an integer from 0 to 9,223,372,036,854,775,807, got -1');
  });

  it('writes $CORE_TOKEN in --curl even when no token is configured yet', async () => {
    const env = baseEnv({ CORE_BASE_URL: 'https://chat.example.com', CORE_TENANT: 'acme' });
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--curl'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"Authorization: Bearer $CORE_TOKEN"');
    expect(result.stderr).toContain('not configured: token');
  });
});
