import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configLoaders,
  findConfig,
  isJavaScriptConfig,
  projectSearchPlaces,
  searchFolders,
  userSearchPlaces,
} from '../../src/config/locate.js';
import { sandbox, type Sandbox } from './helpers.js';

/**
 * src/config/locate.ts reads JSON and YAML config files itself, without loading cosmiconfig, and
 * promises cosmiconfig's results and errors for every file kind docs/configuration.md lists. These
 * tests hold it to that: each case is read by the search (or as a --config file) and by cosmiconfig 9
 * itself, as the search used it before (one folder at a time, with the same wrapped loaders), and the
 * two must agree on the file found, its content, and the error, word for word. `$import` is read by
 * locate.ts too, with cosmiconfig's merge; where the two part (a cycle, an import that cannot be read,
 * an empty imported file), test/config/imports.test.ts says what core does.
 */

type Outcome = { configFile: string | null; content: unknown } | { error: string; kind: string };

async function outcome(run: () => Promise<{ configFile: string | null; content?: unknown }>): Promise<Outcome> {
  try {
    const { configFile, content } = await run();
    return { configFile, content };
  } catch (error) {
    return { error: (error as Error).message, kind: (error as Error).constructor.name };
  }
}

/**
 * The search as cosmiconfig does it, folder by folder: what locate.ts did before it read files itself,
 * with the JavaScript names left out, as the search passes over them (docs/configuration.md,
 * "Trusted files only").
 */
async function cosmiconfigSearch(box: Sandbox): Promise<{ configFile: string | null; content?: unknown }> {
  const { cosmiconfig } = (await import('cosmiconfig')).default;
  const loaders = await configLoaders(box.env);
  const folders = searchFolders(box.cwd, box.env);
  for (const [index, folder] of folders.entries()) {
    const searchPlaces = (index === folders.length - 1 ? userSearchPlaces : projectSearchPlaces).filter(
      (name) => !isJavaScriptConfig(name),
    );
    const result = await cosmiconfig('core', { searchStrategy: 'none', cache: false, loaders, searchPlaces }).search(folder);
    if (result) return { configFile: result.filepath, content: result.config };
  }
  return { configFile: null };
}

async function cosmiconfigLoad(box: Sandbox, file: string): Promise<{ configFile: string | null; content?: unknown }> {
  const { cosmiconfig } = (await import('cosmiconfig')).default;
  const loaders = await configLoaders(box.env);
  const result = await cosmiconfig('core', { searchStrategy: 'none', cache: false, loaders }).load(file);
  return { configFile: file, content: result?.config };
}

const token = 'sk_live_9f8e7d6c5b4a';
const profile = { profiles: { only: { baseUrl: 'https://found.example.com', tenant: 'acme' } } };
const json = JSON.stringify(profile);
const yaml = 'profiles:\n  only:\n    baseUrl: https://found.example.com\n    tenant: acme\n';

/** Files written into the current folder (or, with a leading `~/`, the home), then searched. */
const searchCases: Array<[string, Record<string, string>]> = [
  ['JSON', { '.corerc.json': json }],
  ['JSON with a byte-order mark', { '.corerc.json': `\ufeff${json}` }],
  ['JSON with a trailing comma', { '.corerc.json': '{"profiles": {},}' }],
  ['JSON with a token on the broken line', { '.corerc.json': `{"profiles": {"a": {"token": ${token}}}}` }],
  ['JSON cut short', { '.corerc.json': '{"profiles": {' }],
  ['JSON of null', { '.corerc.json': 'null' }],
  ['JSON of a number', { '.corerc.json': '5' }],
  ['JSON of an array', { '.corerc.json': '[1, 2]' }],
  ['JSON of only white space, then YAML', { '.corerc.json': ' \n\t\n', '.corerc.yaml': yaml }],
  ['YAML', { '.corerc.yaml': yaml }],
  ['YAML as .yml', { '.corerc.yml': yaml }],
  ['YAML with a byte-order mark', { '.corerc.yaml': `\ufeff${yaml}` }],
  ['YAML badly indented', { '.corerc.yaml': 'profiles:\n  a:\n baseUrl: x\n   tenant: y\n' }],
  ['YAML with a token in a broken line', { '.corerc.yaml': `profiles:\n  a:\n    token: "${token}\n` }],
  ['YAML with a key twice', { '.corerc.yaml': 'profiles: {}\nprofiles: {}\n' }],
  ['YAML of two documents', { '.corerc.yaml': 'profiles: {}\n---\nprofiles: {}\n' }],
  ['YAML with anchors and a merge key', { '.corerc.yaml': 'base: &b {tenant: acme}\nprofiles:\n  a:\n    <<: *b\n' }],
  ['YAML of only a comment, then JSON', { '.corerc.yaml': '# nothing yet\n', '.corerc.json': json }],
  ['YAML of ~, then JSON', { '.corerc.yaml': '~\n', '.corerc.json': json }],
  ['YAML with an unknown tag', { '.corerc.yaml': 'profiles: !secret x\n' }],
  ['.corerc holding YAML', { '.corerc': yaml }],
  ['.corerc holding JSON', { '.corerc': json }],
  ['.corerc empty, then .corerc.json', { '.corerc': '', '.corerc.json': json }],
  ['package.json with a "core" key', { 'package.json': JSON.stringify({ name: 'app', core: profile }) }],
  ['package.json without one, then YAML', { 'package.json': '{"name": "app"}', '.corerc.yaml': yaml }],
  ['package.json with "core": null, then YAML', { 'package.json': '{"core": null}', '.corerc.yaml': yaml }],
  ['package.json that is not JSON, then YAML', { 'package.json': '{"name": ', '.corerc.yaml': yaml }],
  ['package.json of null, then YAML', { 'package.json': 'null', '.corerc.yaml': yaml }],
  ['package.json of a string, then YAML', { 'package.json': '"app"', '.corerc.yaml': yaml }],
  [
    '$import of a YAML file',
    { '.corerc.yaml': '$import: base.yaml\nprofiles:\n  a: {tenant: mine}\n', 'base.yaml': 'defaultProfile: a\n' },
  ],
  [
    '$import of a list of files, nested, with lists joined and mappings merged',
    {
      '.corerc.yaml': '$import: [one.yaml, two.json]\nprofiles:\n  a: {tenant: mine}\n',
      'one.yaml': '$import: ../sub/three.yml\nprofiles:\n  a: {baseUrl: https://one.example.com}\n  b: {tenant: one}\n',
      'two.json': '{"profiles": {"b": {"tenant": "two"}}, "extra": [1]}',
      'three.yml': 'extra: [0]\ndefaultProfile: a\n',
    },
  ],
  [
    '$import in the "core" key of a package.json',
    { 'package.json': JSON.stringify({ core: { $import: 'base.json' } }), 'base.json': json },
  ],
  ['JavaScript (passed over), after empty JSON', { '.corerc.json': '', '.corerc.cjs': `module.exports = ${json};` }],
  ['JavaScript (passed over), then YAML in the folder above', { '.corerc.cjs': `module.exports = ${json};`, '../.corerc.yaml': yaml }],
  ['JavaScript that throws (passed over)', { '.corerc.cjs': `throw new Error("${token}");` }],
  ['the user folder: config as YAML', { '~/.config/core/config': yaml }],
  ['the user folder: invalid config.json', { '~/.config/core/config.json': '{"a" 1}' }],
  [
    'the user folder: an empty config.yaml, then config.js (passed over)',
    { '~/.config/core/config.yaml': '', '~/.config/core/config.js': `module.exports = ${json};` },
  ],
  ['the nearest of two folders', { '../.corerc.yaml': yaml.replace('acme', 'parent'), '.corerc.json': json }],
];

async function place(box: Sandbox, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await box.write(name.startsWith('~/') ? name.slice(2) : path.join(box.cwd, name), content);
  }
}

describe("the config search reads each kind of file as cosmiconfig's does", () => {
  it.each(searchCases)('%s', async (_case, files) => {
    const box = await sandbox();
    await place(box, files);
    const expected = await outcome(() => cosmiconfigSearch(box));
    const actual = await outcome(() => findConfig({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(actual).toEqual(expected);
  });
});

const namedCases: Array<[string, string, string]> = [
  ['a YAML file of another extension', 'settings.conf', yaml],
  ['a broken YAML file of another extension', 'settings.conf', 'a: [1,\n'],
  ['a JSON file', 'settings.json', json],
  ['a broken JSON file', 'settings.json', '{"a": }'],
  ['an empty file', 'settings.yaml', ''],
  ['a file of only white space', 'settings.json', '  \n'],
  ['a YAML file of null', 'settings.yml', 'null\n'],
  ['a package.json, for its "core" key', 'package.json', JSON.stringify({ core: profile })],
  ['a package.json without it', 'package.json', '{"name": "app"}'],
  ['a file without an extension', 'corerc', yaml],
  ['a file with an upper-case extension', 'settings.JSON', json],
  ['a TypeScript file', 'core.config.ts', 'export default {};'],
  ['a JavaScript module', 'settings.mjs', `export default ${json};`],
];

describe("a file named by --config is read as cosmiconfig's load reads it", () => {
  it.each(namedCases)('%s', async (_case, name, content) => {
    const box = await sandbox();
    const file = await box.write(path.join(box.root, 'elsewhere', name), content);
    const expected = await outcome(() => cosmiconfigLoad(box, file));
    const actual = await outcome(() => findConfig({ cwd: box.cwd, env: box.env, flags: { config: file } }));
    expect(actual).toEqual(expected);
  });
});
