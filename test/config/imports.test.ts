import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { main } from '../../src/main.js';
import { capture, sandbox, type Sandbox } from './helpers.js';

/**
 * `$import` in a config file (docs/configuration.md, "How a file is read"): each file named is read
 * with its own imports and merged as cosmiconfig merges them (test/config/reading.test.ts holds the
 * two to the same result). What cosmiconfig left to an unexpected failure (exit 1), or passed over in
 * silence, is a configuration error here, exit 2, naming the files: a cycle by any path (links
 * included), an import that cannot be read, an `$import` that is not a file name, an imported file
 * that holds no mapping. An empty imported file adds nothing.
 */

async function core(box: Sandbox, argv: string[]) {
  const io = capture(box.env, box.cwd);
  const code = await main({ argv, streams: io.ctx.streams, env: box.env, cwd: box.cwd });
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

async function refusal(load: Promise<unknown>): Promise<ConfigError> {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

/** Writes files into the project folder (where the search finds .corerc.*), named relative to it. */
async function files(box: Sandbox, contents: Record<string, string>): Promise<(name: string) => string> {
  for (const [name, content] of Object.entries(contents)) await box.write(path.join(box.project, name), content);
  return (name) => path.join(box.project, name);
}

describe('an $import cycle', () => {
  it.each([
    [
      'a YAML file that imports itself',
      { '.corerc.yaml': '$import: .corerc.yaml\n' },
      (at: (n: string) => string) => `${at('.corerc.yaml')} imports itself`,
    ],
    [
      'a JSON file that imports itself',
      { '.corerc.json': '{"$import": "./.corerc.json"}' },
      (at: (n: string) => string) => `${at('.corerc.json')} imports itself`,
    ],
    [
      'two files that import each other',
      { '.corerc.yaml': '$import: b.yaml\n', 'b.yaml': '$import: .corerc.yaml\n' },
      (at: (n: string) => string) => `$import cycle: ${at('.corerc.yaml')} imports ${at('b.yaml')}, which imports ${at('.corerc.yaml')}`,
    ],
    [
      'three files, the last importing the second',
      {
        '.corerc.yaml': '$import: [ok.yaml, b.yaml]\n',
        'ok.yaml': 'profiles: {}\n',
        'b.yaml': '$import: c/c.yaml\n',
        'c/c.yaml': '$import: ../b.yaml\n',
      },
      (at: (n: string) => string) =>
        `$import cycle: ${at('.corerc.yaml')} imports ${at('b.yaml')}, which imports ${at('c/c.yaml')}, which imports ${at('b.yaml')}`,
    ],
  ])('is a configuration error naming the chain (exit 2), not an unexpected failure: %s', async (_name, contents, expected) => {
    const box = await sandbox();
    const at = await files(box, contents);
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(expected(at));
    expect(error.hint).toMatch(/^remove the \$import of .+ from .+, or another \$import of the cycle$/);
    const run = await core(box, ['config', 'show']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: ${expected(at)}`);
    expect(run.stderr).not.toContain('unexpected failure');
  });

  it('is found through a symbolic link to the importing file, and named by both paths', async () => {
    const box = await sandbox();
    const at = await files(box, { '.corerc.yaml': '$import: again.yaml\n' });
    symlinkSync(at('.corerc.yaml'), at('again.yaml'));
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.message).toBe(`${at('.corerc.yaml')} imports itself (${at('again.yaml')} is ${at('.corerc.yaml')})`);
  });

  it('is found through a link to a folder, which would otherwise make a new path at every step', async () => {
    const box = await sandbox();
    const at = await files(box, { '.corerc.yaml': '$import: here/.corerc.yaml\n' });
    symlinkSync('.', at('here'));
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.message).toBe(`${at('.corerc.yaml')} imports itself (${at('here/.corerc.yaml')} is ${at('.corerc.yaml')})`);
  });

  it('is refused in a file named with --config too', async () => {
    const box = await sandbox();
    const at = await files(box, { 'named.yaml': '$import: b.yaml\n', 'b.yaml': '$import: named.yaml\n' });
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: { config: at('named.yaml') } }));
    expect(error.message).toBe(`$import cycle: ${at('named.yaml')} imports ${at('b.yaml')}, which imports ${at('named.yaml')}`);
  });

  it('is not a file imported twice by two branches (a diamond), which is merged twice as cosmiconfig does', async () => {
    const box = await sandbox();
    await files(box, {
      '.corerc.yaml': '$import: [left.yaml, right.yaml]\n',
      'left.yaml': '$import: base.yaml\n',
      'right.yaml': '$import: base.yaml\n',
      'base.yaml': 'profiles:\n  a: {tenant: acme}\ndefaultProfile: a\n',
    });
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(settings.tenant?.value).toBe('acme');
  });
});

describe('an $import that cannot be used', () => {
  it.each([
    ['a file that does not exist', { '.corerc.yaml': '$import: missing.yaml\n' }, 'missing.yaml', 'does not exist'],
    ['a folder', { '.corerc.yaml': '$import: folder\n', 'folder/x.yaml': 'profiles: {}\n' }, 'folder', 'is a folder'],
    [
      'a file that holds a list',
      { '.corerc.yaml': '$import: list.yaml\n', 'list.yaml': '- a\n- b\n' },
      'list.yaml',
      'does not hold a mapping of settings',
    ],
  ])('is exit 2 naming the file and its importer: %s', async (_name, contents, imported, why) => {
    const box = await sandbox();
    const at = await files(box, contents);
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(
      why === 'does not hold a mapping of settings'
        ? `${at(imported)}, imported by ${at('.corerc.yaml')}, ${why}`
        : `the config file ${at(imported)}, imported by ${at('.corerc.yaml')}, ${why}`,
    );
  });

  it('is exit 2 when $import is not a file name', async () => {
    const box = await sandbox();
    const at = await files(box, { '.corerc.yaml': '$import: [5]\n' });
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.message).toBe(`${at('.corerc.yaml')}: $import must be a file name or a list of file names`);
    const run = await core(box, ['config', 'check']);
    expect(run.code).toBe(2);
  });

  it('adds nothing when the imported file is empty, and the rest is used', async () => {
    const box = await sandbox();
    mkdirSync(path.join(box.project, 'shared'));
    await files(box, {
      '.corerc.yaml': '$import: [shared/empty.yaml, shared/null.yaml]\nprofiles:\n  a: {tenant: acme}\n',
      'shared/empty.yaml': '',
      'shared/null.yaml': 'null\n',
    });
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(settings.profiles).toEqual(['a']);
  });
});
