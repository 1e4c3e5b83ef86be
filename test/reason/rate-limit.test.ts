import { afterEach, describe, expect, it } from 'vitest';
import { startRateLimitedServer } from '../helpers/rate-limited-server.js';
import { gate, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { runInProcess } from '../helpers/run.js';
import { codeOf, envFor, errorAnswer, jsonLines, ndjson, readJsonLines, reason, tempFile } from './helpers.js';

/**
 * A batch against a service that limits its rate (docs/security.md, "Rate limits"): a 429 or 503
 * with Retry-After pauses the whole batch, such waits use none of the retries, and a 429 halves the
 * requests in flight; a 429 without Retry-After pauses the whole batch with backoff, and uses no
 * retry while other requests get through. Nothing here is timed: the server's own record of when
 * requests arrived is compared with the Retry-After it sent.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const codes = (n: number) => Array.from({ length: n }, (_, i) => `R${String(i + 1).padStart(3, '0')}`);
const batchOf = (n: number) => tempFile('batch.ndjson', ndjson(codes(n).map((code) => reason(code))));
/** The profile key `retries` (there is no flag for it): a config file of one profile, named with --config. */
const retries = (n: number) => ['--config', tempFile('core.yaml', `profiles:\n  limited:\n    retries: ${n}\n`)];

describe('the rate-limited server of these tests', () => {
  it('refuses the request after its burst with a 429, however slowly they come', async () => {
    // A rate no client reaches: a bucket refilled from the start would never run dry.
    const limited = await startRateLimitedServer(1e9, 3);
    server = limited;
    const statuses: number[] = [];
    for (const code of codes(4)) {
      const response = await fetch(limited.url, { method: 'PUT', body: JSON.stringify(reason(code)) });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('core reason update -f against a service that allows N requests a second', () => {
  // 200 a second with a bucket of 10 that refills once it has run dry: every concurrency below runs
  // into the limit at the 11th request at the latest, however fast or slow the machine sends.
  it.each([1, 4, 16, 64])('ends with no failure at --concurrency %i, every reason applied exactly once', async (concurrency) => {
    const limited = await startRateLimitedServer(200, 10);
    server = limited;
    const list = codes(60);
    const result = await runInProcess(['reason', 'update', '-f', batchOf(60), '--json', '--concurrency', String(concurrency)], {
      env: envFor(limited.url),
    });
    expect(result.stderr).toContain('60 succeeded, 0 failed, 0 skipped');
    expect(result.code).toBe(0);
    expect(limited.limited()).toBeGreaterThan(0);
    expect([...limited.applied.keys()].sort()).toEqual(list);
    expect([...limited.applied.values()].every((count) => count === 1)).toBe(true);
    expect(
      jsonLines(result.stdout)
        .map((line) => line.code)
        .sort(),
    ).toEqual(list);
  });

  it('succeeds with retries: 0: the waits the service asks for use none of the retries', async () => {
    const limited = await startRateLimitedServer(200, 10);
    server = limited;
    const result = await runInProcess([...retries(0), 'reason', 'update', '-f', batchOf(40), '--concurrency', '8'], {
      env: envFor(limited.url),
    });
    expect(result.stderr).toContain('40 succeeded, 0 failed, 0 skipped');
    expect(result.code).toBe(0);
    expect(limited.limited()).toBeGreaterThan(0);
    expect([...limited.applied.values()].every((count) => count === 1)).toBe(true);
  });
});

describe('core reason update -f against a service that allows N requests a second and answers 429 without Retry-After', () => {
  // The service says to slow down but not for how long: the whole batch pauses with backoff, and
  // while other reasons get through, a reason's 429 uses none of its retries. A small bucket that
  // refills slowly, so that a reason meets a full bucket more than `retries` times if the rest of
  // the batch keeps sending meanwhile.
  it.each([
    { concurrency: 1, perSecond: 10, items: 20 },
    { concurrency: 4, perSecond: 10, items: 20 },
    { concurrency: 16, perSecond: 10, items: 20 },
    { concurrency: 64, perSecond: 10, items: 20 },
    { concurrency: 64, perSecond: 5, items: 15 },
  ])(
    'ends with no failure at --concurrency $concurrency against $perSecond a second, every reason applied once',
    async ({ concurrency, perSecond, items }) => {
      const limited = await startRateLimitedServer(perSecond, 5, { retryAfter: false });
      server = limited;
      const list = codes(items);
      const result = await runInProcess(['reason', 'update', '-f', batchOf(items), '--json', '--concurrency', String(concurrency)], {
        env: envFor(limited.url),
      });
      expect(result.stderr).toContain(`${items} succeeded, 0 failed, 0 skipped`);
      expect(result.code).toBe(0);
      expect(limited.limited()).toBeGreaterThan(0);
      expect([...limited.applied.keys()].sort()).toEqual(list);
      expect([...limited.applied.values()].every((count) => count === 1)).toBe(true);
    },
  );

  it.each([1, 8])(
    'succeeds with retries: 0 at --concurrency %i while the batch gets through: a 429 then uses none of the retries',
    async (concurrency) => {
      const limited = await startRateLimitedServer(10, 5, { retryAfter: false });
      server = limited;
      const result = await runInProcess([...retries(0), 'reason', 'update', '-f', batchOf(20), '--concurrency', String(concurrency)], {
        env: envFor(limited.url),
      });
      expect(result.stderr).toContain('20 succeeded, 0 failed, 0 skipped');
      expect(result.code).toBe(0);
      expect(limited.limited()).toBeGreaterThan(0);
    },
  );

  it('gives up after the retries when the service refuses every reason, and the hint does not claim a Retry-After', async () => {
    server = await startRecordingServer(() => errorAnswer(429, 'slow down'));
    const report = tempFile('report.ndjson', '');
    const result = await runInProcess([...retries(1), 'reason', 'update', '-f', batchOf(3), '--concurrency', '3', '--report', report], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('0 succeeded, 3 failed, 0 skipped');
    // Nothing got through, so every 429 took one of the retries: two attempts a reason.
    expect(server.requests).toHaveLength(6);
    expect(readJsonLines(report).map((line) => line.attempts)).toEqual([2, 2, 2]);
    expect(result.stderr).toContain(
      'hint (429): the service limits the rate of requests; it was sent 2 times, waiting longer each time, as the service sent no Retry-After',
    );
    expect(result.stderr).not.toContain('waiting as Retry-After asked');
  });
});

describe('core reason update -f: a Retry-After holds back the whole batch', () => {
  it('starts no request, of any reason, until the pause a 503 asked for has passed', async () => {
    // R001 is answered 503 with Retry-After 0.3 s; R002, in flight beside it, is answered only
    // once core has taken in the 503 (it says so with --verbose), so the batch then has a free slot
    // and reasons left: none of them may start during the pause.
    const retryAfterMs = 300;
    const seen503 = gate();
    server = await startRecordingServer((request) => {
      const code = codeOf(request);
      if (code === 'R001' && request.attempt === 1) return { status: 503, headers: { 'Retry-After': String(retryAfterMs / 1000) } };
      if (code === 'R002') return { status: 200, until: seen503.promise };
      return { status: 200 };
    });
    const result = await runInProcess(['reason', 'update', '-f', batchOf(6), '--concurrency', '2', '--verbose'], {
      env: envFor(server.url),
      onStderr: (text) => {
        if (text.includes('HTTP 503: attempt 2 in 300 ms (Retry-After')) seen503.open();
      },
    });
    expect(result.code).toBe(0);
    const [first, second, ...after] = server.requests;
    expect([codeOf(first!), codeOf(second!)]).toEqual(['R001', 'R002']);
    expect(after.map(codeOf).sort()).toEqual(['R001', 'R003', 'R004', 'R005', 'R006']);
    for (const request of after) expect(request.at - first!.at).toBeGreaterThanOrEqual(retryAfterMs);
  });

  it.each(['SIGINT', 'SIGTERM'])(
    'ends at once on %s during a 60 s pause, one outcome for every reason, the rest not sent',
    async (signal) => {
      const controller = new AbortController();
      server = await startRecordingServer((request) =>
        codeOf(request) === 'R001' ? { status: 429, headers: { 'Retry-After': '60' } } : { status: 200 },
      );
      const report = tempFile('report.ndjson', '');
      const result = await runInProcess(
        ['reason', 'update', '-f', batchOf(5), '--json', '--concurrency', '1', '--verbose', '--report', report],
        {
          env: envFor(server.url),
          signal: controller.signal,
          onStderr: (text) => {
            if (text.includes('HTTP 429: attempt 2 in 60000 ms (Retry-After')) controller.abort(signal);
          },
        },
      );
      expect(result.code).toBe(130);
      expect(server.requests.map(codeOf)).toEqual(['R001']);
      const lines = readJsonLines(report);
      expect(lines.map((line) => line.code)).toEqual(codes(5));
      expect(lines[0]).toMatchObject({ code: 'R001', ok: false, status: 429 });
      expect(lines.slice(1).every((line) => line.skipped === true)).toBe(true);
    },
  );
});
