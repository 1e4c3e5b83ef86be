import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandTree } from '../../scripts/docs/generate.js';
import { flatten, type CommandSpec } from '../../src/commands/completion/tree.js';
import { baseEnv, binPath, ensureBuilt } from '../helpers/run.js';
import { hangLimit } from '../helpers/time-scale.js';
import { withTool } from '../helpers/tools.js';
import { coreOnPath } from './helpers.js';

/**
 * TAB pressed in real bash, zsh and fish, each in a terminal of 120x50 (tmux) with core's script
 * loaded as docs/commands/completion.md says, and the screen read back: what the user sees. Each
 * case starts its own shell, types a command line, presses TAB as a user does to see every
 * candidate (twice in bash, once in zsh and fish), and waits, with a bound, until the screen shows
 * the candidates expected; nothing here is timed.
 *
 * The names in the folder and the profiles share no first letter, so no shell inserts a common
 * prefix instead of listing them.
 */

const socket = `core-completion-${randomUUID().slice(0, 8)}`;
const WAIT_MS = hangLimit(20_000);
const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** What TAB lists in the work folder. */
const FILES = ['ci/', 'handover.json', 'last-run.ndjson', 'order-status.yaml'];
/** The profiles of the user's config file ($XDG_CONFIG_HOME/core/config.yaml). */
const PROFILES = ['ci-env', 'p3', 'prod', 'staging'];
/** The profiles of the file given with --config. */
const TEAM_PROFILES = ['eu-west', 'us-east'];

let dir: string;
let work: string;
let team: string;
/** Created by the profiles' token command, were it ever run. */
let tokenRan: string;
let env: NodeJS.ProcessEnv;
const start: Record<Shell, string> = { bash: '', zsh: '', fish: '' };

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8', env });
  if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** Waits until the screen of `session` passes `test`, at most WAIT_MS; fails showing the screen. */
async function waitFor(session: string, what: string, test: (screen: string) => boolean): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const screen = tmux('capture-pane', '-p', '-t', session);
    if (test(screen)) return screen;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${what}; it shows:\n${screen}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The words on a screen below the prompt's line: the candidates the shell lists. */
function listed(screen: string, line: string): Set<string> {
  const lines = screen.split('\n');
  const at = lines.findIndex((text) => text.includes(line.trimEnd()));
  return new Set(
    lines
      .slice(at + 1)
      .join(' ')
      .split(/\s+/)
      .filter(Boolean),
  );
}

/** Types `line` in a new `shell` in the work folder, presses TAB to list, and returns what it lists. */
async function offered(shell: Shell, line: string, expected: readonly string[]): Promise<Set<string>> {
  const session = `${shell}-${randomUUID().slice(0, 8)}`;
  tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '50', '-c', work, start[shell]);
  try {
    await waitFor(session, 'the prompt', (screen) => screen.includes('READY>'));
    tmux('send-keys', '-t', session, '-l', line);
    tmux('send-keys', '-t', session, ...(shell === 'bash' ? ['Tab', 'Tab'] : ['Tab']));
    const screen = await waitFor(session, `${expected.join(', ')} after ${JSON.stringify(line)}`, (text) => {
      const words = listed(text, line);
      return expected.every((word) => words.has(word));
    });
    return listed(screen, line);
  } finally {
    tmux('kill-session', '-t', session);
  }
}

/** `core [path] --option ` for every option that takes a path, each once: the root's at the root. */
function pathOptions(root: CommandSpec): string[] {
  return flatten(root).flatMap((command) =>
    command.options
      .filter((option) => option.value?.kind === 'file')
      .map((option) => ['core', ...command.path, option.long ?? option.short!].join(' ') + ' '),
  );
}

withTool('tmux').describe('TAB in bash, zsh and fish, in a terminal (tmux)', () => {
  let paths: string[] = [];

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'core-completion-terminal-'));
    const base = baseEnv({ TERM: 'xterm-256color' });
    const shim = coreOnPath(dir);
    env = { ...base, PATH: `${shim}:${base.PATH ?? ''}` } as NodeJS.ProcessEnv;
    tokenRan = join(dir, 'token-command-ran');
    const userConfig = join(base.XDG_CONFIG_HOME!, 'core');
    mkdirSync(userConfig, { recursive: true });
    writeFileSync(
      join(userConfig, 'config.yaml'),
      'profiles:\n' +
        PROFILES.map((name) => `  ${name}: {tenant: acme, token: {command: ${JSON.stringify(`touch ${tokenRan}`)}}}\n`).join(''),
      { mode: 0o600 },
    );
    team = join(dir, 'team.yaml');
    writeFileSync(team, 'profiles:\n' + TEAM_PROFILES.map((name) => `  ${name}: {tenant: acme}\n`).join(''), { mode: 0o600 });

    work = join(dir, 'work');
    mkdirSync(join(work, 'ci'), { recursive: true });
    for (const file of FILES.filter((name) => !name.endsWith('/'))) writeFileSync(join(work, file), '{}\n');

    const script = (shell: Shell) => {
      const file = join(dir, `core.${shell}`);
      writeFileSync(file, execFileSync(process.execPath, [binPath, 'completion', shell], { env }));
      return file;
    };
    const bashrc = join(dir, 'bashrc');
    writeFileSync(bashrc, `PS1='READY> '\nsource ${JSON.stringify(script('bash'))}\n`);
    start.bash = `bash --noprofile --rcfile ${JSON.stringify(bashrc)} -i`;
    const zdot = join(dir, 'zsh');
    mkdirSync(zdot);
    // compinit scans every completion function of the system when it has no dump file (seconds on a
    // busy machine): the dump is written once here, and every shell of the cases loads it.
    const dump = join(zdot, '.zcompdump');
    writeFileSync(
      join(zdot, '.zshrc'),
      `autoload -Uz compinit && compinit -u -d ${JSON.stringify(dump)}\nsource ${JSON.stringify(script('zsh'))}\nPROMPT='READY> '\n`,
    );
    const first = spawnSync('zsh', ['-i', '-c', 'exit'], { env: { ...env, ZDOTDIR: zdot }, encoding: 'utf8' });
    if (!existsSync(dump)) throw new Error(`zsh wrote no completion dump: ${first.stderr}`);
    start.zsh = `ZDOTDIR=${JSON.stringify(zdot)} zsh -i`;
    start.fish =
      `fish --no-config --init-command ` +
      JSON.stringify(`source ${script('fish')}; function fish_greeting; end; function fish_prompt; printf 'READY> '; end`);

    const { root } = await commandTree();
    paths = pathOptions(root);
    // A session that lasts the whole run: the server would otherwise exit with each case's last
    // session, and the next case could reach it as it goes.
    tmux('new-session', '-d', '-s', 'keep', 'sleep 3600');
  });

  afterAll(() => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    // tmux leaves its socket file behind when the server is killed.
    const uid = process.getuid?.() ?? 0;
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${uid}`, socket), { force: true });
  });

  // Each case has a shell and a tmux session of its own: the cases run side by side.
  describe.concurrent.each(SHELLS)('%s', (shell) => {
    it.each([
      ['core config use ', PROFILES],
      ['core -p ', PROFILES],
      ['core greet --profile ', PROFILES],
      ['core --config=TEAM greet --profile ', TEAM_PROFILES],
      ['core --config TEAM greet --profile ', TEAM_PROFILES],
      ['core --config=TEAM config use ', TEAM_PROFILES],
    ])('lists the profile names for %j', async (line, expected) => {
      const words = await offered(shell, line.replace('TEAM', team), expected);
      for (const name of expected === PROFILES ? TEAM_PROFILES : PROFILES) expect(words).not.toContain(name);
    });

    it.each([
      ['core test ', FILES],
      ['core test order-status.yaml ', FILES],
      ['core test --reporter junit=', FILES.map((file) => (shell === 'fish' ? `junit=${file}` : file))],
    ])('lists the files for %j', async (line, expected) => {
      await offered(shell, line, expected);
    });

    it('lists the files after every option that takes a path', async () => {
      expect(paths).toContain('core reason update --resume ');
      for (const line of paths) await offered(shell, line, FILES);
    });
  });

  it('never ran a token command', () => {
    expect(existsSync(tokenRan)).toBe(false);
  });
});
