import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { binPath, ensureBuilt, repoRoot, runBuilt, runInProcess } from '../helpers/run.js';
import { gate, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { codeOf, envFor, jsonLines, ndjson, readJsonLines, reason, tempFile } from './helpers.js';

/**
 * The built binary exactly as a user runs it: a real SIGINT in the middle of a batch, standard
 * input spooled to a temporary file that is removed afterwards, and Node's own warnings. The
 * early stops that empty an old report run main() in-process, one of them in the binary too.
 */

let sandbox: Sandbox | undefined;
let server: RecordingServer | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await sandbox?.close();
  await server?.close();
  sandbox = undefined;
  server = undefined;
});

/** Text of a child's stream as it arrives; listeners added later see `text` already updated. */
type Collected = Readable & { text: string };

function collect(stream: Readable): Collected {
  const collected = Object.assign(stream, { text: '' });
  stream.on('data', (chunk: Buffer) => (collected.text += chunk.toString()));
  return collected;
}

/** `core reason update -f FILE --concurrency 2 --json --report REPORT`, built, in a child process. */
function startBatch(file: string, report: string, env: Record<string, string | undefined>) {
  const child = spawn(process.execPath, [binPath, 'reason', 'update', '-f', file, '--concurrency', '2', '--json', '--report', report], {
    cwd: repoRoot,
    env: { ...env, NODE_EXTRA_CA_CERTS: undefined } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return {
    process: child,
    stdout: collect(child.stdout),
    stderr: collect(child.stderr),
    exited: new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode))),
  };
}

/** Writes `content` to `name` in `dir` and returns the path. */
function tempIn(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const codes = (n: number) => Array.from({ length: n }, (_, i) => `E${String(i + 1).padStart(3, '0')}`);

describe('core reason update, built', () => {
  it('on SIGINT finishes the requests in flight, reports every reason once as applied or skipped, and exits 130', async () => {
    // The first reason is answered at once, the others only after the Ctrl-C was taken in: some
    // reasons applied, some in flight, most not sent.
    const list = codes(40);
    const answers = gate();
    server = await startRecordingServer((_request, index) => (index === 0 ? { status: 200 } : { status: 200, until: answers.promise }));
    const file = tempFile(
      'forty.ndjson',
      ndjson(list.map((code) => reason(code, { reasons: [{ locale: 'en', name: `Updated ${code}` }] }))),
    );
    const report = join(mkdtempSync(join(tmpdir(), 'core-reason-report-')), 'report.ndjson');
    const child = startBatch(file, report, envFor(server.url));
    let interrupted = false;
    child.stdout.on('data', () => {
      // Ctrl-C as soon as the first result appears.
      if (!interrupted && child.stdout.text.includes('\n')) {
        interrupted = true;
        child.process.kill('SIGINT');
      }
    });
    child.stderr.on('data', () => {
      if (/interrupted: no new requests/.test(child.stderr.text)) answers.open();
    });
    const code = await child.exited;

    expect(interrupted).toBe(true);
    expect(code).toBe(130);
    const printed = jsonLines(child.stdout.text);
    const recorded = readJsonLines(report);
    for (const lines of [printed, recorded]) {
      expect(lines.map((l) => l.code).sort()).toEqual(list);
      for (const line of lines) expect(line.status === 200 || line.skipped === true).toBe(true);
    }
    // The report tells exactly which reasons reached the service: those, and no others.
    const applied = recorded.filter((l) => l.status === 200).map((l) => l.code as string);
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.sort()).toEqual(server.requests.map(codeOf).sort());
    expect(recorded.filter((l) => l.skipped === true).length).toBe(40 - applied.length);
    expect(child.stderr.text).toMatch(/\d+ succeeded, 0 failed, \d+ skipped \(interrupted/);
  });

  it('on a second SIGINT abandons the requests in flight and still reports every reason: abandoned ones with their outcome unknown', async () => {
    const list = codes(10);
    // No answer ever comes: the two requests stay in flight until they are abandoned.
    server = await startRecordingServer([{ hang: true }]);
    const file = tempFile('ten.ndjson', ndjson(list.map((code) => reason(code))));
    const report = join(mkdtempSync(join(tmpdir(), 'core-reason-report-')), 'report.ndjson');
    const child = startBatch(file, report, envFor(server.url));
    let second = false;
    child.stderr.on('data', () => {
      // The first Ctrl-C has been taken in with both requests waiting. Now the second.
      if (!second && /waiting for 2 in flight/.test(child.stderr.text)) {
        second = true;
        child.process.kill('SIGINT');
      }
    });
    // The first Ctrl-C once both requests have reached the server.
    await server.received(2);
    child.process.kill('SIGINT');
    const code = await child.exited;

    expect(second).toBe(true);
    expect(code).toBe(130);
    expect(server.requests.map(codeOf)).toEqual(list.slice(0, 2));
    for (const lines of [jsonLines(child.stdout.text), readJsonLines(report)]) {
      expect(lines.map((l) => l.code).sort()).toEqual(list);
      const abandoned = lines.filter((l) => (l.error as { code?: string } | null)?.code === 'EABORTED');
      expect(abandoned.map((l) => l.code)).toEqual(list.slice(0, 2));
      for (const line of abandoned) expect((line.error as { message: string }).message).toContain('may or may not have applied it');
      expect(lines.filter((l) => l.skipped === true)).toHaveLength(8);
    }
  });

  it('reads -f - from a pipe and removes its temporary copy afterwards', async () => {
    sandbox = await startSandbox({ port: 0, reasons: codes(5).map((code) => reason(code)), maxActiveReasons: 1000 });
    const tmp = mkdtempSync(join(tmpdir(), 'core-reason-tmp-'));
    const result = await runBuilt(['reason', 'update', '-f', '-', '--json'], {
      env: { ...envFor(sandbox.url), TMPDIR: tmp },
      stdin: ndjson(codes(5).map((code) => reason(code, { color: '#ABCDEF' }))),
    });
    expect(result.stderr).toBe('5 succeeded, 0 failed, 0 skipped\n');
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)).toHaveLength(5);
    expect(sandbox.reasons('sandbox').every((r) => r.reason.color === '#ABCDEF')).toBe(true);
    // Node 22.1+ keeps its compile cache (src/bin.ts enables it) in the temporary folder: not a copy of the input.
    expect(readdirSync(tmp).filter((name) => name !== 'node-compile-cache')).toEqual([]);
  });

  it.each<[string, (dir: string) => string[], Record<string, string | undefined>, typeof runInProcess]>([
    ['a missing input file (the built binary)', (dir) => ['-f', join(dir, 'missing.ndjson')], {}, runBuilt],
    ['a missing input file', (dir) => ['-f', join(dir, 'missing.ndjson')], {}, runInProcess],
    ['an empty array', (dir) => ['-f', tempIn(dir, 'empty.json', '[]')], {}, runInProcess],
    ['an invalid reason', (dir) => ['-f', tempIn(dir, 'bad.ndjson', ndjson([reason('B1', { color: 'red' })]))], {}, runInProcess],
    [
      'a missing token',
      (dir) => ['-f', tempIn(dir, 'one.ndjson', ndjson([reason('B1'), reason('B2')]))],
      { CORE_TOKEN: undefined },
      runInProcess,
    ],
    ['-i without a terminal', () => ['-i'], {}, runInProcess],
  ])('empties a report left by an earlier run when it stops early on %s: exit 2', async (_name, args, extra, run) => {
    const dir = mkdtempSync(join(tmpdir(), 'core-reason-stale-'));
    const report = tempIn(dir, 'report.ndjson', '{"ok":true,"status":200,"code":"FROM_BEFORE"}\n');
    const result = await run(['reason', 'update', ...args(dir), '--report', report], {
      env: { ...envFor('http://127.0.0.1:9'), ...extra },
    });
    expect(result.code).toBe(2);
    expect(readFileSync(report, 'utf8')).toBe('');
  });

  it('keeps 20 requests in flight without a warning from Node about listeners', async () => {
    const list = codes(30);
    const all = gate();
    server = await startRecordingServer(() => ({ status: 200, until: all.promise }));
    void server.received(20).then(all.open);
    const file = tempFile('thirty.ndjson', ndjson(list.map((code) => reason(code))));
    const result = await runBuilt(['reason', 'update', '-f', file, '--concurrency', '20'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('30 succeeded, 0 failed, 0 skipped\n');
  });

  it('shows its help with examples', async () => {
    const result = await runInProcess(['reason', 'update', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: core reason update [options]');
    expect(result.stdout).toMatch(/Examples:\n {2}\$ core reason update --code LUNCH/);
  });
});
