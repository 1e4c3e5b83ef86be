import { spawn, spawnSync, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildFreshness } from '../../scripts/build-state.mjs';
import { createContext, type Context } from '../../src/context.js';
import { main, reportError } from '../../src/main.js';
import { memoryStreams } from './streams.js';
import { hangLimit } from './time-scale.js';

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
  // TMPDIR: the run's own temporary folder (test/helpers/temporary-folder.ts), for the children too.
  return { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), TMPDIR: process.env.TMPDIR, ...extra };
}

export interface RunInit {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdin?: string;
  /** Pretend standard input is a terminal. */
  stdinIsTTY?: boolean;
  signal?: AbortSignal;
  /** Run the built binary without privileges, so that file modes count even when the tests run as root. */
  unprivileged?: boolean;
  /** Told of standard error as it grows (all of it so far), so a test can act on a line when it appears. */
  onStderr?: (text: string) => void;
}

/** Runs the CLI in this process with in-memory streams. */
export async function runInProcess(argv: string[], init: RunInit = {}): Promise<RunResult> {
  const io = memoryStreams({ ...(init.stdinIsTTY ? { stdinIsTTY: true } : {}), ...(init.onStderr ? { onStderr: init.onStderr } : {}) });
  if (init.stdin !== undefined) io.streams.stdin.end(init.stdin);
  else if (!init.stdinIsTTY) io.streams.stdin.end();
  const env = init.env ?? baseEnv();
  const code = await main({
    argv,
    streams: io.streams,
    env,
    cwd: init.cwd ?? env.HOME ?? repoRoot,
    ...(init.signal ? { signal: init.signal } : {}),
  });
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/**
 * Runs a command's run function (runGreet, runReasonUpdate, ...) with in-memory streams and
 * standard input claiming to be a terminal, as -i requires; a thrown error is reported as main
 * reports it, and its exit code returned.
 */
export async function runWithTerminal(
  run: (ctx: Context) => Promise<number>,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<RunResult> {
  const io = memoryStreams({ stdinIsTTY: true });
  const ctx = createContext({ streams: io.streams, env, cwd });
  let code: number;
  try {
    code = await run(ctx);
  } catch (error) {
    code = reportError(error, ctx);
  }
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/**
 * Makes sure dist/ is what the sources make before a test runs the built binary: when dist/ is
 * missing, or the sources differ from the state the last `npm run build` recorded
 * (scripts/build-state.mjs), it builds again, once, and fails naming the fix when that build fails.
 * A test of the binary never runs an old build by accident. Workers that find dist/ out of date at
 * the same moment take turns (a lock folder): the first builds, the others find it fresh.
 */
export function ensureBuilt(projectRoot = repoRoot): void {
  // Checked once a test file (each runs in a process of its own): the state is a hash of ~250 files.
  if (projectRoot === repoRoot && builtChecked) return;
  if (!buildFreshness(projectRoot).fresh) {
    withBuildLock(projectRoot, () => rebuildIfStale(projectRoot));
  }
  if (projectRoot === repoRoot) builtChecked = true;
}

let builtChecked = false;

function rebuildIfStale(projectRoot: string): void {
  const now = buildFreshness(projectRoot);
  if (now.fresh) return;
  process.stderr.write(`${now.reason}: building it again (npm run build)\n`);
  const build = spawnSync(process.execPath, [join(projectRoot, 'scripts', 'build.mjs')], { cwd: projectRoot, encoding: 'utf8' });
  const after = build.status === 0 ? buildFreshness(projectRoot) : undefined;
  if (after?.fresh === true) return;
  const output = `${build.stdout ?? ''}${build.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
  throw new Error(
    `dist/ is out of date (${now.reason}), and building it again failed` +
      (after?.fresh === false ? ` (${after.reason})` : ` (exit status ${build.status ?? build.signal})`) +
      `; fix the build and run npm run build before the tests that run the built binary:\n${output}`,
  );
}

/** Runs `build` holding the project's build lock (a folder made atomically), waiting for another holder to finish. */
function withBuildLock(projectRoot: string, build: () => void): void {
  const lock = join(projectRoot, 'node_modules', '.cache', 'core-build.lock');
  mkdirSync(dirname(lock), { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  // A bound that only catches a lock nobody releases: a build takes well under a minute.
  const giveUp = Date.now() + hangLimit(600_000);
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock whose holder is gone (a run that was killed) is taken over.
      if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > giveUp)
        throw new Error(`another test run has been building dist/ for too long: if none is running, remove ${lock}`);
      else Atomics.wait(pause, 0, 0, 200);
    }
  }
  try {
    build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function holderAlive(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    // Made a moment ago, its pid not written yet: alive.
    return true;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the tests run as root, for whom every file is readable and writable. */
export const runningAsRoot = process.getuid?.() === 0;

/**
 * The command line of the built binary; with `unprivileged` as root, through setpriv with every
 * capability dropped. Root reads a file of mode 000 only through its capabilities (DAC override):
 * without them it is an ordinary owner, for whom file modes count, and it still reaches every path
 * the tests use (a clone under /root, Node 24 under node_modules), which another user might not.
 */
function builtCommand(argv: string[], unprivileged: boolean): [string, string[]] {
  if (!unprivileged || !runningAsRoot) return [process.execPath, [binPath, ...argv]];
  return ['setpriv', ['--bounding-set=-all', '--inh-caps=-all', '--', process.execPath, binPath, ...argv]];
}

/** Children of runBuilt and startBuilt still running: a test that times out must not leave one behind. */
const running = new Set<ChildProcess>();

/** Kills (SIGKILL) every child of runBuilt and startBuilt still running; for afterEach. */
export function killStillRunning(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

function track(child: ChildProcess): void {
  running.add(child);
  child.on('close', () => running.delete(child));
}

/** Runs the built binary exactly as a user would, in a child process. */
export function runBuilt(argv: string[], init: RunInit = {}): Promise<RunResult> {
  ensureBuilt();
  const env = init.env ?? baseEnv();
  const [command, args] = builtCommand(argv, init.unprivileged ?? false);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: init.cwd ?? env.HOME ?? repoRoot,
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    track(child);
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

/** The built binary running in a child process, its output collected as it arrives. */
export interface BuiltProcess {
  child: ChildProcessWithoutNullStreams;
  /** Standard output so far (empty once the test has closed the pipe itself). */
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` matches standard output or error (at once if it already does). */
  printed(stream: 'stdout' | 'stderr', pattern: RegExp): Promise<void>;
  /** The exit code once the process has ended (128 + n when a signal ended it). */
  exited: Promise<number>;
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGPIPE: 13, SIGTERM: 15 };

/**
 * Starts the built binary as a user would, for tests that act while it runs: send it a signal
 * (`child.kill('SIGTERM')`) when a line appears, or close its standard output early.
 */
export function startBuilt(argv: string[], init: Omit<RunInit, 'onStderr' | 'signal'> = {}): BuiltProcess {
  ensureBuilt();
  const env = init.env ?? baseEnv();
  const [command, args] = builtCommand(argv, init.unprivileged ?? false);
  const child = spawn(command, args, {
    cwd: init.cwd ?? env.HOME ?? repoRoot,
    env: env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  track(child);
  const text = { stdout: '', stderr: '' };
  const waiters: Array<{ stream: 'stdout' | 'stderr'; pattern: RegExp; resolve: () => void }> = [];
  const check = () => {
    for (const waiter of waiters.filter((w) => w.pattern.test(text[w.stream]))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  for (const name of ['stdout', 'stderr'] as const) {
    child[name].on('data', (chunk: Buffer) => {
      text[name] += chunk.toString();
      check();
    });
    child[name].on('error', () => {});
  }
  child.stdin.on('error', () => {});
  if (init.stdin !== undefined) child.stdin.end(init.stdin);
  else child.stdin.end();
  return {
    child,
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    printed: (stream, pattern) =>
      pattern.test(text[stream]) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ stream, pattern, resolve })),
    exited: new Promise<number>((resolve) =>
      child.on('close', (code, signal) => resolve(code ?? 128 + (signal ? (SIGNAL_NUMBERS[signal] ?? 0) : 0))),
    ),
  };
}
