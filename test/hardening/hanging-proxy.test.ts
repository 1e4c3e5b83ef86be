import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, killStillRunning, runInProcess, startBuilt } from '../helpers/run.js';
import { jsonLines, ndjson, readJsonLines, reason, tempFile } from '../reason/helpers.js';
import { TEST_HOST, startHangingProxy, type HangingProxy } from './helpers.js';

/**
 * A proxy that accepts the connection and never answers CONNECT: the one place where a request
 * waits with no socket of its own, which a time limit on the socket never sees. --timeout bounds
 * each attempt (main() in-process, as the binary runs it), and a single SIGTERM ends the run at
 * once, with every reason of a batch in the report (the built binary, as a user runs it).
 */

const TOKEN = 'hanging-proxy-token-4d1c';
const codes = (n: number) => Array.from({ length: n }, (_, i) => `H${String(i + 1).padStart(2, '0')}`);

let proxy: HangingProxy | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  killStillRunning();
  await proxy?.close();
  proxy = undefined;
});

function env(): Record<string, string | undefined> {
  return baseEnv({ CORE_BASE_URL: `https://${TEST_HOST}`, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, HTTPS_PROXY: proxy!.url });
}

async function start(): Promise<HangingProxy> {
  proxy = await startHangingProxy();
  return proxy;
}

function reportPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'core-hanging-')), 'report.ndjson');
}

describe('a proxy that never answers CONNECT', () => {
  it('ends each attempt at --timeout and gives up after the retries: exit 6, ETIMEDOUT, 3 attempts', async () => {
    const proxy = await start();
    const run = await runInProcess(['reply', '--core-client-id', '42', '-t', 'Hello', '--timeout', '200ms', '--json'], { env: env() });
    expect(run.code).toBe(6);
    const [result] = jsonLines(run.stdout);
    expect(result).toMatchObject({ ok: false, status: null, error: { code: 'ETIMEDOUT' }, attempts: 3 });
    expect(proxy.connects).toEqual(Array(3).fill(`CONNECT ${TEST_HOST}:443 HTTP/1.1`));
  });

  it('ends a batch at --timeout too, with every reason in the report: exit 6', async () => {
    const proxy = await start();
    const list = codes(3);
    const file = tempFile('three.ndjson', ndjson(list.map((code) => reason(code))));
    const report = reportPath();
    const run = await runInProcess(['reason', 'update', '-f', file, '--timeout', '200ms', '--concurrency', '2', '--report', report], {
      env: env(),
    });
    expect(run.code).toBe(6);
    const lines = readJsonLines(report);
    expect(lines.map((l) => l.code).sort()).toEqual(list);
    for (const line of lines) expect(line).toMatchObject({ status: null, error: { code: 'ETIMEDOUT' }, attempts: 3 });
    expect(run.stdout).toMatch(
      /✗ no answer {2}H01 {2}no answer from api\.example\.test \(through the proxy http:\/\/127\.0\.0\.1:\d+\) within 200ms \(ETIMEDOUT\) {2}\(3 attempts\)/,
    );
  });

  it('ends a single request at the first SIGTERM: exit 130, the outcome unknown', async () => {
    const proxy = await start();
    const run = startBuilt(['reply', '--core-client-id', '42', '-t', 'Hello', '--timeout', '10m', '--json'], { env: env() });
    await proxy.connected(1);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(130);
    expect(jsonLines(run.stdout())[0]).toMatchObject({ ok: false, status: null, error: { code: 'EABORTED' } });
  });

  it('ends a batch at the first SIGTERM, with every reason in the report: those in flight abandoned, the rest skipped', async () => {
    const proxy = await start();
    const list = codes(10);
    const file = tempFile('ten.ndjson', ndjson(list.map((code) => reason(code))));
    const report = reportPath();
    const run = startBuilt(['reason', 'update', '-f', file, '--timeout', '10m', '--concurrency', '2', '--report', report, '--json'], {
      env: env(),
    });
    await proxy.connected(2);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(130);
    const lines = readJsonLines(report);
    expect(lines.map((l) => l.code).sort()).toEqual(list);
    const abandoned = lines.filter((l) => (l.error as { code?: string } | null)?.code === 'EABORTED');
    expect(abandoned.map((l) => l.code).sort()).toEqual(list.slice(0, 2));
    expect(lines.filter((l) => l.skipped === true)).toHaveLength(8);
    expect(jsonLines(run.stdout())).toEqual(lines);
    expect(run.stderr()).toContain('SIGTERM received: no new requests; waiting up to 1 s for 2 in flight');
  });
});
