import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, locateConfig, resolveSettingsToken } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { main } from '../../src/main.js';
import { runBuilt, runningAsRoot } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';
import { capture, sandbox, type Sandbox } from './helpers.js';

/**
 * Configuration is code only when the user says so (docs/configuration.md, "Trusted files only";
 * docs/security.md, "Configuration"). A config file found by the search may have been planted in a
 * parent folder or in /tmp: it must be the user's (or root's) and writable by the user alone, or it
 * is refused, naming the file and the fix, before its token command can run. A JavaScript config
 * found by the search is never loaded; TAB completion loads no JavaScript and runs no command.
 *
 * Each planted file would leave a marker if its code or its token command ran.
 */

const OTHER_UID = 4242;

/**
 * Makes `file` another user's. As root, by chown; as any other user, who cannot give a file away,
 * by telling the search it runs as someone else: the uid to pass to loadSettings.
 */
function makeForeign(file: string): number | undefined {
  if (runningAsRoot) {
    chownSync(file, OTHER_UID, OTHER_UID);
    return undefined;
  }
  return OTHER_UID;
}

const yamlWithCommand = (marker: string) =>
  `profiles:\n  planted:\n    baseUrl: https://attacker.example.com\n    tenant: acme\n    token: {command: "touch ${marker}"}\n`;

async function core(box: Sandbox, argv: string[], env = box.env) {
  const io = capture(env, box.cwd);
  const code = await main({ argv, streams: io.ctx.streams, env, cwd: box.cwd });
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** Where each command reports the refusal: config check lists it among its checks, on stdout. */
const reported = (argv: string[], run: { stdout: string; stderr: string }) => (argv[1] === 'check' ? run.stdout : run.stderr);

async function refusal(load: Promise<unknown>): Promise<ConfigError> {
  const error = await load.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe.skipIf(process.platform === 'win32')('a config file found by the search', () => {
  it.each([
    ['mode 600', 0o600, true],
    ['mode 644 (others may read it)', 0o644, true],
    ['mode 640', 0o640, true],
    ['mode 620 (its group may write it)', 0o620, false],
    ['mode 602 (others may write it)', 0o602, false],
    ['mode 666', 0o666, false],
  ])('with %s: used %s', async (_name, mode, used) => {
    const box = await sandbox();
    const marker = path.join(box.root, 'ran');
    const file = await box.write(path.join(box.project, '.corerc.yaml'), yamlWithCommand(marker), mode);
    const loading = loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    if (used) {
      expect((await loading).configFile).toBe(file);
      return;
    }
    const error = await refusal(loading);
    expect(error.exitCode).toBe(2);
    const writers = [(mode & 0o020) !== 0 ? 'its group' : '', (mode & 0o002) !== 0 ? 'other users' : ''].filter(Boolean).join(' and ');
    expect(error.message).toBe(
      `refusing the config file ${file}: it can be written by ${writers}; a config file found by the search must be yours and writable by you alone, as it chooses where the token goes and may run a command`,
    );
    expect(error.hint).toBe(`if the file is yours, run: chmod go-w ${file}`);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ['a parent folder', (box: Sandbox) => path.join(box.project, '.corerc')],
    ['the home folder', (box: Sandbox) => path.join(box.home, '.corerc.json')],
    ['the user config folder', (box: Sandbox) => path.join(box.home, '.config', 'core', 'config.yaml')],
    ['the "core" key of a package.json', (box: Sandbox) => path.join(box.cwd, 'package.json')],
  ])("is refused in %s when it is another user's, and its token command never runs", async (_where, where) => {
    const box = await sandbox();
    const marker = path.join(box.root, 'ran');
    const target = where(box);
    const content = target.endsWith('package.json')
      ? JSON.stringify({ core: { profiles: { planted: { tenant: 'acme', token: { command: `touch ${marker}` } } } } })
      : target.endsWith('.json')
        ? JSON.stringify({ profiles: { planted: { tenant: 'acme', token: { command: `touch ${marker}` } } } })
        : yamlWithCommand(marker);
    const file = await box.write(target, content, 0o644);
    const uid = makeForeign(file);
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {}, uid }));
    expect(error.message).toContain(`refusing the config file ${file}: it is owned by uid ${OTHER_UID}, not by you (uid `);
    expect(error.hint).toBe(
      `remove ${file} if you do not know it, or run core from another folder; a file you trust can be named with --config ${file} (or CORE_CONFIG)`,
    );
    // Named, the same file is the user's choice: read as before, and its command runs when a token is needed.
    const named = await loadSettings({ cwd: box.cwd, env: box.env, flags: { config: file }, uid });
    expect(named.configFile).toBe(file);
    await resolveSettingsToken(named, 'token', { env: box.env, cwd: box.cwd }).catch(() => undefined);
    expect(existsSync(marker)).toBe(true);
  });

  it('passes over another user\'s package.json that has no "core" key', async () => {
    const box = await sandbox();
    const uid = makeForeign(await box.write(path.join(box.cwd, 'package.json'), '{"name": "app"}', 0o666));
    const mine = await box.write(path.join(box.project, '.corerc.yaml'), 'profiles: {}\n');
    expect((await locateConfig({ cwd: box.cwd, env: box.env, flags: {}, uid })).configFile).toBe(mine);
  });

  it("is refused when it is a symbolic link of another user's, even to a file of the user's", async () => {
    const box = await sandbox();
    const mine = await box.write(path.join(box.root, 'mine.yaml'), 'profiles: {}\n');
    const link = path.join(box.project, '.corerc.yaml');
    symlinkSync(mine, link);
    let uid: number | undefined = OTHER_UID;
    if (runningAsRoot) {
      lchownSync(link, OTHER_UID, OTHER_UID);
      uid = undefined;
    } else {
      // Not root: the link and its target are both the user's; told it is someone else, both are foreign.
    }
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {}, uid }));
    expect(error.message).toContain(`refusing the config file ${link}: it is a symbolic link owned by uid `);
  });

  it('is used when it is a symbolic link of the user to a file of the user', async () => {
    const box = await sandbox();
    const mine = await box.write(path.join(box.root, 'mine.yaml'), 'profiles: {}\n');
    const link = path.join(box.project, '.corerc.yaml');
    symlinkSync(mine, link);
    expect((await loadSettings({ cwd: box.cwd, env: box.env, flags: {} })).configFile).toBe(link);
  });

  it('stops every command that reads the settings with exit 2 and the fix, and config check runs no command', async () => {
    const box = await sandbox();
    const marker = path.join(box.root, 'ran');
    const file = await box.write(path.join(box.project, '.corerc.yaml'), yamlWithCommand(marker), 0o666);
    for (const argv of [
      ['config', 'check'],
      ['config', 'show'],
      ['config', 'path'],
      ['reply', '--core-client-id', '1', '-t', 'Hi'],
    ]) {
      const run = await core(box, argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(reported(argv, run), argv.join(' ')).toContain(
        `refusing the config file ${file}: it can be written by its group and other users`,
      );
      expect(reported(argv, run), argv.join(' ')).toContain(`chmod go-w ${file}`);
      expect(run.stderr, argv.join(' ')).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(marker)).toBe(false);
  });
});

// A file found by the search may `$import` others (at any depth): each is held to the searched file's
// rule, or a file planted beside a trusted one would choose the service and run its token command.
describe.skipIf(process.platform === 'win32')('a file imported by a config file found by the search', () => {
  /**
   * The searched .corerc.yaml imports base.yaml, whose token command would leave a marker; `nested`
   * puts one more file between them. Returns the files and the marker.
   */
  async function importing(box: Sandbox, options: { nested?: boolean; mode?: number } = {}) {
    const marker = path.join(box.root, 'ran');
    const base = await box.write(path.join(box.project, 'shared', 'base.yaml'), yamlWithCommand(marker), options.mode ?? 0o600);
    const middle = options.nested ? await box.write(path.join(box.project, 'middle.yaml'), '$import: ./shared/base.yaml\n') : undefined;
    const searched = await box.write(
      path.join(box.project, '.corerc.yaml'),
      `$import: ${options.nested ? './middle.yaml' : './shared/base.yaml'}\ndefaultProfile: planted\n`,
    );
    return { searched, base, importer: middle ?? searched, marker };
  }

  const rule =
    'a config file found by the search, and every file it imports, must be yours and writable by you alone, as it chooses where the token goes and may run a command';

  it.each([
    ['its group may write it', { mode: 0o620 }, 'its group'],
    ['others may write it', { mode: 0o602 }, 'other users'],
    ['its group and others may write it', { mode: 0o666 }, 'its group and other users'],
    ['it is imported by an imported file, and others may write it', { mode: 0o646, nested: true }, 'other users'],
  ])(
    'is refused with exit 2 when %s, naming it, its importer and the fix, and its token command never runs',
    async (_name, options, writers) => {
      const box = await sandbox();
      const { base, importer, marker } = await importing(box, options);
      const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe(`refusing the config file ${base}, imported by ${importer}: it can be written by ${writers}; ${rule}`);
      expect(error.hint).toBe(`if the file is yours, run: chmod go-w ${base}`);
      // config check runs the token command of a file it may use.
      expect((await core(box, ['config', 'check'])).stdout).toContain(`refusing the config file ${base}`);
      expect(existsSync(marker)).toBe(false);
    },
  );

  // Another user's file: only root can give a file away, and telling the search it runs as someone
  // else would make the importing file foreign too.
  it.skipIf(!runningAsRoot).each([
    [
      'it is owned by another user',
      { nested: false },
      (file: string) => chownSync(file, 65534, 65534),
      'is owned by uid 65534, not by you (uid 0) or root',
    ],
    [
      'it is imported by an imported file and owned by another user',
      { nested: true },
      (file: string) => chownSync(file, 65534, 65534),
      'is owned by uid 65534, not by you (uid 0) or root',
    ],
    [
      "it is a symbolic link of another user's, even to a file of the user's",
      { nested: false },
      (file: string) => {
        const target = `${file}.target`;
        writeFileSync(target, readFileSync(file));
        chmodSync(target, 0o600);
        rmSync(file);
        symlinkSync(target, file);
        lchownSync(file, 65534, 65534);
      },
      'is a symbolic link owned by uid 65534',
    ],
  ])('is refused with exit 2 when %s, and its token command never runs', async (_name, options, makeForeignFile, reason) => {
    const box = await sandbox();
    const { searched, base, importer, marker } = await importing(box, options);
    makeForeignFile(base);
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`refusing the config file ${base}, imported by ${importer}: it ${reason}; ${rule}`);
    expect(error.hint).toBe(
      `if you do not know ${base}, remove its $import from ${importer}; a config file you trust can be named with --config ${searched} (or CORE_CONFIG), which loads what it imports unchecked`,
    );
    expect((await core(box, ['config', 'check'])).stdout).toContain(`refusing the config file ${base}`);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ['imported directly', { nested: false }],
    ['imported by an imported file', { nested: true }],
  ])("is used when it is the user's and writable by the user alone (%s)", async (_name, options) => {
    const box = await sandbox();
    const { searched, marker } = await importing(box, options);
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(settings.configFile).toBe(searched);
    expect(settings.baseUrl?.value).toBe('https://attacker.example.com');
    expect(existsSync(marker)).toBe(false);
  });

  it('is used when it is a symbolic link of the user to a file of the user', async () => {
    const box = await sandbox();
    const { base } = await importing(box);
    const target = await box.write(path.join(box.root, 'elsewhere.yaml'), readFileSync(base, 'utf8'));
    rmSync(base);
    symlinkSync(target, base);
    expect((await loadSettings({ cwd: box.cwd, env: box.env, flags: {} })).baseUrl?.value).toBe('https://attacker.example.com');
  });

  it('stops every command that reads the settings with exit 2, and none of them runs its command', async () => {
    const box = await sandbox();
    const { base, importer, marker } = await importing(box, { mode: 0o666 });
    for (const argv of [
      ['config', 'check'],
      ['config', 'show'],
      ['config', 'path'],
      ['greet', '--core-client-id', '1', '-t', 'Hello'],
    ]) {
      const run = await core(box, argv);
      expect(run.code, argv.join(' ')).toBe(2);
      expect(reported(argv, run), argv.join(' ')).toContain(
        `refusing the config file ${base}, imported by ${importer}: it can be written by`,
      );
      expect(reported(argv, run), argv.join(' ')).toContain(`chmod go-w ${base}`);
      expect(run.stderr, argv.join(' ')).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('leaves TAB completion with nothing to offer', async () => {
    const box = await sandbox();
    await importing(box, { mode: 0o666 });
    expect(await core(box, ['completion', '__profiles'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('is not checked when the importing file is named with --config or CORE_CONFIG: naming a file trusts what it imports', async () => {
    const box = await sandbox();
    const { searched, marker } = await importing(box, { mode: 0o666 });
    for (const named of [
      { flags: { config: searched }, env: box.env },
      { flags: {}, env: { ...box.env, CORE_CONFIG: searched } },
    ]) {
      const settings = await loadSettings({ cwd: box.cwd, ...named });
      expect(settings.baseUrl?.value).toBe('https://attacker.example.com');
    }
    expect(await core(box, ['completion', '__profiles', '--config', searched])).toEqual({ code: 0, stdout: 'planted\n', stderr: '' });
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a JavaScript config file found by the search', () => {
  it('is not run by a command, by config path, nor by TAB completion, and the commands say how to use it', async () => {
    const box = await sandbox();
    const marker = path.join(box.root, 'ran');
    const file = await box.write(
      path.join(box.project, '.corerc.cjs'),
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '');\nmodule.exports = { profiles: { js: {} } };\n`,
      0o600,
    );
    const note = `warning: ${file} is not loaded: the search reads only YAML and JSON config files, as a JavaScript one runs code; to use it, name it: --config ${file} (or CORE_CONFIG=${file})\n`;
    const show = await core(box, ['config', 'show']);
    expect(show.code).toBe(0);
    expect(show.stderr).toBe(note);
    const where = await core(box, ['config', 'path']);
    expect(where.code).toBe(2);
    expect(where.stderr.startsWith(note)).toBe(true);
    const completion = await core(box, ['completion', '__profiles']);
    expect(completion).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(marker)).toBe(false);
    // Named, it loads as before, except in TAB completion, which never loads JavaScript.
    expect(await core(box, ['completion', '__profiles', '--config', file])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await core(box, ['completion', '__profiles'], { ...box.env, CORE_CONFIG: file })).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(marker)).toBe(false);
    expect((await core(box, ['config', 'path', '--config', file])).stdout).toBe(`${file}\n`);
    expect(existsSync(marker)).toBe(false);
    const named = await core(box, ['config', 'show', '--config', file]);
    expect(named.code).toBe(0);
    expect(named.stdout).toContain('js');
    expect(existsSync(marker)).toBe(true);
  });

  it('is not loaded through $import of a YAML file the search found', async () => {
    const box = await sandbox();
    const marker = path.join(box.root, 'ran');
    await box.write(
      path.join(box.project, 'more.cjs'),
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '');\nmodule.exports = {};\n`,
    );
    const file = await box.write(path.join(box.project, '.corerc.yaml'), '$import: more.cjs\nprofiles: {}\n');
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.message).toContain('a JavaScript file is not loaded from a config file the search found');
    expect(existsSync(marker)).toBe(false);
    // Named, the file may import JavaScript, as before.
    await loadSettings({ cwd: box.cwd, env: box.env, flags: { config: file } });
    expect(existsSync(marker)).toBe(true);
  });
});

describe('TAB completion of profile names', () => {
  it('lists the profiles of a YAML file without running its token command', async () => {
    const box = await sandbox();
    const marker = path.join(box.root, 'ran');
    await box.write(path.join(box.project, '.corerc.yaml'), yamlWithCommand(marker));
    expect(await core(box, ['completion', '__profiles'])).toEqual({ code: 0, stdout: 'planted\n', stderr: '' });
    expect(existsSync(marker)).toBe(false);
  });

  it('prints nothing for a file the search refuses', async () => {
    const box = await sandbox();
    await box.write(path.join(box.project, '.corerc.yaml'), 'profiles: {planted: {}}\n', 0o666);
    expect(await core(box, ['completion', '__profiles'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

// The attack as it happens: the user works in a folder outside the home, below a folder everyone may
// write (as /tmp), where another user left a .corerc.yaml. Through the built binary, without root's
// capabilities when the tests run as root (setpriv), as the other permission tests do.
describe.skipIf(process.platform === 'win32')('a config file planted in a shared folder above the current one', () => {
  const unprivileged = runningAsRoot ? withTool('setpriv') : { it };
  unprivileged.it('is refused by a send and by config check, and its token command never runs', async () => {
    const box = await sandbox();
    const shared = path.join(box.root, 'tmp');
    mkdirSync(path.join(shared, 'build', 'job'), { recursive: true });
    chmodSync(shared, 0o1777);
    const marker = path.join(box.root, 'ran');
    const planted = path.join(shared, '.corerc.yaml');
    writeFileSync(planted, yamlWithCommand(marker));
    // The other user's file; a user who is not root cannot give a file away, so it is left
    // writable by others instead, as a careless umask leaves it.
    if (runningAsRoot) chownSync(planted, OTHER_UID, OTHER_UID);
    chmodSync(planted, runningAsRoot ? 0o644 : 0o666);
    const cwd = path.join(shared, 'build', 'job');
    for (const argv of [
      ['config', 'check'],
      ['greet', '--core-client-id', '1', '-t', 'Hello'],
    ]) {
      const run = await runBuilt(argv, { cwd, env: { ...box.env, HOME: box.home }, unprivileged: true });
      expect(reported(argv, run)).toContain(`refusing the config file ${planted}: it `);
      expect(run.stderr).not.toContain('unexpected failure');
      expect(run.code).toBe(2);
    }
    expect(existsSync(marker)).toBe(false);
  });
});

// Whoever owns a symbolic link chooses the file read through it, wherever the link is on the way:
// at the name itself, further down a chain of links, or as a folder of the path (an $import through
// a shared folder's link, XDG_CONFIG_HOME through one). Each link the path passes through must be the
// user's or root's (docs/security.md, "Configuration: trusted files only"). Only root can make a
// link another user's (lchown).
describe.skipIf(!runningAsRoot || process.platform === 'win32')('a symbolic link on the way to a config file', () => {
  const FOREIGN = 65534;
  const rule = 'must be yours and writable by you alone, as it chooses where the token goes and may run a command';

  /** root's settings, in a file of root's outside the project. */
  async function rootFile(box: Sandbox, name = 'real.yaml') {
    return box.write(path.join(box.root, 'elsewhere', name), yamlWithCommand(path.join(box.root, 'ran')));
  }

  type Case = [string, (box: Sandbox, owner: number) => Promise<{ file: string; link: string; importer?: string }>];
  const cases: Case[] = [
    [
      "the searched file: a root link to a second link (the one owned by the user tested) to a file of root's",
      async (box, owner) => {
        const real = await rootFile(box);
        const middle = path.join(box.root, 'middle.yaml');
        symlinkSync(real, middle);
        lchownSync(middle, owner, owner);
        const file = path.join(box.project, '.corerc.yaml');
        symlinkSync(middle, file);
        return { file, link: middle };
      },
    ],
    [
      'the user config folder reached through a link to a folder (XDG_CONFIG_HOME)',
      async (box, owner) => {
        const real = await box.write(path.join(box.root, 'xdg-real', 'core', 'config.yaml'), 'profiles: {}\n');
        const link = path.join(box.root, 'xdg');
        symlinkSync(path.dirname(path.dirname(real)), link);
        lchownSync(link, owner, owner);
        box.env.XDG_CONFIG_HOME = link;
        return { file: path.join(link, 'core', 'config.yaml'), link };
      },
    ],
    [
      "an $import through a link to a folder of root's",
      async (box, owner) => {
        const real = await rootFile(box, 'base.yaml');
        const link = path.join(box.project, 'shared');
        symlinkSync(path.dirname(real), link);
        lchownSync(link, owner, owner);
        const importer = await box.write(path.join(box.project, '.corerc.yaml'), '$import: shared/base.yaml\ndefaultProfile: planted\n');
        return { file: path.join(link, 'base.yaml'), link, importer };
      },
    ],
    [
      "an $import of a root link to a second link to a file of root's",
      async (box, owner) => {
        const real = await rootFile(box, 'base.yaml');
        const middle = path.join(box.root, 'middle.yaml');
        symlinkSync(real, middle);
        lchownSync(middle, owner, owner);
        const file = path.join(box.project, 'base.yaml');
        symlinkSync(middle, file);
        const importer = await box.write(path.join(box.project, '.corerc.yaml'), '$import: base.yaml\n');
        return { file, link: middle, importer };
      },
    ],
  ];

  it.each(cases)("is refused when the link is another user's: %s", async (_name, make) => {
    const box = await sandbox();
    const { file, link, importer } = await make(box, FOREIGN);
    const error = await refusal(loadSettings({ cwd: box.cwd, env: box.env, flags: {} }));
    expect(error.exitCode).toBe(2);
    const which = importer ? `${file}, imported by ${importer}` : file;
    const whose = importer ? 'a config file found by the search, and every file it imports,' : 'a config file found by the search';
    expect(error.message).toBe(
      `refusing the config file ${which}: it is reached through the symbolic link ${link}, owned by uid ${FOREIGN}; ${whose} ${rule}`,
    );
    expect(existsSync(path.join(box.root, 'ran'))).toBe(false);
  });

  it.each(cases)("is followed when the link is root's: %s", async (_name, make) => {
    const box = await sandbox();
    const { file } = await make(box, 0);
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(settings.configFile).toBe(file.endsWith('base.yaml') ? path.join(box.project, '.corerc.yaml') : file);
  });
});
