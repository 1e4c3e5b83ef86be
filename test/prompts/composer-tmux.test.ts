import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { baseEnv, binPath, ensureBuilt } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';

/**
 * One end-to-end run of the built binary in a real pseudo-terminal: `core greet -i` inside tmux,
 * keys sent as a user types them, the screen read back with capture-pane, and the greeting checked
 * where it arrived, in the sandbox. Each step waits, with a bound, for the text the next key needs;
 * nothing here is timed.
 */

const socket = `core-composer-${randomUUID().slice(0, 8)}`;
const WAIT_MS = 20_000;
let sandbox: Sandbox | undefined;

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

const screen = (session = 'core'): string => tmux('capture-pane', '-p', '-t', session);

/** Waits until the screen shows what is looked for, at most WAIT_MS; fails showing the screen. */
async function waitFor(what: string | RegExp, session = 'core'): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const text = screen(session);
    if (typeof what === 'string' ? text.includes(what) : what.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(what)}; it shows:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const type = (text: string) => tmux('send-keys', '-t', 'core', '-l', text);
const press = (...keys: string[]) => tmux('send-keys', '-t', 'core', ...keys);

withTool('tmux').describe('core greet -i in a terminal (tmux)', () => {
  beforeAll(async () => {
    ensureBuilt();
    sandbox = await startSandbox({ port: 0 });
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    // tmux leaves its socket file behind when the server is killed.
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${uid}`, socket), { force: true });
    await sandbox?.close();
  });

  it('composes a greeting with two quick replies and the sandbox receives exactly that', async () => {
    const env = baseEnv({ CORE_BASE_URL: sandbox!.url, CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token', TERM: 'xterm-256color' });
    // The session's shell starts from the tmux server's environment, which is the one given here.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(binPath)} greet -i; echo "[core exited $?]"; sleep 600`;
    const started = spawnSync(
      'tmux',
      ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'core', '-x', '120', '-y', '40', command],
      {
        env: env as NodeJS.ProcessEnv,
        encoding: 'utf8',
      },
    );
    expect(started.status, started.stderr).toBe(0);

    await waitFor('? Text: how do you want to write it?');
    press('Enter');
    await waitFor(/\? Text\s*$/m);
    type('Hello! How can we help?');
    press('Enter');
    await waitFor('? Greet which client?');
    press('Enter');
    await waitFor('? coreClientId');
    type('9223372036854775807');
    press('Enter');
    await waitFor('? Add to the greeting');
    press('Space');
    press('Enter');

    await waitFor('? Button 1 type');
    press('Enter');
    await waitFor('? Button 1 text');
    type('Track my order');
    // The characters left against the quick reply's 4,000, counted as the text is typed.
    await waitFor('Track my order (3,986 left)');
    press('Enter');
    await waitFor('? Set shown_text, callback_data, imageUrl or url for button 1?');
    press('Enter');
    await waitFor('? Add another button?');
    type('y');
    press('Enter');

    await waitFor('? Button 2 type');
    press('Down');
    press('Enter');
    await waitFor('? Button 2 text');
    type('Call me back');
    press('Enter');
    await waitFor('? Set shown_text, callback_data, imageUrl or url for button 2?');
    press('Enter');
    await waitFor(/\? Add another button\? \(y\/N\)\s*$/m);
    press('Enter');

    const preview = await waitFor('? What now?');
    expect(preview).toContain('Greeting to coreClientId 9223372036854775807');
    expect(preview).toContain('│ Hello! How can we help? │');
    expect(preview).toMatch(/│ Track my order │ │ ☎ Call me back │/);
    expect(preview).toContain('✓ ready to send');
    press('Enter');

    const end = await waitFor('[core exited');
    expect(end).toContain('[core exited 0]');
    expect(end).toMatch(/✓ 200 OK\s+POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/chatbot\/greet/);

    const messages = sandbox!.messages('sandbox');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ kind: 'greeting', delivered: true, addressedBy: ['coreClientId'], warnings: [] });
    expect(messages[0]!.body).toEqual({
      text: 'Hello! How can we help?',
      coreClientId: 9223372036854775807n,
      quickReplies: [
        { type: 'TEXT', text: 'Track my order' },
        { type: 'CONTACT', text: 'Call me back' },
      ],
    });
  });

  it('draws its prompts on the terminal when stderr goes to a file (2>log), which keeps only the messages', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-tmux-log-'));
    const log = join(dir, 'log');
    const env = baseEnv({ CORE_BASE_URL: sandbox!.url, CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token', TERM: 'xterm-256color' });
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(binPath)} greet -i 2>${JSON.stringify(log)}; echo "[core exited $?]"; sleep 600`;
    const started = spawnSync(
      'tmux',
      ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'log', '-x', '120', '-y', '40', command],
      {
        env: env as NodeJS.ProcessEnv,
        encoding: 'utf8',
      },
    );
    expect(started.status, started.stderr).toBe(0);
    await waitFor('? Text: how do you want to write it?', 'log');
    tmux('send-keys', '-t', 'log', 'C-c');
    expect(await waitFor('[core exited', 'log')).toContain('[core exited 130]');
    const logged = readFileSync(log, 'utf8');
    expect(logged).toBe('error: cancelled, nothing sent\n');
  });
});
