import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killStillRunning, startBuilt } from '../helpers/run.js';
import { gate, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { codeOf, envFor, ndjson, readJsonLines, reason } from './helpers.js';

/**
 * A batch stopped from outside, as it happens to a user: the reader of its output goes away
 * (`| head -1`), the terminal closes (SIGHUP), or the process is killed. The built binary, reading
 * its reasons from standard input: every reason ends in the report, and the private copy of the
 * input is gone.
 */

let server: RecordingServer | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  killStillRunning();
  await server?.close();
  server = undefined;
});

const codes = (n: number) => Array.from({ length: n }, (_, i) => `S${String(i + 1).padStart(2, '0')}`);

/** A private TMPDIR, a report path, and the batch's input as NDJSON. */
function setUp(list: string[]) {
  const folder = mkdtempSync(join(tmpdir(), 'core-stopping-'));
  const tmp = mkdtempSync(join(folder, 'tmp-'));
  return { tmp, report: join(folder, 'report.ndjson'), input: ndjson(list.map((code) => reason(code))) };
}

/**
 * Resolves once a thread of `pid` waits in the kernel function `wchan` (Linux, /proc). The kernel
 * sends no event for it, so it is looked at every 20 ms, with a bound that only keeps a broken build
 * from hanging: it asserts nothing about time.
 */
async function waitingIn(pid: number, wchan: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const threads = readdirSync(`/proc/${pid}/task`);
    if (threads.some((tid) => readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8').trim() === wchan)) return;
    if (Date.now() > deadline) throw new Error(`no thread of ${pid} ever waited in ${wchan}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What the temporary folder holds besides Node's own compile cache (src/bin.ts enables it). */
const leftIn = (tmp: string) => readdirSync(tmp).filter((name) => name !== 'node-compile-cache');

describe('core reason update -f -, stopped from outside', () => {
  it('when its output is closed (| head -1): finishes what is in flight, reports every reason, removes its copy of the input, exit 141', async () => {
    const list = codes(20);
    const answers = gate();
    const later = gate();
    // The first four requests go at once (--concurrency 4): the first is answered, the next three
    // once the reader has gone; any request after them once core has seen that it has gone.
    server = await startRecordingServer((_request, index) =>
      index === 0 ? { status: 200 } : { status: 200, until: index < 4 ? answers.promise : later.promise },
    );
    const { tmp, report, input } = setUp(list);
    const run = startBuilt(['reason', 'update', '-f', '-', '--json', '--report', report], {
      env: { ...envFor(server.url), TMPDIR: tmp },
      stdin: input,
    });
    // The reader takes the first result and goes away; then the service answers the rest.
    await run.printed('stdout', /\n/);
    run.child.stdout.destroy();
    answers.open();
    await run.printed('stderr', /the output was closed: no new requests/);
    later.open();
    expect(await run.exited).toBe(141);
    // Stopped well before the end: at most the four in flight and the few started in the moment
    // before a write found the output closed.
    expect(server.requests.length).toBeLessThan(list.length);

    const lines = readJsonLines(report);
    expect(lines.map((l) => l.code).sort()).toEqual(list);
    for (const line of lines) expect(line.status === 200 || line.skipped === true, JSON.stringify(line)).toBe(true);
    // Every reason that reached the service is in the report as applied, and no other.
    const applied = lines.filter((l) => l.status === 200).map((l) => l.code as string);
    expect(applied.sort()).toEqual(server.requests.map(codeOf).sort());
    expect(run.stderr()).toContain('the output was closed: no new requests');
    expect(leftIn(tmp)).toEqual([]);
  });

  it('on SIGHUP: abandons what is in flight after a moment, reports every reason, removes its copy of the input, exit 129', async () => {
    const list = codes(10);
    server = await startRecordingServer([{ hang: true }]);
    const { tmp, report, input } = setUp(list);
    const run = startBuilt(['reason', 'update', '-f', '-', '--concurrency', '2', '--report', report], {
      env: { ...envFor(server.url), TMPDIR: tmp },
      stdin: input,
    });
    await server.received(2);
    run.child.kill('SIGHUP');
    expect(await run.exited).toBe(129);

    const lines = readJsonLines(report);
    expect(lines.map((l) => l.code).sort()).toEqual(list);
    const abandoned = lines.filter((l) => (l.error as { code?: string } | null)?.code === 'EABORTED');
    expect(abandoned.map((l) => l.code).sort()).toEqual(server.requests.map(codeOf).sort());
    expect(lines.filter((l) => l.skipped === true)).toHaveLength(8);
    expect(run.stderr()).toContain('the terminal closed (SIGHUP): no new requests; waiting up to 1 s for 2 in flight');
    expect(leftIn(tmp)).toEqual([]);
  });

  it('leaves no copy of the input behind even when killed outright (SIGKILL)', async () => {
    server = await startRecordingServer([{ hang: true }]);
    const { tmp, report, input } = setUp(codes(5));
    const run = startBuilt(['reason', 'update', '-f', '-', '--report', report], {
      env: { ...envFor(server.url), TMPDIR: tmp },
      stdin: input,
    });
    await server.received(1);
    run.child.kill('SIGKILL');
    expect(await run.exited).toBe(137);
    expect(leftIn(tmp)).toEqual([]);
  });

  it('ends at the first SIGTERM while a thread waits in a call no signal can end (opening a FIFO nobody writes): by the signal, 143', async () => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'core-fifo-')), 'reasons.ndjson');
    execFileSync('mkfifo', [fifo]);
    const run = startBuilt(['reason', 'update', '-f', fifo], { env: envFor('http://127.0.0.1:9') });
    // The open() of a FIFO waits for a writer in one of Node's threads, where no signal reaches it:
    // the kernel shows that thread waiting in wait_for_partner.
    await waitingIn(run.child.pid!, 'wait_for_partner');
    run.child.kill('SIGTERM');
    // process.exit() would wait for that thread for ever; core ends by the signal instead.
    expect(await run.exited).toBe(143);
    expect(run.stderr()).toBe(`error: cancelled while reading ${fifo}; nothing sent\n`);
  });
});
