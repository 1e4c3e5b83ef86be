import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSettings, requireSettings, type Need, type Settings } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { sandbox } from './helpers.js';

async function settingsFor(content: string | null, env: Record<string, string> = {}, profile?: string) {
  const box = await sandbox(env);
  const file = content === null ? null : await box.write(path.join(box.cwd, '.corerc'), content);
  const settings = await loadSettings({ cwd: box.cwd, env: box.env, flags: profile ? { profile } : {} });
  return { settings, file, box };
}

function requireError(settings: Settings, needs: Need[]): ConfigError {
  try {
    requireSettings(settings, needs);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('requireSettings did not throw');
}

function lines(error: ConfigError): string[] {
  return error.problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
}

describe('requireSettings', () => {
  it('passes when every needed value is there', async () => {
    const { settings } = await settingsFor(null, { CORE_BASE_URL: 'https://x.example.com', CORE_TENANT: 't', CORE_TOKEN: 'tok-12345678' });
    expect(() => requireSettings(settings, ['baseUrl', 'tenant', 'token', 'integratorToken'])).not.toThrow();
  });

  it('accepts the token in place of a missing integrator token', async () => {
    const { settings } = await settingsFor('profiles:\n  p:\n    token: {env: T}\n');
    expect(() => requireSettings(settings, ['integratorToken'])).not.toThrow();
  });

  it('names each missing value and every place it looked, with no config file', async () => {
    const { settings, box } = await settingsFor(null);
    const error = requireError(settings, ['baseUrl', 'tenant', 'token']);
    expect(error.message).toBe('missing base URL, tenant and token');
    expect(error.exitCode).toBe(2);
    expect(lines(error)).toEqual([
      'base URL: looked for flag --base-url, env CORE_BASE_URL',
      'tenant: looked for flag --tenant, env CORE_TENANT',
      'token: looked for env CORE_TOKEN',
      'no config file was found',
      expect.stringMatching(new RegExp(`^looked in ${box.cwd}, .*${box.home} for \\.corerc, `)),
      `and in ${path.join(box.home, '.config', 'core')} for config, config.json|yaml|yml`,
    ]);
    expect(error.hint).toContain('core config init');
  });

  it('names the profile and file it looked in', async () => {
    const { settings, file } = await settingsFor('profiles:\n  staging:\n    baseUrl: https://x.example.com\n');
    const error = requireError(settings, ['tenant', 'integratorToken']);
    expect(error.message).toBe('missing tenant and integrator token');
    expect(lines(error)).toEqual([
      `tenant: looked for flag --tenant, env CORE_TENANT, tenant in profile staging of ${file}`,
      `integrator token: looked for env CORE_INTEGRATOR_TOKEN, integratorToken in profile staging of ${file}, then env CORE_TOKEN, then token in profile staging of ${file}`,
    ]);
    expect(error.hint).toBe(`add tenant, integratorToken to profile staging in ${file}, or set the environment variables above`);
  });

  it('explains that a profile must be chosen when the file has several and none was', async () => {
    const { settings, file } = await settingsFor('profiles:\n  staging: {tenant: s}\n  prod: {tenant: p}\n');
    const error = requireError(settings, ['tenant']);
    expect(lines(error)).toContain(`${file} has several profiles (staging, prod) and none was chosen`);
    expect(error.hint).toBe(`choose one with -p NAME or CORE_PROFILE, or set defaultProfile in ${file}`);
  });

  it('is satisfied by the environment even when several profiles were not chosen between', async () => {
    const { settings } = await settingsFor('profiles:\n  staging: {}\n  prod: {}\n', { CORE_TENANT: 'ci' });
    expect(() => requireSettings(settings, ['tenant'])).not.toThrow();
  });

  it('never names a token value', async () => {
    const { settings, file } = await settingsFor('profiles:\n  p:\n    integratorToken: literal-secret-value\n');
    const error = requireError(settings, ['token', 'baseUrl']);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('missing token and base URL');
    expect(lines(error)[0]).toBe(`token: looked for env CORE_TOKEN, token in profile p of ${file}`);
    expect([error.message, ...lines(error), error.hint].join('\n')).not.toContain('literal-secret-value');
  });
});

describe.runIf(process.platform !== 'win32')('the warning about a literal token in a file others can read', () => {
  const literal = 'profiles:\n  p:\n    token: literal-secret-value\n';
  const fromEnv = 'profiles:\n  p:\n    token: {env: T}\n    integratorToken: {command: pass show x}\n';

  const token = 'a literal token';
  it.each<[string, string, number, string | null]>([
    ['a literal token, mode 0644', literal, 0o644, token],
    ['a literal token, mode 0640 (group)', literal, 0o640, token],
    ['a literal token, mode 0604 (others)', literal, 0o604, token],
    ['a literal token, mode 0600', literal, 0o600, null],
    ['a literal integrator token, mode 0644', 'profiles:\n  p:\n    integratorToken: "x1234-integrator"\n', 0o644, token],
    ['env and command tokens, mode 0644', fromEnv, 0o644, null],
    [
      "a profile's Authorization header, mode 0644",
      'profiles:\n  p:\n    headers: {Authorization: "Integrator literal-secret-value"}\n',
      0o644,
      'secrets in clear (a header value)',
    ],
    [
      'a proxy password, mode 0644',
      'profiles:\n  p:\n    proxy: http://u:literal-secret-value@proxy:3128\n',
      0o644,
      'secrets in clear (a proxy password)',
    ],
    ['only headers whose values are shown, mode 0644', 'profiles:\n  p:\n    headers: {Accept-Language: de}\n', 0o644, null],
  ])('%s: warns of %s', async (_case, content, mode, what) => {
    const box = await sandbox();
    const file = await box.write(path.join(box.cwd, '.corerc'), content, mode);
    const warnings: string[] = [];
    await loadSettings({ cwd: box.cwd, env: box.env, flags: {}, warn: (message) => warnings.push(message) });
    expect(warnings).toEqual(what ? [`${file} holds ${what} and can be read by other users; run: chmod 600 ${file}`] : []);
    expect(warnings.join('')).not.toContain('literal-secret-value');
  });
});
