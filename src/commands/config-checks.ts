import { requireSettings, resolveSettingsToken, type Need, type Resolved, type SecretSpec, type Settings } from '../config/index.js';
import type { Context } from '../context.js';
import { ConfigError, CoreError, type Problem } from '../errors.js';
import { headersCarryAuthorization } from '../secrets.js';
import { loadCommandSettings } from './common.js';
import type { GlobalOptions } from './definition.js';

/**
 * What a send needs, each resolved as a send would resolve it and reported as a check: the checks of
 * `core config check` (src/commands/config/check.ts) and of `core doctor` (src/commands/doctor/).
 */

export interface ConfigCheckOptions {
  global: GlobalOptions;
  json: boolean;
  /** --allow-http: plain http to a host other than this machine is allowed, as for a send. */
  allowHttp: boolean;
}

/** One thing a send needs, and whether it is there. */
export interface Check {
  name: string;
  ok: boolean;
  /** What was found, never a secret: a path, a URL, "environment variable CORE_TOKEN (set)", `{env: NAME} in FILE (set)`. */
  detail: string;
  /** Where it came from: `flag --base-url`, `env CORE_TENANT`, `profile staging in /home/u/.corerc`. */
  source?: string;
  /** What to do when it is not there. */
  hint?: string;
}

/** What `core config check` prints, as data: the human view and --json render the same object. */
export interface CheckReport {
  ready: boolean;
  configFile: string | null;
  profile: string | null;
  checks: Check[];
}

export async function collectChecks(options: ConfigCheckOptions, ctx: Context): Promise<CheckReport> {
  let settings: Settings;
  try {
    settings = await loadCommandSettings(options, ctx);
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    const problems = 'problems' in error ? (error.problems as Problem[]) : [];
    const detail = [error.message, ...problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message))].join('; ');
    return {
      ready: false,
      configFile: null,
      profile: null,
      checks: [{ name: 'config', ok: false, detail, ...(error.hint ? { hint: error.hint } : {}) }],
    };
  }

  const checks: Check[] = [
    {
      name: 'config file',
      ok: true,
      detail: settings.configFile ?? 'none: the environment alone',
    },
  ];
  if (settings.profile !== null)
    checks.push({ name: 'profile', ok: true, detail: settings.profile.value, source: settings.profile.source });
  else if (settings.profiles.length > 1) {
    checks.push({
      name: 'profile',
      ok: true,
      detail: `none chosen (profiles: ${settings.profiles.join(', ')})`,
      hint: 'choose one with -p NAME or core config use NAME',
    });
  }

  checks.push(present(settings, 'baseUrl', 'base URL'));
  checks.push(present(settings, 'tenant', 'tenant'));
  if (settings.baseUrl !== null) checks.push(await network(settings, options, ctx));

  if (headersCarryAuthorization(settings.headers.value)) {
    checks.push({
      name: 'token',
      ok: true,
      detail: "not needed: the profile's headers carry Authorization",
      source: settings.headers.source,
    });
  } else {
    checks.push(await token(settings, 'token', ctx));
    checks.push(
      settings.integratorToken === null
        ? { name: 'integrator token', ok: true, detail: 'not set: the token is used (core reason update)' }
        : await token(settings, 'integratorToken', ctx),
    );
  }
  return {
    ready: checks.every((check) => check.ok),
    configFile: settings.configFile,
    profile: settings.profile?.value ?? null,
    checks,
  };
}

/** A value a send requires: there, with its source, or missing, with every place it was looked for. */
function present(settings: Settings, need: 'baseUrl' | 'tenant', name: string): Check {
  const resolved = settings[need];
  if (resolved !== null) return { name, ok: true, detail: resolved.value, source: resolved.source };
  return { name, ok: false, ...missing(settings, need) };
}

function missing(settings: Settings, need: Need): { detail: string; hint?: string } {
  try {
    requireSettings(settings, [need]);
    return { detail: 'not set' };
  } catch (error) {
    const config = error as ConfigError;
    return { detail: `not set; ${config.problems[0]?.message ?? ''}`.replace(/; $/, ''), ...(config.hint ? { hint: config.hint } : {}) };
  }
}

/** The network rules a send applies before the token: plain http, the CA file, the proxy. */
async function network(settings: Settings, options: ConfigCheckOptions, ctx: Context): Promise<Check> {
  const { prepareTransport } = await import('../send/transport.js');
  try {
    const transport = await prepareTransport(settings.baseUrl!.value, settings, { allowHttp: options.allowHttp }, ctx);
    transport.close();
    const via = transport.proxy === null ? 'direct' : `through the proxy ${transport.proxy}`;
    return {
      name: 'connection',
      ok: true,
      detail: `${via}${settings.caFile ? `, trusting ${settings.caFile.value} too` : ''} (not tried: nothing is sent)`,
    };
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    return {
      name: 'connection',
      ok: false,
      detail: error.message.replace(/; nothing was sent$/, ''),
      ...(error.hint ? { hint: error.hint } : {}),
    };
  }
}

/** A token resolved as a send resolves it: the variable read, the command run. Its value is never shown. */
async function token(settings: Settings, which: 'token' | 'integratorToken', ctx: Context): Promise<Check> {
  const name = which === 'token' ? 'token' : 'integrator token';
  const spec = settings[which];
  if (spec === null) return { name, ok: false, ...missing(settings, which) };
  try {
    const value = await resolveSettingsToken(settings, which, { env: ctx.env, cwd: ctx.cwd, signal: ctx.signal });
    ctx.addSecret(value);
    return { name, ok: true, detail: tokenOrigin(spec, which, settings.configFile), source: spec.source };
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    return { name, ok: false, detail: error.message, source: spec.source, ...(error.hint ? { hint: error.hint } : {}) };
  }
}

/** The variables that hold a token itself (docs/configuration.md, "Precedence"). */
const TOKEN_VARIABLES = { token: 'CORE_TOKEN', integratorToken: 'CORE_INTEGRATOR_TOKEN' } as const;

/**
 * Where a token that resolved came from, in words: the variable that holds it, or its form in the
 * config file and the file's path. A token from CORE_TOKEN is a string as a literal of the file is,
 * so its source tells them apart, not its form.
 */
function tokenOrigin(spec: Resolved<SecretSpec>, which: 'token' | 'integratorToken', file: string | null): string {
  const variable = TOKEN_VARIABLES[which];
  if (spec.source === `env ${variable}`) return `environment variable ${variable} (set)`;
  const inFile = file === null ? '' : ` in ${file}`;
  if (typeof spec.value === 'string') return `a literal${inFile}`;
  if ('env' in spec.value) return `{env: ${spec.value.env}}${inFile} (set)`;
  return `{command: ${JSON.stringify(spec.value.command)}}${inFile} (ran, and printed a token)`;
}
