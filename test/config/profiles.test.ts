import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { capture, sandbox, type Sandbox } from './helpers.js';

/**
 * Working with several profiles: `core config use NAME`, `core config init` adding a profile to an
 * existing file, `core config show` listing every profile, and `core config check`
 * (docs/configuration.md).
 */

async function core(box: Sandbox, argv: string[], env = box.env) {
  const io = capture(env, box.cwd);
  const code = await main({ argv, streams: io.ctx.streams, env, cwd: box.cwd });
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

const twoProfiles = `# Our services
defaultProfile: staging   # the one we use most
profiles:
  # the test tenant
  staging:
    baseUrl: https://staging.example.com
    tenant: acme
    token: {env: STAGING_TOKEN}
  prod:
    baseUrl: https://chat.example.com
    tenant: acme
    token: {env: PROD_TOKEN}
`;

const initFlags = ['--base-url', 'https://eu.example.com', '--tenant', 'acme-eu', '--token-env', 'EU_TOKEN'];

describe('core config use', () => {
  it('makes a profile the default, keeping the YAML comments, order and mode', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.project, '.corerc.yaml'), twoProfiles, 0o644);
    const run = await core(box, ['config', 'use', 'prod']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Default profile: prod (in ${file})\n`);
    expect(await readFile(file, 'utf8')).toBe(twoProfiles.replace('defaultProfile: staging', 'defaultProfile: prod'));
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    const show = await core(box, ['config', 'show', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ profile: { value: 'prod', source: `defaultProfile in ${file}` } });
  });

  it('adds defaultProfile first when the file has none', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.project, '.corerc'), twoProfiles.replace(/^defaultProfile.*\n/m, ''));
    expect((await core(box, ['config', 'use', 'prod'])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(`# Our services\ndefaultProfile: prod\n${twoProfiles.split('\n').slice(2).join('\n')}`);
  });

  it.each([
    ['.corerc.json', 4],
    ['.corerc', 2],
  ])('keeps the indentation and key order of a JSON file (%s)', async (name, indent) => {
    const box = await sandbox();
    const config = {
      profiles: { a: { baseUrl: 'https://a.example.com', tenant: 'a' }, b: { baseUrl: 'https://b.example.com', tenant: 'b' } },
    };
    const file = await box.write(path.join(box.project, name), `${JSON.stringify(config, null, indent)}\n`);
    expect((await core(box, ['config', 'use', 'b'])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(`${JSON.stringify({ defaultProfile: 'b', ...config }, null, indent)}\n`);
  });

  it('edits the "core" key of package.json and leaves the rest alone', async () => {
    const box = await sandbox();
    const pkg = { name: 'app', version: '1.0.0', core: { profiles: { a: { tenant: 'a' }, b: { tenant: 'b' } } }, scripts: { test: 'x' } };
    const file = await box.write(path.join(box.project, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    expect((await core(box, ['config', 'use', 'a'])).code).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ ...pkg, core: { defaultProfile: 'a', ...pkg.core } });
  });

  it('says when the profile is already the default, and leaves the file as it was', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.project, '.corerc.yaml'), twoProfiles);
    const run = await core(box, ['config', 'use', 'staging']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`staging is already the default profile in ${file}\n`);
    expect(await readFile(file, 'utf8')).toBe(twoProfiles);
  });

  it('warns that CORE_PROFILE, when set, still wins in this shell', async () => {
    const box = await sandbox({ CORE_PROFILE: 'staging' });
    await box.write(path.join(box.project, '.corerc.yaml'), twoProfiles);
    const run = await core(box, ['config', 'use', 'prod']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('warning: CORE_PROFILE=staging is set here and wins over defaultProfile: unset it to use prod');
  });

  it.each([
    [
      'a profile the file does not have',
      '.corerc.yaml',
      twoProfiles,
      ['config', 'use', 'qa'],
      /has no profile "qa"\nhint: profiles there: staging, prod/,
    ],
    [
      'a JavaScript config file (named: the search does not load one)',
      'core.config.mjs',
      'export default { profiles: { a: {} } };',
      ['config', 'use', 'a', '--config', '../core.config.mjs'],
      /is JavaScript, which core does not rewrite/,
    ],
    ['a YAML file that does not parse', '.corerc.yaml', 'profiles: [oops', ['config', 'use', 'a'], /error: /],
  ])('refuses %s with exit 2 and leaves the file as it was', async (_name, name, content, argv, message) => {
    const box = await sandbox();
    const file = await box.write(path.join(box.project, name), content);
    const run = await core(box, argv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
    expect(await readFile(file, 'utf8')).toBe(content);
  });

  it('refuses with exit 2 when there is no config file, naming where it looked', async () => {
    const box = await sandbox();
    const run = await core(box, ['config', 'use', 'prod']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no config file found, so there is no profile to use');
    expect(run.stderr).toContain('hint: create one with: core config init');
  });
});

describe('core config init on an existing file', () => {
  const userFile = (box: Sandbox) => path.join(box.home, '.config', 'core', 'config.yaml');

  it('adds the profile, keeping the comments, the other profiles and the default', async () => {
    const box = await sandbox();
    const file = await box.write(userFile(box), twoProfiles, 0o600);
    const run = await core(box, ['config', 'init', '--profile-name', 'eu', ...initFlags]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Added profile eu to ${file}\n`);
    expect(run.stderr).toContain(
      'The default profile stays staging: use this one with -p eu, or make it the default with: core config use eu',
    );
    expect(await readFile(file, 'utf8')).toBe(
      `${twoProfiles}  eu:\n    baseUrl: https://eu.example.com\n    tenant: acme-eu\n    token:\n      env: EU_TOKEN\n`,
    );
    const show = JSON.parse((await core(box, ['config', 'show', '--json'])).stdout) as { profile: { value: string }; profiles: string[] };
    expect(show.profile.value).toBe('staging');
    expect(show.profiles).toEqual(['staging', 'prod', 'eu']);
  });

  it('names the only profile the default when the file had none, so adding one does not change which is used', async () => {
    const box = await sandbox();
    const file = await box.write(userFile(box), 'profiles:\n  work:\n    baseUrl: https://w.example.com\n    tenant: w\n');
    expect((await core(box, ['config', 'init', '--profile-name', 'eu', ...initFlags])).code).toBe(0);
    expect(await readFile(file, 'utf8')).toMatch(/^defaultProfile: work\nprofiles:\n {2}work:/);
  });

  it('refuses a profile name the file has, before asking anything, and leaves the file as it was', async () => {
    const box = await sandbox();
    const file = await box.write(userFile(box), twoProfiles);
    const run = await core(box, ['config', 'init', '--profile-name', 'prod', ...initFlags]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: profile prod already exists in ${file}`);
    expect(run.stderr).toContain('hint: choose another --profile-name, or pass --force to replace that profile');
    expect(await readFile(file, 'utf8')).toBe(twoProfiles);
  });

  it('replaces that profile in its place with --force', async () => {
    const box = await sandbox();
    const file = await box.write(userFile(box), twoProfiles);
    const run = await core(box, ['config', 'init', '--profile-name', 'staging', ...initFlags, '--force']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`Replaced profile staging in ${file}\n`);
    const text = await readFile(file, 'utf8');
    expect(text.indexOf('staging:')).toBeLessThan(text.indexOf('prod:'));
    expect(text).toContain('  staging:\n    baseUrl: https://eu.example.com\n    tenant: acme-eu');
    expect(text).toContain('# the test tenant');
  });

  it('keeps the mode of the file, unless the new profile holds a literal token', async () => {
    const box = await sandbox();
    const file = await box.write(userFile(box), twoProfiles, 0o640);
    expect((await core(box, ['config', 'init', '--profile-name', 'eu', ...initFlags])).code).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o640);
  });

  it('offers no taken name at the prompt: a name the file has is refused as it is typed', async () => {
    const box = await sandbox();
    await box.write(userFile(box), twoProfiles);
    const io = capture(box.env, box.cwd, { tty: true });
    const { runConfigInit } = await import('../../src/commands/config/run.js');
    const { scriptedPrompter, input, select } = await import('../prompts/scripted.js');
    const prompter = scriptedPrompter([
      input(/^Profile name/, 'prod', 'eu'),
      select(/^Where should the token come from/, 'env'),
      input(/^Environment variable/, 'EU_TOKEN'),
    ]);
    const code = await runConfigInit(
      { global: { baseUrl: 'https://eu.example.com', tenant: 'acme-eu' }, force: false },
      { ...io.ctx, prompter: () => prompter },
    );
    expect(code).toBe(0);
    expect(prompter.rejections).toEqual(['the file has a profile prod already; choose another name (or pass --force to replace it)']);
    expect(io.stdout()).toContain('Added profile eu');
  });
});

describe('core config show, with several profiles', () => {
  it('lists every profile with its service and tenant, and marks the one in use', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.project, '.corerc.yaml'), twoProfiles);
    const run = await core(box, ['-p', 'prod', 'config', 'show']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      [
        `profiles in ${file} (* in use; switch with: core config use NAME)`,
        '  staging  https://staging.example.com  acme',
        '* prod     https://chat.example.com     acme',
      ].join('\n'),
    );
    const json = JSON.parse((await core(box, ['config', 'show', '--json'])).stdout) as { profileList: unknown };
    expect(json.profileList).toEqual([
      { name: 'staging', baseUrl: 'https://staging.example.com', tenant: 'acme', inUse: true },
      { name: 'prod', baseUrl: 'https://chat.example.com', tenant: 'acme', inUse: false },
    ]);
  });
});

describe('core config check', () => {
  const ready = (box: Sandbox) =>
    box.write(
      path.join(box.project, '.corerc.yaml'),
      `profiles:\n  p:\n    baseUrl: https://chat.example.com\n    tenant: acme\n    token: {command: "echo ran >> ${path.join(box.root, 'ran.log')}; echo tok-checked-5f1c"}\n`,
    );

  it('exits 0 when a send could go out, having run the token command once, and never shows the token', async () => {
    const box = await sandbox();
    await ready(box);
    const run = await core(box, ['config', 'check']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^✓ config file/);
    expect(run.stdout).toMatch(/✓ token +\{command: "echo ran >> .*"\} in .*\.corerc\.yaml \(ran, and printed a token\)/);
    expect(run.stdout).toContain('✓ integrator token  not set: the token is used (core reason update)');
    expect(run.stdout).toContain('Ready: a send could go out (nothing was sent).');
    expect(run.stdout).not.toContain('✗');
    expect(`${run.stdout}${run.stderr}`).not.toContain('tok-checked-5f1c');
    expect(await readFile(path.join(box.root, 'ran.log'), 'utf8')).toBe('ran\n');
  });

  // Each token source described as it is: the variable, or the form in the file and the file's path.
  it.each<{ name: string; file: string | null; env: Record<string, string>; token: RegExp; integrator: RegExp }>([
    {
      name: 'CORE_TOKEN and CORE_INTEGRATOR_TOKEN with no config file',
      file: null,
      env: {
        CORE_BASE_URL: 'https://chat.example.com',
        CORE_TENANT: 't',
        CORE_TOKEN: 'envtoken-LONG',
        CORE_INTEGRATOR_TOKEN: 'envtoken-INTEGRATOR',
      },
      token: /^✓ token +environment variable CORE_TOKEN \(set\)  env CORE_TOKEN$/m,
      integrator: /^✓ integrator token +environment variable CORE_INTEGRATOR_TOKEN \(set\)  env CORE_INTEGRATOR_TOKEN$/m,
    },
    {
      name: 'CORE_TOKEN and CORE_INTEGRATOR_TOKEN over literals in the file',
      file: '    token: file-literal-1\n    integratorToken: file-literal-2\n',
      env: { CORE_TOKEN: 'envtoken-LONG', CORE_INTEGRATOR_TOKEN: 'envtoken-INTEGRATOR' },
      token: /^✓ token +environment variable CORE_TOKEN \(set\)  env CORE_TOKEN$/m,
      integrator: /^✓ integrator token +environment variable CORE_INTEGRATOR_TOKEN \(set\)  env CORE_INTEGRATOR_TOKEN$/m,
    },
    {
      name: 'literals in the file',
      file: '    token: file-literal-1\n    integratorToken: file-literal-2\n',
      env: {},
      token: /^✓ token +a literal in FILE  profile p in FILE$/m,
      integrator: /^✓ integrator token +a literal in FILE  profile p in FILE$/m,
    },
    {
      name: '{env: NAME} in the file',
      file: '    token: {env: BOT_TOKEN}\n    integratorToken: {env: INTEGRATOR_TOKEN}\n',
      env: { BOT_TOKEN: 'envtoken-BOT', INTEGRATOR_TOKEN: 'envtoken-INTEGRATOR' },
      token: /^✓ token +\{env: BOT_TOKEN\} in FILE \(set\)  profile p in FILE$/m,
      integrator: /^✓ integrator token +\{env: INTEGRATOR_TOKEN\} in FILE \(set\)  profile p in FILE$/m,
    },
    {
      name: '{command} in the file',
      file: '    token: {command: "echo $BOT_SECRET"}\n    integratorToken: {command: "echo $INTEGRATOR_SECRET"}\n',
      env: { BOT_SECRET: 'cmdtoken-BOT', INTEGRATOR_SECRET: 'cmdtoken-INTEGRATOR' },
      token: /^✓ token +\{command: "echo \$BOT_SECRET"\} in FILE \(ran, and printed a token\)  profile p in FILE$/m,
      integrator: /^✓ integrator token +\{command: "echo \$INTEGRATOR_SECRET"\} in FILE \(ran, and printed a token\)  profile p in FILE$/m,
    },
  ])('describes where the token and the integrator token come from truly: $name', async (row) => {
    const box = await sandbox(row.env);
    const file =
      row.file === null
        ? null
        : await box.write(
            path.join(box.project, '.corerc.yaml'),
            `profiles:\n  p:\n    baseUrl: https://chat.example.com\n    tenant: acme\n${row.file}`,
          );
    const run = await core(box, ['config', 'check']);
    expect(run.code).toBe(0);
    const withFile = (pattern: RegExp) =>
      new RegExp(pattern.source.replaceAll('FILE', (file ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'm');
    expect(run.stdout).toMatch(withFile(row.token));
    expect(run.stdout).toMatch(withFile(row.integrator));
    if (file === null) expect(run.stdout).not.toContain('config file (');
    expect(run.stdout).not.toContain('in the config file');
    expect(run.stdout).not.toMatch(/envtoken|cmdtoken|file-literal/);
  });

  it('names every problem at once and exits 2: no base URL, an unset variable, a failing token command', async () => {
    const box = await sandbox();
    await box.write(
      path.join(box.project, '.corerc.yaml'),
      'profiles:\n  p:\n    tenant: acme\n    token: {env: NOT_SET_TOKEN}\n    integratorToken: {command: "exit 3"}\n',
    );
    const run = await core(box, ['config', 'check']);
    expect(run.code).toBe(2);
    const failed = run.stdout.split('\n').filter((line) => line.startsWith('✗'));
    expect(failed.map((line) => line.split(/ {2,}/)[0])).toEqual(['✗ base URL', '✗ token', '✗ integrator token']);
    expect(run.stdout).toContain('environment variable NOT_SET_TOKEN is not set');
    expect(run.stdout).toMatch(/✗ integrator token .*exit/);
    expect(run.stderr).toContain('error: not ready to send: 3 problems (listed above)');
  });

  it('applies the network rules as a send would: plain http to another host is a problem, unless --allow-http', async () => {
    const box = await sandbox({ CORE_BASE_URL: 'http://chat.example.com', CORE_TENANT: 'acme', CORE_TOKEN: 'tok-0123456789' });
    const refused = await core(box, ['config', 'check']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toMatch(/✗ connection +refusing to send the token over plain http to chat\.example\.com/);
    const allowed = await core(box, ['config', 'check', '--allow-http']);
    expect(allowed.code).toBe(0);
  });

  it("needs no token when the profile's headers carry Authorization", async () => {
    const box = await sandbox();
    await box.write(
      path.join(box.project, '.corerc.yaml'),
      'profiles:\n  p:\n    baseUrl: https://chat.example.com\n    tenant: acme\n    headers: {Authorization: "Key gw-1"}\n',
    );
    const run = await core(box, ['config', 'check']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ token +not needed: the profile's headers carry Authorization/);
  });

  it('reports an invalid config file as the one problem, with exit 2', async () => {
    const box = await sandbox();
    await box.write(path.join(box.project, '.corerc.yaml'), 'profiles:\n  p:\n    tenat: acme\n');
    const run = await core(box, ['config', 'check', '--json']);
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as { ready: boolean; checks: Array<{ name: string; ok: boolean; detail: string }> };
    expect(report.ready).toBe(false);
    expect(report.checks).toHaveLength(1);
    expect(report.checks[0]).toMatchObject({ name: 'config', ok: false });
    expect(report.checks[0]!.detail).toContain('profiles.p.tenat: unknown key; did you mean "tenant"?');
  });

  it('prints one JSON document with --json, every check with its outcome', async () => {
    const box = await sandbox();
    await ready(box);
    const run = await core(box, ['config', 'check', '--json']);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { ready: boolean; checks: Array<{ name: string; ok: boolean }> };
    expect(report.ready).toBe(true);
    expect(report.checks.map((check) => check.name)).toEqual([
      'config file',
      'profile',
      'base URL',
      'tenant',
      'connection',
      'token',
      'integrator token',
    ]);
  });
});
