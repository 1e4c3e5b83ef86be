import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema, loadSettings, validateConfig } from '../../src/config/index.js';
import { isJavaScriptConfig } from '../../src/config/locate.js';
import { ConfigError } from '../../src/errors.js';
import { sandbox } from './helpers.js';

const SECRET = 'sk_live_9f8e7d6c5b4a';

async function loadError(content: string, name = '.corerc') {
  const box = await sandbox();
  const file = await box.write(path.join(box.cwd, name), content);
  // A JavaScript config is loaded only when named; the others are found by the search.
  const flags = isJavaScriptConfig(name) ? { config: file } : {};
  const error = await loadSettings({ cwd: box.cwd, env: box.env, flags }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return { error: error as ConfigError, file };
}

/** The error as the user reads it: message, problems and hint. */
function text(error: ConfigError): string {
  return [error.message, ...error.problems.map((p) => `${p.path}: ${p.message}`), error.hint ?? ''].join('\n');
}

describe('an invalid config file', () => {
  it.each([
    [
      'a misspelt profile key',
      'profiles:\n  staging:\n    tiemout: 30s\n',
      'profiles.staging.tiemout',
      'unknown key; did you mean "timeout"?',
    ],
    [
      'a key in another case',
      'profiles:\n  staging:\n    baseURL: https://x.example.com\n',
      'profiles.staging.baseURL',
      'did you mean "baseUrl"?',
    ],
    [
      'a snake_case key',
      'profiles:\n  staging:\n    integrator_token: {env: X}\n',
      'profiles.staging.integrator_token',
      'did you mean "integratorToken"?',
    ],
    ['a misspelt top-level key', 'profile:\n  staging: {}\n', 'profile', 'did you mean "profiles"?'],
    ['a profile key at the top level', 'tenant: acme\n', 'tenant', 'profile settings go under profiles.<name>'],
    [
      'an unknown key with no near match',
      'profiles:\n  s:\n    colour: red\n',
      'profiles.s.colour',
      'unknown key; expected one of baseUrl, tenant, token',
    ],
    [
      'a misspelt limits key',
      'profiles:\n  s:\n    limits: {maxQuickReply: 3}\n',
      'profiles.s.limits.maxQuickReply',
      'did you mean "maxQuickReplies"?',
    ],
    ['a misspelt token key', 'profiles:\n  s:\n    token: {evn: TOKEN}\n', 'profiles.s.token.evn', 'did you mean "env"?'],
    ['a base URL without a scheme', 'profiles:\n  s:\n    baseUrl: chat.example.com\n', 'profiles.s.baseUrl', 'is not an absolute URL'],
    [
      'a base URL of another scheme',
      'profiles:\n  s:\n    baseUrl: ftp://chat.example.com\n',
      'profiles.s.baseUrl',
      'must be an http or https URL',
    ],
    [
      'a base URL with a query',
      'profiles:\n  s:\n    baseUrl: https://chat.example.com/?a=1\n',
      'profiles.s.baseUrl',
      'with a query or fragment is not a base URL',
    ],
    ['a number as tenant', 'profiles:\n  s:\n    tenant: [a]\n', 'profiles.s.tenant', 'must be the tenant name'],
    ['retries above 10', 'profiles:\n  s:\n    retries: 11\n', 'profiles.s.retries', '11 is above the limit 10'],
    ['negative retries', 'profiles:\n  s:\n    retries: -1\n', 'profiles.s.retries', '-1 is below the minimum 0'],
    ['fractional retries', 'profiles:\n  s:\n    retries: 1.5\n', 'profiles.s.retries', 'must be a whole number from 0 to 10, not 1.5'],
    ['retries as text', 'profiles:\n  s:\n    retries: two\n', 'profiles.s.retries', 'must be a whole number from 0 to 10, not "two"'],
    ['a nonsense timeout', 'profiles:\n  s:\n    timeout: soon\n', 'profiles.s.timeout', 'invalid duration "soon"'],
    ['a zero timeout', 'profiles:\n  s:\n    timeout: 0\n', 'profiles.s.timeout', 'must be at least 1ms'],
    [
      'a zero limit',
      'profiles:\n  s:\n    limits: {maxQuickReplies: 0}\n',
      'profiles.s.limits.maxQuickReplies',
      '0 is below the minimum 1',
    ],
    ['a bad header name', 'profiles:\n  s:\n    headers: {"X Extra": v}\n', 'profiles.s.headers["X Extra"]', 'is not a valid header name'],
    [
      'a number as header value',
      'profiles:\n  s:\n    headers: {X-Extra: 5}\n',
      'profiles.s.headers.X-Extra',
      'a header value must be a string',
    ],
    ['headers as a list', 'profiles:\n  s:\n    headers: [a]\n', 'profiles.s.headers', 'must be a mapping of header names to values'],
    [
      'a header that sets the tenant',
      'profiles:\n  s:\n    headers: {X-Tenant-Name: other}\n',
      'profiles.s.headers.X-Tenant-Name',
      'is set by core itself',
    ],
    [
      'a header that sets the content type',
      'profiles:\n  s:\n    headers: {content-type: text/plain}\n',
      'profiles.s.headers.content-type',
      'is set by core itself',
    ],
    ['an empty profile', 'profiles:\n  s:\n', 'profiles.s', 'must be a mapping of settings'],
    [
      'a defaultProfile that does not exist',
      'defaultProfile: stagign\nprofiles:\n  staging: {}\n  prod: {}\n',
      'defaultProfile',
      'names profile "stagign", which does not exist; did you mean "staging"? profiles: staging, prod',
    ],
    ['a defaultProfile with no profiles', 'defaultProfile: staging\n', 'defaultProfile', 'no profiles are defined'],
    ['$schema that is not a string', '$schema: 5\n', '$schema', 'must be a string'],
    ['a list instead of a mapping', '- a\n- b\n', '', 'must be a mapping with profiles'],
    [
      'a token and its two forms at once',
      'profiles:\n  s:\n    token: {env: A, command: b}\n',
      'profiles.s.token',
      'give either env or command, not both',
    ],
    [
      'a token env that is no variable name',
      'profiles:\n  s:\n    token: {env: "my token"}\n',
      'profiles.s.token.env',
      'must be the name of an environment variable',
    ],
    [
      'an empty token command',
      'profiles:\n  s:\n    integratorToken: {command: ""}\n',
      'profiles.s.integratorToken.command',
      'must be a shell command',
    ],
    ['an unquoted numeric token', 'profiles:\n  s:\n    token: 12345678\n', 'profiles.s.token', 'a literal token must be quoted'],
    ['an empty token', 'profiles:\n  s:\n    token:\n', 'profiles.s.token', 'is empty'],
  ])('names the file and the key path for %s', async (_case, content, keyPath, message) => {
    const { error, file } = await loadError(content);
    expect(error.message).toContain(file);
    expect(error.exitCode).toBe(2);
    const problem = error.problems.find((p) => p.path === keyPath);
    expect(problem, `no problem at ${keyPath} in:\n${text(error)}`).toBeDefined();
    expect(problem!.message).toContain(message);
  });

  it('reports every problem at once, in the order of the file', async () => {
    const { error } = await loadError(
      [
        'defaultProfile: nope',
        'profiles:',
        '  staging:',
        '    tiemout: 30s',
        '    baseUrl: nota url',
        '    retries: 99',
        '  prod:',
        '    tenant: {}',
        'extra: 1',
      ].join('\n'),
    );
    expect(error.problems.map((p) => p.path)).toEqual([
      'defaultProfile',
      'profiles.staging.tiemout',
      'profiles.staging.baseUrl',
      'profiles.staging.retries',
      'profiles.prod.tenant',
      'extra',
    ]);
    expect(error.message).toMatch(/\(6 problems\)$/);
  });

  it('quotes a profile name that is not a plain word in the key path', async () => {
    const { error } = await loadError('profiles:\n  "my team":\n    tiemout: 1s\n');
    expect(error.problems[0]!.path).toBe('profiles["my team"].tiemout');
  });

  // Each message names the place of the problem (a key path, or the file's line and column) and
  // what is wrong with it, but not the value.
  it.each([
    [
      'a token with a line break',
      `profiles:\n  s:\n    token: "${SECRET}\\nX-Injected: 1"\n`,
      'profiles.s.token: holds a line break or control character',
    ],
    [
      'a token env holding the token itself',
      `profiles:\n  s:\n    token: {env: "${SECRET}-x"}\n`,
      'profiles.s.token.env: must be the name of an environment variable',
    ],
    ['a token with an unknown key', `profiles:\n  s:\n    token: {value: "${SECRET}"}\n`, 'profiles.s.token.value: unknown key'],
    [
      'a header value with a line break',
      `profiles:\n  s:\n    headers: {Authorization: "Bearer ${SECRET}\\n"}\n`,
      'profiles.s.headers.Authorization: a header value must hold only tab, printable ASCII and Latin-1 (U+0080 to U+00FF): this one holds a line break',
    ],
    [
      'a header value with a character above U+00FF',
      `profiles:\n  s:\n    headers: {X-Api-Key: "${SECRET}€"}\n`,
      'profiles.s.headers.X-Api-Key: a header value must hold only tab, printable ASCII and Latin-1 (U+0080 to U+00FF): this one holds U+20AC',
    ],
    [
      'broken YAML around a token',
      `profiles:\n  s:\n    token: "${SECRET}\n    tenant: [\n`,
      '.corerc:5:1: invalid YAML: unexpected end of the stream',
    ],
    [
      'duplicate keys around a token',
      `profiles:\n  s:\n    token: ${SECRET}\n    token: ${SECRET}\n`,
      '.corerc:4:5: invalid YAML: duplicated mapping key',
    ],
  ])('never quotes a secret in its message: %s', async (_case, content, shown) => {
    const { error } = await loadError(content);
    expect(error.exitCode).toBe(2);
    expect(text(error)).toContain(shown);
    expect(text(error)).not.toContain(SECRET);
  });

  it.each([
    ['broken YAML', '.corerc', 'profiles:\n  s: [\n', /\.corerc:\d+:\d+: invalid YAML: /],
    ['broken JSON', '.corerc.json', `{"profiles": {"s": {"token": "${SECRET}",}}}`, /\.corerc\.json:1:\d+: invalid JSON/],
    [
      'a JavaScript file that throws',
      '.corerc.cjs',
      `module.exports = { profiles: { s: { token: ${SECRET} } } };`,
      /\.corerc\.cjs:1: cannot be loaded \(ReferenceError\)/,
    ],
  ])('names the file and line of %s without quoting it', async (_case, name, content, message) => {
    const { error } = await loadError(content, name);
    expect(error.message).toMatch(message);
    expect(text(error)).not.toContain(SECRET);
  });

  it('accepts every key of the example in docs/configuration.md', () => {
    const example = {
      $schema: './core.schema.json',
      defaultProfile: 'staging',
      profiles: {
        staging: {
          baseUrl: 'https://chat.example.com',
          tenant: 'acme',
          token: { env: 'CORE_STAGING_TOKEN' },
          integratorToken: { command: 'pass show core/integrator' },
          headers: { 'X-Extra': 'value' },
          timeout: '30s',
          retries: 2,
          limits: { maxQuickReplies: 10, maxQuickReplyLength: 40 },
        },
        prod: { baseUrl: 'https://chat.example.org', tenant: 'acme', token: 'literal-token-1', timeout: 1500, retries: 10 },
      },
    };
    expect(validateConfig(example).problems).toEqual([]);
    expect(configSchema.safeParse(example).success).toBe(true);
  });

  it.each([
    ['retries 0 and 10', { retries: 0 }, { retries: 10 }],
    ['limits of 1', { limits: { maxQuickReplies: 1, maxQuickReplyLength: 1 } }, { limits: {} }],
    ['a timeout of 1 ms and the timer maximum', { timeout: 1 }, { timeout: 2_147_483_647 }],
  ])('accepts the bounds: %s', (_case, a, b) => {
    expect(validateConfig({ profiles: { a, b } }).problems).toEqual([]);
  });

  it('treats an empty file as an empty config', () => {
    expect(validateConfig(undefined)).toEqual({ config: {}, problems: [] });
  });
});

describe('configSchema as a JSON Schema', () => {
  it('converts, so an editor can check a file through $schema', async () => {
    const z = await import('zod/mini');
    const schema = z.toJSONSchema(configSchema, { io: 'input' }) as { properties: Record<string, unknown>; additionalProperties: unknown };
    expect(Object.keys(schema.properties)).toEqual(['$schema', 'defaultProfile', 'profiles']);
    expect(schema.additionalProperties).toBe(false);
  });
});

describe('a JavaScript config file that throws something other than an Error', () => {
  it('names the file without quoting what was thrown', async () => {
    const box = await sandbox();
    const file = await box.write(path.join(box.cwd, '.corerc.cjs'), `throw "${SECRET}";`);
    const error = (await loadSettings({ cwd: box.cwd, env: box.env, flags: { config: file } }).catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(file);
    expect(text(error)).not.toContain(SECRET);
  });
});
