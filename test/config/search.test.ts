import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, locateConfig, userConfigDir } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { runBuilt, runningAsRoot } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';
import { sandbox } from './helpers.js';

const settings = { profiles: { only: { baseUrl: 'https://found.example.com', tenant: 'acme' } } };
const json = JSON.stringify(settings);
const yaml = 'profiles:\n  only:\n    baseUrl: https://found.example.com\n    tenant: acme\n';
const cjs = `module.exports = ${json};\n`;
const esm = `export default ${json};\n`;

describe('the search for a config file', () => {
  it.each([
    ['package.json', JSON.stringify({ name: 'app', core: settings })],
    ['.corerc', yaml],
    ['.corerc', json],
    ['.corerc.json', json],
    ['.corerc.yaml', yaml],
    ['.corerc.yml', yaml],
  ])('finds %s in the current folder', async (name, content) => {
    const box = await sandbox();
    const file = await box.write(path.join(box.cwd, name), content);
    const result = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(result.configFile).toBe(file);
    expect(result.baseUrl).toEqual({ value: 'https://found.example.com', source: `profile only in ${file}` });
  });

  it.each([
    ['config', yaml],
    ['config.json', json],
    ['config.yaml', yaml],
    ['config.yml', yaml],
  ])('finds %s in the user config folder ~/.config/core', async (name, content) => {
    const box = await sandbox();
    const file = await box.write(path.join(box.home, '.config', 'core', name), content);
    const result = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(result.configFile).toBe(file);
    expect(result.tenant?.value).toBe('acme');
  });

  // A JavaScript config runs code: found by the search it is passed over with a note, and it loads
  // only when named (docs/configuration.md, "Trusted files only"). The code here would leave a
  // marker beside it if it ran.
  it.each([
    ['the current folder', '.corerc.js', 'cjs'],
    ['the current folder', '.corerc.cjs', 'cjs'],
    ['the current folder', '.corerc.mjs', 'esm'],
    ['the current folder', 'core.config.js', 'cjs'],
    ['the current folder', 'core.config.cjs', 'cjs'],
    ['the current folder', 'core.config.mjs', 'esm'],
    ['the user config folder', 'config.js', 'cjs'],
    ['the user config folder', 'config.cjs', 'cjs'],
    ['the user config folder', 'config.mjs', 'esm'],
  ])('does not load %s/%s, says so in one line, and loads it when named', async (where, name, kind) => {
    const box = await sandbox();
    const folder = where === 'the user config folder' ? path.join(box.home, '.config', 'core') : box.cwd;
    const marker = path.join(folder, 'ran');
    const code =
      kind === 'cjs'
        ? `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '');\nmodule.exports = ${json};\n`
        : `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, '');\nexport default ${json};\n`;
    const file = await box.write(path.join(folder, name), code);
    const warnings: string[] = [];
    const searched = await loadSettings({ cwd: box.cwd, env: box.env, flags: {}, warn: (message) => warnings.push(message) });
    expect(searched.configFile).toBeNull();
    expect(existsSync(marker)).toBe(false);
    expect(warnings).toEqual([
      `${file} is not loaded: the search reads only YAML and JSON config files, as a JavaScript one runs code; to use it, name it: --config ${file} (or CORE_CONFIG=${file})`,
    ]);
    for (const named of [
      { flags: { config: file }, env: box.env },
      { flags: {}, env: { ...box.env, CORE_CONFIG: file } },
    ]) {
      const result = await loadSettings({ cwd: box.cwd, ...named });
      expect(result.configFile).toBe(file);
      expect(result.tenant?.value).toBe('acme');
    }
    expect(existsSync(marker)).toBe(true);
  });

  it('goes on past a JavaScript config to the next file the search finds', async () => {
    const box = await sandbox();
    const js = await box.write(path.join(box.cwd, '.corerc.cjs'), cjs.replace('acme', 'javascript'));
    const user = await box.write(path.join(box.home, '.config', 'core', 'config.yaml'), yaml.replace('acme', 'user'));
    const warnings: string[] = [];
    const result = await loadSettings({ cwd: box.cwd, env: box.env, flags: {}, warn: (message) => warnings.push(message) });
    expect(result.configFile).toBe(user);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`--config ${js}`);
  });

  it('uses $XDG_CONFIG_HOME/core instead of ~/.config/core when XDG_CONFIG_HOME is set', async () => {
    const box = await sandbox();
    const xdg = path.join(box.root, 'xdg');
    await box.write(path.join(box.home, '.config', 'core', 'config.yaml'), yaml.replace('acme', 'ignored'));
    const file = await box.write(path.join(xdg, 'core', 'config.yaml'), yaml);
    const env = { ...box.env, XDG_CONFIG_HOME: xdg };
    expect(userConfigDir(env)).toBe(path.join(xdg, 'core'));
    const result = await loadSettings({ cwd: box.cwd, env, flags: {} });
    expect(result.configFile).toBe(file);
    expect(result.tenant?.value).toBe('acme');
  });

  it('searches upward from a nested folder and takes the nearest file', async () => {
    const box = await sandbox();
    await box.write(path.join(box.home, '.corerc'), yaml.replace('acme', 'home'));
    const nearest = await box.write(path.join(box.project, '.corerc.yaml'), yaml.replace('acme', 'project'));
    await box.write(path.join(box.home, '.config', 'core', 'config.yaml'), yaml.replace('acme', 'user'));
    const result = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(result.configFile).toBe(nearest);
    expect(result.tenant?.value).toBe('project');
  });

  it('reads the home folder itself before the user config folder', async () => {
    const box = await sandbox();
    const inHome = await box.write(path.join(box.home, '.corerc'), yaml.replace('acme', 'home'));
    await box.write(path.join(box.home, '.config', 'core', 'config.yaml'), yaml.replace('acme', 'user'));
    const result = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(result.configFile).toBe(inHome);
  });

  it('stops at the home folder and does not read the folders above it', async () => {
    const box = await sandbox();
    await box.write(path.join(box.root, '.corerc'), yaml);
    const location = await locateConfig({ cwd: box.cwd, env: box.env, flags: {} });
    expect(location.configFile).toBeNull();
    expect(location.searched).toEqual([
      box.cwd,
      box.project,
      path.join(box.home, 'work'),
      box.home,
      path.join(box.home, '.config', 'core'),
    ]);
  });

  it('skips a package.json without a "core" key and an empty .corerc', async () => {
    const box = await sandbox();
    await box.write(path.join(box.cwd, 'package.json'), JSON.stringify({ name: 'app' }));
    await box.write(path.join(box.cwd, '.corerc'), '');
    const file = await box.write(path.join(box.project, '.corerc.json'), json);
    expect((await locateConfig({ cwd: box.cwd, env: box.env, flags: {} })).configFile).toBe(file);
  });

  it('takes the earlier name in the list when one folder holds several files', async () => {
    const box = await sandbox();
    const rc = await box.write(path.join(box.cwd, '.corerc'), yaml);
    await box.write(path.join(box.cwd, 'core.config.mjs'), esm);
    expect((await locateConfig({ cwd: box.cwd, env: box.env, flags: {} })).configFile).toBe(rc);
  });

  it.each([
    ['--config', (file: string) => ({ flags: { config: file }, env: {} })],
    ['CORE_CONFIG', (file: string) => ({ flags: {}, env: { CORE_CONFIG: file } })],
  ])('%s names one file and skips the search', async (_name, given) => {
    const box = await sandbox();
    await box.write(path.join(box.cwd, '.corerc'), yaml.replace('acme', 'searched'));
    const named = await box.write(path.join(box.root, 'elsewhere', 'my-settings.yaml'), yaml.replace('acme', 'named'));
    const { flags, env } = given(named);
    const result = await loadSettings({ cwd: box.cwd, env: { ...box.env, ...env }, flags });
    expect(result.configFile).toBe(named);
    expect(result.searched).toEqual([named]);
    expect(result.tenant?.value).toBe('named');
  });

  it('resolves a relative --config against the current folder', async () => {
    const box = await sandbox();
    const named = await box.write(path.join(box.cwd, 'conf', 'core.yaml'), yaml);
    const result = await loadSettings({ cwd: box.cwd, env: box.env, flags: { config: 'conf/core.yaml' } });
    expect(result.configFile).toBe(named);
  });

  it('prefers --config to CORE_CONFIG', async () => {
    const box = await sandbox();
    const fromFlag = await box.write(path.join(box.root, 'flag.yaml'), yaml);
    const fromEnv = await box.write(path.join(box.root, 'env.yaml'), yaml);
    const result = await loadSettings({ cwd: box.cwd, env: { ...box.env, CORE_CONFIG: fromEnv }, flags: { config: fromFlag } });
    expect(result.configFile).toBe(fromFlag);
  });

  it.each([
    ['a missing --config file', { config: 'nope.yaml' }, {}, /nope\.yaml \(from flag --config\) does not exist/],
    ['a missing CORE_CONFIG file', {}, { CORE_CONFIG: 'gone.yaml' }, /gone\.yaml \(from env CORE_CONFIG\) does not exist/],
    ['a folder given as --config', { config: '.' }, {}, /is not a file/],
  ])('rejects %s with a ConfigError', async (_case, flags, env, message) => {
    const box = await sandbox();
    const error = await loadSettings({ cwd: box.cwd, env: { ...box.env, ...env }, flags }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(message);
  });

  it('reads a --config file of any other extension as YAML', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.root, 'core.conf'), yaml);
    expect((await loadSettings({ cwd: box.cwd, env: box.env, flags: { config: file } })).tenant?.value).toBe('acme');
  });

  it('refuses a TypeScript config file with a clear message', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.root, 'core.config.ts'), esm);
    await expect(loadSettings({ cwd: box.cwd, env: box.env, flags: { config: file } })).rejects.toThrow(
      /TypeScript config files are not supported/,
    );
  });
});

// File modes mean nothing to root: as root, the built binary runs without root's capabilities
// (setpriv), else as the user running the tests. The readable case shows that such a run works at all.
describe.skipIf(process.platform === 'win32')('a --config file, read by a user without privileges', () => {
  const unprivileged = runningAsRoot ? withTool('setpriv') : { it };
  const cases: Array<[string, number, number, (file: string) => string, 'stdout' | 'stderr']> = [
    ['is read when its mode allows it', 0o644, 0, () => 'tenant           acme', 'stdout'],
    [
      'is refused with exit 2, naming the file, when it cannot be read',
      0o000,
      2,
      (file) => `config file ${file} (from flag --config) cannot be read (permission denied)`,
      'stderr',
    ],
  ];
  for (const [title, mode, code, expected, stream] of cases) {
    unprivileged.it(title, async () => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'core-config-mode-')), 'core.yaml');
      writeFileSync(file, yaml);
      chmodSync(file, mode);
      const result = await runBuilt(['config', 'show', '--config', file], { unprivileged: true });
      expect(result[stream]).toContain(expected(file));
      expect(result.stderr).not.toContain('unexpected failure');
      expect(result.code).toBe(code);
    });
  }
});
