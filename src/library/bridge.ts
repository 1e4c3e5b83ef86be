import http from 'node:http';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Problem } from '../errors.js';
import { platformSender } from '../bridge/platform.js';
import { webhookMapOf, DEFAULT_WEBHOOK_MAP, type MappedField } from '../bridge/map.js';
import { startBridge as startServerBridge } from '../bridge/start.js';
import { isLoopbackHost } from '../http/proxy.js';
import { createMask } from '../mask.js';
import { sandboxDefaults, type SandboxOptions } from '../sandbox/options.js';
import { SandboxOptionsError, type Sandbox } from '../sandbox/server.js';
import { newWebhookSecret, webhookSecretProblem } from '../sandbox/signature.js';
import { version } from '../version.js';

/**
 * `startBridge` of `core-cli/sandbox`: what `core bridge` runs (docs/bridge.md), from code. A sandbox
 * in bridge mode serving one tenant, the real platform's: its MESSAGE webhooks come in at
 * `<url>/webhook` and go to the bot signed with the local secret; the bot's API requests to `<url>`,
 * with the local token, are checked as the sandbox checks them and sent on to the platform with its
 * tenant and token. The handle is the sandbox's (events, subscribe, conversation, ...), the same shape,
 * with the platform's base URL beside it; the platform's token and secret are never on it.
 */

/**
 * A field of a customer message that a mapping places (docs/bridge.md, "The mapping"). Written out
 * here rather than taken from src/bridge/map.ts, whose schema is zod's, so the declarations need no
 * zod; the check below fails to compile when the two differ.
 */
export type WebhookMapField = 'questionId' | 'sessionId' | 'questionIndex' | 'coreClientId' | 'clientId' | 'channel' | 'type' | 'text';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const fieldsAgree: Same<WebhookMapField, MappedField> = true;
void fieldsAgree;

/** The real platform a bridge sends on to, and how its webhooks are signed. */
export interface BridgePlatform {
  /** The platform's base URL ({base_url}): http only to this machine unless `allowHttp`. */
  baseUrl: string;
  /** The tenant (X-Tenant-Name): the one the bridge serves, and the one sent to the platform. */
  tenant: string;
  /** The token of the bot operations (Authorization: Bearer); required unless `headers` carry Authorization. */
  token?: string;
  /** The token of PUT /api/v1/inactivity/reasons; default `token`. */
  integratorToken?: string;
  /** Extra headers of every request sent on (a profile's `headers`). */
  headers?: Readonly<Record<string, string>>;
  /** The platform's Standard Webhooks secret (`whsec_...`): deliveries are verified with it; unverified without it. */
  webhookSecret?: string;
  /** The time limit of one request sent on, in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Certificates (PEM) trusted besides the system's, for a platform with a private CA. */
  ca?: readonly string[];
  /** Sends the token over plain http to a host other than this machine. Default false. */
  allowHttp?: boolean;
}

export interface BridgeOptions extends Omit<SandboxOptions, 'tenants' | 'botUrl' | 'maskPersonalData'> {
  /** Where the platform's deliveries go: the bot's webhook URL. */
  botUrl: string;
  platform: BridgePlatform;
  /**
   * Where each field of a customer message is in the platform's webhook, as JSON pointers
   * (docs/bridge.md, "The mapping"); a field left out is read where the sandbox's format has it.
   */
  webhookMap?: Partial<Record<WebhookMapField, string>>;
  /** Send on a request refused here for its payload or its rules (400, 404, 409, 422) anyway. Default false. */
  forwardInvalid?: boolean;
}

/** A running bridge: the sandbox's handle, with the platform it sends on to (the library's Bridge, src/library/sandbox.ts). */
export interface ServerBridge extends Sandbox {
  /** The platform's base URL, as given. */
  readonly platformUrl: string;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Every problem of a bridge's own options (the sandbox's are checked by the sandbox), each naming its option. */
function bridgeProblems(options: BridgeOptions): Problem[] {
  const problems: Problem[] = [];
  const platform = options.platform as BridgePlatform | undefined;
  if (typeof options.botUrl !== 'string' || options.botUrl === '')
    problems.push({ path: 'botUrl', message: "required: where the platform's deliveries go" });
  if (platform === undefined || platform === null || typeof platform !== 'object') {
    problems.push({ path: 'platform', message: 'required: { baseUrl, tenant, token }' });
    return problems;
  }
  let url: URL | undefined;
  try {
    url = new URL(platform.baseUrl);
  } catch {
    problems.push({ path: 'platform.baseUrl', message: 'must be an http or https URL' });
  }
  if (url !== undefined && url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push({ path: 'platform.baseUrl', message: `must be an http or https URL, not ${url.protocol}` });
  } else if (url?.protocol === 'http:' && platform.allowHttp !== true && !isLoopbackHost(url.hostname)) {
    problems.push({
      path: 'platform.baseUrl',
      message: `plain http to ${url.host} would let anyone on the network path read the token: use https, or allowHttp: true`,
    });
  }
  if (typeof platform.tenant !== 'string' || platform.tenant === '') problems.push({ path: 'platform.tenant', message: 'required' });
  const byHeader = Object.keys(platform.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  if (!byHeader && (typeof platform.token !== 'string' || platform.token === '')) {
    problems.push({ path: 'platform.token', message: 'required, unless platform.headers carry Authorization' });
  }
  const local = options.token ?? sandboxDefaults.token;
  if (local === platform.token || local === platform.integratorToken) {
    problems.push({ path: 'token', message: "the local token is the platform's: the bot would hold the real one" });
  }
  if (platform.webhookSecret !== undefined) {
    const problem = webhookSecretProblem(platform.webhookSecret);
    if (problem !== undefined) problems.push({ path: 'platform.webhookSecret', message: problem });
    else if (platform.webhookSecret === options.webhookSecret) {
      problems.push({ path: 'webhookSecret', message: "the local webhook secret is the platform's: leave it out for a new one" });
    }
  }
  if (platform.timeoutMs !== undefined && !(Number.isInteger(platform.timeoutMs) && platform.timeoutMs > 0)) {
    problems.push({ path: 'platform.timeoutMs', message: 'must be a positive whole number of milliseconds' });
  }
  return problems;
}

/**
 * Starts a bridge on loopback (a free port unless `port` is given) and resolves once it listens.
 * Throws `SandboxOptionsError`, naming each option, for options it cannot run with. Close it with
 * `await bridge.close()`.
 */
export async function startBridge(options: BridgeOptions): Promise<ServerBridge> {
  const problems = bridgeProblems(options);
  const mapped = webhookMapOf(options.webhookMap ?? {});
  if (!mapped.ok)
    for (const problem of mapped.problems) problems.push({ ...problem, path: `webhookMap.${problem.path}`.replace(/\.$/, '') });
  if (problems.length > 0) throw new SandboxOptionsError(problems);
  const { platform, webhookMap: _map, forwardInvalid, ...sandboxOptions } = options;
  const mask = createMask();
  for (const secret of [platform.token, platform.integratorToken, platform.webhookSecret]) if (secret !== undefined) mask.add(secret);
  const pool = { keepAlive: true, maxSockets: 64 };
  const agents = {
    http: new http.Agent(pool),
    https: new https.Agent({ ...pool, rejectUnauthorized: true, ...(platform.ca ? { ca: [...rootCertificates, ...platform.ca] } : {}) }),
  };
  const token = platform.token ?? null;
  const send = platformSender({
    baseUrl: platform.baseUrl,
    tenant: platform.tenant,
    token,
    integratorToken: platform.integratorToken ?? token,
    headers: platform.headers ?? {},
    timeoutMs: platform.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    agents,
    mask,
    userAgent: `core-cli/${version()} (bridge)`,
  });
  const log = options.log;
  let bridge: Awaited<ReturnType<typeof startServerBridge>>;
  try {
    bridge = await startServerBridge({
      ...sandboxOptions,
      ...(log === undefined ? {} : { log: (line: string) => log(mask.redact(line)) }),
      webhookSecret: options.webhookSecret ?? newWebhookSecret(),
      tenant: platform.tenant,
      botUrl: options.botUrl,
      platformSecret: platform.webhookSecret ?? null,
      map: mapped.ok ? mapped.map : DEFAULT_WEBHOOK_MAP,
      send,
      forwardInvalid: forwardInvalid === true,
    });
  } catch (error) {
    agents.http.destroy();
    agents.https.destroy();
    throw error;
  }
  // The public handle: the direct customer is for a client in this same process only.
  const { customer: _direct, close, ...handle } = bridge;
  return {
    ...handle,
    platformUrl: platform.baseUrl,
    close: async () => {
      await close();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
