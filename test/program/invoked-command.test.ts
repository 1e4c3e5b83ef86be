import { describe, expect, it } from 'vitest';
import { invokedCommand } from '../../src/program.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

describe('invokedCommand', () => {
  it.each<[string[], string | undefined]>([
    [['reply', '-t', 'x'], 'reply'],
    [['--no-color', 'greet'], 'greet'],
    [['-p', 'prod', 'reason', 'update'], 'reason'],
    [['--profile', 'reply', 'config', 'show'], 'config'],
    [['--config', 'core.yaml', 'sandbox'], 'sandbox'],
    [['help', 'reply'], undefined],
    [['completion', 'bash'], undefined],
    [['rply'], undefined],
    [['--version'], undefined],
    [[], undefined],
    [['--', 'reply'], undefined],
    [['__proto__'], undefined],
    [['constructor'], undefined],
  ])('reads %j as %j', (argv, expected) => {
    expect(invokedCommand(argv)).toBe(expected);
  });
});

describe('core help', () => {
  it.each([
    [['help', 'reason', 'update'], 'Usage: core reason update'],
    [['help', 'config', 'show'], 'Usage: core config show'],
    [['help', 'reply'], 'Usage: core reply'],
    [['help'], 'Usage: core [options] [command]'],
    // Options before or after the word help: still the help, never the command itself.
    [['help', '--no-color', 'sandbox'], 'Usage: core sandbox'],
    [['--no-color', 'help', 'sandbox'], 'Usage: core sandbox'],
    [['help', '-p', 'staging', 'reason', 'update'], 'Usage: core reason update'],
    [['--config', 'help', 'help', 'reply'], 'Usage: core reply'],
    [['help', '--no-color'], 'Usage: core [options] [command]'],
  ])('%j shows the help of that command', async (argv, usage) => {
    const result = await runInProcess(argv, { env: baseEnv() });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith(usage)).toBe(true);
  });

  it.each(['nope', '__proto__', 'constructor', 'toString'])('reports the unknown command name %j as unknown', async (name) => {
    const result = await runInProcess(['help', name], { env: baseEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`unknown command '${name}'`);
  });
});

describe('the program built for one command', () => {
  it('still lists every command in the root help and suggests the closest for a typo', async () => {
    const help = await runInProcess(['--help'], { env: baseEnv() });
    for (const name of ['reply', 'greet', 'reason', 'api', 'sandbox', 'customer', 'config', 'schema', 'completion'])
      expect(help.stdout).toContain(`  ${name}`);
    const typo = await runInProcess(['rply'], { env: baseEnv() });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('(Did you mean reply?)');
  });
});
