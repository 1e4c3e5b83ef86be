import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { failureHint } from '../../src/output/hints.js';
import type { RequestResult } from '../../src/output/result.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * Every HTTP failure ends with a hint of what to do next (docs/exit-codes.md, "Hints"), by status and
 * operation, on stderr, under the failure; with --json too, since stdout keeps only the document.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A folder with a profile pointing at the server, with one retry so a repeated failure is quick. */
function profile(url: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'core-hints-'));
  writeFileSync(
    join(dir, '.corerc.yaml'),
    `profiles:\n  p:\n    baseUrl: ${url}\n    tenant: acme\n    token: tok-hints-0123\n    retries: 1\n`,
  );
  return dir;
}

const body = (message: string) =>
  JSON.stringify({ timestamp: '2026-11-23T10:00:00.000Z', method: 'POST', uri: '/api/v1/chatbot', message });

/** A failed request's result, as the session makes it, with only the status set. */
function failure(status: number): RequestResult {
  return { ok: false, status, method: 'POST', url: 'http://127.0.0.1:1/api/v1/chatbot', requestId: null, durationMs: 1, error: null };
}

const reply = ['reply', '--core-client-id', '42', '-t', 'Hi'];
const greet = ['greet', '--core-client-id', '42', '-t', 'Hello'];
const reason = ['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch'];

describe('the hint under an HTTP failure', () => {
  it.each<[string, string[], number, Record<string, string>, number, RegExp]>([
    ['reply 401', reply, 401, {}, 4, /hint: the service did not accept the token: check it and where it came from with core config show/],
    ['reason 401', reason, 401, {}, 4, /hint: the service did not accept the integrator token \(else the token\)/],
    ['reply 403', reply, 403, {}, 4, /hint: the token was accepted but may not do this: check the tenant/],
    ['reason 403', reason, 403, {}, 4, /hint: .*updating reasons needs the INTEGRATOR permission/],
    ['reply 404', reply, 404, {}, 4, /hint: the service knows no such target: check the base URL/],
    ['reason 404', reason, 404, {}, 4, /hint: no inactivity reason has this code: the update changes existing reasons only/],
    ['reason 409', reason, 409, {}, 4, /hint: too many inactivity reasons would be active/],
    [
      'reply 409',
      reply,
      409,
      {},
      4,
      /hint: the question may already have a bot answer and the service rejects a second one \(strict mode\)/,
    ],
    ['greet 413', greet, 413, {}, 4, /hint: the request is larger than the service takes/],
    ['reply 415', reply, 415, {}, 4, /hint: the service did not take the body as JSON/],
    [
      'reply 429, repeated',
      reply,
      429,
      { 'Retry-After': '0' },
      4,
      /hint: the service limits the rate of requests; it was sent 11 times, waiting as Retry-After asked/,
    ],
    ['reason 429, repeated', reason, 429, { 'Retry-After': '0' }, 4, /hint: .*it was sent 11 times.*, or lower --concurrency/],
    [
      'reply 503, repeated',
      reply,
      503,
      {},
      5,
      /hint: the service failed \(HTTP 503\); it was sent 2 times; raise retries in the profile \(now 1\)/,
    ],
    [
      'greet 503, not repeated',
      greet,
      503,
      {},
      5,
      /hint: the service failed \(HTTP 503\); it was not repeated; a greeting is repeated only with --retry/,
    ],
    [
      'reply 301',
      reply,
      301,
      { Location: 'https://new.example.com/api/v1/chatbot' },
      4,
      /hint: set the base URL to the address the service points to/,
    ],
  ])('%s', async (_name, argv, status, headers, code, hint) => {
    server = await startRecordingServer([{ status, headers: { 'Content-Type': 'application/json', ...headers }, body: body('refused') }]);
    for (const json of [false, true]) {
      const result = await runInProcess(json ? [...argv, '--json'] : argv, { env: baseEnv(), cwd: profile(server.url) });
      expect(result.code).toBe(code);
      expect(result.stderr).toMatch(hint);
      if (json) expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status });
    }
  });

  it.each<[string, string[], number, RegExp]>([
    [
      'reply 400',
      reply,
      400,
      /hint: the service refused what the request holds \(HTTP 400\): its message says which field; check the payload against the rules core schema reply prints/,
    ],
    ['greet 400', greet, 400, /hint: the service refused what the request holds \(HTTP 400\).*core schema greet prints/],
    ['reason 400', reason, 400, /hint: the service refused what the request holds \(HTTP 400\).*core schema reason prints/],
    ['reply 422', reply, 422, /hint: the service refused what the request holds \(HTTP 422\).*core schema reply prints/],
    [
      'reply 405',
      reply,
      405,
      /hint: the service refused this method or endpoint \(HTTP 405\): check the base URL \(with any path prefix; core config show\) and that this version of core \(core --version\) speaks the service's API/,
    ],
    ['reason 410', reason, 410, /hint: the service refused this method or endpoint \(HTTP 410\): check the base URL/],
    ['reply 407', reply, 407, /hint: a proxy asked for credentials \(HTTP 407\): give them in the proxy URL/],
    [
      'greet 408',
      greet,
      408,
      /hint: the service stopped waiting for the request \(HTTP 408\): a slow network or proxy; it was not repeated: try again$/m,
    ],
    ['reply 431', reply, 431, /hint: the request's headers are larger than the service takes \(HTTP 431\): check the profile's headers/],
    [
      'reply 402, a 4xx with no hint of its own',
      reply,
      402,
      /hint: the service refused the request \(HTTP 402\): its message may say why; check the base URL and the tenant \(core config show\), and that this version of core \(core --version\) speaks the service's API/,
    ],
    ['greet 418, a 4xx with no hint of its own', greet, 418, /hint: the service refused the request \(HTTP 418\)/],
    ['reason 451, a 4xx with no hint of its own', reason, 451, /hint: the service refused the request \(HTTP 451\)/],
  ])('%s ends with a hint too', async (_name, argv, status, hint) => {
    server = await startRecordingServer([{ status, headers: { 'Content-Type': 'application/json' }, body: body('refused') }]);
    for (const json of [false, true]) {
      const result = await runInProcess(json ? [...argv, '--json'] : argv, { env: baseEnv(), cwd: profile(server.url) });
      expect(result.code).toBe(4);
      expect(result.stderr).toMatch(hint);
      expect(result.stderr.match(/^hint: /gm)).toHaveLength(1);
      if (json) expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status });
    }
  });

  it('names the API rather than core schema for a 400 to a path core has no schema for', () => {
    expect(failureHint(failure(400), { operation: 'api', retryable: false, retries: 2 })).toMatch(
      /^the service refused what the request holds \(HTTP 400\): its message says which field; check the body against the API \(docs\/api\.md\): core api does not check it$/,
    );
  });

  // Every status a service can answer with, class by class: none that is a failure goes without a hint.
  it.each<[string, number, number]>([
    ['1xx, never a final answer, yet', 100, 199],
    ['3xx', 300, 399],
    ['4xx', 400, 499],
    ['5xx', 500, 599],
    ['600 and above, which node:http passes on', 600, 999],
  ])('is given for every status of %s, for every operation', (_class, from, to) => {
    for (const operation of ['reply', 'greet', 'reason', 'api']) {
      for (let status = from; status <= to; status += 1) {
        for (const retryable of [false, true]) {
          const hint = failureHint(failure(status), { operation, retryable, retries: 2 });
          expect(hint, `${operation} ${status}`).toMatch(/\S/);
        }
      }
    }
  });

  it.each([100, 102, 199])('says what to check for the status %i, which core does not expect as a final answer', (status) => {
    expect(failureHint(failure(status), { operation: 'reply', retryable: true, retries: 2 })).toBe(
      `the service answered HTTP ${status}, which core does not expect as the end of a request: check the base URL (core config show), and whether a proxy or gateway answered instead of the service`,
    );
  });

  it('is not given for a success', async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const result = await runInProcess(reply, { env: baseEnv(), cwd: profile(server.url) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('200 OK');
    expect(result.stderr).not.toContain('hint:');
  });

  it('is given once per failing status under the summary of a batch', async () => {
    server = await startRecordingServer((request) =>
      request.body.toString().includes('"MISSING') ? { status: 404, body: body('no such reason') } : { status: 200 },
    );
    const dir = profile(server.url);
    const lines = ['LUNCH', 'MISSING_1', 'MISSING_2', 'BREAK'].map((code) =>
      JSON.stringify({ code, reasons: [{ locale: 'en', name: code }] }),
    );
    writeFileSync(join(dir, 'reasons.ndjson'), lines.join('\n'));
    const result = await runInProcess(['reason', 'update', '-f', 'reasons.ndjson'], { env: baseEnv(), cwd: dir });
    expect(result.code).toBe(4);
    expect(result.stderr.match(/^hint \(404\): no inactivity reason has this code/gm)).toHaveLength(1);
  });

  it('is given for every failing status under the summary of a batch, those without a hint of their own too', async () => {
    const statuses: Record<string, number> = { BAD: 400, GONE: 410, ODD: 418 };
    server = await startRecordingServer((request) => {
      const code = /"code":"(\w+)"/.exec(request.text)?.[1] ?? '';
      return { status: statuses[code] ?? 200, headers: { 'Content-Type': 'application/json' }, body: body('refused') };
    });
    const dir = profile(server.url);
    const lines = ['LUNCH', 'BAD', 'GONE', 'ODD'].map((code) => JSON.stringify({ code, reasons: [{ locale: 'en', name: code }] }));
    writeFileSync(join(dir, 'reasons.ndjson'), lines.join('\n'));
    const result = await runInProcess(['reason', 'update', '-f', 'reasons.ndjson'], { env: baseEnv(), cwd: dir });
    expect(result.code).toBe(4);
    expect(result.stderr.match(/^hint \(\d+\): .*$/gm)).toEqual([
      expect.stringMatching(/^hint \(400\): the service refused what the request holds \(HTTP 400\).*core schema reason prints$/),
      expect.stringMatching(/^hint \(410\): the service refused this method or endpoint \(HTTP 410\)/),
      expect.stringMatching(/^hint \(418\): the service refused the request \(HTTP 418\)/),
    ]);
  });

  const nginx502 =
    '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.27.0</center>\r\n</body>\r\n</html>\r\n';

  it.each<[string, string[], { status: number; headers?: Record<string, string>; body: string }, RegExp, RegExp]>([
    [
      'a reply 409 for a thread with agents says to release the thread, not strict mode',
      reply,
      {
        status: 409,
        body: body("the thread 's-1' is with agents since SWITCH_TO_HUMAN: a bot answer is not delivered until the thread is given back"),
      },
      /hint: the thread \(or the question\) is with agents, so a bot message is refused: release the thread to the bot first/,
      /strict mode/,
    ],
    [
      'a greeting 409 for a question passed to agents says to release the thread',
      greet,
      { status: 409, body: body("question 2 of thread 's-1' was passed to agents with UNCLEAR_QUESTION") },
      /hint: the thread \(or the question\) is with agents/,
      /conflicting with its state/,
    ],
    [
      'a reply 409 that names no agents keeps the strict-mode hint',
      reply,
      { status: 409, body: body('question already answered') },
      /hint: .*strict mode/,
      /release/,
    ],
    [
      'a 503 whose Retry-After waits stopped the send does not say to raise retries',
      reply,
      { status: 503, headers: { 'Retry-After': '0' }, body: body('maintenance') },
      /hint: the service is unavailable \(HTTP 503\) and asked to wait 0 s \(Retry-After\); it was sent 11 times, each after the wait it asked for: try again later/,
      /raise retries/,
    ],
    [
      'a 429 asking for a wait longer than core waits does not say it waited',
      reply,
      { status: 429, headers: { 'Retry-After': '120' }, body: body('slow down') },
      /hint: the service limits the rate of requests and asked to wait 120 s \(Retry-After\), longer than core waits, so it was not repeated/,
      /waiting as Retry-After asked/,
    ],
    [
      'a 429 without Retry-After, repeated, does not claim a Retry-After',
      reply,
      { status: 429, body: body('slow down') },
      /hint: the service limits the rate of requests; it was sent 2 times, waiting longer each time, as the service sent no Retry-After: try again later/,
      /waiting as Retry-After asked/,
    ],
    [
      'a 503 asking for a wait longer than core waits does not say to raise retries',
      reply,
      { status: 503, headers: { 'Retry-After': '120' }, body: body('maintenance') },
      /hint: the service is unavailable \(HTTP 503\) and asked to wait 120 s \(Retry-After\), longer than core waits, so it was not repeated/,
      /raise retries/,
    ],
  ])('%s', async (_name, argv, answer, hint, not) => {
    server = await startRecordingServer(() => ({ ...answer, headers: { 'Content-Type': 'application/json', ...answer.headers } }));
    for (const json of [false, true]) {
      const result = await runInProcess(json ? [...argv, '--json'] : argv, { env: baseEnv(), cwd: profile(server.url) });
      expect(result.stderr).toMatch(hint);
      expect(result.stderr).not.toMatch(not);
    }
  });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: 'with Content-Type text/html', headers: { 'Content-Type': 'text/html' } },
    { name: 'without a Content-Type', headers: {} },
  ])(
    "summarises an HTML error page (a proxy's 502) rather than printing it in the human view, $name; JSON keeps the raw body",
    async ({ headers }) => {
      server = await startRecordingServer(() => ({ status: 502, headers, body: nginx502 }));
      const human = await runInProcess(reply, { env: baseEnv(), cwd: profile(server.url) });
      expect(human.code).toBe(5);
      expect(human.stderr).toMatch(/^ {2}message {5}an HTML page from the server: 502 Bad Gateway$/m);
      expect(human.stderr).not.toMatch(/<html>|<center>|nginx/);
      const json = await runInProcess([...reply, '--json'], { env: baseEnv(), cwd: profile(server.url) });
      expect(JSON.parse(json.stdout)).toMatchObject({
        ok: false,
        status: 502,
        error: { message: nginx502 },
      });
    },
  );
});
