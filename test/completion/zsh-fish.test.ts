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
/** A config file outside the project, for --config. */
let other: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'core-completion-shells-'));
  shimDir = coreOnPath(dir);
  project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, '.corerc.yaml'), 'profiles:\n  staging: {tenant: acme}\n  prod: {tenant: acme}\n');
  writeFileSync(join(project, 'conversation.yaml'), 'steps: []\n');
  mkdirSync(join(project, 'reports'));
  other = join(dir, 'other.yaml');
  writeFileSync(other, 'profiles:\n  eu-west: {tenant: acme}\n');
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
    ['core schema ', ['agents', 'config', 'greet', 'message', 'reason', 'reply', 'seed', 'test']],
    ['core completion ', ['bash', 'fish', 'powershell', 'zsh']],
    ['core -p prod gr', ['greet']],
    ['core -p ', ['prod', 'staging']],
    ['core reply --profile s', ['staging']],
    ['core config use ', ['prod', 'staging']],
    ['core config use prod ', []],
    ['core --config=OTHER greet --profile ', ['eu-west']],
    ['core --config OTHER greet --profile ', ['eu-west']],
    ['core --config=OTHER config use ', ['eu-west']],
    ['core test ', ['conversation.yaml', 'reports/']],
    ['core test conversation.yaml r', ['reports/']],
    ['core reason update --resume r', ['reports/']],
    ['core reason update --resume=r', ['--resume=reports/']],
    ['core greet --save c', ['conversation.yaml']],
    ['core test --reporter junit=r', ['junit=reports/']],
    ['core test --reporter=junit=r', ['--reporter=junit=reports/']],
    ['core test --reporter j', ['json', 'junit']],
    ['core test --timeout ', []],
    ['core api GET r', []],
  ])('completes %j', (line, expected) => {
    expect(complete(line.replace('OTHER', other))).toEqual(expected);
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
    const typed = words.map((word) => word.replace('OTHER', other));
    const result = spawnSync('zsh', ['-f', driver, file, ...typed], { cwd: project, env: env(), encoding: 'utf8' });
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
    [['core', 'reason', 'update', '--resume', ''], ['<files>']],
    [['core', 'reason', 'update', '--resume=r'], ['<files>']],
    [['core', 'greet', '--save', ''], ['<files>']],
    [['core', 'test', ''], ['<files>']],
    [['core', 'test', 'a.yaml', ''], ['<files>']],
    [['core', 'test', '--reporter', 'junit='], ['<files>']],
    [
      ['core', 'test', '--reporter', ''],
      ['human', 'json', 'junit', 'tap'],
    ],
    [['core', 'check-bot', '--output', ''], ['<files>']],
    [['core', 'api', 'GET', ''], []],
    [
      ['core', 'config', 'use', ''],
      ['prod', 'staging'],
    ],
    [['core', '--config=OTHER', 'config', 'use', ''], ['eu-west']],
    [
      ['core', '-p', ''],
      ['prod', 'staging'],
    ],
    [
      ['core', 'schema', ''],
      ['agents', 'config', 'greet', 'message', 'reason', 'reply', 'seed', 'test'],
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
    expect(option('reason update', '--resume').value).toEqual({ kind: 'file' });
    expect(option('test', '--reporter').value).toEqual({ kind: 'words', words: ['human', 'junit', 'tap', 'json'], thenFile: true });
    expect(option('check-bot', '--reporter').value).toEqual({ kind: 'words', words: ['human', 'junit', 'tap', 'json'] });
    expect(option('', '--profile').value).toEqual({ kind: 'profile' });
    expect(option('reply', '--text').value).toEqual({ kind: 'text' });
    expect(option('reply', '--email').value).toBeUndefined();
  });

  it('takes the arguments of core test as files, and the one of config use as a profile name', async () => {
    const { root } = await commandTree();
    const argument = (path: string) => flatten(root).find((command) => command.path.join(' ') === path)!.arguments[0]!;
    expect(argument('test')).toMatchObject({ name: 'file', variadic: true, value: { kind: 'file' } });
    expect(argument('config use')).toMatchObject({ name: 'name', variadic: false, value: { kind: 'profile' } });
    // The PATH of core api is below the base URL, not a file.
    expect(flatten(root).find((command) => command.path.join(' ') === 'api')!.arguments[1]!.value).toEqual({ kind: 'text' });
  });

  it('completes files for exactly the options and arguments that take a path', async () => {
    const { root } = await commandTree();
    const paths = flatten(root).flatMap((command) => [
      ...command.options
        .filter((option) => option.value?.kind === 'file')
        .map((option) => ['core', ...command.path, option.flags].join(' ')),
      ...command.arguments
        .filter((argument) => argument.value.kind === 'file')
        .map((argument) => ['core', ...command.path, `<${argument.name}>`].join(' ')),
    ]);
    // A new option that takes a path belongs here; its value named file, path or report makes it one.
    expect(paths.sort()).toEqual(
      [
        'core --config <file>',
        'core reply --text-file <path>',
        'core reply --markdown-file <path>',
        'core reply -f, --file <path>',
        'core reply --ca-file <file>',
        'core greet --text-file <path>',
        'core greet --save <file>',
        'core greet -f, --file <path>',
        'core greet --ca-file <file>',
        'core reason update -f, --file <path>',
        'core reason update --ca-file <file>',
        'core reason update --report <file>',
        'core reason update --resume <report>',
        'core api -f, --file <path>',
        'core bridge --ca-file <file>',
        'core bridge --webhook-map <file>',
        'core api --ca-file <file>',
        'core sandbox --agents <file>',
        'core sandbox --reasons <file>',
        'core sandbox --state <file>',
        'core sandbox --seed <file>',
        'core sandbox seed <file>',
        'core test <file>',
        'core test --output <file>',
        'core test --state <file>',
        'core check-bot --output <file>',
        'core doctor --ca-file <file>',
        'core sandbox --env-file <file>',
      ].sort(),
    );
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
