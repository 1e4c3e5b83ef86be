import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flatten } from '../../src/commands/completion/tree.js';
import { commandTree } from '../../scripts/docs/generate.js';
import { optionText } from '../../scripts/docs/man.js';
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

  it('states every default once, whether the description or the definition gives it', () => {
    const paragraphs = page.split(/^\.TP$/m);
    const twice = paragraphs.filter((paragraph) => (paragraph.match(/\(default\b/g) ?? []).length > 1);
    expect(twice).toEqual([]);
    expect(page).toContain('(default 30s)');
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

describe("an option's text on the man page", () => {
  it.each([
    ['no default', 'the profile to use', undefined, 'the profile to use'],
    ['a default from the definition only', 'how many at once', '4', 'how many at once (default: 4)'],
    ['the default in the description', 'time limit per attempt (default 30s)', '30s', 'time limit per attempt (default 30s)'],
    ['the default with a colon in the description', 'unique ID (default: a new UUID, printed)', 'a new UUID, printed', 'unique ID (default: a new UUID, printed)'],
    ['the default after a semicolon', 'retries (0 to 100; default 3)', '3', 'retries (0 to 100; default 3)'],
    ['a parenthesis that only mentions defaults', 'overrides (defaults of the profile)', 'none', 'overrides (defaults of the profile) (default: none)'],
  ])('with %s', (_case, description, defaultText, expected) => {
    expect(optionText({ description, defaultText })).toBe(expected);
  });
});
