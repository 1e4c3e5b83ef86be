import { stat, readFile, writeFile, mkdir, chmod } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConfigInit, runConfigPath, runConfigShow, type ConfigInitOptions } from '../../src/commands/config/run.js';
import type { Prompter } from '../../src/prompts/prompter.js';
import { loadSettings } from '../../src/config/index.js';
import { MASK } from '../../src/context.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { main } from '../../src/main.js';
import { capture, sandbox, type Sandbox } from './helpers.js';

const LITERAL = 'sk_literal_0123456789';
const FROM_ENV = 'tok_from_env_abcdef';
const HEADER_SECRET = 'gateway_key_zyxwv';

const fullProfile = `
defaultProfile: staging
profiles:
  staging:
    baseUrl: https://chat.example.com
    tenant: acme
    token: ${LITERAL}
    integratorToken: {env: INTEGRATOR}
    headers: {Accept-Language: de, X-Extra: plain, X-Api-Key: ${HEADER_SECRET}}
    timeout: 1m30s
    limits: {maxQuickReplies: 10, maxQuickReplyLength: 40}
  prod:
    baseUrl: https://chat.example.org
    tenant: acme
    token: {command: "touch ran-the-command; echo tok"}
`;

/** Runs a command line through main, as a user types it, on in-memory streams. */
async function core(box: Sandbox, argv: string[], env = box.env) {
  const io = capture(env, box.cwd);
  const code = await main({ argv, streams: io.ctx.streams, env, cwd: box.cwd });
  return { code, stdout: io.stdout(), stderr: io.stderr(), all: io.all() };
}

describe('core config show', () => {
  it('shows each value with its source, and masks the literal token', async () => {
    const box = await sandbox({ INTEGRATOR: 'integrator_value_123', CORE_TENANT: 'from-env' });
    const file = await box.write(path.join(box.project, '.corerc'), fullProfile);
    const io = capture(box.env, box.cwd);
    expect(await runConfigShow({ global: {}, json: false }, io.ctx)).toBe(0);
    const lines = io.stdout().split('\n');
    const from = `profile staging in ${file}`;
    const row = (key: string) => lines.find((line) => line.startsWith(`${key} `))?.replace(/ {2,}/g, ' | ');
    expect(row('config file')).toBe(`config file | ${file}`);
    expect(row('profile')).toBe(`profile | staging | defaultProfile in ${file}`);
    expect(row('baseUrl')).toBe(`baseUrl | https://chat.example.com | ${from}`);
    expect(row('tenant')).toBe('tenant | from-env | env CORE_TENANT');
    expect(row('token')).toBe(`token | ${MASK} | ${from}`);
    expect(row('integratorToken')).toBe(`integratorToken | env INTEGRATOR (set) | ${from}`);
    // A header's value is shown only for the few that never carry a credential (src/mask.ts).
    expect(row('headers')).toBe(`headers | Accept-Language: de, X-Extra: ${MASK}, X-Api-Key: ${MASK} | ${from}`);
    expect(row('timeout')).toBe(`timeout | 1m30s | ${from}`);
    expect(row('retries')).toBe('retries | 2 | default');
    expect(row('limits')).toBe(`limits | maxQuickReplies 10, maxQuickReplyLength 40 | ${from}`);
    for (const secret of [LITERAL, 'integrator_value_123', HEADER_SECRET]) expect(io.all()).not.toContain(secret);
  });

  it('aligns the value and source columns', async () => {
    const box = await sandbox();
    await box.write(path.join(box.cwd, '.corerc'), fullProfile);
    const io = capture(box.env, box.cwd);
    await runConfigShow({ global: {}, json: false }, io.ctx);
    const rows = io
      .stdout()
      .split('\n')
      .filter((line) => / {2}(profile |default)/.test(line.slice(20)));
    const sourceColumns = new Set(rows.map((line) => line.search(/ (profile staging|defaultProfile|default)/)));
    expect(rows.length).toBeGreaterThan(5);
    expect(sourceColumns.size).toBe(1);
  });

  it('prints one JSON object with --json, secrets masked', async () => {
    const box = await sandbox({ CORE_TOKEN: FROM_ENV });
    const file = await box.write(path.join(box.cwd, '.corerc'), fullProfile);
    const io = capture(box.env, box.cwd);
    expect(await runConfigShow({ global: { profile: 'prod' }, json: true }, io.ctx)).toBe(0);
    const report = JSON.parse(io.stdout()) as Record<string, unknown>;
    expect(report).toMatchObject({
      configFile: file,
      profiles: ['staging', 'prod'],
      profile: { value: 'prod', source: 'flag --profile' },
      baseUrl: { value: 'https://chat.example.org', source: `profile prod in ${file}` },
      token: { kind: 'literal', value: MASK, source: 'env CORE_TOKEN' },
      integratorToken: null,
      timeoutMs: { value: 30_000, source: 'default' },
    });
    expect(io.all()).not.toContain(FROM_ENV);
    expect(io.stderr()).toBe('');
  });

  it('shows a token command without running it', async () => {
    const box = await sandbox();
    await box.write(path.join(box.cwd, '.corerc'), fullProfile);
    const io = capture(box.env, box.cwd);
    await runConfigShow({ global: { profile: 'prod' }, json: true }, io.ctx);
    const report = JSON.parse(io.stdout()) as { token: unknown };
    expect(report.token).toEqual({
      kind: 'command',
      command: 'touch ran-the-command; echo tok',
      source: expect.stringMatching(/^profile prod in /),
    });
    await expect(stat(path.join(box.cwd, 'ran-the-command'))).rejects.toThrow();
  });

  it('says whether the variable of an {env: NAME} token is set, never its value', async () => {
    const box = await sandbox();
    await box.write(path.join(box.cwd, '.corerc'), 'profiles:\n  p:\n    token: {env: MY_TOKEN}\n');
    const unset = capture(box.env, box.cwd);
    expect(await runConfigShow({ global: {}, json: true }, unset.ctx)).toBe(0);
    expect(JSON.parse(unset.stdout()).token).toMatchObject({ kind: 'env', env: 'MY_TOKEN', set: false });
    const env = { ...box.env, MY_TOKEN: FROM_ENV };
    const set = capture(env, box.cwd);
    expect(await runConfigShow({ global: {}, json: false }, set.ctx)).toBe(0);
    expect(set.stdout()).toMatch(/token +env MY_TOKEN \(set\)/);
    expect(set.all()).not.toContain(FROM_ENV);
  });

  it('works from the environment alone, and says that no file was found and where it looked', async () => {
    const box = await sandbox({ CORE_BASE_URL: 'https://ci.example.com', CORE_TENANT: 'ci', CORE_TOKEN: FROM_ENV });
    const human = capture(box.env, box.cwd);
    expect(await runConfigShow({ global: {}, json: false }, human.ctx)).toBe(0);
    expect(human.stdout()).toMatch(/^config file +none found\n +looked in .*work.project.sub, /);
    expect(human.stdout()).toContain(`and in ${path.join(box.home, '.config', 'core')} for config, `);
    expect(human.stdout()).toMatch(/baseUrl +https:\/\/ci\.example\.com +env CORE_BASE_URL/);
    expect(human.stdout()).toMatch(new RegExp(`token +${MASK.replace(/\*/g, '\\*')} +env CORE_TOKEN`));
    const json = capture(box.env, box.cwd);
    await runConfigShow({ global: {}, json: true }, json.ctx);
    expect(JSON.parse(json.stdout())).toMatchObject({ configFile: null, searched: expect.arrayContaining([box.cwd, box.home]) });
    expect(human.all() + json.all()).not.toContain(FROM_ENV);
  });

  it('warns about a literal token and header values in a file others can read, without printing them', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.cwd, '.corerc'), fullProfile, 0o644);
    const run = await core(box, ['config', 'show']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      `warning: ${file} holds secrets in clear (a token and a header value) and can be read by other users; run: chmod 600 ${file}`,
    );
    expect(run.all).not.toContain(LITERAL);
  });

  it('fails with exit 2 on an invalid file, naming the file and the key', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.cwd, '.corerc'), `profiles:\n  s:\n    tiemout: 3s\n    token: "${LITERAL}\\n"\n`);
    const run = await core(box, ['config', 'show']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`error: invalid config file ${file} (2 problems)`);
    expect(run.stderr).toContain('  profiles.s.tiemout: unknown key; did you mean "timeout"?');
    expect(run.all).not.toContain(LITERAL);
  });
});

describe('core config path', () => {
  it('prints the file in use on stdout', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.project, '.corerc.yaml'), 'profiles: {}\n');
    const run = await core(box, ['config', 'path']);
    expect(run).toMatchObject({ code: 0, stdout: `${file}\n`, stderr: '' });
  });

  it('prints the file even when it is invalid, so it can be found and fixed', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.cwd, '.corerc'), 'nonsense: true\n');
    const io = capture(box.env, box.cwd);
    expect(await runConfigPath({ global: {} }, io.ctx)).toBe(0);
    expect(io.stdout()).toBe(`${file}\n`);
  });

  it('prints the file named by --config', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.root, 'named.yaml'), 'profiles: {}\n');
    const run = await core(box, ['--config', file, 'config', 'path']);
    expect(run.stdout).toBe(`${file}\n`);
  });

  it('exits 2 with nothing on stdout when there is no file, naming the places searched on stderr', async () => {
    const box = await sandbox();
    const run = await core(box, ['config', 'path']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: no config file found');
    expect(run.stderr).toContain(`looked in ${box.cwd}, `);
    expect(run.stderr).toContain(`and in ${path.join(box.home, '.config', 'core')} for config, config.json|yaml|yml`);
    expect(run.stderr).toContain('hint: create one with: core config init');
    const io = capture(box.env, box.cwd);
    await expect(runConfigPath({ global: {} }, io.ctx)).rejects.toBeInstanceOf(ConfigError);
  });
});

/** A prompter that answers from a script and records the questions; it fails on any question not scripted. */
function scripted(answers: Record<string, string>): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const answer = (message: string, validate?: (value: string) => true | string) => {
    asked.push(message);
    const key = Object.keys(answers).find((k) => message.includes(k));
    if (key === undefined) throw new Error(`unexpected question: ${message}`);
    const value = answers[key]!;
    const verdict = validate?.(value) ?? true;
    if (verdict !== true) throw new Error(`answer to "${message}" rejected: ${verdict}`);
    return Promise.resolve(value);
  };
  return {
    ...refuse,
    asked,
    input: (q) => answer(q.message, q.validate),
    password: (q) => answer(q.message, q.validate),
    select: <T>(q: { message: string; choices: Array<{ value: T }> }) =>
      answer(q.message).then((value) => {
        if (!q.choices.some((c) => c.value === value)) throw new Error(`no choice ${value}`);
        return value as T;
      }),
  };
}

const asked = () => Promise.reject(new Error('asked a question'));
const refuse: Prompter = {
  input: asked,
  editor: asked,
  password: asked,
  select: asked,
  checkbox: asked,
  confirm: asked,
  write: () => {},
  columns: 80,
  color: false,
};

function initOptions(over: Partial<ConfigInitOptions> & { baseUrl?: string; tenant?: string } = {}): ConfigInitOptions {
  const { baseUrl, tenant, ...rest } = over;
  return { global: { baseUrl, tenant }, force: false, ...rest };
}

const allFlags = { baseUrl: 'https://chat.example.com', tenant: 'acme', tokenEnv: 'CORE_ACME_TOKEN', profileName: 'staging' };

describe('core config init', () => {
  it('writes $XDG_CONFIG_HOME/core/config.yaml from flags alone, without a terminal, readable by the owner only', async () => {
    const box = await sandbox();
    const xdg = path.join(box.root, 'xdg');
    const env = { ...box.env, XDG_CONFIG_HOME: xdg };
    const io = capture(env, box.cwd);
    expect(await runConfigInit(initOptions(allFlags), { ...io.ctx, prompter: () => refuse })).toBe(0);
    const file = path.join(xdg, 'core', 'config.yaml');
    expect(io.stdout()).toBe(`Wrote profile staging to ${file}\n`);
    expect(io.stderr()).toContain('Set CORE_ACME_TOKEN before sending, for example: export CORE_ACME_TOKEN=...');
    if (process.platform !== 'win32') {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    }
    const settings = await loadSettings({ cwd: box.cwd, env, flags: {} });
    expect(settings.configFile).toBe(file);
    expect(settings.profile).toEqual({ value: 'staging', source: `defaultProfile in ${file}` });
    expect(settings.baseUrl?.value).toBe('https://chat.example.com');
    expect(settings.tenant?.value).toBe('acme');
    expect(settings.token?.value).toEqual({ env: 'CORE_ACME_TOKEN' });
  });

  it('writes ~/.config/core/config.yaml when XDG_CONFIG_HOME is unset, with a default profile name', async () => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd);
    const { profileName: _, ...flags } = allFlags;
    await runConfigInit(initOptions({ ...flags, tokenEnv: undefined, tokenCommand: 'pass show core/acme' }), io.ctx);
    const file = path.join(box.home, '.config', 'core', 'config.yaml');
    const text = await readFile(file, 'utf8');
    expect(text).toContain('defaultProfile: default\n');
    expect(text).toContain('command: pass show core/acme');
    expect((await loadSettings({ cwd: box.cwd, env: box.env, flags: {} })).token?.value).toEqual({ command: 'pass show core/acme' });
  });

  it('reports a config folder that cannot be made as a configuration error naming the path (exit 2)', async () => {
    const box = await sandbox();
    const notAFolder = await box.write(path.join(box.root, 'a-file'), 'x\n', 0o644);
    const io = capture({ ...box.env, XDG_CONFIG_HOME: notAFolder }, box.cwd);
    const error = await runConfigInit(initOptions(allFlags), { ...io.ctx, prompter: () => refuse }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as ConfigError).message).toBe(`cannot write the config file ${path.join(notAFolder, 'core', 'config.yaml')} (ENOTDIR)`);
  });

  it('refuses a profile name the existing file has, before asking anything', async () => {
    const box = await sandbox();
    const existing = 'profiles:\n  default:\n    tenant: other\n';
    const file = await box.write(path.join(box.home, '.config', 'core', 'config.yaml'), existing, 0o644);
    const io = capture(box.env, box.cwd, { tty: true });
    const error = await runConfigInit(initOptions({ profileName: 'default' }), { ...io.ctx, prompter: () => refuse }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe(`profile default already exists in ${file}`);
    expect((error as UsageError).hint).toContain('--force');
    expect(await readFile(file, 'utf8')).toBe(existing);
  });

  it('refuses through main with exit 2 and a hint', async () => {
    const box = await sandbox();
    await box.write(path.join(box.home, '.config', 'core', 'config.yaml'), 'profiles:\n  default:\n    tenant: other\n');
    const run = await core(box, ['config', 'init', '--base-url', 'https://chat.example.com', '--tenant', 'acme', '--token-env', 'T']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/error: profile default already exists in .*config\.yaml\nhint: .*--force/);
  });

  it('with --force rewrites the user config file already in use, in its own format', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.home, '.config', 'core', 'config.json'), '{"profiles": {}}');
    const io = capture(box.env, box.cwd);
    await runConfigInit(initOptions({ ...allFlags, force: true }), io.ctx);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ defaultProfile: 'staging' });
    expect((await loadSettings({ cwd: box.cwd, env: box.env, flags: {} })).configFile).toBe(file);
  });

  it('does not rewrite a JavaScript config file, even with --force', async () => {
    const box = await sandbox();
    await box.write(path.join(box.home, '.config', 'core', 'config.mjs'), 'export default {};');
    const io = capture(box.env, box.cwd);
    await expect(runConfigInit(initOptions({ ...allFlags, force: true }), io.ctx)).rejects.toThrow(/is JavaScript/);
  });

  it('exits 2 at once without a terminal when a value is missing, naming the flags to pass', async () => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd, { tty: false });
    const error = (await runConfigInit(initOptions({ tenant: 'acme' }), { ...io.ctx, prompter: () => refuse }).catch(
      (e: unknown) => e,
    )) as UsageError;
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toContain('needs a terminal');
    expect(error.hint).toContain('pass --base-url URL, --token-env NAME (or --token-command CMD)');
    expect(error.hint).not.toContain('--tenant NAME,');
  });

  it('exits 2 through main when stdin is not a terminal and nothing was given', async () => {
    const box = await sandbox();
    const run = await core(box, ['config', 'init']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('needs a terminal');
    await expect(stat(path.join(box.home, '.config', 'core', 'config.yaml'))).rejects.toThrow();
  });

  it('asks only for what the flags did not give', async () => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd, { tty: true });
    const prompter = scripted({
      'Profile name': 'team-a',
      Tenant: 'acme',
      'Where should the token': 'env',
      'Environment variable': 'CORE_TEAM_A_TOKEN',
    });
    await runConfigInit(initOptions({ baseUrl: 'https://chat.example.com' }), { ...io.ctx, prompter: () => prompter });
    expect(prompter.asked).toEqual([
      'Profile name',
      'Tenant (sent as X-Tenant-Name)',
      'Where should the token come from?',
      'Environment variable that holds the token',
    ]);
    const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: {} });
    expect(settings.profile?.value).toBe('team-a');
    expect(settings.token?.value).toEqual({ env: 'CORE_TEAM_A_TOKEN' });
  });

  it('stores a literal token only when chosen, in a 0600 file, and never prints it', async () => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd, { tty: true });
    const prompter = scripted({
      'Profile name': 'default',
      'base URL': 'https://chat.example.com',
      Tenant: 'acme',
      'Where should the token': 'literal',
      'Token (it will be stored': LITERAL,
    });
    expect(await runConfigInit(initOptions(), { ...io.ctx, prompter: () => prompter })).toBe(0);
    const file = path.join(box.home, '.config', 'core', 'config.yaml');
    expect(io.stdout()).toBe(`Wrote profile default to ${file}\n`);
    expect(await readFile(file, 'utf8')).toContain(`token: ${LITERAL}`);
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(io.all()).not.toContain(LITERAL);
    // The written file loads without the chmod warning.
    const warnings: string[] = [];
    await loadSettings({ cwd: box.cwd, env: box.env, flags: {}, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([]);
  });

  it('offers the environment variable first and the literal token last', async () => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd, { tty: true });
    let choices: string[] = [];
    const prompter: Prompter = {
      ...scripted({}),
      select: (q) => {
        choices = q.choices.map((c) => c.name);
        return Promise.resolve(q.choices[1]!.value);
      },
      input: (q) => Promise.resolve(q.message.startsWith('Command') ? 'op read op://core/token' : 'x'),
    };
    await runConfigInit(initOptions({ baseUrl: 'https://chat.example.com', tenant: 'acme', profileName: 'p' }), {
      ...io.ctx,
      prompter: () => prompter,
    });
    expect(choices[0]).toMatch(/environment variable \(recommended\)/);
    expect(choices.at(-1)).toMatch(/Stored in the file \(not recommended\)/);
  });

  it('warns when another file is found first from the current folder', async () => {
    const box = await sandbox();
    const project = await box.write(path.join(box.project, '.corerc'), 'profiles: {}\n');
    const io = capture(box.env, box.cwd);
    await runConfigInit(initOptions(allFlags), io.ctx);
    expect(io.stderr()).toContain(`warning: from this folder the search finds ${project} first, so that file is the one in use here`);
  });

  it.each([
    ['a bad profile name', { ...allFlags, profileName: '-x' }, /--profile-name/],
    ['a bad base URL', { ...allFlags, baseUrl: 'chat.example.com' }, /--base-url: "chat.example.com" is not an absolute URL/],
    ['a bad variable name', { ...allFlags, tokenEnv: 'MY-TOKEN' }, /--token-env: "MY-TOKEN" is not an environment variable name/],
    ['a tenant a header cannot carry', { ...allFlags, tenant: 'acme€' }, /--tenant: "acme€" holds "€" \(U\+20AC\)/],
    ['both token flags', { ...allFlags, tokenCommand: 'pass show x' }, /give --token-env or --token-command, not both/],
  ])('rejects %s', async (_case, options, message) => {
    const box = await sandbox();
    const io = capture(box.env, box.cwd);
    await expect(runConfigInit(initOptions(options), { ...io.ctx, prompter: () => refuse })).rejects.toThrow(message);
  });

  it('rejects both token flags through main as a usage error', async () => {
    const box = await sandbox();
    const run = await core(box, ['config', 'init', '--token-env', 'T', '--token-command', 'x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--token-env.*cannot be used with.*--token-command/);
  });

  it('does not leave a temporary file behind when replacing', async () => {
    const box = await sandbox();
    const dir = path.join(box.home, '.config', 'core');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'config'), 'profiles: {}\n');
    await chmod(path.join(dir, 'config'), 0o644);
    const io = capture(box.env, box.cwd);
    await runConfigInit(initOptions({ ...allFlags, force: true }), io.ctx);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(dir)).toEqual(['config']);
  });
});
