import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { flatten } from '../../src/commands/completion/tree.js';
import { commandTree } from '../../scripts/docs/generate.js';
import { isHelpCommand } from '../../scripts/docs/reference.js';
import { runInProcess } from '../helpers/run.js';

/**
 * docs/commands/README.md (and docs/architecture.md, "Adding a command"): every command's help ends
 * with real examples. The tree is walked, so a command added later is held to it too. commander's
 * own `help [command]` commands are left out: their help is commander's, and `core help X` prints
 * X's help, examples included.
 */

const { root } = await commandTree();
const commands = flatten(root).filter((command) => !isHelpCommand(command));

describe('the help of every command', () => {
  it('covers the whole tree', () => {
    expect(commands.map((command) => command.path.join(' '))).toEqual(
      expect.arrayContaining(['', 'reply', 'greet', 'reason', 'reason update', 'sandbox', 'config', 'config show', 'config path', 'config init', 'schema', 'completion', 'test']),
    );
  });

  it.each(commands.map((command) => [['core', ...command.path].join(' '), command.path] as const))(
    '%s --help ends with an Examples: block of core command lines',
    async (_, path) => {
      const result = await runInProcess([...path, '--help']);
      expect(result.code).toBe(0);
      const help = result.stdout.replace(/\s+$/, '\n');
      const at = help.lastIndexOf('\nExamples:\n');
      expect(at, 'no Examples: block').toBeGreaterThan(-1);
      const lines = help.slice(at + '\nExamples:\n'.length).split('\n').filter((line) => line !== '');
      expect(lines.length).toBeGreaterThan(0);
      // Each line is an example ("  $ ..."), or the indented continuation of one.
      for (const line of lines) expect(line).toMatch(/^ {2}(\$ |\s)/);
      const examples = lines.filter((line) => line.startsWith('  $ '));
      expect(examples.length).toBeGreaterThan(0);
      // Examples may set things up (export, curl), but they show core, and this very command.
      expect(examples.some((example) => /\bcore\b/.test(example))).toBe(true);
      if (path.length > 0) expect(examples.some((example) => example.includes(['core', ...path].join(' ')))).toBe(true);
      // Each can be pasted into a shell: a note after the command is a # comment (a wide gap before words
      // that are not one would paste them as arguments), and the line parses as shell.
      for (const example of examples) {
        expect(example, 'a note after the command must start with #').not.toMatch(/\S {3,}(?!#)\S/);
        const syntax = spawnSync('bash', ['-n', '-c', example.slice('  $ '.length)], { encoding: 'utf8' });
        expect(syntax.stderr, example).toBe('');
      }
    },
  );

  it('is the same through core help <command>', async () => {
    const viaHelp = await runInProcess(['help', 'reply']);
    const viaFlag = await runInProcess(['reply', '--help']);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });
});
