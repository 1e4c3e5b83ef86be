import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, resolveSecret, resolveSettingsToken } from '../../src/config/index.js';
import { ConfigError, InterruptedError } from '../../src/errors.js';
import { happens } from '../helpers/wait.js';
import { sandbox } from './helpers.js';

const what = 'token of profile "staging"';
const env = { PATH: process.env.PATH };
const posix = process.platform !== 'win32';

/** The whole error as a user would read it. */
function text(error: ConfigError): string {
  return [error.message, ...error.problems.map((p) => p.message), error.hint ?? ''].join('\n');
}

/**
 * A FIFO for a token command to hold open (`sleep 300 > "$HELD"`): `running` resolves once the
 * command has opened it, `gone` once every process holding it has ended (the reader sees its end).
 */
function heldFifo(): { path: string; running: Promise<void>; gone: Promise<void> } {
  const fifo = path.join(mkdtempSync(path.join(tmpdir(), 'core-secret-fifo-')), 'held');
  execFileSync('mkfifo', [fifo]);
  const reader = createReadStream(fifo);
  reader.resume();
  return { path: fifo, running: once(reader, 'open').then(() => undefined), gone: once(reader, 'end').then(() => undefined) };
}

async function failure(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('resolveSecret', () => {
  it('returns a literal token as it is', async () => {
    expect(await resolveSecret('abc-123', { env, cwd: '.', what })).toBe('abc-123');
  });

  it('reads {env: NAME} from the environment it is given', async () => {
    expect(await resolveSecret({ env: 'MY_TOKEN' }, { env: { MY_TOKEN: 'from-env' }, cwd: '.', what })).toBe('from-env');
  });

  it.each([
    ['unset', {}, 'environment variable MY_TOKEN is not set'],
    ['empty', { MY_TOKEN: '' }, 'environment variable MY_TOKEN is empty'],
  ])('names the variable when it is %s', async (_case, given, message) => {
    const error = await failure(resolveSecret({ env: 'MY_TOKEN' }, { env: given, cwd: '.', what }));
    expect(error.message).toBe(`${what}: ${message}`);
    expect(error.hint).toContain('export MY_TOKEN=');
  });

  describe.runIf(posix)('a token command', () => {
    it.each([
      ['the trimmed output', 'printf "  tok-12345  \\n"', 'tok-12345'],
      ['the first line of several, as pass show prints them', 'printf "tok-12345\\nurl: https://x\\n"', 'tok-12345'],
      ['a variable from the environment it is given', 'printf "%s" "$SECRET_SOURCE"', 'from-given-env'],
    ])('yields %s', async (_case, command, token) => {
      const value = await resolveSecret({ command }, { env: { ...env, SECRET_SOURCE: 'from-given-env' }, cwd: '.', what });
      expect(value).toBe(token);
    });

    it("runs in the folder it is given (the config file's folder)", async () => {
      const box = await sandbox();
      await box.write(path.join(box.project, 'token.txt'), 'from-file\n');
      expect(await resolveSecret({ command: 'cat token.txt' }, { env, cwd: box.project, what })).toBe('from-file');
    });

    it('reports the exit status and standard error of a failing command, and never its standard output', async () => {
      // The output comes from a variable, so the command's own text cannot contain it.
      const command = 'printf "%s\\n" "$PARTIAL"; echo "gpg: decryption failed: No secret key" >&2; exit 3';
      const given = { ...env, PARTIAL: 'sk_partial_secret_output' };
      const error = await failure(resolveSecret({ command }, { env: given, cwd: '.', what }));
      expect(error.message).toBe(`${what}: the command ${JSON.stringify(command)} failed with exit status 3`);
      expect(error.problems.map((p) => p.message)).toEqual(['stderr: gpg: decryption failed: No secret key']);
      expect(text(error)).not.toContain('sk_partial_secret_output');
    });

    it('cuts a long standard error to about 1 KB', async () => {
      const error = await failure(resolveSecret({ command: 'head -c 5000 /dev/zero | tr "\\0" e >&2; exit 1' }, { env, cwd: '.', what }));
      const shown = error.problems.map((p) => p.message).join('\n');
      expect(shown.length).toBeLessThan(1200);
      expect(shown).toContain('(3976 more bytes)');
    });

    it('reports a command killed by a signal', async () => {
      const error = await failure(resolveSecret({ command: 'kill -9 $$' }, { env, cwd: '.', what }));
      expect(error.message).toMatch(/was killed by SIGKILL$/);
    });

    it('stops a command that runs past its time limit, with its children, and says so', async () => {
      // The shell's child, sleep, holds a FIFO open; the FIFO ends only once that child is gone.
      const held = heldFifo();
      const command = 'echo "waiting for pinentry" >&2; sleep 300 > "$HELD"; echo late';
      const error = await failure(resolveSecret({ command }, { env: { ...env, HELD: held.path }, cwd: '.', what, timeoutMs: 300 }));
      expect(error.message).toBe(`${what}: the command ${JSON.stringify(command)} did not finish within 300ms`);
      expect(error.problems.map((p) => p.message)).toEqual(['stderr: waiting for pinentry']);
      await happens(held.gone, "the end of the command's child, sleep");
    });

    it('gives a command no standard input, so one that reads it ends instead of hanging', async () => {
      const error = await failure(resolveSecret({ command: 'read line; printf "%s" "$line"' }, { env, cwd: '.', what, timeoutMs: 5000 }));
      expect(error.message).toMatch(/failed with exit status 1|printed nothing/);
    });

    it.each([
      ['prints nothing', 'true', 'printed nothing'],
      ['prints only blank lines', 'printf "\\n  \\n"', 'printed nothing'],
      ['cannot be found', 'definitely-not-a-command-core-test', 'failed with exit status 127'],
    ])('fails when the command %s', async (_case, command, message) => {
      const error = await failure(resolveSecret({ command }, { env, cwd: '.', what }));
      expect(error.message).toContain(message);
    });

    it('stops a running command when the invocation is interrupted', async () => {
      const held = heldFifo();
      const controller = new AbortController();
      const pending = resolveSecret(
        { command: 'sleep 300 > "$HELD"' },
        { env: { ...env, HELD: held.path }, cwd: '.', what, signal: controller.signal },
      );
      // Ctrl-C once the command is surely running: its sleep has opened the FIFO.
      await happens(held.running, 'the start of the command');
      controller.abort();
      await expect(pending).rejects.toBeInstanceOf(InterruptedError);
      await happens(held.gone, 'the end of the command');
    });
  });
});

describe.runIf(posix)('resolveSettingsToken', () => {
  it("runs a profile's token command in the config file's folder and names the profile when it fails", async () => {
    const box = await sandbox();
    await box.write(path.join(box.project, 'token.txt'), 'beside-the-file\n');
    await box.write(
      path.join(box.project, '.corerc'),
      'profiles:\n  staging:\n    token: {command: cat token.txt}\n    integratorToken: {command: "exit 4"}\n',
    );
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(await resolveSettingsToken(settings, 'token', { env: box.env, cwd: box.cwd })).toBe('beside-the-file');
    await expect(resolveSettingsToken(settings, 'integratorToken', { env: box.env, cwd: box.cwd })).rejects.toThrow(
      'integratorToken of profile "staging": the command "exit 4" failed with exit status 4',
    );
  });

  it('falls back to the token for the integrator token, and says so when it fails', async () => {
    const box = await sandbox();
    await box.write(path.join(box.cwd, '.corerc'), 'profiles:\n  p:\n    token: {env: UNSET_TOKEN}\n');
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    await expect(resolveSettingsToken(settings, 'integratorToken', { env: box.env, cwd: box.cwd })).rejects.toThrow(
      'token of profile "p" (used as the integrator token): environment variable UNSET_TOKEN is not set',
    );
    const withEnv = await loadSettings({ cwd: box.cwd, env: { ...box.env, CORE_TOKEN: 'env-token' }, flags: {} });
    expect(await resolveSettingsToken(withEnv, 'integratorToken', { env: box.env, cwd: box.cwd })).toBe('env-token');
  });

  it('is the requireSettings error when there is no token at all', async () => {
    const box = await sandbox();
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    await expect(resolveSettingsToken(settings, 'token', { env: box.env, cwd: box.cwd })).rejects.toThrow('missing token');
  });
});
