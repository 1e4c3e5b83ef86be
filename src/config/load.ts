import path from 'node:path';
import { stat } from 'node:fs/promises';
import { ConfigError, UsageError, type Problem } from '../errors.js';
import { parseDuration } from './duration.js';
import { envValue, findConfig, SEARCH_PLACES_TEXT, USER_PLACES_TEXT } from './locate.js';
import { noProxyFromEnv, parseProxyUrl, proxyFromEnv } from '../proxy-settings.js';
import { isShownRequestHeader, PRINTED_KEYS } from '../mask.js';
import { baseUrlProblem, suggest, TENANT_HINT, tenantProblem, validateConfig, type ConfigFile, type ProfileConfig } from './schema.js';
import type { SecretSpec } from './secret.js';
import { checkToken, TOKEN_HINT } from './token.js';
import { operations } from '../operations.js';
import type { Limits } from '../payload/common.js';

/** A value and where it came from, in words: `flag --base-url`, `env CORE_BASE_URL`, `profile staging in /home/u/.corerc`, `default`. */
export interface Resolved<T> {
  value: T;
  source: string;
}

// The server's limits on quick replies, when known: defined with the rules they limit.
export type { Limits };

export interface Settings {
  /** The config file in use, or null. */
  configFile: string | null;
  /** The folders searched, in order, the user config folder last; or the one file named by --config / CORE_CONFIG. */
  searched: string[];
  /** The names of the profiles in the config file, in file order. */
  profiles: string[];
  /** Each profile's service and tenant as the file states them, in file order (for `core config show`). */
  profileSummaries: Array<{ name: string; baseUrl: string | null; tenant: string | null }>;
  profile: Resolved<string> | null;
  baseUrl: Resolved<string> | null;
  tenant: Resolved<string> | null;
  token: Resolved<SecretSpec> | null;
  /** null means: fall back to token (the caller decides). */
  integratorToken: Resolved<SecretSpec> | null;
  /** The platform's webhook signing secret (`core bridge`): the profile's webhookSecret, or null. */
  webhookSecret: Resolved<SecretSpec> | null;
  headers: Resolved<Record<string, string>>;
  timeoutMs: Resolved<number>;
  retries: Resolved<number>;
  limits: Resolved<Limits>;
  /**
   * The proxy for the base URL's scheme: the profile's `proxy`, else https_proxy / HTTPS_PROXY (or
   * http_proxy / HTTP_PROXY for an http base URL). The value may hold a user name and password:
   * print it only through `redactProxyUrl`. Whether a request uses it is decided with `noProxy`.
   */
  proxy: Resolved<string> | null;
  /** no_proxy / NO_PROXY: the hosts reached directly. */
  noProxy: Resolved<string> | null;
  /** A PEM file of CA certificates added to the trust store: --ca-file, else the profile's caFile. An absolute path. */
  caFile: Resolved<string> | null;
}

export interface LoadInput {
  cwd: string;
  env: Record<string, string | undefined>;
  flags: { config?: string; profile?: string; baseUrl?: string; tenant?: string; timeout?: string; caFile?: string };
  /** Receives warnings, such as a config file with a literal token that others can read. */
  warn?: (message: string) => void;
  /** Stops waiting for a JavaScript config file still loading (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** Never run code, not even a JavaScript config file named with --config: for TAB completion. */
  noCode?: boolean;
  /** The user whose files the search trusts (besides root's): the process's own by default. */
  uid?: number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRIES = 2;

/**
 * Reads the effective settings (docs/configuration.md, "Precedence"): finds and validates the config
 * file, chooses the profile, and takes each value from, highest first, a flag, the environment, the
 * chosen profile, or the default. Throws a ConfigError (exit 2) for an invalid or missing config
 * file and for a profile that was asked for and does not exist; a value that is merely missing is
 * left null for `requireSettings`, so that `core config show` can show what there is.
 */
export async function loadSettings(input: LoadInput): Promise<Settings> {
  const location = await findConfig(input);
  let config: ConfigFile = {};
  if (location.configFile !== null) {
    config = validated(location.configFile, location.content);
    if (input.warn) await warnAboutLiteralToken(location.configFile, config, input.warn);
  }
  const file = location.configFile;
  const profiles = Object.keys(config.profiles ?? {});
  const profile = chooseProfile(input, config, file, profiles, location.searched);
  const settings: ProfileConfig = profile ? (config.profiles?.[profile.value] ?? {}) : {};
  const fromProfile = `profile ${profile?.value ?? ''} in ${file ?? ''}`;
  const pick = <T>(value: T | undefined): Resolved<T> | null => (value === undefined ? null : { value, source: fromProfile });

  const baseUrl = flagOrEnvUrl(input) ?? pick(settings.baseUrl);
  const tenant = flagOrEnvTenant(input) ?? pick(settings.tenant);
  const printed = printedBeside(baseUrl?.value ?? null, tenant?.value ?? null);
  return {
    configFile: file,
    searched: location.searched,
    profiles,
    profileSummaries: profiles.map((name) => ({
      name,
      baseUrl: config.profiles?.[name]?.baseUrl ?? null,
      tenant: config.profiles?.[name]?.tenant ?? null,
    })),
    profile,
    baseUrl,
    tenant,
    token: envSecret(input.env, 'CORE_TOKEN', printed) ?? literalChecked(pick(settings.token), 'token', printed),
    integratorToken:
      envSecret(input.env, 'CORE_INTEGRATOR_TOKEN', printed) ?? literalChecked(pick(settings.integratorToken), 'integratorToken', printed),
    webhookSecret: pick(settings.webhookSecret) ?? null,
    headers: pick(settings.headers) ?? { value: {}, source: 'default' },
    timeoutMs: timeout(input) ??
      (settings.timeout === undefined ? null : { value: parseDuration(settings.timeout), source: fromProfile }) ?? {
        value: DEFAULT_TIMEOUT_MS,
        source: 'default',
      },
    retries: pick(settings.retries) ?? { value: DEFAULT_RETRIES, source: 'default' },
    limits: pick(settings.limits) ?? { value: {}, source: 'default' },
    proxy: pick(settings.proxy) ?? envProxy(input.env, baseUrl),
    noProxy: envNoProxy(input.env),
    caFile: caFile(input, settings, file, fromProfile),
  };
}

/**
 * The proxy from the environment, for the base URL's scheme (https when the base URL is not known
 * yet). The profile's `proxy` wins over these variables: it is written for one service, while the
 * variables are the whole machine's (as git's http.proxy and npm's proxy setting win over them).
 */
function envProxy(env: Record<string, string | undefined>, baseUrl: Resolved<string> | null): Resolved<string> | null {
  let protocol = 'https:';
  if (baseUrl) {
    try {
      protocol = new URL(baseUrl.value).protocol;
    } catch {
      // An unusable base URL fails its own check; https is the likely scheme meanwhile.
    }
  }
  const found = proxyFromEnv(protocol, env);
  // Checked when a request would use it (src/send/transport.ts), not here: a machine-wide variable
  // this tool cannot use must not stop `config show`, or a request to a host NO_PROXY lists.
  return found === undefined ? null : { value: found.value, source: `env ${found.name}` };
}

function envNoProxy(env: Record<string, string | undefined>): Resolved<string> | null {
  const found = noProxyFromEnv(env);
  return found === undefined ? null : { value: found.value, source: `env ${found.name}` };
}

/**
 * --ca-file (from the current folder), else the profile's caFile (from the config file's folder, as
 * a token command runs there). The file is read when a request is made, so `config show` works
 * even when it is missing.
 */
function caFile(input: LoadInput, settings: ProfileConfig, file: string | null, fromProfile: string): Resolved<string> | null {
  if (input.flags.caFile !== undefined) {
    if (input.flags.caFile === '') throw new UsageError('--ca-file needs a file name');
    return { value: path.resolve(input.cwd, input.flags.caFile), source: 'flag --ca-file' };
  }
  if (settings.caFile === undefined) return null;
  const base = file === null ? input.cwd : path.dirname(file);
  return { value: path.resolve(base, settings.caFile), source: fromProfile };
}

function validated(file: string, content: unknown): ConfigFile {
  const { config, problems } = validateConfig(content);
  if (config === undefined) {
    throw new ConfigError(`invalid config file ${file} (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'})`, {
      problems,
      hint: 'fix the keys listed above; docs/configuration.md lists every key',
    });
  }
  return config;
}

/**
 * The profile in use: `-p/--profile`, `CORE_PROFILE`, `defaultProfile`, else the only profile.
 *
 * When the file has several profiles and none is chosen, no profile is used (null) rather than
 * failing at once: the environment alone may hold everything a command needs (CI), and
 * `core config show` should still work. `requireSettings` then explains that a profile must be
 * chosen when a value is missing. A profile that is asked for by name and does not exist is an error.
 */
function chooseProfile(
  input: LoadInput,
  config: ConfigFile,
  file: string | null,
  profiles: string[],
  searched: string[],
): Resolved<string> | null {
  let chosen: Resolved<string> | null = null;
  if (input.flags.profile !== undefined) {
    if (input.flags.profile === '') throw new UsageError('--profile needs a profile name');
    chosen = { value: input.flags.profile, source: 'flag --profile' };
  } else if (envValue(input.env, 'CORE_PROFILE') !== undefined) {
    chosen = { value: envValue(input.env, 'CORE_PROFILE')!, source: 'env CORE_PROFILE' };
  } else if (config.defaultProfile !== undefined) {
    return { value: config.defaultProfile, source: `defaultProfile in ${file}` };
  } else if (profiles.length === 1) {
    return { value: profiles[0]!, source: `the only profile in ${file}` };
  }
  if (chosen === null || profiles.includes(chosen.value)) return chosen;

  const name = JSON.stringify(chosen.value);
  if (file === null) {
    throw new ConfigError(`profile ${name} (from ${chosen.source}) was asked for, but no config file was found`, {
      problems: searchedProblems(searched),
      hint: 'create one with: core config init, or name one with --config FILE',
    });
  }
  const guess = suggest(chosen.value, profiles);
  throw new ConfigError(`profile ${name} (from ${chosen.source}) does not exist in ${file}`, {
    hint:
      profiles.length === 0
        ? 'the file defines no profiles; add one under profiles:'
        : `${guess ? `did you mean "${guess}"? ` : ''}profiles there: ${profiles.join(', ')}`,
  });
}

function flagOrEnvUrl(input: LoadInput): Resolved<string> | null {
  if (input.flags.baseUrl !== undefined) {
    const problem = baseUrlProblem(input.flags.baseUrl);
    if (problem) throw new UsageError(`--base-url: ${problem}`);
    return { value: input.flags.baseUrl, source: 'flag --base-url' };
  }
  const fromEnv = envValue(input.env, 'CORE_BASE_URL');
  if (fromEnv === undefined) return null;
  const problem = baseUrlProblem(fromEnv);
  if (problem) throw new ConfigError(`CORE_BASE_URL: ${problem}`);
  return { value: fromEnv, source: 'env CORE_BASE_URL' };
}

/**
 * --tenant, then CORE_TENANT, checked by the profile's rule (a value the X-Tenant-Name header can
 * carry: src/config/schema.ts), so a tenant node:http would refuse is exit 2 naming its source,
 * before anything is sent.
 */
function flagOrEnvTenant(input: LoadInput): Resolved<string> | null {
  if (input.flags.tenant !== undefined) {
    if (input.flags.tenant === '') throw new UsageError('--tenant needs a tenant name');
    const problem = tenantProblem(input.flags.tenant);
    if (problem) throw new UsageError(`--tenant: ${problem}`, { hint: TENANT_HINT });
    return { value: input.flags.tenant, source: 'flag --tenant' };
  }
  const fromEnv = envValue(input.env, 'CORE_TENANT');
  if (fromEnv === undefined) return null;
  const problem = tenantProblem(fromEnv);
  if (problem) throw new ConfigError(`CORE_TENANT: ${problem}`, { hint: TENANT_HINT });
  return { value: fromEnv, source: 'env CORE_TENANT' };
}

/**
 * A token given in the environment is a literal secret; its source names the variable, never the
 * value. It is checked at once (src/config/token.ts), as CORE_BASE_URL is: exit 2, nothing sent.
 */
function envSecret(env: Record<string, string | undefined>, name: string, printed: readonly string[]): Resolved<SecretSpec> | null {
  const value = envValue(env, name);
  if (value === undefined) return null;
  const checked = checkToken(value, printed);
  if ('problem' in checked) throw new ConfigError(`${name} ${checked.problem}; nothing was sent`, { hint: TOKEN_HINT });
  return { value: checked.token, source: `env ${name}` };
}

/** A literal token of the file: its form was checked with the file; here, against what core prints beside it. */
function literalChecked(resolved: Resolved<SecretSpec> | null, key: string, printed: readonly string[]): Resolved<SecretSpec> | null {
  if (resolved === null || typeof resolved.value !== 'string') return resolved;
  const checked = checkToken(resolved.value, printed);
  if ('problem' in checked)
    throw new ConfigError(`${key} of ${resolved.source} ${checked.problem}; nothing was sent`, { hint: TOKEN_HINT });
  return { value: checked.token, source: resolved.source };
}

/**
 * What core prints beside a token, which the token must not be part of: masking it would hide
 * them. The base URL, the tenant, the API's paths, core's own header values and the keys and labels
 * it prints (src/mask.ts).
 */
export function printedBeside(baseUrl: string | null, tenant: string | null): string[] {
  const printed = [
    ...Object.values(operations).map((operation) => operation.path),
    'application/json',
    'core-cli',
    // A token inside a key would mask part of it (`validationError` in `validationErrors`).
    ...PRINTED_KEYS,
  ];
  if (baseUrl !== null) printed.push(baseUrl);
  if (tenant !== null) printed.push(tenant);
  return printed;
}

/**
 * `--timeout`, then `CORE_TIMEOUT` (docs/configuration.md, "Precedence": read like the other
 * variables, so CI can set it).
 */
function timeout(input: LoadInput): Resolved<number> | null {
  if (input.flags.timeout !== undefined) {
    try {
      return { value: parseDuration(input.flags.timeout), source: 'flag --timeout' };
    } catch (error) {
      throw new UsageError(`--timeout: ${(error as Error).message}`, { hint: (error as UsageError).hint });
    }
  }
  const fromEnv = envValue(input.env, 'CORE_TIMEOUT');
  if (fromEnv === undefined) return null;
  try {
    return { value: parseDuration(fromEnv), source: 'env CORE_TIMEOUT' };
  } catch (error) {
    throw new ConfigError(`CORE_TIMEOUT: ${(error as Error).message}`, { hint: (error as UsageError).hint });
  }
}

/**
 * What a config file holds in clear that is a secret (docs/security.md, "What is a secret"): a
 * literal token, the value of a header whose value core masks (every header but the few of
 * src/mask.ts), the password of a proxy URL. Empty when it holds none.
 */
export function literalSecrets(config: ConfigFile): string[] {
  const found = new Set<string>();
  for (const profile of Object.values(config.profiles ?? {})) {
    if (typeof profile.token === 'string' || typeof profile.integratorToken === 'string') found.add('a token');
    if (typeof profile.webhookSecret === 'string') found.add('a webhook secret');
    if (Object.keys(profile.headers ?? {}).some((name) => !isShownRequestHeader(name))) found.add('a header value');
    if (profile.proxy !== undefined) {
      const parsed = parseProxyUrl(profile.proxy);
      if ('url' in parsed && parsed.url.password !== '') found.add('a proxy password');
    }
  }
  return [...found];
}

/** True when a config file holds a token as a plain string (in any profile). */
export function hasLiteralToken(config: ConfigFile): boolean {
  return literalSecrets(config).includes('a token');
}

/**
 * Like ssh with a private key, a file holding a secret in clear should be readable by its owner
 * only. Windows has no such mode bits, so nothing is checked there.
 */
async function warnAboutLiteralToken(file: string, config: ConfigFile, warn: (message: string) => void): Promise<void> {
  const secrets = literalSecrets(config);
  if (process.platform === 'win32' || secrets.length === 0) return;
  try {
    const { mode } = await stat(file);
    if ((mode & 0o044) !== 0) {
      const what = secrets.length === 1 && secrets[0] === 'a token' ? 'a literal token' : `secrets in clear (${joinWords(secrets)})`;
      warn(`${file} holds ${what} and can be read by other users; run: chmod 600 ${file}`);
    }
  } catch {
    // The file was just read; if it vanished since, there is nothing to warn about.
  }
}

export type Need = 'baseUrl' | 'tenant' | 'token' | 'integratorToken';

/**
 * Checks that the values a command needs are there. Throws one ConfigError naming each missing
 * value and every place it was looked for (docs/configuration.md, "A missing value": the error
 * "names each missing value and every place it looked").
 * `integratorToken` is satisfied by the token when no integrator token is set.
 */
export function requireSettings(settings: Settings, needs: Need[]): void {
  const missing = [...new Set(needs)].filter((need) =>
    need === 'integratorToken' ? settings.integratorToken === null && settings.token === null : settings[need] === null,
  );
  if (missing.length === 0) return;

  const problems: Problem[] = missing.map((need) => ({
    path: LABELS[need],
    message: `looked for ${placesFor(need, settings).join(', ')}`,
  }));
  problems.push(...contextProblems(settings));
  const names = missing.map((need) => LABELS[need]);
  throw new ConfigError(`missing ${joinWords(names)}`, { problems, hint: hintFor(settings, missing) });
}

const LABELS: Record<Need, string> = {
  baseUrl: 'base URL',
  tenant: 'tenant',
  token: 'token',
  integratorToken: 'integrator token',
};

const SOURCES: Record<Need, { flag?: string; env: string; key: string }> = {
  baseUrl: { flag: '--base-url', env: 'CORE_BASE_URL', key: 'baseUrl' },
  tenant: { flag: '--tenant', env: 'CORE_TENANT', key: 'tenant' },
  token: { env: 'CORE_TOKEN', key: 'token' },
  integratorToken: { env: 'CORE_INTEGRATOR_TOKEN', key: 'integratorToken' },
};

function placesFor(need: Need, settings: Settings): string[] {
  const source = SOURCES[need];
  const places: string[] = [];
  if (source.flag) places.push(`flag ${source.flag}`);
  places.push(`env ${source.env}`);
  if (settings.profile) places.push(`${source.key} in profile ${settings.profile.value} of ${settings.configFile}`);
  if (need === 'integratorToken') places.push(...placesFor('token', settings).map((place) => `then ${place}`));
  return places;
}

/** Why no profile supplied the value: no file, or several profiles and none chosen. */
function contextProblems(settings: Settings): Problem[] {
  if (settings.configFile === null) {
    return [{ path: '', message: 'no config file was found' }, ...searchedProblems(settings.searched)];
  }
  if (settings.profile === null && settings.profiles.length > 1) {
    return [
      {
        path: '',
        message: `${settings.configFile} has several profiles (${settings.profiles.join(', ')}) and none was chosen`,
      },
    ];
  }
  if (settings.profile === null) return [{ path: '', message: `${settings.configFile} defines no profiles` }];
  return [];
}

function hintFor(settings: Settings, missing: Need[]): string {
  if (settings.configFile !== null && settings.profile === null && settings.profiles.length > 1) {
    return `choose one with -p NAME or CORE_PROFILE, or set defaultProfile in ${settings.configFile}`;
  }
  if (settings.configFile === null) return 'run core config init to create a config file, or set the environment variables above';
  const keys = missing.map((need) => SOURCES[need].key).join(', ');
  return settings.profile
    ? `add ${keys} to profile ${settings.profile.value} in ${settings.configFile}, or set the environment variables above`
    : `add a profile with ${keys} to ${settings.configFile}, or set the environment variables above`;
}

/** The places searched, as lines under an error message. */
export function searchedProblems(searched: string[]): Problem[] {
  if (searched.length === 0) return [];
  const projectFolders = searched.slice(0, -1);
  const userFolder = searched[searched.length - 1]!;
  return [
    { path: '', message: `looked in ${projectFolders.join(', ')} for ${SEARCH_PLACES_TEXT}` },
    { path: '', message: `and in ${userFolder} for ${USER_PLACES_TEXT}` },
  ];
}

function joinWords(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * Resolves the token a request needs, with what callers otherwise repeat: the integrator token
 * falls back to the token; a missing one is the requireSettings error; a token command runs in the
 * config file's folder (so `cat ./token` means the file beside it); messages name the profile.
 * The caller registers the result with `ctx.addSecret`.
 */
export async function resolveSettingsToken(
  settings: Settings,
  which: 'token' | 'integratorToken',
  opts: { env: Record<string, string | undefined>; cwd: string; signal?: AbortSignal; timeoutMs?: number },
): Promise<string> {
  requireSettings(settings, [which]);
  const useToken = which === 'token' || settings.integratorToken === null;
  const resolved = (useToken ? settings.token : settings.integratorToken)!;
  const key = useToken ? 'token' : 'integratorToken';
  const fromProfile = settings.profile !== null && resolved.source.startsWith('profile ');
  const what = `${key}${fromProfile ? ` of profile "${settings.profile!.value}"` : ''}${which === 'integratorToken' && useToken ? ' (used as the integrator token)' : ''}`;
  const { resolveSecret } = await import('./secret.js');
  const token = await resolveSecret(resolved.value, {
    env: opts.env,
    cwd: fromProfile && settings.configFile !== null ? path.dirname(settings.configFile) : opts.cwd,
    what,
    signal: opts.signal,
    timeoutMs: opts.timeoutMs,
  });
  // The form was checked where the token was read; what it must not be part of, here, for every form.
  const checked = checkToken(token, printedBeside(settings.baseUrl?.value ?? null, settings.tenant?.value ?? null));
  if ('problem' in checked) throw new ConfigError(`${what} ${checked.problem}; nothing was sent`, { hint: TOKEN_HINT });
  return checked.token;
}
