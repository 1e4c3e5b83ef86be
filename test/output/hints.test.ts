import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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
});
