import { requireSettings, resolveSettingsToken, type Need, type Settings } from '../config/index.js';
import type { Context, MaskedText } from '../context.js';
import { debugTrace } from '../debug.js';
import { CoreError, NetworkError } from '../errors.js';
import type { HttpResponse } from '../http/client.js';
import type { PoolOptions } from '../http/agents.js';
import { Throttle, type Slot } from '../http/throttle.js';
import type { Operation } from '../operations.js';
import { resultFromResponse, type RequestResult } from '../output/result.js';
import { parseJson } from '../payload/json.js';
import { headersCarryAuthorization, registerKnownSecrets } from '../secrets.js';
import {
  prepareRequest,
  renderCurl,
  renderDryRun,
  renderVerboseRequest,
  renderVerboseResponse,
  type PreparedRequest,
  type RequestSettings,
} from './request.js';
import type { Transport } from './transport.js';

/**
 * One way to send, for every operation: `openSession` applies the network rules once, resolves the
 * credential the operation needs (or, for --dry-run and --curl, stands placeholders in for what is
 * missing), registers every secret, and hands back a session that shows or sends payloads. `core
 * reply`, `core greet`, each reason of a batch and `core api` all go through it, so a rule about
 * credentials, masking or the network is written, and tested, once.
 */

/** The output flags every sending command takes (docs/commands: the options of reply, greet, reason update). */
export interface SendFlags {
  dryRun: boolean;
  curl: boolean;
  json: boolean;
  verbose: boolean;
  /** --insecure: TLS certificates are not checked (warned about on every use). */
  insecure?: boolean;
  /** --allow-http: credentials may go over plain http to a host other than loopback. */
  allowHttp?: boolean;
}

/** What one request carries besides its payload. */
export interface SendMeta {
  /** Whether this request may be repeated after a failure (see `mayRetry` in src/operations.ts). */
  retryable: boolean;
  /** Shown in the result: the reply's answerId, a reason's code. */
  answerId?: string;
  code?: string;
  /**
   * Cuts this request off. Defaults to the invocation's signal (the first Ctrl-C); a batch gives
   * each request one that only a second Ctrl-C aborts, so a request that reached the service keeps
   * its outcome.
   */
  signal?: AbortSignal;
  /** Once aborted, no further attempt starts, but the attempt in flight is not cut off. */
  retrySignal?: AbortSignal;
  /** Say on stderr when a request is repeated or why not (single requests; a batch shows progress). */
  announceRetries?: boolean;
  /** Keep the response body in the result (`core api`), up to KEPT_BODY_BYTES. */
  keepBody?: boolean;
  /** The slot of the run's pace taken for this request's first attempt (see `Session.admit`). */
  slot?: Slot;
}

/** The most of a response body `core api` keeps and shows. */
export const KEPT_BODY_BYTES = 1024 * 1024;

export interface Session {
  readonly operation: Operation;
  /** The settings the session was opened with (timeouts, retries, ...). */
  readonly settings: Settings;
  /** --dry-run or --curl: nothing is sent, and `send` must not be called. */
  readonly showOnly: boolean;
  /** The request exactly as it would go on the wire (the token a placeholder in show-only sessions). */
  prepare(payload: unknown): PreparedRequest;
  /** The --dry-run view (`json`: as one JSON document) or, with --curl, the curl command of one payload. */
  show(payload: unknown, options?: { json?: boolean }): string | MaskedText;
  /** Sends one payload; never throws for an HTTP or network failure, which come back as results. */
  send(payload: unknown, meta: SendMeta): Promise<RequestResult>;
  /**
   * Waits until the run may start another request (no pause asked for with Retry-After, fewer
   * attempts in flight than the window: src/http/throttle.ts) and takes that slot for it, to hand to
   * `send` in `meta.slot`; null when `signal` aborts first. A batch asks before it starts each item,
   * so an item that never got a slot was never sent.
   */
  admit(signal?: AbortSignal): Promise<Slot | null>;
  /** Loads the HTTP client now instead of at the first `send` (nothing to do in a show-only session). */
  ready(): Promise<void>;
  /** Closes the connections. */
  close(): void;
}

export interface SessionOptions {
  /** Keep-alive connections for a batch: at most one per request in flight. */
  pool?: PoolOptions;
  /** The most requests in flight at once (a batch's --concurrency); 1 unless given. */
  concurrency?: number;
}

/** What a missing credential is called in messages and where it is looked for (src/config). */
function credentialNeed(operation: Operation): Need {
  return operation.credential === 'integrator' ? 'integratorToken' : 'token';
}

/**
 * The environment variable a curl command reads the token from: the integrator's own when the
 * operation takes it and one is configured, else CORE_TOKEN (docs/configuration.md, "Tokens").
 */
function tokenVariableOf(operation: Operation, settings: Settings): PreparedRequest['tokenVariable'] {
  return operation.credential === 'integrator' && settings.integratorToken !== null ? 'CORE_INTEGRATOR_TOKEN' : 'CORE_TOKEN';
}

export async function openSession(
  operation: Operation,
  settings: Settings,
  flags: SendFlags,
  ctx: Context,
  options: SessionOptions = {},
): Promise<Session> {
  // An Authorization header in the profile's headers replaces the token (docs/configuration.md,
  // "headers"), so then no token is needed, resolved or shown.
  const byHeader = headersCarryAuthorization(settings.headers.value);
  const tokenVariable = tokenVariableOf(operation, settings);
  const need = credentialNeed(operation);
  const showOnly = flags.dryRun || flags.curl;

  let request: RequestSettings;
  let transport: Transport | undefined;
  /** --curl's connection options (the CA, -k, the proxy), as core would connect. */
  let curlOptions: string[] = [];
  if (showOnly) {
    // Nothing is sent, so nothing is required: missing values show as placeholders with one
    // warning, and a token command is not run just to be masked. A token known without running a
    // command is registered anyway, should the payload quote it.
    const hasToken = settings.token !== null || (need === 'integratorToken' && settings.integratorToken !== null);
    const missing = [
      settings.baseUrl === null ? 'baseUrl' : null,
      settings.tenant === null ? 'tenant' : null,
      !byHeader && !hasToken ? 'token' : null,
    ];
    const named = missing.filter((m): m is string => m !== null);
    if (named.length > 0) ctx.warn(`not configured: ${named.join(', ')} (a real send would stop here)`);
    registerKnownSecrets(settings, ctx);
    const { curlConnectionOptions, warnInsecure } = await import('./transport.js');
    warnInsecure(flags, ctx);
    curlOptions = curlConnectionOptions(settings.baseUrl?.value ?? null, settings, flags);
    request = {
      baseUrl: settings.baseUrl?.value ?? '<base-url>',
      tenant: settings.tenant?.value ?? '<tenant>',
      // Shown masked (or as $CORE_TOKEN in --curl) whether configured or not: the request needs it.
      token: byHeader ? null : 'placeholder',
      headers: settings.headers.value,
    };
  } else {
    requireSettings(settings, byHeader ? ['baseUrl', 'tenant'] : ['baseUrl', 'tenant', need]);
    // Both tokens, not only the one the operation takes: a service may echo either. A token command
    // runs only for the token the request carries; the other's value is not in the request to echo.
    registerKnownSecrets(settings, ctx);
    // The network rules come before the token: a refused send never runs a token command.
    const { prepareTransport } = await import('./transport.js');
    transport = await prepareTransport(settings.baseUrl!.value, settings, flags, ctx, options.pool);
    let token: string | null = null;
    try {
      if (!byHeader) {
        // A token command runs beside the config file; the integrator token falls back to the token.
        token = await resolveSettingsToken(settings, need === 'integratorToken' ? 'integratorToken' : 'token', {
          env: ctx.env,
          cwd: ctx.cwd,
          signal: ctx.signal,
        });
        ctx.addSecret(token);
      }
    } catch (error) {
      transport.close();
      throw error;
    }
    request = { baseUrl: settings.baseUrl!.value, tenant: settings.tenant!.value, token, headers: settings.headers.value };
  }

  const prepare = (payload: unknown) => prepareRequest(operation, request, payload, tokenVariable);
  // One pace for every request of the run: a Retry-After holds them all back (docs/security.md, "Rate limits").
  const throttle = new Throttle(options.concurrency ?? 1);

  return {
    operation,
    settings,
    showOnly,
    prepare,
    show(payload, opts = {}) {
      const json = opts.json ?? flags.json;
      const request = prepare(payload);
      if (!flags.curl) return renderDryRun(request, ctx, json);
      const curl = renderCurl(request, ctx, curlOptions);
      return json ? renderDryRun(request, ctx, true, curl) : curl;
    },
    async send(payload, meta) {
      if (transport === undefined) throw new Error('a show-only session (--dry-run, --curl) sends nothing');
      return exchange(prepare(payload), settings, flags, transport, throttle, meta, ctx);
    },
    admit: (signal) => throttle.acquire(signal),
    async ready() {
      if (transport !== undefined) await (await (httpClient ??= import('../http/client.js'))).loadHttpLibrary();
    },
    close() {
      transport?.close();
    },
  };
}

/** The HTTP client, loaded on the first send (start-up pays nothing for it) and kept for the rest. */
let httpClient: Promise<typeof import('../http/client.js')> | undefined;

/** One request and its result as data; never throws for HTTP or network failures. */
async function exchange(
  prepared: PreparedRequest,
  settings: Settings,
  flags: SendFlags,
  transport: Transport,
  throttle: Throttle,
  meta: SendMeta,
  ctx: Context,
): Promise<RequestResult> {
  const { sendRequest } = await (httpClient ??= import('../http/client.js'));
  if (flags.verbose) ctx.err(renderVerboseRequest(prepared, ctx));
  const identity = {
    method: prepared.method,
    url: prepared.url,
    ...(meta.answerId !== undefined ? { answerId: meta.answerId } : {}),
    ...(meta.code !== undefined ? { code: meta.code } : {}),
  };
  let response: HttpResponse;
  try {
    response = await sendRequest({
      method: prepared.method,
      url: prepared.url,
      headers: prepared.headers,
      body: prepared.body,
      timeoutMs: settings.timeoutMs.value,
      retries: settings.retries.value,
      retryable: meta.retryable,
      ...(meta.keepBody ? { maxBodyBytes: KEPT_BODY_BYTES } : {}),
      signal: meta.signal ?? ctx.signal,
      agent: transport.agents,
      ...(transport.proxy ? { proxy: transport.proxy } : {}),
      ...(transport.caFile !== null ? { caFile: transport.caFile } : {}),
      ...(meta.retrySignal ? { retrySignal: meta.retrySignal } : {}),
      throttle,
      ...(meta.slot ? { slot: meta.slot } : {}),
      onRetry: (info) => {
        if (flags.verbose) {
          const why = info.asked
            ? ' (Retry-After; not counted as a retry)'
            : info.paced
              ? ` (no Retry-After: the whole run waits${info.counted ? '' : '; not counted as a retry, as other requests get through'})`
              : '';
          ctx.err(`* ${info.reason}: attempt ${info.attempt} in ${info.delayMs} ms${why}\n`);
        } else if (meta.announceRetries) {
          const wait = info.delayMs >= 1000 ? `${(info.delayMs / 1000).toFixed(1)} s` : `${info.delayMs} ms`;
          ctx.err(
            info.asked
              ? `${info.reason}: trying again in ${wait}, as Retry-After asks (attempt ${info.attempt}; such waits are not counted as retries)\n`
              : !info.counted
                ? `${info.reason}: trying again in ${wait}, as other requests get through (attempt ${info.attempt}; not counted as a retry)\n`
                : // The last attempt the retries allow, counting the waits not counted as retries so far.
                  `${info.reason}: trying again in ${wait} (attempt ${info.attempt} of ${info.attempt - info.retry + settings.retries.value})\n`,
          );
        }
      },
      onNoRetry: (reason) => {
        if (flags.verbose || meta.announceRetries) ctx.err(`${reason}\n`);
      },
    });
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    if (ctx.debug && error.cause !== undefined) ctx.err(debugTrace(error.cause));
    return {
      ok: false,
      status: null,
      method: identity.method,
      url: identity.url,
      requestId: null,
      durationMs: null,
      ...(meta.code !== undefined ? { code: meta.code } : {}),
      ...(meta.answerId !== undefined ? { answerId: meta.answerId } : {}),
      error: { code: error.code, message: error.message },
      // docs/json-output.md: `attempts` whenever the request was repeated, whatever ended it.
      ...(error instanceof NetworkError && error.attempts > 1 ? { attempts: error.attempts } : {}),
    };
  }
  if (flags.verbose) ctx.err(renderVerboseResponse(response, ctx));
  const result = resultFromResponse(identity, response, ctx);
  return meta.keepBody ? { ...result, body: responseBody(response, ctx) } : result;
}

/** A response body as data: JSON read losslessly when it parses, else the text (marked when cut). */
function responseBody(response: HttpResponse, ctx: Context): unknown {
  if (response.body === '') return null;
  if (!response.truncated) {
    try {
      return parseJson(response.body);
    } catch {
      // Not JSON: the text.
    }
  }
  // A secret the cut split in two would pass the masking of what is printed: its start is masked here.
  return response.truncated ? `${ctx.redactCutEnd(response.body)}… [cut at ${KEPT_BODY_BYTES} bytes]` : response.body;
}
