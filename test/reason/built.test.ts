import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { binPath, ensureBuilt, repoRoot, runBuilt } from '../helpers/run.js';
import { envFor, jsonLines, ndjson, readJsonLines, reason, tempFile } from './helpers.js';

/**
 * The built binary exactly as a user runs it: a real SIGINT in the middle of a batch, and
 * standard input spooled to a temporary file that is removed afterwards.
 */

let sandbox: Sandbox | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const codes = (n: number) => Array.from({ length: n }, (_, i) => `E${String(i + 1).padStart(3, '0')}`);

describe('core reason update, built', () => {
  it('on SIGINT finishes the requests in flight, reports every reason once as applied or skipped, and exits 130', async () => {
    const list = codes(40);
    sandbox = await startSandbox({ port: 0, latencyMs: 200, reasons: list.map((code) => reason(code, { active: false })), maxActiveReasons: 1000 });
    const file = tempFile('forty.ndjson', ndjson(list.map((code) => reason(code, { reasons: [{ locale: 'en', name: `Updated ${code}` }] }))));
    const report = join(mkdtempSync(join(tmpdir(), 'core-reason-report-')), 'report.ndjson');
    const env = { ...envFor(sandbox.url), NODE_EXTRA_CA_CERTS: undefined };

    const child = spawn(process.execPath, [binPath, 'reason', 'update', '-f', file, '--concurrency', '2', '--json', '--report', report], {
      cwd: repoRoot,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Ctrl-C as soon as the first result appears: some reasons applied, some in flight, most not sent.
      if (!interrupted && stdout.includes('\n')) {
        interrupted = true;
        child.kill('SIGINT');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));

    expect(interrupted).toBe(true);
    expect(code).toBe(130);
    const printed = jsonLines(stdout);
    const recorded = readJsonLines(report);
    for (const lines of [printed, recorded]) {
      expect(lines.map((l) => l.code).sort()).toEqual(list);
      for (const line of lines) expect(line.status === 200 || line.skipped === true).toBe(true);
    }
    const applied = recorded.filter((l) => l.status === 200).map((l) => l.code as string);
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.length).toBeLessThan(40);
    // The report tells exactly which reasons the service applied: those, and no others, changed.
    const updated = sandbox.reasons('sandbox').filter((r) => r.updatedAt !== null).map((r) => r.code);
    expect(updated.sort()).toEqual(applied.sort());
    expect(stderr).toMatch(/interrupted: no new requests/);
    expect(stderr).toMatch(/\d+ succeeded, 0 failed, \d+ skipped \(interrupted/);
  });

  it('on a second SIGINT abandons the requests in flight and still reports every reason: abandoned ones with their outcome unknown', async () => {
    const list = codes(10);
    sandbox = await startSandbox({ port: 0, latencyMs: 5_000, reasons: list.map((code) => reason(code, { active: false })), maxActiveReasons: 1000 });
    const file = tempFile('ten.ndjson', ndjson(list.map((code) => reason(code))));
    const report = join(mkdtempSync(join(tmpdir(), 'core-reason-report-')), 'report.ndjson');
    const env = { ...envFor(sandbox.url), NODE_EXTRA_CA_CERTS: undefined };
    const child = spawn(process.execPath, [binPath, 'reason', 'update', '-f', file, '--concurrency', '2', '--json', '--report', report], {
      cwd: repoRoot,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let second = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      // The first Ctrl-C has been taken in: two requests wait on the slow server. Now the second.
      if (!second && /waiting for 2 in flight/.test(stderr)) {
        second = true;
        child.kill('SIGINT');
      }
    });
    // The first Ctrl-C once both requests are surely on their way (the server holds each for 5 s).
    const first = setInterval(() => {
      if (sandbox!.messages().length === 0 && sandbox!.reasons('sandbox').filter((r) => r.updatedAt !== null).length >= 2) {
        clearInterval(first);
        child.kill('SIGINT');
      }
    }, 20);
    const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
    clearInterval(first);

    expect(second).toBe(true);
    expect(code).toBe(130);
    for (const lines of [jsonLines(stdout), readJsonLines(report)]) {
      expect(lines.map((l) => l.code).sort()).toEqual(list);
      const abandoned = lines.filter((l) => (l.error as { code?: string } | null)?.code === 'EABORTED');
      expect(abandoned).toHaveLength(2);
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

  it('shows its help with examples', async () => {
    const result = await runBuilt(['reason', 'update', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: core reason update [options]');
    expect(result.stdout).toMatch(/Examples:\n {2}\$ core reason update --code LUNCH/);
  });
});
