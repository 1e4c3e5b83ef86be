import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { findConfig } from '../../src/config/locate.js';
import { sandbox } from './helpers.js';

/**
 * A JSON or YAML config file that parses is read without loading cosmiconfig (about 10 ms of every
 * start with a config file); cosmiconfig still reads JavaScript files and still words every parse
 * error (test/config/reading.test.ts holds the results to cosmiconfig's).
 */
const loads = vi.hoisted(() => ({ count: 0 }));
vi.mock('cosmiconfig', async (importOriginal) => {
  const real = await importOriginal<{ default: object }>();
  // Every use of cosmiconfig goes through its default export (it is CommonJS): counted there.
  const counted = new Proxy(real.default, {
    get(target, key, receiver) {
      loads.count += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { ...real, default: counted };
});

const yaml = 'profiles:\n  only:\n    baseUrl: https://found.example.com\n    tenant: acme\n';
const json = JSON.stringify({ profiles: { only: { tenant: 'acme' } } });

describe('which config files load cosmiconfig', () => {
  it.each([
    ['.corerc.yaml', yaml, false],
    ['.corerc.yml', yaml, false],
    ['.corerc', yaml, false],
    ['.corerc.json', json, false],
    ['package.json', JSON.stringify({ core: { profiles: {} } }), false],
    ['~/.config/core/config', yaml, false],
    ['.corerc.json', '{"profiles": }', true],
    ['.corerc.yaml', 'profiles: [\n', true],
    // Found by the search, a JavaScript file is passed over, not loaded; named, cosmiconfig loads it.
    ['.corerc.cjs', `module.exports = ${json};`, false],
    ['--config .corerc.cjs', `module.exports = ${json};`, true],
  ])('%s holding %j: cosmiconfig used: %s', async (name, content, loaded) => {
    loads.count = 0;
    const box = await sandbox();
    const named = name.startsWith('--config ') ? name.slice('--config '.length) : undefined;
    const file = await box.write(name.startsWith('~/') ? name.slice(2) : path.join(box.cwd, named ?? name), content);
    await findConfig({ cwd: box.cwd, env: box.env, flags: named ? { config: file } : {} }).catch(() => undefined);
    expect(loads.count > 0).toBe(loaded);
  });
});
