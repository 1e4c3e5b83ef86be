import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { execFileSync } from 'node:child_process';
import { main } from '../../src/main.js';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export const repoRoot = resolve(import.meta.dirname, '../..');
export const binPath = join(repoRoot, 'dist', 'bin.js');

/** A home folder of its own, so no test ever reads the real user's configuration. */
export function emptyHome(): string {
  return mkdtempSync(join(tmpdir(), 'core-home-'));
}

/** The environment a test starts from: nothing of the machine's CORE_* variables, a private home. */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const home = emptyHome();
  return { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...extra };
}

export interface RunInit {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdin?: string;
  /** Pretend standard input is a terminal. */
  stdinIsTTY?: boolean;
  signal?: AbortSignal;
  /** Told of standard error as it grows (all of it so far), so a test can act on a line when it appears. */
  onStderr?: (text: string) => void;
}

/** Runs the CLI in this process with in-memory streams. */
export async function runInProcess(argv: string[], init: RunInit = {}): Promise<RunResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (init.stdinIsTTY) stdin.isTTY = true;
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
    init.onStderr?.(err);
  });
  if (init.stdin !== undefined) stdin.end(init.stdin);
  else if (!init.stdinIsTTY) stdin.end();
  const env = init.env ?? baseEnv();
  const code = await main({
    argv,
    streams: { stdout, stderr, stdin },
    env,
    cwd: init.cwd ?? env.HOME ?? repoRoot,
    ...(init.signal ? { signal: init.signal } : {}),
  });
  return { code, stdout: out, stderr: err };
}

/** Builds dist/ once if a test run started without it. */
export function ensureBuilt(): void {
  if (!existsSync(binPath)) execFileSync('npx', ['tsup'], { cwd: repoRoot, stdio: 'ignore' });
}

/** Runs the built binary exactly as a user would, in a child process. */
export function runBuilt(argv: string[], init: RunInit = {}): Promise<RunResult> {
  ensureBuilt();
  const env = init.env ?? baseEnv();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [binPath, ...argv], {
      cwd: init.cwd ?? env.HOME ?? repoRoot,
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code: code ?? (signal ? 128 : 1), stdout, stderr }));
    if (init.stdin !== undefined) child.stdin.end(init.stdin);
    else child.stdin.end();
  });
}
