import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gate, startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { binPath, ensureBuilt, repoRoot, runInProcess } from '../helpers/run.js';
import { codeOf, envFor, errorAnswer, jsonLines, ndjson, readJsonLines, reason, tempFile } from './helpers.js';

/**
 * `core reason update -f FILE --quiet` (only failures and the summary) and `--resume REPORT` (the
 * reasons an earlier run's report shows applied are not sent again), docs/reasons.md.
 */

let server: RecordingServer | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const codes = (n: number) => Array.from({ length: n }, (_, i) => `R${String(i + 1).padStart(3, '0')}`);
const folder = () => mkdtempSync(join(tmpdir(), 'core-resume-'));
/** 404 for the codes starting with MISSING, 200 for the others. */
const byCode = (request: Parameters<typeof codeOf>[0]) =>
  codeOf(request)?.startsWith('MISSING') ? errorAnswer(404, `no reason ${codeOf(request)}`) : { status: 200 };

describe('core reason update --quiet', () => {
  it('prints only the failures and the summary, while the report records every reason', async () => {
    server = await startRecordingServer(byCode);
    const file = tempFile('five.ndjson', ndjson(['A1', 'A2', 'MISSING1', 'A3', 'A4'].map((code) => reason(code))));
    const report = join(folder(), 'report.ndjson');
    const result = await runInProcess(['reason', 'update', '-f', file, '--quiet', '--report', report], { env: envFor(server.url) });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('✗ 404  MISSING1  no reason MISSING1\n');
    expect(result.stderr).toMatch(/^4 succeeded, 1 failed, 0 skipped\n/);
    expect(
      readJsonLines(report)
        .map((line) => line.code)
        .sort(),
    ).toEqual(['A1', 'A2', 'A3', 'A4', 'MISSING1']);
  });

  it('with --json prints only the documents of the failures', async () => {
    server = await startRecordingServer(byCode);
    const file = tempFile('five-json.ndjson', ndjson(['A1', 'MISSING1', 'A2'].map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--quiet', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(4);
    expect(jsonLines(result.stdout)).toEqual([expect.objectContaining({ ok: false, status: 404, code: 'MISSING1' })]);
  });
});

describe('core reason update --resume', () => {
  it('sends only what the earlier report does not show applied, and carries the rest into the new report', async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const dir = folder();
    const file = join(dir, 'reasons.ndjson');
    writeFileSync(file, ndjson(['A', 'B', 'C', 'D'].map((code) => reason(code))));
    const report = join(dir, 'applied.ndjson');
    // An earlier run: A applied, B failed, C skipped (Ctrl-C), D never reached.
    writeFileSync(
      report,
      [
        { ok: true, status: 200, code: 'A' },
        { ok: false, status: 503, code: 'B' },
        { ok: false, status: null, skipped: true, code: 'C' },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n',
    );
    const result = await runInProcess(['reason', 'update', '-f', file, '--resume', report, '--report', report], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(0);
    expect(server.requests.map(codeOf)).toEqual(['B', 'C', 'D']);
    expect(result.stdout).toContain('= applied  A  by an earlier run (--resume), not sent again');
    expect(result.stderr).toContain(`3 succeeded, 1 already applied (per ${report}), 0 failed, 0 skipped`);
    const lines = readJsonLines(report);
    expect(lines.map((line) => line.code).sort()).toEqual(['A', 'B', 'C', 'D']);
    expect(lines.find((line) => line.code === 'A')).toMatchObject({ ok: true, resumed: true });
  });

  it('leaves out the cut last line of a report written by a run that was killed, with a warning', async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const dir = folder();
    const file = join(dir, 'reasons.ndjson');
    writeFileSync(file, ndjson(['A', 'B'].map((code) => reason(code))));
    const report = join(dir, 'old.ndjson');
    writeFileSync(report, `${JSON.stringify({ ok: true, status: 200, code: 'A' })}\n{"ok":true,"sta`);
    const result = await runInProcess(['reason', 'update', '-f', file, '--resume', report], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(server.requests.map(codeOf)).toEqual(['B']);
    expect(result.stderr).toContain(`warning: --resume: the last line of ${report} (line 2) is cut short and was left out`);
  });

  it('leaves out of --curl what it would not send', async () => {
    const dir = folder();
    const file = join(dir, 'reasons.ndjson');
    writeFileSync(file, ndjson(['A', 'B'].map((code) => reason(code))));
    const report = join(dir, 'old.ndjson');
    writeFileSync(report, `${JSON.stringify({ ok: true, status: 200, code: 'A' })}\n`);
    const result = await runInProcess(['reason', 'update', '-f', file, '--resume', report, '--curl'], {
      env: envFor('http://127.0.0.1:9'),
    });
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^curl /gm)).toHaveLength(1);
    expect(result.stdout).toContain('"code":"B"');
  });

  it.each([
    ['a report that does not exist', () => join(folder(), 'nope.ndjson'), /--resume: file not found/],
    [
      'a file that is not a report',
      () => tempFile('not-a-report.ndjson', '{"code":"A"}\n{"code":"B"}\n'),
      /is not a report of core reason update \(line 1/,
    ],
    [
      'a report with a broken line before its end',
      () => tempFile('broken.ndjson', '{"ok":tr\n{"ok":true,"code":"B"}\n'),
      /is not a report of core reason update \(line 1/,
    ],
  ])('refuses %s with exit 2, sending nothing', async (_name, path, message) => {
    server = await startRecordingServer([{ status: 200 }]);
    const file = tempFile('two.ndjson', ndjson(['A', 'B'].map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--resume', path()], { env: envFor(server.url) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('leaves the report as it was when it is both --resume and --report and cannot be read; another --report is emptied', async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const file = tempFile('two.ndjson', ndjson(['A', 'B'].map((code) => reason(code))));
    const broken = '{"ok":true,"code":"A","status":200}\ngarbage line\n{"ok":true,"code":"B","status":200}\n';
    const same = tempFile('same.ndjson', broken);
    const result = await runInProcess(['reason', 'update', '-f', file, '--resume', same, '--report', same], { env: envFor(server.url) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/is not a report of core reason update \(line 2/);
    expect(readFileSync(same, 'utf8')).toBe(broken);

    const other = tempFile('other.ndjson', '{"ok":true,"code":"Z","status":200}\n');
    const elsewhere = await runInProcess(
      ['reason', 'update', '-f', file, '--resume', tempFile('broken.ndjson', broken), '--report', other],
      {
        env: envFor(server.url),
      },
    );
    expect(elsewhere.code).toBe(2);
    expect(readFileSync(other, 'utf8')).toBe('');
    expect(server.requests).toHaveLength(0);
  });

  it('after a batch cut short by SIGINT, a resumed run applies every reason exactly once (built binary)', async () => {
    const list = codes(30);
    const answers = gate();
    server = await startRecordingServer((_request, index) => (index < 3 ? { status: 200 } : { status: 200, until: answers.promise }));
    const dir = folder();
    const file = join(dir, 'thirty.ndjson');
    writeFileSync(file, ndjson(list.map((code) => reason(code))));
    const report = join(dir, 'report.ndjson');
    const env = { ...envFor(server.url), NODE_EXTRA_CA_CERTS: undefined } as NodeJS.ProcessEnv;
    const argv = [binPath, 'reason', 'update', '-f', file, '--concurrency', '2', '--json', '--report', report];

    // The first run: Ctrl-C once three reasons are applied; the requests in flight then finish.
    const first = spawn(process.execPath, argv, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let interrupted = false;
    first.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!interrupted && out.split('\n').length > 3) {
        interrupted = true;
        first.kill('SIGINT');
      }
    });
    first.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (/interrupted: no new requests/.test(err)) answers.open();
    });
    const firstCode = await new Promise<number | null>((resolve) => first.on('close', resolve));
    expect(firstCode).toBe(130);
    const firstApplied = readJsonLines(report).filter((line) => line.ok === true).length;
    expect(firstApplied).toBeGreaterThanOrEqual(3);
    expect(firstApplied).toBeLessThan(30);

    // The second run resumes from the report it writes to again.
    answers.open();
    const second = spawn(process.execPath, [...argv, '--resume', report], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const secondCode = await new Promise<number | null>((resolve) => second.on('close', resolve));
    expect(secondCode).toBe(0);

    const sent = server.requests.map(codeOf);
    expect(sent.slice().sort()).toEqual(list);
    const final = readJsonLines(report);
    expect(final.map((line) => line.code).sort()).toEqual(list);
    expect(final.every((line) => line.ok === true)).toBe(true);
    expect(readFileSync(report, 'utf8').trim().split('\n')).toHaveLength(30);
  });
});
