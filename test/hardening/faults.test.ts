import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendRequest } from '../../src/http/client.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer, type ScriptedAnswer } from '../helpers/recording-server.js';
import { startRawServer } from './helpers.js';

/**
 * Server faults, from the sandbox's fault options (--fail, --latency) and from targeted loopback
 * servers: each ends with the exit code docs/exit-codes.md gives, replies are retried with the very same
 * body (so the same answerId), and greetings are retried only with --retry (docs/security.md,
 * "Retries").
 */

const TOKEN = 'faults-token-5521';
const reply = ['reply', '--core-client-id', '42', '-t', 'Your order has shipped.'];
const greet = ['greet', '--core-client-id', '42', '-t', 'Hello!'];

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function server(answer: (request: RecordedRequest, index: number) => ScriptedAnswer): Promise<RecordingServer> {
  const started = await startRecordingServer(answer);
  closers.push(() => started.close());
  return started;
}

interface LoggedSandbox extends Sandbox {
  /** The sandbox's log lines of API requests, each written once the request is answered or given up. */
  apiLog: string[];
  /** Resolves once the log holds `count` lines of API requests. */
  logged(count: number): Promise<void>;
}

async function sandbox(options: Parameters<typeof startSandbox>[0]): Promise<LoggedSandbox> {
  const apiLog: string[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const log = (line: string) => {
    if (!/ \/api\//.test(line)) return;
    apiLog.push(line);
    for (const waiter of waiters.filter((w) => apiLog.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const started = await startSandbox({ token: TOKEN, ...options, log });
  closers.push(() => started.close());
  const logged = (count: number) =>
    apiLog.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
  return Object.assign(started, { apiLog, logged });
}

/** The environment for `url`, with `retries` set through a profile (there is no flag for it). */
function envFor(url: string, retries?: number): { env: Record<string, string | undefined>; args: string[] } {
  const env = baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'sandbox', CORE_TOKEN: retries === undefined ? TOKEN : undefined });
  if (retries === undefined) return { env, args: [] };
  const dir = mkdtempSync(join(tmpdir(), 'core-faults-'));
  const config = join(dir, 'core.json');
  writeFileSync(config, JSON.stringify({ profiles: { p: { token: { env: 'T' }, retries } } }));
  return { env: { ...env, T: TOKEN }, args: ['--config', config] };
}

type Result = {
  ok: boolean;
  warning?: string;
  status: number | null;
  attempts?: number;
  answerId?: string;
  error: { code?: string; message: string } | null;
};

async function run(argv: string[], url: string, retries?: number): Promise<{ code: number; result: Result; stderr: string }> {
  const { env, args } = envFor(url, retries);
  const outcome = await runInProcess([...argv, ...args, '--json'], { env });
  return { code: outcome.code, result: JSON.parse(outcome.stdout) as Result, stderr: outcome.stderr };
}

describe('slow answers', () => {
  it('past the time limit: exit 6, ETIMEDOUT, each attempt cut off at the limit', async () => {
    const slow = await server(() => ({ hang: true }));
    const { code, result } = await run([...reply, '--timeout', '300ms'], slow.url, 1);
    expect(code).toBe(6);
    expect(result.error).toEqual({ code: 'ETIMEDOUT', message: `no answer from ${new URL(slow.url).host} within 300ms` });
    // The reply was retried once (retries: 1), and the result says so. On a busy machine an attempt
    // may be cut off before the server has read it, so how many arrived depends on the machine's
    // speed: those that did carry the same bytes.
    expect(result.attempts).toBe(2);
    expect(slow.requests.length).toBeLessThanOrEqual(2);
    for (const request of slow.requests) expect(request.body.equals(slow.requests[0]!.body)).toBe(true);
  });

  it("from the sandbox's --latency: a greeting times out once, without --retry", async () => {
    const sb = await sandbox({ latencyMs: 60_000 });
    const { code, result } = await run([...greet, '--timeout', '250ms'], sb.url);
    expect(code).toBe(6);
    expect(result.error?.code).toBe('ETIMEDOUT');
    // The sandbox logs a request once its latency is over; closing it cuts every latency short, so
    // it then logs each greeting it received, the first one included.
    await sb.close();
    await sb.logged(1);
    expect(sb.apiLog).toEqual([expect.stringMatching(/^POST \/api\/v1\/chatbot\/greet tenant=sandbox /)]);
    expect(sb.messages()).toHaveLength(1);
  });
});

describe('an error status whose body does not arrive whole', () => {
  // The time limit must pass after the status line has come and before the rest does: 3 s leaves a
  // busy machine time for the status line on loopback.
  it.each<[string, boolean, string]>([
    ['a 500 whose body never ends: exit 5, the status and the part that came', true, 'the rest did not arrive within 3s'],
    ['a 500 whose body is cut short: exit 5, the status and the part that came', false, 'the connection closed'],
  ])('%s', async (_name, thenHang, why) => {
    const slow = await server(() => ({ status: 500, partial: 'Internal error: the database', declaredLength: 4_000, thenHang }));
    const { code, result } = await run([...reply, '--timeout', '3s'], slow.url, 0);
    expect(code).toBe(5);
    expect(result).toMatchObject({ ok: false, status: 500, error: { message: `Internal error: the database… [cut: ${why}]` } });
  });
});

describe('a 200 OK whose body is cut short (headers and part of the body, then the socket destroyed)', () => {
  const partial: ScriptedAnswer = { partial: '{"message":"half an ans', declaredLength: 4_000 };
  const warning =
    'the body of the answer was cut short (the connection closed); its status came first, so the request was delivered: do not send it again';

  // The status line is the service's verdict: the request was delivered. Reported as "no answer",
  // it invited a second send, and a greeting greeted twice.
  it.each<[string, string[]]>([
    ['a reply', reply],
    ['a greeting', greet],
    ['a greeting with --retry', [...greet, '--retry']],
  ])('%s: delivered, exit 0, with a warning, and not sent again', async (_name, argv) => {
    const flaky = await server((_request, index) => (index === 0 ? partial : { status: 200 }));
    const { code, result } = await run(argv, flaky.url, 2);
    expect(code).toBe(0);
    expect(result).toMatchObject({ ok: true, status: 200, error: null, warning });
    expect(result.attempts).toBeUndefined();
    expect(flaky.requests).toHaveLength(1);
  });

  it('says so in the human view, beside the status', async () => {
    const flaky = await server(() => partial);
    const { env } = envFor(flaky.url);
    const outcome = await runInProcess(greet, { env });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toMatch(/^✓ 200 OK {2}POST \S+\/api\/v1\/chatbot\/greet\n {2}warning {5}the body of the answer was cut short/);
    expect(outcome.stdout + outcome.stderr).not.toMatch(/no answer|again with|--retry/);
  });

  it('a 200 OK whose body never ends: delivered too, the warning naming the time limit', async () => {
    const slow = await server(() => ({ ...partial, thenHang: true }));
    // 3 s: time for the status line on a busy machine, as above.
    const { code, result } = await run([...reply, '--timeout', '3s'], slow.url, 2);
    expect(code).toBe(0);
    expect(result.warning).toContain('the body of the answer was cut short (the rest did not arrive within 3s)');
    expect(slow.requests).toHaveLength(1);
  });
});

describe('429 with Retry-After', () => {
  it('waits as long as asked, repeats the request and succeeds', async () => {
    // The wait core plans is on stderr: one second as asked, not its own backoff of 240 to 360 ms.
    const limited = await server((_request, index) => (index === 0 ? { status: 429, headers: { 'Retry-After': '1' } } : { status: 200 }));
    const { code, result, stderr } = await run(reply, limited.url);
    expect(code).toBe(0);
    expect(result.attempts).toBe(2);
    expect(stderr).toContain('HTTP 429: trying again in 1.0 s, as Retry-After asks (attempt 2; such waits are not counted as retries)');
    expect(limited.requests[1]!.body.equals(limited.requests[0]!.body)).toBe(true);
  });

  it('gives up on a greeting at once without --retry: exit 4', async () => {
    const limited = await server(() => ({ status: 429, headers: { 'Retry-After': '1' } }));
    const { code, result } = await run(greet, limited.url);
    expect(code).toBe(4);
    expect(result.status).toBe(429);
    expect(limited.requests).toHaveLength(1);
  });
});

describe("bursts of 503 from the sandbox's --fail", () => {
  it('exhausts the retries on an endless burst (--fail 500:1): exit 5 after retries + 1 attempts, nothing delivered', async () => {
    // 500, not 503: the sandbox's 503 carries Retry-After, and such waits use none of the retries.
    const sb = await sandbox({ fail: { status: 500, rate: 1 } });
    const { code, result } = await run(reply, sb.url, 1);
    expect(code).toBe(5);
    expect(result).toMatchObject({ ok: false, status: 500, attempts: 2 });
    expect(sb.apiLog).toHaveLength(2);
    expect(sb.messages()).toHaveLength(0);
  });

  it('rides out a burst shorter than the retries, then delivers the reply once', async () => {
    // The sandbox fails a request when random() < rate: two failures, then normal service.
    let calls = 0;
    const sb = await sandbox({ fail: { status: 503, rate: 0.5 }, random: () => (calls++ < 2 ? 0 : 0.99) });
    const { code, result } = await run(reply, sb.url, 2);
    expect(code).toBe(0);
    expect(result.attempts).toBe(3);
    expect(sb.messages()).toHaveLength(1);
    expect(sb.messages()[0]!.answerId).toBe(result.answerId);
  });

  it('does not repeat a greeting in a burst without --retry: exit 5 after one attempt', async () => {
    const sb = await sandbox({ fail: { status: 503, rate: 1 } });
    const { code } = await run(greet, sb.url);
    expect(code).toBe(5);
    expect(sb.apiLog).toHaveLength(1);
  });

  it('answers normally without --fail', async () => {
    const sb = await sandbox({});
    const { code, result } = await run(reply, sb.url);
    expect(code).toBe(0);
    expect(result.attempts).toBeUndefined();
    expect(sb.messages()).toHaveLength(1);
  });
});

describe('a 10 MB error body', () => {
  const TEN_MB = 10 * 1024 * 1024;

  it('is shown cut to 2 KB: exit 5', async () => {
    const huge = await server(() => ({ status: 500, headers: { 'Content-Type': 'text/plain' }, body: Buffer.alloc(TEN_MB, 'e') }));
    const { code, result } = await run(greet, huge.url);
    expect(code).toBe(5);
    expect(result.error!.message).toMatch(/^e{2048}… \[cut\]$/);
  });

  it('is kept in memory only up to maxBodyBytes, the rest read and dropped', async () => {
    const huge = await server(() => ({ status: 500, body: Buffer.alloc(TEN_MB, 'e') }));
    const request = {
      method: 'POST' as const,
      url: `${huge.url}/api/v1/chatbot/greet`,
      headers: {},
      body: '{}',
      timeoutMs: 10_000,
      retries: 0,
      retryable: false,
    };
    const byDefault = await sendRequest(request);
    expect(byDefault.truncated).toBe(true);
    expect(Buffer.byteLength(byDefault.body)).toBe(64 * 1024);
    const small = await sendRequest({ ...request, maxBodyBytes: 1000 });
    expect(Buffer.byteLength(small.body)).toBe(1000);
    expect(small.truncated).toBe(true);
  });
});

describe('an answer that is not HTTP', () => {
  it.each([
    ['garbage bytes', Buffer.from('\u0000\u00ff\u0013garbage that is not HTTP\r\n\r\n')],
    ['an SSH banner', 'SSH-2.0-OpenSSH_9.6\r\n'],
    ['a status line without HTTP', 'HELLO 200 OK\r\n\r\n'],
  ])('%s: exit 6 with a clear message, not retried', async (_case, bytes) => {
    const raw = await startRawServer(bytes);
    closers.push(() => raw.close());
    const { code, result } = await run(reply, raw.url);
    expect(code).toBe(6);
    expect(result.error).toEqual({ code: 'EPROTO', message: `${new URL(raw.url).host} did not answer with HTTP` });
    expect(result.attempts).toBeUndefined();
  });

  it('headers larger than the 16 KB Node reads: exit 6, said as such, not "not HTTP"', async () => {
    const raw = await startRawServer(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`);
    closers.push(() => raw.close());
    const { code, result } = await run(reply, raw.url, 0);
    expect(code).toBe(6);
    expect(result.error).toEqual({
      code: 'EPROTO',
      message: `${new URL(raw.url).host} answered with headers larger than the 16 KB core reads`,
    });
  });

  it('a plain http server behind an https base URL: exit 6, said as such, not OpenSSL\'s "wrong version number"', async () => {
    const plain = await server(() => ({ status: 200 }));
    const url = plain.url.replace('http://', 'https://');
    const { code, result } = await run(reply, url, 0);
    expect(code).toBe(6);
    expect(result.error).toEqual({
      code: 'EPROTO',
      message: `${new URL(url).host} did not answer with TLS: it may serve plain http on that port (then use an http:// base URL)`,
    });
  });

  it('a server that closes without a word: exit 6, retried for a reply', async () => {
    const raw = await startRawServer('');
    closers.push(() => raw.close());
    const { code, result, stderr } = await run(reply, raw.url, 1);
    expect(code).toBe(6);
    expect(result.error?.message).toBe(`${new URL(raw.url).host} closed the connection before answering`);
    expect(result.attempts).toBe(2);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
