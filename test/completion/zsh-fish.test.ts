import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fishQuote } from '../../src/commands/completion/fish.js';
import { describeTree, flatten } from '../../src/commands/completion/tree.js';
import { commandTree } from '../../scripts/docs/generate.js';
import { baseEnv, binPath, ensureBuilt, runInProcess } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';
import { coreOnPath } from './helpers.js';

/**
 * The zsh and fish scripts: their content, and what each shell makes of them: parsed by it and
 * asked for completions. Those tests need the shell (test/helpers/tools.ts).
 */

let dir: string;
let shimDir: string;
let project: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'core-completion-shells-'));
  shimDir = coreOnPath(dir);
  project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, '.corerc.yaml'), 'profiles:\n  staging: {tenant: acme}\n  prod: {tenant: acme}\n');
});

function env(): NodeJS.ProcessEnv {
  return { ...baseEnv(), PATH: `${shimDir}:${process.env.PATH ?? ''}` } as NodeJS.ProcessEnv;
}

function script(shell: 'zsh' | 'fish'): string {
  const file = join(dir, `core.${shell}`);
  writeFileSync(file, execFileSync(process.execPath, [binPath, 'completion', shell], { env: baseEnv() as NodeJS.ProcessEnv }));
  return file;
}

describe.each(['zsh', 'fish'] as const)('the %s completion script', (shell) => {
  it('names every command, subcommand and option of the command tree', async () => {
    const result = await runInProcess(['completion', shell]);
    expect(result.code).toBe(0);
    const { root } = await commandTree();
    for (const command of flatten(root)) {
      for (const sub of command.subcommands) expect(result.stdout, sub.path.join(' ')).toContain(sub.name);
      for (const option of command.options) {
        const name = option.long ?? option.short!;
        expect(result.stdout, `${command.path.join(' ')} ${name}`).toContain(shell === 'fish' ? name.replace(/^--?/, '') : name);
      }
    }
    expect(result.stdout).toContain('UNCLEAR_QUESTION');
    expect(result.stdout).toContain('completion __profiles');
    expect(result.stdout).not.toMatch(/__profiles'? -d|__profiles:/);
  });

  withTool(shell).it(`parses with ${shell} -n`, () => {
    const result = spawnSync(shell, ['-n', script(shell)], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

withTool('fish').describe('fish, asked for completions with complete -C', () => {
  let file: string;
  beforeAll(() => {
    file = script('fish');
  });

  function complete(line: string): string[] {
    const result = spawnSync('fish', ['--no-config', '-c', 'source $argv[1]; complete -C $argv[2]', file, line], {
      cwd: project,
      env: env(),
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.split('\t')[0]!)
      .sort();
  }

  it.each([
    ['core re', ['reason', 'reply']],
    ['core reason u', ['update']],
    ['core reply --co', ['--code', '--config', '--contact-reply', '--core-client-id']],
    ['core reply --code S', ['SUCCESS', 'SWITCH_TO_HUMAN']],
    ['core reply --code=S', ['--code=SUCCESS', '--code=SWITCH_TO_HUMAN']],
    ['core sandbox --duplicates ', ['soft', 'strict']],
    ['core schema ', ['config', 'greet', 'reason', 'reply', 'test']],
    ['core completion ', ['bash', 'fish', 'zsh']],
    ['core -p prod gr', ['greet']],
    ['core -p ', ['prod', 'staging']],
    ['core reply --profile s', ['staging']],
  ])('completes %j', (line, expected) => {
    expect(complete(line)).toEqual(expected);
  });
});

withTool('zsh').describe('zsh, with the completion system replaced by stubs that print what it is handed', () => {
  let file: string;
  let driver: string;
  beforeAll(() => {
    file = script('zsh');
    driver = join(dir, 'drive.zsh');
    // compadd and _describe filter by the typed prefix in a real zsh; the stubs print the whole list.
    writeFileSync(
      driver,
      [
        'compadd() { while (( $# )); do case $1 in -a) shift; print -l -- "${(@P)1}"; shift;; --) shift; print -l -- "$@"; return;; *) shift;; esac; done }',
        '_describe() { local arr=${@[-1]}; print -l -- "${(@)${(@P)arr}%%:*}" }',
        "_files() { print -- '<files>' }",
        'compset() { return 0 }',
        '_message() { : }',
        'compdef() { : }',
        'source "$1"; shift',
        'words=("$@"); CURRENT=$#',
        '_core',
      ].join('\n'),
    );
  });

  function complete(words: string[]): string[] {
    const result = spawnSync('zsh', ['-f', driver, file, ...words], { cwd: project, env: env(), encoding: 'utf8' });
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter(Boolean).sort();
  }

  it.each([
    [
      ['core', 'reason', ''],
      ['help', 'update'],
    ],
    [
      ['core', 'reply', '--code', ''],
      ['SUCCESS', 'SWITCH_TO_HUMAN', 'UNCLEAR_QUESTION'],
    ],
    [
      ['core', 'reply', '--code=S'],
      ['SUCCESS', 'SWITCH_TO_HUMAN', 'UNCLEAR_QUESTION'],
    ],
    [
      ['core', 'sandbox', '--duplicates', ''],
      ['soft', 'strict'],
    ],
    [['core', 'reply', '-f', ''], ['<files>']],
    [
      ['core', '-p', ''],
      ['prod', 'staging'],
    ],
    [
      ['core', 'schema', ''],
      ['config', 'greet', 'reason', 'reply', 'test'],
    ],
    [['core', 'schema', 'reply', ''], []],
    [['core', 'reply', '--text', '--co'], []],
  ])('offers for %j', (words, expected) => {
    expect(complete(words)).toEqual(expected);
  });
});

describe('the command tree the scripts are made from', () => {
  it('takes enumerated values from the program: reply --code from CODES, sandbox --duplicates from its modes', async () => {
    const { root } = await commandTree();
    const option = (path: string, long: string) =>
      flatten(root)
        .find((command) => command.path.join(' ') === path)!
        .options.find((candidate) => candidate.long === long)!;
    expect(option('reply', '--code').value).toEqual({ kind: 'words', words: ['UNCLEAR_QUESTION', 'SWITCH_TO_HUMAN', 'SUCCESS'] });
    expect(option('sandbox', '--duplicates').value).toEqual({ kind: 'words', words: ['strict', 'soft'] });
    expect(option('reply', '--file').value).toEqual({ kind: 'file' });
    expect(option('reason update', '--report').value).toEqual({ kind: 'file' });
    expect(option('', '--profile').value).toEqual({ kind: 'profile' });
    expect(option('reply', '--text').value).toEqual({ kind: 'text' });
    expect(option('reply', '--email').value).toBeUndefined();
  });

  it('leaves out hidden commands', async () => {
    const { root } = await commandTree();
    expect(flatten(root).map((command) => command.path.join(' '))).not.toContain('completion __profiles');
    expect(describeTree(root.command).subcommands.map((command) => command.name)).toContain('completion');
  });
});

describe('fishQuote', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
  ])('quotes %j', (text, expected) => {
    expect(fishQuote(text)).toBe(expected);
  });
});
