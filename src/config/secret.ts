import { spawn } from 'node:child_process';
import { ConfigError, InterruptedError, type Problem } from '../errors.js';
import { formatDuration } from './duration.js';
import { checkToken, TOKEN_HINT } from './token.js';
import { trimEndOf } from '../text/trim.js';

/** A token as written in the config file: a literal string, `{env: NAME}` or `{command: "..."}`. */
export type SecretSpec = string | { env: string } | { command: string };

export interface ResolveSecretOptions {
  env: Record<string, string | undefined>;
  /** The folder a token command runs in: the config file's folder, else the current folder. */
  cwd: string;
  /** Names the secret in messages, such as `token of profile "staging"`. */
  what: string;
  /** The time limit of a token command; 10 s unless given. */
  timeoutMs?: number;
  /** Aborting (Ctrl-C) stops a running token command. */
  signal?: AbortSignal;
}

export const DEFAULT_SECRET_COMMAND_TIMEOUT_MS = 10_000;
const STDERR_LIMIT = 1024;
// A token is a few hundred bytes; a command that prints megabytes is not printing a token.
const STDOUT_LIMIT = 64 * 1024;

/**
 * The secret a spec stands for (docs/configuration.md, "Tokens"). The caller registers
 * the result with `ctx.addSecret` at once. No message this function produces holds the secret, and
 * a failing command's standard output is never shown, as it may hold part of one.
 */
export async function resolveSecret(spec: SecretSpec, opts: ResolveSecretOptions): Promise<string> {
  if (typeof spec === 'string') return spec;
  if ('env' in spec) {
    const value = opts.env[spec.env];
    if (value === undefined || value === '') {
      throw new ConfigError(`${opts.what}: environment variable ${spec.env} is ${value === undefined ? 'not set' : 'empty'}`, {
        hint: `set it, for example: export ${spec.env}=...`,
      });
    }
    const checked = checkToken(value);
    if ('problem' in checked) {
      throw new ConfigError(`${opts.what}: the value of environment variable ${spec.env} ${checked.problem}; nothing was sent`, {
        hint: TOKEN_HINT,
      });
    }
    return checked.token;
  }
  return runSecretCommand(spec.command, opts);
}

async function runSecretCommand(command: string, opts: ResolveSecretOptions): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_SECRET_COMMAND_TIMEOUT_MS;
  if (opts.signal?.aborted) throw new InterruptedError();
  const windows = process.platform === 'win32';
  const child = spawn(command, {
    shell: true,
    cwd: opts.cwd,
    env: opts.env as NodeJS.ProcessEnv,
    // No stdin: a command that waits for input would otherwise hang until the time limit.
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so a time-out kills the command's children too (`sh -c "a; b"` forks),
    // and none of them keeps the output pipe open after the shell is gone.
    detached: !windows,
    windowsHide: true,
  });

  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  let stdoutOverflow = false;
  const stderr: Buffer[] = [];
  let stderrBytes = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    stdoutBytes += chunk.length;
    if (stdoutBytes > STDOUT_LIMIT) stdoutOverflow = true;
    else stdout.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderrBytes <= STDERR_LIMIT) stderr.push(chunk);
    stderrBytes += chunk.length;
  });

  const kill = () => {
    try {
      if (!windows && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  };

  type Outcome =
    | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null }
    | { kind: 'error'; error: Error }
    | { kind: 'timeout' }
    | { kind: 'aborted' };
  const outcome = await new Promise<Outcome>((resolve) => {
    const timer = setTimeout(() => {
      kill();
      resolve({ kind: 'timeout' });
    }, timeoutMs);
    const onAbort = () => {
      kill();
      resolve({ kind: 'aborted' });
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const done = (value: Outcome) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    child.on('error', (error) => done({ kind: 'error', error }));
    // 'close' waits for the output pipes too, so all output has been read.
    child.on('close', (code, signal) => done({ kind: 'exit', code, signal }));
  });
  child.stdout.destroy();
  child.stderr.destroy();

  const problems = stderrProblems(Buffer.concat(stderr), stderrBytes);
  const label = `${opts.what}: the command ${JSON.stringify(command)}`;
  switch (outcome.kind) {
    case 'aborted':
      throw new InterruptedError();
    case 'timeout':
      throw new ConfigError(`${label} did not finish within ${formatDuration(timeoutMs)}`, {
        problems,
        hint: 'check that it runs without asking for input, for example in a terminal: ' + command,
      });
    case 'error':
      throw new ConfigError(`${label} could not be started: ${(outcome.error as NodeJS.ErrnoException).code ?? outcome.error.message}`);
    case 'exit':
      break;
  }
  if (outcome.code !== 0) {
    const status = outcome.code === null ? `was killed by ${outcome.signal ?? 'a signal'}` : `failed with exit status ${outcome.code}`;
    throw new ConfigError(`${label} ${status}`, {
      problems,
      hint: problems.length === 0 ? `run it yourself to see why: ${command}` : undefined,
    });
  }
  if (stdoutOverflow) {
    throw new ConfigError(`${label} printed more than ${STDOUT_LIMIT / 1024} KB; it should print only the token`);
  }
  return tokenFromOutput(Buffer.concat(stdout).toString('utf8'), label);
}

/**
 * The token in a command's output: the output trimmed. When it holds several lines the first is
 * the token, as with `pass show`, whose first line is the password and the rest notes.
 */
function tokenFromOutput(output: string, label: string): string {
  const trimmed = output.trim();
  const line = trimmed.split(/\r?\n/, 1)[0]!.trim();
  if (line === '') throw new ConfigError(`${label} printed nothing`, { hint: 'it should print the token on standard output' });
  const checked = checkToken(line);
  if ('problem' in checked)
    throw new ConfigError(`${label} printed a token that ${checked.problem}; nothing was sent`, { hint: TOKEN_HINT });
  return checked.token;
}

/** The command's standard error, cut to about 1 KB, as indented lines under the message. */
function stderrProblems(bytes: Buffer, total: number): Problem[] {
  // eslint-disable-next-line no-control-regex
  let text = trimEndOf(bytes.subarray(0, STDERR_LIMIT).toString('utf8'), '\uFFFD').replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
  text = text.trimEnd();
  if (text === '') return [];
  const lines = text.split(/\r?\n/).map((line) => ({ path: '', message: `stderr: ${line}` }));
  if (total > STDERR_LIMIT) lines.push({ path: '', message: `stderr: ... (${total - STDERR_LIMIT} more bytes)` });
  return lines;
}
