import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/errors.js';
import { EXIT_CODES } from '../../src/commands/help/text.js';
import { DOCS_URL, TOPIC_NAMES } from '../../src/commands/help-topics.js';
import { directInvocation, expandHelp } from '../../src/program.js';
import { versionRequest } from '../../src/version.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * The help topics (`core help environment|exit-codes|config|formats|telemetry`), `core version`,
 * `core --version --json`, and a bare `core`: each prints on stdout and exits 0.
 */

describe('core help <topic>', () => {
  it.each(TOPIC_NAMES)('core help %s prints the topic on stdout, ASCII only, and exits 0', async (topic) => {
    const run = await runInProcess(['help', topic]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout.startsWith(`${topic.toUpperCase()}: `)).toBe(true);
    expect(run.stdout).toContain(DOCS_URL);
    expect(run.stdout).toMatch(/^[\x00-\x7f]*$/);
    expect(Math.max(...run.stdout.split('\n').map((line) => line.length))).toBeLessThanOrEqual(100);
  });

  it.each([
    ['environment', ['CORE_TOKEN', 'NO_COLOR', 'HTTPS_PROXY', 'LC_ALL', 'XDG_STATE_HOME', 'CORE_WEBHOOK_SECRET']],
    ['exit-codes', ['core doctor', 'core test', '141']],
    ['config', ['.corerc', 'defaultProfile', 'core config show', 'CORE_PROFILE']],
    ['formats', ['--report FILE', '--env-file FILE', 'NDJSON', 'JUnit']],
    ['telemetry', ['sends nothing']],
  ] as const)('core help %s says what it is for', async (topic, words) => {
    const run = await runInProcess(['help', topic]);
    for (const word of words) expect(run.stdout).toContain(word);
  });

  it('core help exit-codes names every exit code core has', async () => {
    const run = await runInProcess(['help', 'exit-codes']);
    expect(EXIT_CODES.map((entry) => entry.code).sort((a, b) => a - b)).toEqual(Object.values(ExitCode).sort((a, b) => a - b));
    for (const code of Object.values(ExitCode)) expect(run.stdout).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
  });

  it('takes root options around the topic, and leaves anything else to commander', async () => {
    expect(directInvocation(['--no-color', 'help', 'config'])).toEqual({ kind: 'topic', name: 'config' });
    expect(directInvocation(['help', 'config', '-p', 'prod'])).toEqual({ kind: 'topic', name: 'config' });
    expect(directInvocation(['help', 'config', 'extra'])).toBeUndefined();
    expect(directInvocation(['help', 'reply'])).toBeUndefined();
    expect(expandHelp(['help', 'reply'])).toEqual(['reply', '--help']);
  });

  it.each([
    [
      ['help', 'reason', 'update'],
      ['reason', 'update', '--help'],
    ],
    [
      ['--no-color', 'help', 'sandbox', 'snapshot', 'save'],
      ['--no-color', 'sandbox', 'snapshot', 'save', '--help'],
    ],
    // Before the options: at the end, --help would be the value of one that takes one, and the sandbox would start.
    [
      ['help', 'sandbox', '--config'],
      ['sandbox', '--help', '--config'],
    ],
    [
      ['help', 'reply', '-t', 'x'],
      ['reply', '--help', '-t', 'x'],
    ],
  ])('reads core %j as %j', (argv, expanded) => {
    expect(expandHelp(argv)).toEqual(expanded);
  });

  it('passes an unknown name on to commander', async () => {
    const unknown = await runInProcess(['help', 'nonsense']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'nonsense'");
  });

  it("core help lists the topics, each with its summary, and the docs' address", async () => {
    const run = await runInProcess(['help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Help topics (core help <topic>):');
    for (const topic of TOPIC_NAMES) expect(run.stdout).toMatch(new RegExp(`^  ${topic} +\\S`, 'm'));
    expect(run.stdout).toContain(DOCS_URL);
    expect(run.stdout).toMatch(/^ {2}doctor \[options\] +check everything core depends on/m);
    expect(run.stdout).toMatch(/^ {2}version \[options\] +print core.s version/m);
  });
});

describe('core version', () => {
  const expected = { version: expect.stringMatching(/^\d+\.\d+\.\d+/), node: process.versions.node, platform: process.platform };

  it.each([
    [['version', '--json']],
    [['--version', '--json']],
    [['--json', '--version']],
    [['-V', '--json']],
    [['--no-color', '--version', '--json']],
  ])('core %j prints {"version","node","platform"}', async (argv) => {
    const run = await runInProcess([...argv]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const document = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(document).toEqual(expected);
    expect(Object.keys(document)).toEqual(['version', 'node', 'platform']);
  });

  it('core version prints one line for people; core --version the version alone', async () => {
    const human = await runInProcess(['version']);
    expect(human.stdout).toMatch(
      new RegExp(
        `^core \\d+\\.\\d+\\.\\d+\\S* \\(Node\\.js ${process.versions.node.replace(/\./g, '\\.')}, ${process.platform}-${process.arch}\\)\\n$`,
      ),
    );
    const bare = await runInProcess(['--version']);
    expect(bare.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
  });

  it.each([
    [['version'], { json: false }],
    [['version', '--json'], { json: true }],
    [['--version', '--json'], { json: true }],
    [['--version'], undefined],
    [['version', '--help'], undefined],
    [['--json'], undefined],
    [['--version', '--version'], undefined],
    [['reply', '--version'], undefined],
  ] as const)('bin.ts answers %j without the program: %j', (argv, expected) => {
    expect(versionRequest(argv)).toEqual(expected);
  });
});

describe('core with no command', () => {
  it.each([[[]], [['--no-color']], [['-p', 'prod']], [['--config', 'x.yaml']]])(
    'core %j prints a short usage with the docs address and exits 0',
    async (argv) => {
      const run = await runInProcess([...argv], { env: baseEnv() });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(run.stdout).toContain('Usage: core <command> [options]');
      expect(run.stdout).toContain(`Docs: ${DOCS_URL}`);
      expect(run.stdout).toContain('core help <topic>');
      expect(run.stdout.split('\n').length).toBeLessThan(25);
    },
  );

  it('an unknown option alone is still an error', async () => {
    const run = await runInProcess(['--nonsense']);
    expect(run.code).toBe(2);
  });
});
