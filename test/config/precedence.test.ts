import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, type LoadInput } from '../../src/config/index.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { sandbox } from './helpers.js';

const twoProfiles = `
defaultProfile: staging
profiles:
  staging:
    baseUrl: https://staging.example.com
    tenant: staging-tenant
    timeout: 45s
    token: {env: STAGING_TOKEN}
  prod:
    baseUrl: https://prod.example.com
    tenant: prod-tenant
    timeout: 1m
    retries: 5
`;

async function load(content: string | null, flags: LoadInput['flags'] = {}, env: Record<string, string> = {}) {
  const box = await sandbox(env);
  const file = content === null ? null : await box.write(path.join(box.cwd, '.corerc'), content);
  return { settings: await loadSettings({ cwd: box.cwd, env: box.env, flags }), file };
}

describe('the precedence of values: flags, then environment, then the profile, then defaults', () => {
  // Each row: the flag, the env var and whether the profile holds the value; the expected winner.
  const flagEnvProfile = [
    { flag: true, env: true, profile: true, winner: 'flag' },
    { flag: false, env: true, profile: true, winner: 'env' },
    { flag: false, env: false, profile: true, winner: 'profile' },
    { flag: false, env: false, profile: false, winner: 'default' },
  ] as const;

  it.each(flagEnvProfile)('baseUrl comes from the $winner (flag $flag, env $env, profile $profile)', async (row) => {
    const content = row.profile ? 'profiles:\n  p:\n    baseUrl: https://profile.example.com\n' : 'profiles:\n  p: {}\n';
    const { settings, file } = await load(
      content,
      row.flag ? { baseUrl: 'https://flag.example.com' } : {},
      row.env ? { CORE_BASE_URL: 'https://env.example.com' } : {},
    );
    const expected = {
      flag: { value: 'https://flag.example.com', source: 'flag --base-url' },
      env: { value: 'https://env.example.com', source: 'env CORE_BASE_URL' },
      profile: { value: 'https://profile.example.com', source: `profile p in ${file}` },
      default: null,
    }[row.winner];
    expect(settings.baseUrl).toEqual(expected);
  });

  it.each(flagEnvProfile)('tenant comes from the $winner (flag $flag, env $env, profile $profile)', async (row) => {
    const content = row.profile ? 'profiles:\n  p:\n    tenant: from-profile\n' : 'profiles:\n  p: {}\n';
    const { settings, file } = await load(content, row.flag ? { tenant: 'from-flag' } : {}, row.env ? { CORE_TENANT: 'from-env' } : {});
    const expected = {
      flag: { value: 'from-flag', source: 'flag --tenant' },
      env: { value: 'from-env', source: 'env CORE_TENANT' },
      profile: { value: 'from-profile', source: `profile p in ${file}` },
      default: null,
    }[row.winner];
    expect(settings.tenant).toEqual(expected);
  });

  it.each(flagEnvProfile)('timeout comes from the $winner (flag $flag, env $env, profile $profile)', async (row) => {
    const content = row.profile ? 'profiles:\n  p:\n    timeout: 45s\n' : 'profiles:\n  p: {}\n';
    const { settings, file } = await load(content, row.flag ? { timeout: '5s' } : {}, row.env ? { CORE_TIMEOUT: '2500' } : {});
    const expected = {
      flag: { value: 5000, source: 'flag --timeout' },
      env: { value: 2500, source: 'env CORE_TIMEOUT' },
      profile: { value: 45_000, source: `profile p in ${file}` },
      default: { value: 30_000, source: 'default' },
    }[row.winner];
    expect(settings.timeoutMs).toEqual(expected);
  });

  it('takes the token from CORE_TOKEN before the profile, and names only the variable as its source', async () => {
    const { settings } = await load(twoProfiles, {}, { CORE_TOKEN: 'tok-from-env-123' });
    expect(settings.token).toEqual({ value: 'tok-from-env-123', source: 'env CORE_TOKEN' });
    expect(settings.token?.source).not.toContain('tok-from-env-123');
  });

  it('takes the integrator token from CORE_INTEGRATOR_TOKEN, and leaves it null when unset so the caller falls back to the token', async () => {
    const withEnv = await load(twoProfiles, {}, { CORE_INTEGRATOR_TOKEN: 'integrator-secret' });
    expect(withEnv.settings.integratorToken).toEqual({ value: 'integrator-secret', source: 'env CORE_INTEGRATOR_TOKEN' });
    const without = await load(twoProfiles);
    expect(without.settings.integratorToken).toBeNull();
  });

  it('gives the defaults when nothing sets them: 30 s, 2 retries, no headers, no limits', async () => {
    const { settings } = await load(null);
    expect(settings.timeoutMs).toEqual({ value: 30_000, source: 'default' });
    expect(settings.retries).toEqual({ value: 2, source: 'default' });
    expect(settings.headers).toEqual({ value: {}, source: 'default' });
    expect(settings.limits).toEqual({ value: {}, source: 'default' });
  });

  it('reads headers, retries and limits from the profile', async () => {
    const { settings, file } = await load(
      'profiles:\n  p:\n    headers: {X-Extra: value}\n    retries: 0\n    limits: {maxQuickReplies: 10, maxQuickReplyLength: 40}\n',
    );
    const source = `profile p in ${file}`;
    expect(settings.headers).toEqual({ value: { 'X-Extra': 'value' }, source });
    expect(settings.retries).toEqual({ value: 0, source });
    expect(settings.limits).toEqual({ value: { maxQuickReplies: 10, maxQuickReplyLength: 40 }, source });
  });

  it('treats an empty environment variable as unset', async () => {
    const { settings } = await load(twoProfiles, {}, { CORE_BASE_URL: '', CORE_PROFILE: '', CORE_TOKEN: '' });
    expect(settings.baseUrl?.source).toMatch(/^profile staging in /);
    expect(settings.profile?.source).toMatch(/^defaultProfile in /);
    expect(settings.token?.value).toEqual({ env: 'STAGING_TOKEN' });
  });

  it('is satisfied by the environment alone when there is no config file', async () => {
    const { settings } = await load(null, {}, { CORE_BASE_URL: 'https://ci.example.com', CORE_TENANT: 'ci', CORE_TOKEN: 'ci-token-value' });
    expect(settings.configFile).toBeNull();
    expect(settings.profile).toBeNull();
    expect(settings.baseUrl).toEqual({ value: 'https://ci.example.com', source: 'env CORE_BASE_URL' });
    expect(settings.tenant).toEqual({ value: 'ci', source: 'env CORE_TENANT' });
    expect(settings.token).toEqual({ value: 'ci-token-value', source: 'env CORE_TOKEN' });
  });
});

describe('choosing the profile: -p, then CORE_PROFILE, then defaultProfile, then the only profile', () => {
  const three = `
defaultProfile: staging
profiles:
  staging: {tenant: s}
  prod: {tenant: p}
  dev: {tenant: d}
`;
  const noDefault = three.replace('defaultProfile: staging\n', '');
  const single = 'profiles:\n  solo: {tenant: solo}\n';

  it.each([
    { file: three, flag: 'prod', env: 'dev', profile: 'prod', source: 'flag --profile' },
    { file: three, flag: undefined, env: 'dev', profile: 'dev', source: 'env CORE_PROFILE' },
    { file: three, flag: undefined, env: undefined, profile: 'staging', source: 'defaultProfile in <file>' },
    { file: single, flag: undefined, env: undefined, profile: 'solo', source: 'the only profile in <file>' },
    { file: noDefault, flag: undefined, env: undefined, profile: null, source: null },
    { file: noDefault, flag: 'dev', env: undefined, profile: 'dev', source: 'flag --profile' },
  ])('chooses $profile (flag $flag, CORE_PROFILE $env)', async (row) => {
    const { settings, file } = await load(row.file, row.flag ? { profile: row.flag } : {}, row.env ? { CORE_PROFILE: row.env } : {});
    if (row.profile === null) {
      expect(settings.profile).toBeNull();
      expect(settings.tenant).toBeNull();
      expect(settings.profiles).toEqual(['staging', 'prod', 'dev']);
    } else {
      expect(settings.profile).toEqual({ value: row.profile, source: row.source!.replace('<file>', file!) });
      expect(settings.tenant?.source).toBe(`profile ${row.profile} in ${file}`);
    }
  });

  it.each([
    ['-p', { profile: 'qa' }, {}, 'flag --profile'],
    ['CORE_PROFILE', {}, { CORE_PROFILE: 'qa' }, 'env CORE_PROFILE'],
  ])('rejects a profile named by %s that does not exist, listing the profiles there are', async (_how, flags, env, source) => {
    const error = await load(three, flags, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(new RegExp(`profile "qa" \\(from ${source}\\) does not exist in .*\\.corerc`));
    expect((error as ConfigError).hint).toContain('profiles there: staging, prod, dev');
  });

  it('suggests the profile that was probably meant', async () => {
    const error = (await load(three, { profile: 'prdo' }).catch((e: unknown) => e)) as ConfigError;
    expect(error.hint).toContain('did you mean "prod"?');
  });

  it('rejects a named profile when there is no config file at all, saying where it looked', async () => {
    const error = (await load(null, { profile: 'staging' }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('no config file was found');
    expect(error.problems.map((p) => p.message).join('\n')).toMatch(/looked in .*work.project.sub/);
  });
});

describe('flag and environment values are checked too', () => {
  it.each([
    ['--base-url', { baseUrl: 'chat.example.com' }, {}, UsageError, /--base-url: "chat.example.com" is not an absolute URL/],
    ['--base-url', { baseUrl: 'ftp://chat.example.com' }, {}, UsageError, /must be an http or https URL/],
    [
      'CORE_BASE_URL',
      {},
      { CORE_BASE_URL: 'https://user:pw@chat.example.com' },
      ConfigError,
      /CORE_BASE_URL: must not hold a user name or password/,
    ],
    ['--timeout', { timeout: 'soon' }, {}, UsageError, /--timeout: invalid duration "soon"/],
    ['CORE_TIMEOUT', {}, { CORE_TIMEOUT: '-5s' }, ConfigError, /CORE_TIMEOUT: invalid duration/],
    ['--tenant', { tenant: '' }, {}, UsageError, /--tenant needs a tenant name/],
  ])('rejects a bad %s', async (_name, flags, env, type, message) => {
    const error = await load(null, flags, env).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });

  it('never repeats credentials from a base URL in its message', async () => {
    const error = await load(null, { baseUrl: 'https://user:hunter2@chat.example.com' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toBe('--base-url: must not hold a user name or password; use token');
    expect((error as UsageError).message).not.toContain('hunter2');
  });
});
