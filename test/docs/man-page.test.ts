import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flatten } from '../../src/commands/completion/tree.js';
import { commandTree } from '../../scripts/docs/generate.js';
import { isHelpCommand } from '../../scripts/docs/reference.js';
import { repoRoot } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';

/**
 * `man core` (docs/man/core.1, installed through package.json's `man`): generated from the command
 * tree (test/docs/generated.test.ts checks it is current), it renders cleanly and names every
 * command and option.
 */

const page = readFileSync(join(repoRoot, 'docs/man/core.1'), 'utf8');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { man: string[]; files: string[] };

describe('the man page', () => {
  it('is what package.json installs, and ships in the package', () => {
    expect(pkg.man).toEqual(['./docs/man/core.1']);
    expect(pkg.files).toContain('docs/man');
  });

  withTool('groff').it('renders with groff without a single warning', () => {
    const result = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', join(repoRoot, 'docs/man/core.1')], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    const text = spawnSync('groff', ['-man', '-Tascii', join(repoRoot, 'docs/man/core.1')], { encoding: 'utf8' }).stdout.replace(/.\x08/g, '');
    for (const heading of ['NAME', 'SYNOPSIS', 'COMMANDS', 'ENVIRONMENT', 'EXIT STATUS', 'EXAMPLES']) expect(text).toContain(heading);
  });

  it('has a section for every command, with each of its options', async () => {
    const { root } = await commandTree();
    const commands = flatten(root).filter((command) => command.path.length > 0 && !isHelpCommand(command));
    for (const command of commands) {
      expect(page, command.usage).toContain(`\\fB${command.usage.replace(/-/g, '\\-')}\\fR`);
      for (const option of command.options) expect(page, `${command.usage}: ${option.flags}`).toContain(option.flags.replace(/-/g, '\\-'));
    }
  });
});
