import type { Settings } from '../config/index.js';
import type { Context } from '../context.js';
import { ConfigError, UsageError } from '../errors.js';
import type { Agents, PoolOptions } from '../http/agents.js';
import { defaultTrustStore, readCaFile } from '../http/ca.js';
import { decideProxy, isLoopbackHost, proxyCredentials, redactProxyUrl } from '../http/proxy.js';
import { shellQuote } from './request.js';

/**
 * How the requests of one invocation reach the service: the network rules of docs/security.md,
 * applied in one place for every sending command before any token is resolved.
 *
 * - No credential goes over plain http to a host other than this machine without --allow-http.
 * - A private CA (--ca-file, a profile's caFile) is added to the trust store, never replaces it.
 * - Certificates are checked unless --insecure is given, which warns on every use.
 * - The proxy (profile, then environment) is used unless the host is loopback or NO_PROXY lists it;
 *   its credentials are registered as secrets and it is only ever printed without them.
 */

export interface TransportFlags {
  insecure?: boolean;
  allowHttp?: boolean;
  verbose?: boolean;
}

export interface Transport {
  agents: Agents;
  /** The proxy in use, printable (no credentials), or null for a direct connection. */
  proxy: string | null;
  /** The private CA file trusted besides the system's, or null. */
  caFile: string | null;
  close(): void;
}

export const INSECURE_WARNING =
  '--insecure: TLS certificates are not checked, so anyone on the network path can pose as the service and read the token and the payload';

/** The --insecure warning, on every use of the flag. */
export function warnInsecure(flags: { insecure?: boolean }, ctx: Context): void {
  if (flags.insecure) ctx.warn(INSECURE_WARNING);
}

/**
 * Refuses to send a credential over plain http to a host other than loopback: anyone on the way
 * could read it. The sandbox and local servers (127.0.0.0/8, ::1, localhost) stay allowed.
 */
export function checkPlainHttp(url: URL, flags: { allowHttp?: boolean }): void {
  if (url.protocol !== 'http:' || flags.allowHttp || isLoopbackHost(url.hostname)) return;
  throw new UsageError(
    `refusing to send the token over plain http to ${url.host}: anyone on the network path could read it; nothing was sent`,
    {
      hint: `use an https base URL (https://${url.host}${url.pathname === '/' ? '' : url.pathname}), or pass --allow-http if you trust every network in between`,
    },
  );
}

/**
 * The curl options that reach the service the way core would: the private CA (curl's --cacert trusts
 * only that file, where core adds it to the system's store), -k for --insecure, and the proxy that
 * applies (its credentials masked), or --noproxy when core would go direct although one is set.
 */
export function curlConnectionOptions(
  baseUrl: string | null,
  settings: Pick<Settings, 'proxy' | 'noProxy' | 'caFile'>,
  flags: TransportFlags,
): string[] {
  const options: string[] = [];
  if (flags.insecure) options.push('-k');
  else if (settings.caFile !== null) options.push(`--cacert ${shellQuote(settings.caFile.value)}`);
  if (baseUrl === null) return options;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return options;
  }
  const decision = decideProxy(url, settings.proxy, settings.noProxy);
  if (decision.kind === 'proxy') options.push(`--proxy ${shellQuote(redactProxyUrl(decision.url))}`);
  else if (decision.kind === 'direct' && settings.proxy !== null) options.push(`--noproxy ${shellQuote(url.hostname)}`);
  return options;
}

/**
 * Checks the network rules for `baseUrl` and builds the agents. Throws (exit 2) before anything is
 * sent: plain http refused, an unreadable CA file, an unusable proxy URL.
 */
export async function prepareTransport(
  baseUrl: string,
  settings: Pick<Settings, 'proxy' | 'noProxy' | 'caFile' | 'timeoutMs'>,
  flags: TransportFlags,
  ctx: Context,
  pool?: PoolOptions,
): Promise<Transport> {
  const url = new URL(baseUrl);
  checkPlainHttp(url, flags);
  warnInsecure(flags, ctx);

  let ca: string[] | null = null;
  if (settings.caFile !== null && !flags.insecure) {
    const label = settings.caFile.source === 'flag --ca-file' ? '--ca-file' : `caFile (${settings.caFile.source})`;
    const extra = await readCaFile(settings.caFile.value, label);
    ca = [...(await defaultTrustStore(ctx.env, (message) => ctx.warn(message))), ...extra];
    if (flags.verbose)
      ctx.err(`* trusting ${extra.length} more CA certificate${extra.length === 1 ? '' : 's'} from ${settings.caFile.value}\n`);
  }

  const decision = decideProxy(url, settings.proxy, settings.noProxy);
  if (decision.kind === 'invalid') {
    // The value is not quoted: it may hold a password.
    throw new ConfigError(`the proxy from ${decision.source} ${decision.problem}`, {
      hint: decision.source.startsWith('env ') ? `fix or unset ${decision.source.slice(4)}` : 'fix proxy in the profile',
    });
  }
  let proxy: string | null = null;
  if (decision.kind === 'proxy') {
    for (const secret of proxyCredentials(decision.url)) ctx.addSecret(secret);
    proxy = redactProxyUrl(decision.url);
    if (flags.verbose) ctx.err(`* proxy ${proxy} (${decision.source})\n`);
  } else if (flags.verbose && settings.proxy !== null) {
    ctx.err(`* no proxy: ${decision.reason}\n`);
  }

  // Loaded here, not at the top: the agents load node:http and node:https, which --dry-run,
  // --curl and a refused send never need.
  const { createAgents, destroyAgents } = await import('../http/agents.js');
  const agents = createAgents(
    { proxy: decision.kind === 'proxy' ? decision.url : null, ca, insecure: flags.insecure === true, timeoutMs: settings.timeoutMs.value },
    pool,
  );
  return { agents, proxy, caFile: ca === null ? null : settings.caFile!.value, close: () => destroyAgents(agents) };
}
