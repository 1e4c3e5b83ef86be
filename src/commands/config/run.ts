import {
  formatDuration,
  loadSettings,
  locateConfig,
  searchedProblems,
  type Limits,
  type Resolved,
  type SecretSpec,
  type Settings,
} from '../../config/index.js';
import { MASK, type Context } from '../../context.js';
import { isShownRequestHeader, maskedHeaderValue, registerHeaderSecrets } from '../../secrets.js';
import { ConfigError } from '../../errors.js';
import { parseProxyUrl, proxyCredentials, redactProxyUrl } from '../../http/proxy.js';
import type { GlobalOptions } from '../definition.js';

export { runConfigInit, type ConfigInitOptions } from './init.js';

export interface ConfigShowOptions {
  global: GlobalOptions;
  json: boolean;
}

export interface ConfigPathOptions {
  global: GlobalOptions;
}

/** How a token is shown: never its value. A token command is shown, not run. */
export type ShownSecret =
  | { kind: 'literal'; value: typeof MASK; source: string }
  | { kind: 'env'; env: string; set: boolean; source: string }
  | { kind: 'command'; command: string; source: string };

/** What `core config show` prints, as data; the human view and --json render the same object. */
export interface ConfigReport {
  configFile: string | null;
  /** Where the file was looked for (or the file named by --config / CORE_CONFIG). */
  searched: string[];
  profiles: string[];
  /** Every profile of the file, in file order, with its service and tenant; `inUse` marks the one chosen. */
  profileList: Array<{ name: string; baseUrl: string | null; tenant: string | null; inUse: boolean }>;
  profile: Resolved<string> | null;
  baseUrl: Resolved<string> | null;
  tenant: Resolved<string> | null;
  token: ShownSecret | null;
  /** null: the token is used for `reason update` too. */
  integratorToken: ShownSecret | null;
  headers: Resolved<Record<string, string>>;
  timeoutMs: Resolved<number>;
  retries: Resolved<number>;
  limits: Resolved<Limits>;
  /** The proxy for the base URL, its user name and password shown as ********. */
  proxy: Resolved<string> | null;
  noProxy: Resolved<string> | null;
  caFile: Resolved<string> | null;
}

/** `core config show`: the effective settings, where each came from, secrets masked. */
export async function runConfigShow(options: ConfigShowOptions, ctx: Context): Promise<number> {
  const settings = await loadSettings({
    cwd: ctx.cwd,
    env: ctx.env,
    flags: {
      config: options.global.config,
      profile: options.global.profile,
      baseUrl: options.global.baseUrl,
      tenant: options.global.tenant,
    },
    warn: (message) => ctx.warn(message),
    signal: ctx.signal,
  });
  const report = collectConfigReport(settings, ctx);
  ctx.out(options.json ? ctx.json(report, 2) : renderConfigReport(report, ctx));
  return 0;
}

/**
 * Builds the report, registering with the context every secret the settings know of, so that no
 * later write can print one even by mistake.
 */
export function collectConfigReport(settings: Settings, ctx: Context): ConfigReport {
  return {
    configFile: settings.configFile,
    searched: settings.searched,
    profiles: settings.profiles,
    profileList: settings.profileSummaries.map((summary) => ({ ...summary, inUse: summary.name === settings.profile?.value })),
    profile: settings.profile,
    baseUrl: settings.baseUrl,
    tenant: settings.tenant,
    token: showSecret(settings.token, ctx),
    integratorToken: showSecret(settings.integratorToken, ctx),
    headers: { value: maskHeaders(settings.headers.value, ctx), source: settings.headers.source },
    timeoutMs: settings.timeoutMs,
    retries: settings.retries,
    limits: settings.limits,
    proxy: showProxy(settings.proxy, ctx),
    noProxy: settings.noProxy,
    caFile: settings.caFile,
  };
}

/** A proxy URL's credentials are secrets: registered, and shown as ********. */
function showProxy(resolved: Resolved<string> | null, ctx: Context): Resolved<string> | null {
  if (resolved === null) return null;
  const parsed = parseProxyUrl(resolved.value);
  if ('url' in parsed) for (const secret of proxyCredentials(parsed.url)) ctx.addSecret(secret);
  return { value: redactProxyUrl(resolved.value), source: resolved.source };
}

function showSecret(resolved: Resolved<SecretSpec> | null, ctx: Context): ShownSecret | null {
  if (resolved === null) return null;
  const spec = resolved.value;
  if (typeof spec === 'string') {
    ctx.addSecret(spec);
    return { kind: 'literal', value: MASK, source: resolved.source };
  }
  if ('env' in spec) {
    const value = ctx.env[spec.env];
    if (value) ctx.addSecret(value);
    return { kind: 'env', env: spec.env, set: value !== undefined && value !== '', source: resolved.source };
  }
  return { kind: 'command', command: spec.command, source: resolved.source };
}

/** Every header value is masked unless its name is on the short list of src/secrets.ts, and registered. */
function maskHeaders(headers: Record<string, string>, ctx: Context): Record<string, string> {
  registerHeaderSecrets(headers, ctx);
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name, isShownRequestHeader(name) ? value : maskedHeaderValue(value)]),
  );
}

/** The human view: one aligned line per setting, `key  value  source`. */
export function renderConfigReport(report: ConfigReport, ctx: Context): string {
  const dim = (text: string) => (ctx.color.stdout ? `\u001b[2m${text}\u001b[22m` : text);
  // A row with an empty key continues the row above it (the places searched for a config file).
  const rows: Array<[string, string, string]> = [];
  if (report.configFile === null) {
    rows.push(['config file', 'none found', '']);
    for (const problem of searchedProblems(report.searched)) rows.push(['', dim(problem.message), '']);
  } else {
    rows.push(['config file', report.configFile, '']);
  }
  rows.push([
    'profile',
    report.profile?.value ?? (report.profiles.length > 1 ? `none chosen (profiles: ${report.profiles.join(', ')}; use -p NAME)` : 'none'),
    report.profile?.source ?? '',
  ]);
  const plain = (resolved: Resolved<string> | null): [string, string] => (resolved ? [resolved.value, resolved.source] : ['not set', '']);
  rows.push(['baseUrl', ...plain(report.baseUrl)]);
  rows.push(['tenant', ...plain(report.tenant)]);
  rows.push(['token', ...secretText(report.token)]);
  rows.push([
    'integratorToken',
    ...(report.integratorToken ? secretText(report.integratorToken) : (['not set (the token is used)', ''] as [string, string])),
  ]);
  const headers = Object.entries(report.headers.value).map(([name, value]) => `${name}: ${value}`);
  rows.push(['headers', headers.length === 0 ? 'none' : headers.join(', '), report.headers.source]);
  rows.push(['timeout', formatDuration(report.timeoutMs.value), report.timeoutMs.source]);
  rows.push(['retries', String(report.retries.value), report.retries.source]);
  const limits = Object.entries(report.limits.value).map(([name, value]) => `${name} ${value}`);
  rows.push(['limits', limits.length === 0 ? 'none known' : limits.join(', '), report.limits.source]);
  rows.push(['proxy', ...plain(report.proxy)]);
  if (report.noProxy) rows.push(['noProxy', ...plain(report.noProxy)]);
  rows.push(['caFile', ...(report.caFile ? plain(report.caFile) : (["none (the system's trust store)", ''] as [string, string]))]);

  const keyWidth = Math.max(...rows.map(([key]) => key.length));
  const valueWidth = Math.max(...rows.map(([, value, source]) => (source ? value.length : 0)));
  const lines = rows.map(([key, value, source]) =>
    `${key.padEnd(keyWidth)}  ${source ? `${value.padEnd(valueWidth)}  ${dim(source)}` : value}`.trimEnd(),
  );
  if (report.profileList.length > 0) lines.push('', ...profileLines(report));
  return `${lines.join('\n')}\n`;
}

/** Every profile of the file, the one in use marked with *, with its service and tenant. */
function profileLines(report: ConfigReport): string[] {
  const nameWidth = Math.max(...report.profileList.map((p) => p.name.length));
  const urlWidth = Math.max(...report.profileList.map((p) => (p.baseUrl ?? '-').length));
  return [
    `profiles in ${report.configFile} (* in use; switch with: core config use NAME)`,
    ...report.profileList.map((p) =>
      `${p.inUse ? '*' : ' '} ${p.name.padEnd(nameWidth)}  ${(p.baseUrl ?? '-').padEnd(urlWidth)}  ${p.tenant ?? '-'}`.trimEnd(),
    ),
  ];
}

function secretText(secret: ShownSecret | null): [string, string] {
  if (secret === null) return ['not set', ''];
  switch (secret.kind) {
    case 'literal':
      return [secret.value, secret.source];
    case 'env':
      return [`env ${secret.env} (${secret.set ? 'set' : 'not set'})`, secret.source];
    case 'command':
      return [`command: ${secret.command}`, secret.source];
  }
}

/**
 * `core config path`: the config file in use, on stdout. Without one it fails (exit 2) and names the
 * places searched, so a script never receives an empty path. The file is located, not validated:
 * this is how to find a file that fails to load.
 */
export async function runConfigPath(options: ConfigPathOptions, ctx: Context): Promise<number> {
  const location = await locateConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    flags: { config: options.global.config },
    warn: (message) => ctx.warn(message),
  });
  if (location.configFile === null) {
    throw new ConfigError('no config file found', {
      problems: searchedProblems(location.searched),
      hint: 'create one with: core config init',
    });
  }
  ctx.out(`${location.configFile}\n`);
  return 0;
}
