import { lookup } from 'node:dns/promises';
import { isIP, connect } from 'node:net';
import type { Settings } from '../../config/index.js';
import type { Context } from '../../context.js';
import { CoreError, NetworkError } from '../../errors.js';
import { sendRequest, type HttpResponse } from '../../http/client.js';
import { decideProxy } from '../../http/proxy.js';
import { prepareTransport, type Transport } from '../../send/transport.js';
import { trimEndOf } from '../../text/trim.js';
import type { Probe } from './clock.js';
import { skip, type DoctorCheck, type DoctorOptions } from './report.js';

/**
 * The checks that reach out, as a send would (src/send/transport.ts: the CA file added to the
 * system's trust store, the proxy and NO_PROXY, plain http refused): the base URL's host name
 * resolved, one GET of the base URL (no token is sent: any answer shows the way is open), and, when
 * the base URL is a sandbox, its /_sandbox/info: its webhook secret against the one this shell
 * hands a bot, and whether its bot listens.
 */

export interface NetworkResult {
  checks: DoctorCheck[];
  /** The answer the clock is read from; null when the service was not reached. */
  probe: Probe | null;
  sandbox: DoctorCheck[];
}

export async function networkChecks(settings: Settings, options: DoctorOptions, ctx: Context): Promise<NetworkResult> {
  const baseUrl = settings.baseUrl!.value;
  const url = new URL(baseUrl);
  const checks: DoctorCheck[] = [await dnsCheck(url, settings)];
  if (checks[0]!.status === 'fail') {
    return {
      checks: [...checks, skip('network.connection', 'connection', 'not tried: the host name does not resolve')],
      probe: null,
      sandbox: [skip('sandbox', 'sandbox', 'not asked: the service was not reached')],
    };
  }
  let transport: Transport;
  try {
    transport = await prepareTransport(baseUrl, settings, { allowHttp: options.allowHttp }, ctx);
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    return {
      checks: [
        ...checks,
        {
          id: 'network.connection',
          name: 'connection',
          status: 'fail',
          message: error.message,
          ...(error.hint ? { fix: error.hint } : {}),
        },
      ],
      probe: null,
      sandbox: [],
    };
  }
  try {
    return await connection(url, transport, settings, checks, ctx);
  } finally {
    transport.close();
  }
}

/** One GET as a send would make it (no token, no retry), through the transport's agents, proxy and CA file. */
function getThrough(transport: Transport, settings: Settings, ctx: Context): (target: string) => Promise<HttpResponse> {
  return (target) =>
    sendRequest({
      method: 'GET',
      url: target,
      headers: { Accept: 'application/json' },
      body: '',
      timeoutMs: settings.timeoutMs.value,
      retries: 0,
      retryable: false,
      signal: ctx.signal,
      agent: transport.agents,
      ...(transport.proxy !== null ? { proxy: transport.proxy } : {}),
      ...(transport.caFile !== null ? { caFile: transport.caFile } : {}),
      maxBodyBytes: 64 * 1024,
    });
}

/** The GET of the base URL: the connection's check, the answer the clock is read from, and the sandbox's checks. */
async function connection(url: URL, transport: Transport, settings: Settings, checks: DoctorCheck[], ctx: Context): Promise<NetworkResult> {
  const baseUrl = settings.baseUrl!.value;
  const get = getThrough(transport, settings, ctx);
  const via = transport.proxy === null ? 'directly' : `through the proxy ${transport.proxy}`;
  const trust =
    url.protocol === 'https:' ? `; TLS certificate verified${transport.caFile === null ? '' : ` (trusting ${transport.caFile} too)`}` : '';
  const sentAt = Date.now();
  let answer: HttpResponse;
  try {
    answer = await get(baseUrl);
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    checks.push({
      id: 'network.connection',
      name: 'connection',
      status: 'fail',
      message: `${error.message} (${via})`,
      fix: error.hint ?? fixFor(error.code, settings),
    });
    return { checks, probe: null, sandbox: [skip('sandbox', 'sandbox', 'not asked: the service was not reached')] };
  }
  const answeredAt = Date.now();
  checks.push({
    id: 'network.connection',
    name: 'connection',
    status: 'pass',
    message: `${url.origin} answered ${answer.status} in ${answer.durationMs} ms, reached ${via}${trust}`,
  });
  const date = answer.headers.date;
  const probe: Probe = { date: Array.isArray(date) ? date[0] : date, sentAt, answeredAt };
  return { checks, probe, sandbox: await sandboxChecks(baseUrl, get, ctx) };
}

/** The host name the connection starts from, resolved: the service's, or the proxy's when one is used. */
async function dnsCheck(url: URL, settings: Settings): Promise<DoctorCheck> {
  const decision = decideProxy(url, settings.proxy, settings.noProxy);
  const target = decision.kind === 'proxy' ? decision.url : url;
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const whose = decision.kind === 'proxy' ? 'the proxy ' : '';
  if (isIP(host) !== 0)
    return { id: 'network.dns', name: 'name resolution', status: 'pass', message: `${whose}${host} is an address: nothing to resolve` };
  try {
    const addresses = await lookup(host, { all: true });
    return {
      id: 'network.dns',
      name: 'name resolution',
      status: 'pass',
      message: `${whose}${host} resolves to ${addresses.map((a) => a.address).join(', ')}`,
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'ENOTFOUND';
    return {
      id: 'network.dns',
      name: 'name resolution',
      status: 'fail',
      message: `cannot resolve ${whose}${host} (${code})`,
      fix:
        decision.kind === 'proxy'
          ? `check the proxy's host name (${decision.source}), or this machine's DNS settings`
          : `check the host name of the base URL (${settings.baseUrl!.source}), or this machine's DNS settings`,
    };
  }
}

/** A fix for a failure to reach the service that carries no hint of its own. */
function fixFor(code: string, settings: Settings): string {
  if (code === 'ECONNREFUSED')
    return `check the base URL's port (${settings.baseUrl!.source}); for a sandbox, is core sandbox still running?`;
  if (code === 'ETIMEDOUT')
    return 'check the network between here and the service, and the proxy (HTTPS_PROXY, NO_PROXY); --timeout waits longer';
  if (/CERT|SSL|TLS|SIGNATURE/.test(code))
    return "give the CA that signed the service's certificate with --ca-file FILE (or the profile's caFile)";
  if (code === 'EPROXY') return 'check the proxy (its URL and credentials), or list the host in NO_PROXY';
  return 'check the base URL and the network (core config show lists where each setting came from)';
}

interface SandboxInfo {
  version?: unknown;
  tenants?: unknown;
  webhookSecret?: unknown;
  bot?: { url?: unknown } | null;
}

/**
 * When the base URL is a core sandbox (its GET /_sandbox/info answers): its webhook secret against
 * CORE_WEBHOOK_SECRET, which a bot started from this shell verifies with (the secret is registered
 * as one and never printed), and whether something listens at its bot URL.
 */
async function sandboxChecks(baseUrl: string, get: (url: string) => Promise<HttpResponse>, ctx: Context): Promise<DoctorCheck[]> {
  let info: SandboxInfo | undefined;
  try {
    const answer = await get(`${trimEndOf(baseUrl, '/')}/_sandbox/info`);
    const parsed = answer.status === 200 ? (JSON.parse(answer.body) as unknown) : undefined;
    if (typeof parsed === 'object' && parsed !== null && 'tenants' in parsed && 'version' in parsed) info = parsed as SandboxInfo;
  } catch {
    // Not JSON, or no answer: not a sandbox.
  }
  if (info === undefined) return [skip('sandbox', 'sandbox', 'the base URL is not a core sandbox')];
  const tenants = Array.isArray(info.tenants) ? info.tenants.map(String).join(', ') : '';
  const checks: DoctorCheck[] = [
    { id: 'sandbox', name: 'sandbox', status: 'pass', message: `core sandbox ${String(info.version)} (tenants: ${tenants})` },
  ];
  checks.push(secretCheck(info.webhookSecret, ctx));
  checks.push(await botCheck(info.bot));
  return checks;
}

function secretCheck(secret: unknown, ctx: Context): DoctorCheck {
  const base = { id: 'sandbox.webhook-secret', name: 'webhook secret' };
  if (typeof secret !== 'string') return { ...base, status: 'skip', message: 'this sandbox does not say its webhook secret' };
  ctx.addSecret(secret);
  const here = ctx.env.CORE_WEBHOOK_SECRET;
  if (here === undefined || here === '') {
    return {
      ...base,
      status: 'pass',
      message: "the sandbox's (not shown); CORE_WEBHOOK_SECRET is not set in this shell, so a bot started here is not given it",
    };
  }
  ctx.addSecret(here);
  if (here === secret)
    return {
      ...base,
      status: 'pass',
      message: "CORE_WEBHOOK_SECRET in this shell is the sandbox's (neither shown)",
      source: 'env CORE_WEBHOOK_SECRET',
    };
  return {
    ...base,
    status: 'fail',
    message: "CORE_WEBHOOK_SECRET in this shell is not the sandbox's: a bot started with it refuses every delivery (neither shown)",
    source: 'env CORE_WEBHOOK_SECRET',
    fix: 'source the lines core sandbox printed (or its --env-file), then restart the bot',
  };
}

async function botCheck(bot: SandboxInfo['bot']): Promise<DoctorCheck> {
  const base = { id: 'sandbox.bot', name: 'bot' };
  if (bot === null || bot === undefined || typeof bot.url !== 'string') {
    return {
      ...base,
      status: 'skip',
      message: 'no bot connected: customer messages are recorded, no webhook goes out (core sandbox --bot-url URL)',
    };
  }
  let url: URL;
  try {
    url = new URL(bot.url);
  } catch {
    return { ...base, status: 'fail', message: `the bot URL ${bot.url} does not parse`, fix: 'restart the sandbox with a valid --bot-url' };
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const listening = await new Promise<string | null>((resolve) => {
    const socket = connect({ host, port });
    const done = (problem: string | null) => {
      socket.destroy();
      resolve(problem);
    };
    socket.setTimeout(5000, () => done('no answer within 5 s'));
    socket.once('connect', () => done(null));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
  });
  if (listening === null) return { ...base, status: 'pass', message: `something listens at ${url.host}: webhooks go to ${bot.url}` };
  return {
    ...base,
    status: 'fail',
    message: `nothing answers at ${url.host} (${listening}): the webhooks to ${bot.url} fail`,
    fix: `start your bot on ${url.host}, or restart the sandbox with the --bot-url it listens at`,
  };
}
