import { readFile } from 'node:fs/promises';
import { resolve as resolvePath, dirname } from 'node:path';
import type { Settings } from '../../config/index.js';
import { requireSettings, resolveSecret, resolveSettingsToken } from '../../config/index.js';
import type { Context } from '../../context.js';
import { ConfigError, ExitCode, PayloadError, UsageError } from '../../errors.js';
import { createMask, type Mask } from '../../mask.js';
import { requestLog, type RequestLog } from '../../output/request-log.js';
import { headersCarryAuthorization } from '../../secrets.js';
import { sandboxDefaults } from '../../sandbox/options.js';
import { SandboxOptionsError } from '../../sandbox/server.js';
import { version } from '../../version.js';
import { DEFAULT_WEBHOOK_MAP, webhookMapOf, type WebhookMap } from '../../bridge/map.js';
import type { Bridge } from '../../bridge/start.js';
import type { Transport } from '../../send/transport.js';
import { loadSendSettings } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import { parseSandboxFlags, type SandboxRunOptions } from '../../platform/flags.js';
import { startLines } from '../../output/sandbox-lines.js';
import { listenError } from '../../platform/start.js';

/**
 * `core bridge` (docs/bridge.md): a sandbox in bridge mode between the bot and the profile's real
 * tenant. stdout has the same sourceable lines as `core sandbox`, with the local token and secret;
 * the profile's token and the platform's secret are registered as secrets at once and never printed,
 * logged, recorded or sent to the bot.
 */

export interface BridgeFlags {
  botUrl?: string;
  port?: string;
  host?: string;
  publicUrl?: string;
  webhookMap?: string;
  forwardInvalid: boolean;
  token?: string;
  webhookSecret?: string;
  webhookTimeout?: string;
  webhookRetries?: string;
  allowHosts?: string[];
  timeout?: string;
  caFile?: string;
  allowHttp: boolean;
  open: boolean;
}

export async function runBridge(flags: BridgeFlags, global: GlobalOptions, ctx: Context): Promise<number> {
  const plan = await planBridge(flags, global, ctx);
  const { prepareTransport } = await import('../../send/transport.js');
  const transport = await prepareTransport(plan.baseUrl, plan.settings, { allowHttp: flags.allowHttp }, ctx, {
    keepAlive: true,
    maxSockets: 64,
  });
  const log = requestLog(ctx, (line) => plan.mask.redact(line));
  let bridge: Bridge;
  try {
    bridge = await startPlanned(plan, transport, flags, ctx, log);
  } catch (error) {
    log.close();
    transport.close();
    throw error;
  }
  const lines = startLines(bridge, { ...plan.options, tenants: [plan.tenant] });
  lines[0] = `# core bridge listening on ${bridge.url} (tenant ${plan.tenant}; the platform: ${plan.baseUrl})`;
  ctx.out(lines.join('\n') + '\n');
  ctx.err(describeBridge(plan, bridge, flags));
  if (flags.open) {
    const { openInBrowser } = await import('../../platform/open.js');
    openInBrowser(`${bridge.url}/`, ctx);
  }
  await new Promise<void>((done) => {
    if (ctx.signal.aborted) done();
    else ctx.signal.addEventListener('abort', () => done(), { once: true });
  });
  await bridge.close();
  transport.close();
  log.close();
  ctx.err('core bridge stopped\n');
  return ExitCode.ok;
}

/** What a bridge is started with, every flag and setting checked and every secret resolved (and registered). */
interface BridgePlan {
  settings: Settings;
  baseUrl: string;
  tenant: string;
  publicUrl: URL | undefined;
  map: WebhookMap;
  options: SandboxRunOptions;
  credentials: Credentials;
  mask: Mask;
}

async function planBridge(flags: BridgeFlags, global: GlobalOptions, ctx: Context): Promise<BridgePlan> {
  if (flags.botUrl === undefined) {
    throw new UsageError("core bridge needs --bot-url: where the platform's deliveries go", {
      hint: 'core bridge --profile NAME --bot-url http://127.0.0.1:3000/webhook',
    });
  }
  const publicUrl = flags.publicUrl === undefined ? undefined : checkedPublicUrl(flags.publicUrl);
  const map = flags.webhookMap === undefined ? DEFAULT_WEBHOOK_MAP : await readWebhookMap(flags.webhookMap, ctx.cwd);
  const settings = await loadSendSettings({ global, timeout: flags.timeout, caFile: flags.caFile }, ctx);
  const byHeader = headersCarryAuthorization(settings.headers.value);
  requireSettings(settings, byHeader ? ['baseUrl', 'tenant'] : ['baseUrl', 'tenant', 'token']);
  const named = await parseSandboxFlags(
    {
      botUrl: flags.botUrl,
      port: flags.port,
      host: flags.host,
      token: flags.token,
      webhookSecret: flags.webhookSecret,
      webhookTimeout: flags.webhookTimeout,
      webhookRetries: flags.webhookRetries,
      allowHosts: [...(flags.allowHosts ?? []), ...(publicUrl === undefined ? [] : [publicUrl.hostname])],
    },
    ctx.cwd,
    ctx.env,
  );
  const { withSigningSecret, unkeptWarning } = await import('../../platform/secret.js');
  const { options, secret } = await withSigningSecret(named, ctx.env, false);
  const unkept = unkeptWarning(secret);
  if (unkept !== undefined) ctx.warn(unkept);
  const credentials = await platformCredentials(settings, byHeader, ctx);
  checkLocalValues(credentials, options);
  const mask = createMask();
  for (const value of [...credentials.tokens, credentials.platformSecret]) if (value !== null) mask.add(value);
  return { settings, baseUrl: settings.baseUrl!.value, tenant: settings.tenant!.value, publicUrl, map, options, credentials, mask };
}

/** The bot must hold local values only: a local token or secret that is the platform's is refused. */
function checkLocalValues(credentials: Credentials, options: SandboxRunOptions): void {
  if (credentials.tokens.includes(options.token ?? sandboxDefaults.token)) {
    throw new UsageError("the bridge's local token is the profile's token: the bot would hold the real one", {
      hint: 'choose another local token with --token',
    });
  }
  if (credentials.platformSecret !== null && credentials.platformSecret === options.webhookSecret) {
    throw new UsageError("the local webhook secret is the platform's (webhookSecret of the profile)", {
      hint: 'leave out --webhook-secret: the bridge signs with the one core keeps for you',
    });
  }
}

async function startPlanned(plan: BridgePlan, transport: Transport, flags: BridgeFlags, ctx: Context, log: RequestLog): Promise<Bridge> {
  const { options, mask } = plan;
  const { platformSender } = await import('../../bridge/platform.js');
  const send = platformSender({
    baseUrl: plan.baseUrl,
    tenant: plan.tenant,
    token: plan.credentials.token,
    integratorToken: plan.credentials.integrator,
    headers: plan.settings.headers.value,
    timeoutMs: plan.settings.timeoutMs.value,
    agents: transport.agents,
    mask,
    userAgent: `core-cli/${version()} (bridge)`,
    proxy: transport.proxy,
    caFile: transport.caFile,
  });
  const { startBridge } = await import('../../bridge/start.js');
  let bridge: Bridge;
  try {
    bridge = await startBridge({
      ...options,
      webhookSecret: options.webhookSecret!,
      botUrl: flags.botUrl!,
      tenant: plan.tenant,
      platformSecret: plan.credentials.platformSecret,
      map: plan.map,
      send,
      forwardInvalid: flags.forwardInvalid,
      log: log.line,
    });
  } catch (error) {
    if (error instanceof SandboxOptionsError) throw new UsageError(error.message, { hint: 'see core bridge --help', cause: error });
    throw listenError(error, options.host ?? sandboxDefaults.host, options.port ?? sandboxDefaults.port);
  }
  if (new URL(plan.baseUrl).origin === new URL(bridge.url).origin) {
    await bridge.close();
    throw new ConfigError(`the platform's base URL ${plan.baseUrl} is this bridge itself`, {
      hint: "the profile (or CORE_BASE_URL) must name the real service; unset CORE_BASE_URL in the bridge's shell",
    });
  }
  return bridge;
}

/** What the bridge says on stderr once it listens: the platform, the webhook to set, the checks, the page. */
function describeBridge(plan: BridgePlan, bridge: Bridge, flags: BridgeFlags): string {
  const { publicUrl, settings, credentials } = plan;
  const webhook = `${publicUrl === undefined ? bridge.url : publicUrl.href.replace(/\/$/, '')}/webhook`;
  const tunnel = publicUrl === undefined ? ' (through a tunnel of your choice; --public-url shows its address)' : '';
  const signature =
    credentials.platformSecret === null ? 'not verified (the profile has no webhookSecret)' : "verified with the profile's webhookSecret";
  return (
    `platform: ${plan.baseUrl}, tenant ${plan.tenant} (${settings.baseUrl!.source}; token from ${settings.token?.source ?? "the profile's headers"})\n` +
    `webhook: point the platform's MESSAGE webhook at ${webhook}${tunnel}\n` +
    `signature: ${signature}; deliveries go to ${flags.botUrl} signed with CORE_WEBHOOK_SECRET\n` +
    `bot: use the export lines above (the local token); each request is checked, then sent on to the platform${flags.forwardInvalid ? ' (refused ones too: --forward-invalid)' : ''}\n` +
    `page: ${bridge.url}/\n` +
    'tests: core bridge record --out DIR (with the export lines), or "Save as test" on the page\n' +
    'stop with Ctrl-C\n'
  );
}

function checkedPublicUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--public-url ${JSON.stringify(value)} is not a URL`, { hint: 'such as https://abc.tunnel.example' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`--public-url must be an http or https URL, not ${url.protocol}`, { hint: 'such as https://abc.tunnel.example' });
  }
  return url;
}

async function readWebhookMap(file: string, cwd: string): Promise<WebhookMap> {
  const full = resolvePath(cwd, file);
  let text: string;
  try {
    text = await readFile(full, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --webhook-map ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      hint: 'name a YAML or JSON file of JSON pointers (docs/bridge.md, "The mapping")',
    });
  }
  let raw: unknown;
  try {
    const { parse } = await import('yaml');
    raw = parse(text);
  } catch (error) {
    throw new UsageError(`--webhook-map ${file} is neither YAML nor JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  const read = webhookMapOf(raw);
  if (!read.ok) throw new PayloadError(`--webhook-map ${file} is not a mapping the bridge can use`, read.problems);
  return read.map;
}

interface Credentials {
  /** The token of bot operations and the integrator's, resolved; null when the profile's headers carry Authorization. */
  token: string | null;
  integrator: string | null;
  tokens: string[];
  platformSecret: string | null;
}

async function platformCredentials(settings: Settings, byHeader: boolean, ctx: Context): Promise<Credentials> {
  const opts = { env: ctx.env, cwd: ctx.cwd, signal: ctx.signal };
  const token = byHeader ? null : await resolveSettingsToken(settings, 'token', opts);
  if (token !== null) ctx.addSecret(token);
  const integrator = byHeader || settings.integratorToken === null ? token : await resolveSettingsToken(settings, 'integratorToken', opts);
  if (integrator !== null) ctx.addSecret(integrator);
  let platformSecret: string | null = null;
  if (settings.webhookSecret !== null) {
    const fromProfile = settings.configFile !== null && settings.webhookSecret.source.startsWith('profile ');
    platformSecret = await resolveSecret(settings.webhookSecret.value, {
      ...opts,
      cwd: fromProfile ? dirname(settings.configFile!) : ctx.cwd,
      what: `webhookSecret of ${settings.webhookSecret.source}`,
    });
    ctx.addSecret(platformSecret);
    const { webhookSecretProblem } = await import('../../sandbox/signature.js');
    const problem = webhookSecretProblem(platformSecret);
    if (problem !== undefined) throw new ConfigError(`webhookSecret of ${settings.webhookSecret.source} ${problem}`);
  }
  return { token, integrator, tokens: [token, integrator].filter((t): t is string => t !== null), platformSecret };
}
