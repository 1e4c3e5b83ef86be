import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runConfigInit } from '../../src/commands/config/run.js';
import { createContext } from '../../src/context.js';
import { InterruptedError } from '../../src/errors.js';
import { capture, sandbox } from './helpers.js';

/** Waits until `check` holds, polling; fails after a few seconds. */
async function until(check: () => boolean, what: string, debugText?: () => string): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 10) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}${debugText ? `: ${JSON.stringify(debugText())}` : ''}`);
}

/**
 * The real prompts, driven through a fake terminal: keystrokes are written to standard input, and the
 * questions must appear on standard error (stdout carries only the result).
 */
describe('core config init on a terminal, with the inquirer prompts', () => {
  it('asks on stderr, takes the typed answers and writes the file', async () => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const ctx = createContext({ streams: { ...io.ctx.streams, stdin }, env: box.env, cwd: box.cwd });
    const done = runConfigInit({ global: { baseUrl: 'https://chat.example.com' }, force: false }, ctx);
    const answer = async (question: string, keys: string) => {
      await until(() => io.stderr().includes(question), question, io.stderr);
      stdin.write(keys);
    };
    await answer('Profile name', 'qa\r');
    await answer('Tenant', 'acme\r');
    await answer('Where should the token come from?', '\r');
    await answer('Environment variable that holds the token', '\r');
    expect(await done).toBe(0);
    expect(io.stdout()).toMatch(/^Wrote profile qa to [^\n]*\n$/);
    const text = await readFile(path.join(box.home, '.config', 'core', 'config.yaml'), 'utf8');
    expect(text).toContain('tenant: acme');
    expect(text).toContain('env: CORE_QA_TOKEN');
  });

  it('masks a literal token as it is typed', async () => {
    const token = 'sk_typed_secret_42';
    const box = await sandbox();
    const io = capture(box.env, box.cwd);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const ctx = createContext({ streams: { ...io.ctx.streams, stdin }, env: box.env, cwd: box.cwd });
    const done = runConfigInit({ global: { baseUrl: 'https://chat.example.com', tenant: 'acme' }, force: false, profileName: 'p' }, ctx);
    await until(() => io.stderr().includes('Where should the token come from?'), 'the token question', io.stderr);
    // Down twice to the last choice, the literal token.
    stdin.write('\u001b[B');
    stdin.write('\u001b[B');
    stdin.write('\r');
    await until(() => io.stderr().includes('Token (it will be stored'), 'the password question', io.stderr);
    stdin.write(`${token}\r`);
    expect(await done).toBe(0);
    expect(await readFile(path.join(box.home, '.config', 'core', 'config.yaml'), 'utf8')).toContain(`token: ${token}`);
    expect(io.all()).not.toContain(token);
  });

  it('turns Ctrl-C into an interruption (exit 130) and writes nothing', async () => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd);
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const ctx = createContext({ streams: { ...io.ctx.streams, stdin }, env: box.env, cwd: box.cwd });
    const done = runConfigInit({ global: {}, force: false }, ctx);
    await until(() => io.stderr().includes('Profile name'), 'the first question');
    stdin.write('\u0003');
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
  });
});
