import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { baseEnv, binPath, ensureBuilt } from '../helpers/run.js';
import { hangLimit } from '../helpers/time-scale.js';
import { withTool } from '../helpers/tools.js';

/**
 * End-to-end runs of the built binary in a real pseudo-terminal: `core greet -i` (and reply -i,
 * reason update -i) inside tmux, keys sent as a user types them, the screen read back with
 * capture-pane, and the greeting checked where it arrived, in the sandbox. Each step waits, with a
 * bound, for the text the next key needs; nothing here is timed.
 */

const socket = `core-composer-${randomUUID().slice(0, 8)}`;
// Only a bound against a hang, scaled to the machine's load (test/helpers/time-scale.ts).
const WAIT_MS = hangLimit(20_000);
let sandbox: Sandbox | undefined;

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** The screen's text; with `joined`, a line the terminal wrapped is one line again. */
const screen = (session = 'core', joined = false): string => tmux('capture-pane', '-p', ...(joined ? ['-J'] : []), '-t', session);

/** Waits until the screen shows what is looked for, at most WAIT_MS; fails showing the screen. */
async function waitFor(what: string | RegExp, session = 'core', joined = false): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const text = screen(session, joined);
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

  it.each(PREVIEW_CASES)(
    'draws the whole preview and its check above the menu after $after',
    async ({ args, steps, answered, drawn, menu }) => {
      const session = `preview-${randomUUID().slice(0, 8)}`;
      const dir = mkdtempSync(join(tmpdir(), 'core-tmux-preview-'));
      // A profile that allows two quick replies, a greeting file with three, and an "editor" that
      // writes its text into the file it is given.
      mkdirSync(join(dir, 'config', 'core'), { recursive: true });
      writeFileSync(join(dir, 'config', 'core', 'config.yaml'), 'defaultProfile: p\nprofiles:\n  p:\n    limits: {maxQuickReplies: 2}\n');
      writeFileSync(
        join(dir, 'three.json'),
        JSON.stringify({ text: 'hello', coreClientId: 5, quickReplies: ['One', 'Two', 'Three'].map((text) => ({ type: 'TEXT', text })) }),
      );
      writeFileSync(join(dir, 'editor.sh'), '#!/bin/sh\nprintf "Written in the editor\\n" > "$1"\n', { mode: 0o755 });
      const env = {
        HOME: dir,
        XDG_CONFIG_HOME: join(dir, 'config'),
        CORE_BASE_URL: sandbox!.url,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        EDITOR: join(dir, 'editor.sh'),
        VISUAL: join(dir, 'editor.sh'),
      };
      // A new session's shell gets the tmux server's environment, set by whichever session came
      // first: the run's own is given on its command line.
      const words = ['env', ...Object.entries(env).map(([name, value]) => `${name}=${value}`), process.execPath, binPath, ...args];
      const command = `cd ${quote(dir)} && ${words.map(quote).join(' ')}; echo "[core exited $?]"; sleep 600`;
      const started = spawnSync(
        'tmux',
        ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', session, '-x', '120', '-y', '50', command],
        {
          env: baseEnv({ ...env, TERM: 'xterm-256color' }) as NodeJS.ProcessEnv,
          encoding: 'utf8',
        },
      );
      expect(started.status, started.stderr).toBe(0);

      for (const { at, keys } of steps) {
        await waitFor(at, session);
        for (const key of keys) {
          if (typeof key === 'string') tmux('send-keys', '-t', session, key);
          else tmux('send-keys', '-t', session, '-l', key.type);
        }
      }
      // The menu drawn after the last prompt was answered: by then that prompt has drawn all it will.
      const text = await waitFor(new RegExp(`^${escape(answered)} *$[\\s\\S]*^\\? What now\\? *$`, 'm'), session, true);
      expect(aboveMenu(text)).toEqual([answered, '', ...drawn, '? What now?']);
      expect(text).toContain(menu);
    },
  );
});

const quote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The lines from the last answered prompt (`✔ ...`) above the last "? What now?" down to that
 * line: what was written between the last prompt and the menu.
 */
function aboveMenu(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trimEnd());
  const menu = lines.lastIndexOf('? What now?');
  let answered = menu - 1;
  while (answered > 0 && !lines[answered]!.startsWith('✔ ')) answered--;
  return lines.slice(answered, menu + 1);
}

/** A message bubble holding one line of text, at whatever width the preview draws it. */
const bubble = (text: string) => [
  expect.stringMatching(/^╭─+╮$/),
  expect.stringMatching(new RegExp(`^│ ${escape(text)} +│$`)),
  expect.stringMatching(/^╰─+╯$/),
];

interface PreviewCase {
  /** The kind of prompt answered last, before the preview. */
  after: string;
  args: string[];
  /** What to wait for on the screen, then the keys to send (`{ type }`: text typed as it is). */
  steps: { at: string | RegExp; keys: (string | { type: string })[] }[];
  /** The last prompt as answered. */
  answered: string;
  /** What is drawn between it (and the empty line under it) and the menu. */
  drawn: unknown[];
  /** The first choice of the menu, as shown. */
  menu: string;
}

const READY = '❯ Send it';
const PREVIEW_CASES: PreviewCase[] = [
  {
    after: 'the "Add to the greeting" checklist, with nothing picked',
    args: ['greet', '-i', '-t', 'hello', '--core-client-id', '5'],
    steps: [{ at: '? Add to the greeting', keys: ['Enter'] }],
    answered: '✔ Add to the greeting (Space to pick, Enter to go on)',
    drawn: ['Greeting to coreClientId 5', ...bubble('hello'), '✓ ready to send'],
    menu: READY,
  },
  {
    after: 'the Settings checklist',
    args: ['greet', '-i', '-t', 'hello', '--core-client-id', '5'],
    steps: [
      { at: '? Add to the greeting', keys: ['Down', 'Down', 'Down', 'Space', 'Enter'] },
      { at: '? Settings', keys: ['Space', 'Enter'] },
    ],
    answered: '✔ Settings (Space to pick, Enter to accept) blockInput',
    drawn: [
      'Greeting to coreClientId 5',
      ...bubble('hello'),
      'input field blocked',
      expect.stringMatching(/^! settings\.blockInput: has an effect only with quick replies/),
      '✓ ready to send',
    ],
    menu: READY,
  },
  {
    after: 'the checklist, for a greeting with more buttons than the profile allows',
    args: ['greet', '-i', '-f', 'three.json'],
    steps: [{ at: '? Add to the greeting', keys: ['Enter'] }],
    answered: '✔ Add to the greeting (Space to pick, Enter to go on)',
    drawn: [
      'Greeting to coreClientId 5',
      ...bubble('hello'),
      '╭─────╮ ╭─────╮ ╭───────╮',
      '│ One │ │ Two │ │ Three │',
      '╰─────╯ ╰─────╯ ╰───────╯',
      '✗ 1 problem; choose "Edit a part" to fix:',
      "  quickReplies: 3 quick replies, limit 2 (the profile's maxQuickReplies)",
    ],
    menu: '- Send it (fix the problems first)',
  },
  {
    after: 'an input (the client, edited)',
    args: ['greet', '-i', '-t', 'hello', '--core-client-id', '5'],
    steps: [
      { at: '? Add to the greeting', keys: ['Enter'] },
      { at: '? What now?', keys: ['Down', 'Enter'] },
      { at: '? Which part?', keys: ['Down', 'Enter'] },
      { at: '? Greet which client?', keys: ['Enter'] },
      // Anchored: the answered line above, "✔ Greet which client? coreClientId", holds the words too.
      { at: /^\? coreClientId/m, keys: [{ type: '7' }, 'Enter'] },
    ],
    answered: '✔ coreClientId 7',
    drawn: ['Greeting to coreClientId 7', ...bubble('hello'), '✓ ready to send'],
    menu: READY,
  },
  {
    after: 'the editor (the text, edited)',
    args: ['greet', '-i', '-t', 'hello', '--core-client-id', '5'],
    steps: [
      { at: '? Add to the greeting', keys: ['Enter'] },
      { at: '? What now?', keys: ['Down', 'Enter'] },
      { at: '? Which part?', keys: ['Enter'] },
      { at: '? Text: how do you want to write it?', keys: ['Down', 'Enter'] },
      { at: 'to launch your preferred editor', keys: ['Enter'] },
    ],
    answered: '✔ Text',
    drawn: ['Greeting to coreClientId 5', ...bubble('Written in the editor'), '✓ ready to send'],
    menu: READY,
  },
  {
    after: 'the checklist of core reply -i, for an email reply addressed by questionId',
    args: ['reply', '-i', '--email', '-t', 'hi'],
    steps: [
      { at: '? Address the reply by', keys: ['Up', 'Enter'] },
      { at: /^\? questionId/m, keys: [{ type: '12' }, 'Enter'] },
      { at: '? Add to the reply', keys: ['Enter'] },
    ],
    answered: '✔ Add to the reply (Space to pick, Enter to go on)',
    drawn: [
      'Reply to questionId 12',
      ...bubble('hi'),
      '✗ 2 problems; choose "Edit a part" to fix:',
      expect.stringMatching(/^ {2}questionIndex: required: the question came by email/),
      expect.stringMatching(/^ {2}sessionId: required: the question came by email/),
    ],
    menu: '- Send it (fix the problems first)',
  },
  {
    after: 'an input of core reason update -i (the code)',
    args: ['reason', 'update', '-i', '--name', 'en=Away', '--color', '#FF8800', '--active', '--no-system'],
    steps: [{ at: '? Code of the reason to update', keys: [{ type: 'away' }, 'Enter'] }],
    answered: '✔ Code of the reason to update (up to 256 characters) away',
    drawn: [
      'Update of the inactivity reason away',
      expect.stringMatching(/^ {2}Code +away$/),
      expect.stringMatching(/^ {2}Translations +en "Away"$/),
      expect.stringMatching(/^ {2}Colour +#FF8800$/),
      expect.stringMatching(/^ {2}Active +active \(true\)$/),
      expect.stringMatching(/^ {2}System +false$/),
      '✓ ready to send',
    ],
    menu: READY,
  },
];
