import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CODES } from '../../src/payload/index.js';
import { baseEnv, binPath, ensureBuilt, repoRoot, runInProcess } from '../helpers/run.js';
import { coreOnPath } from './helpers.js';
import { CHECK_IDS } from '../../src/testing/check-bot/ids.js';

/**
 * The bash script, loaded into a real bash and asked for completions the way bash asks: COMP_WORDS
 * holds the words typed so far (the last one being completed), COMP_CWORD its index.
 */

let dir: string;
let script: string;
/** A folder on PATH holding `core`, which runs the built binary: the script calls `core` for profile names. */
let shimDir: string;

beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'core-completion-'));
  script = join(dir, 'core.bash');
  writeFileSync(script, execFileSync(process.execPath, [binPath, 'completion', 'bash'], { env: baseEnv() as NodeJS.ProcessEnv }));
  shimDir = coreOnPath(dir);
});

interface Asked {
  cwd?: string;
  env?: Record<string, string | undefined>;
}

/** The completions bash offers for the last of `words`, and what the script wrote on stderr. */
function complete(words: string[], asked: Asked = {}): { replies: string[]; stderr: string } {
  const env: Record<string, string | undefined> = { ...baseEnv(), ...asked.env, PATH: `${shimDir}:${process.env.PATH ?? ''}` };
  const result = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _core_completion; printf "%s\\n" "${COMPREPLY[@]}"',
      'bash',
      script,
      ...words,
    ],
    { cwd: asked.cwd ?? env.HOME, env: env as NodeJS.ProcessEnv, encoding: 'utf8' },
  );
  expect(result.status, result.stderr).toBe(0);
  return { replies: result.stdout.split('\n').filter((line) => line !== ''), stderr: result.stderr };
}

const sorted = (words: readonly string[]) => [...words].sort();

describe('the bash completion script', () => {
  it('is valid bash', () => {
    const result = spawnSync('bash', ['-n', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('loads with source <(core completion bash), as the help says, and registers itself for core', () => {
    const result = spawnSync(
      'bash',
      [
        '--norc',
        '-c',
        `source <("${process.execPath}" "${binPath}" completion bash); complete -p core; COMP_WORDS=(core re); COMP_CWORD=1; _core_completion; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      { encoding: 'utf8', env: baseEnv() as NodeJS.ProcessEnv },
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(['complete -F _core_completion core', 'reply', 'reason']);
  });

  it.each([
    ['commands', ['core', 're'], ['reason', 'reply']],
    [
      'every command',
      ['core', ''],
      [
        'agent',
        'api',
        'bridge',
        'check-bot',
        'completion',
        'config',
        'customer',
        'doctor',
        'example',
        'greet',
        'help',
        'mcp',
        'reason',
        'reply',
        'sandbox',
        'schema',
        'test',
        'version',
      ],
    ],
    ['a subcommand', ['core', 'reason', 'u'], ['update']],
    ['the subcommands of config', ['core', 'config', ''], ['check', 'help', 'init', 'path', 'show', 'use']],
    ['options, the global --config among them', ['core', 'reply', '--co'], ['--code', '--config', '--contact-reply', '--core-client-id']],
    [
      'options of a subcommand',
      ['core', 'reason', 'update', '--c'],
      ['--ca-file', '--code', '--color', '--concurrency', '--config', '--curl'],
    ],
    ['options of the root', ['core', '--'], ['--config', '--help', '--no-color', '--profile', '--version']],
    ['codes', ['core', 'reply', '--code', 'S'], ['SUCCESS', 'SWITCH_TO_HUMAN']],
    ['the reporters of core test', ['core', 'test', '--reporter', ''], ['human', 'json', 'junit', 'tap']],
    ['codes after --code= (bash splits at =)', ['core', 'reply', '--code', '=', 'S'], ['SUCCESS', 'SWITCH_TO_HUMAN']],
    ['codes right after --code=', ['core', 'reply', '--code', '='], sorted(CODES)],
    ['codes in one --code=S word', ['core', 'reply', '--code=S'], ['--code=SUCCESS', '--code=SWITCH_TO_HUMAN']],
    ['the checks of core check-bot --only', ['core', 'check-bot', '--only', 'sig'], CHECK_IDS.filter((id) => id.startsWith('sig')).sort()],
    ['the sandbox duplicates modes', ['core', 'sandbox', '--duplicates', ''], ['soft', 'strict']],
    ['the known action', ['core', 'reply', '--action', ''], ['INIT_CHAT']],
    ['schema kinds', ['core', 'schema', ''], ['agents', 'config', 'greet', 'message', 'reason', 'reply', 'seed', 'test']],
    ['nothing after the schema kind', ['core', 'schema', 'reply', ''], []],
    ['shells', ['core', 'completion', ''], ['bash', 'fish', 'powershell', 'zsh']],
    ['command names after help', ['core', 'help', 'r'], ['reason', 'reply']],
    ['help topics and command names after help', ['core', 'help', 'e'], ['environment', 'example', 'exit-codes']],
    ['subcommand names after reason help', ['core', 'reason', 'help', ''], ['update']],
    ['commands after a global option and its value', ['core', '-p', 'prod', 'gr'], ['greet']],
    ['nothing for a free-text value, even one that looks like an option', ['core', 'reply', '--text', '--co'], []],
    ['nothing after a complete command that takes no argument', ['core', 'reply', '-t', 'reason', ''], []],
  ])('completes %s', (_, words, expected) => {
    const { replies, stderr } = complete(words);
    expect(stderr).toBe('');
    expect(sorted(replies)).toEqual(expected);
  });

  const replyFiles = ['docs/examples/reply-handover.yaml', 'docs/examples/reply.json'];
  it.each([
    ['after -f', ['core', 'reply', '-f', 'docs/examples/rep'], replyFiles],
    ['after --report', ['core', 'reason', 'update', '--report', 'docs/examples/reasons.'], ['docs/examples/reasons.ndjson']],
    ['after --resume', ['core', 'reason', 'update', '--resume', 'docs/examples/reasons.'], ['docs/examples/reasons.ndjson']],
    ['after --resume=', ['core', 'reason', 'update', '--resume', '=', 'docs/examples/reasons.'], ['docs/examples/reasons.ndjson']],
    ['after --text-file', ['core', 'greet', '--text-file', 'docs/examples/rep'], replyFiles],
    ['after --save', ['core', 'greet', '--save', 'docs/examples/rep'], replyFiles],
    ['after --ca-file', ['core', 'api', 'GET', '/x', '--ca-file', 'docs/examples/rep'], replyFiles],
    ['after --reasons of core sandbox', ['core', 'sandbox', '--reasons', 'docs/examples/reasons.'], ['docs/examples/reasons.ndjson']],
    ['after --output of core check-bot', ['core', 'check-bot', '--output', 'docs/examples/rep'], replyFiles],
    ['as the files of core test', ['core', 'test', 'docs/examples/rep'], replyFiles],
    ['as the second file of core test', ['core', 'test', 'a.yaml', 'docs/examples/rep'], replyFiles],
    ['after a --reporter NAME= of core test', ['core', 'test', '--reporter', 'junit', '=', 'docs/examples/rep'], replyFiles],
    ['after --reporter=NAME=', ['core', 'test', '--reporter', '=', 'tap', '=', 'docs/examples/rep'], replyFiles],
    [
      'as a file of core test after --reporter NAME=FILE',
      ['core', 'test', '--reporter', 'junit', '=', 'out.xml', 'docs/examples/rep'],
      replyFiles,
    ],
    ['in one --output=FILE word', ['core', 'test', '--output=docs/examples/rep'], replyFiles.map((file) => `--output=${file}`)],
    ['in one NAME=FILE word', ['core', 'test', '--reporter', 'junit=docs/examples/rep'], replyFiles.map((file) => `junit=${file}`)],
  ])('completes file names %s', (_, words, expected) => {
    const { replies, stderr } = complete(words, { cwd: repoRoot });
    expect(stderr).toBe('');
    expect(sorted(replies)).toEqual(expected);
  });

  it.each([
    ['the reporters of core test, before any =', ['core', 'test', '--reporter', 'j'], ['json', 'junit']],
    ['nothing but the reporters after --reporter', ['core', 'test', '--reporter', ''], ['human', 'json', 'junit', 'tap']],
    ['nothing for the URL path of core api', ['core', 'api', 'GET', 'docs/examples/rep'], []],
  ])('completes %s', (_, words, expected) => {
    expect(sorted(complete(words, { cwd: repoRoot }).replies)).toEqual(expected);
  });

  describe('profile names', () => {
    let project: string;
    let other: string;
    beforeAll(() => {
      project = mkdtempSync(join(tmpdir(), 'core-completion-project-'));
      writeFileSync(
        join(project, '.corerc.yaml'),
        'defaultProfile: staging\nprofiles:\n  staging: {tenant: acme}\n  prod: {tenant: acme}\n',
      );
      other = join(project, 'other.yaml');
      writeFileSync(other, 'profiles:\n  eu-west: {tenant: acme}\n');
    });

    it.each([
      ['after -p', ['core', '-p', ''], ['prod', 'staging']],
      ['after --profile on a command, by prefix', ['core', 'reply', '--profile', 'p'], ['prod']],
      ['in --profile=', ['core', 'greet', '--profile=s'], ['--profile=staging']],
      ['as the argument of config use', ['core', 'config', 'use', ''], ['prod', 'staging']],
      ['as the argument of config use, by prefix', ['core', 'config', 'use', 'st'], ['staging']],
      ['not after the argument of config use', ['core', 'config', 'use', 'prod', ''], []],
    ])('come from the config file found from the current folder, %s', (_, words, expected) => {
      expect(sorted(complete(words, { cwd: project }).replies)).toEqual(expected);
    });

    it.each([
      ['--config FILE', ['core', '--config', 'OTHER', 'reply', '-p', '']],
      ['--config=FILE', ['core', '--config', '=', 'OTHER', 'reply', '-p', '']],
      ['--config FILE, for config use', ['core', '--config', 'OTHER', 'config', 'use', '']],
    ])('come from the file named by %s when it was typed', (_, words) => {
      const typed = words.map((word) => (word === 'OTHER' ? other : word));
      expect(complete(typed, { cwd: project }).replies).toEqual(['eu-west']);
    });

    it('are all offered even when CORE_PROFILE names a profile that does not exist', () => {
      const { replies, stderr } = complete(['core', '-p', ''], { cwd: project, env: { CORE_PROFILE: 'nope' } });
      expect(sorted(replies)).toEqual(['prod', 'staging']);
      expect(stderr).toBe('');
    });

    it('are none, quietly, when there is no config file or it is broken', () => {
      const empty = mkdtempSync(join(tmpdir(), 'core-completion-empty-'));
      expect(complete(['core', '-p', ''], { cwd: empty })).toEqual({ replies: [], stderr: '' });
      writeFileSync(join(empty, '.corerc.yaml'), 'profiles: [not, a, mapping\n');
      expect(complete(['core', '-p', ''], { cwd: empty })).toEqual({ replies: [], stderr: '' });
    });
  });
});

describe('core completion __profiles, the helper the scripts call', () => {
  it('prints the profile names, one a line', async () => {
    const env = baseEnv();
    writeFileSync(join(env.HOME!, '.corerc.yaml'), 'profiles:\n  staging: {tenant: a}\n  prod: {tenant: b}\n');
    const result = await runInProcess(['completion', '__profiles'], { env, cwd: env.HOME });
    expect(result).toEqual({ code: 0, stdout: 'staging\nprod\n', stderr: '' });
  });

  it('prints nothing and exits 0 without a config file, or with an invalid one', async () => {
    const env = baseEnv();
    expect(await runInProcess(['completion', '__profiles'], { env })).toEqual({ code: 0, stdout: '', stderr: '' });
    writeFileSync(join(env.HOME!, '.corerc.yaml'), 'profiles:\n  staging: {tiemout: 3}\n');
    expect(await runInProcess(['completion', '__profiles'], { env, cwd: env.HOME })).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runInProcess(['--config', '/nonexistent/core.yaml', 'completion', '__profiles'], { env })).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
  });

  it('is not listed in the help of core completion', async () => {
    const result = await runInProcess(['completion', '--help']);
    expect(result.stdout).not.toContain('__profiles');
    expect(result.stdout).toContain('Usage: core completion [options] <shell>');
  });
});
