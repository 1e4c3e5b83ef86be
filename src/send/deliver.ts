import { requireSettings, resolveSettingsToken, type Settings } from '../config/index.js';
import type { Context } from '../context.js';
import { CoreError, ExitCode, exitCodeForStatus, PayloadError, type Problem } from '../errors.js';
import type { HttpRequest, HttpResponse } from '../http/client.js';
import { debugTrace } from '../debug.js';
import { printResult } from '../output/render.js';
import { resultFromResponse, type RequestResult } from '../output/result.js';
import {
  joinUrl,
  prepareRequest,
  renderCurl,
  renderDryRun,
  renderVerboseRequest,
  renderVerboseResponse,
  type Operation,
  type PreparedRequest,
} from './request.js';
import { registerHeaderSecrets, registerKnownSecrets } from '../secrets.js';

/** The output flags every sending command takes (docs/commands/reply.md, greet.md, reason-update.md). */
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

export type Credential = 'bot' | 'integrator';

export interface DeliverInput {
  operation: Operation;
  settings: Settings;
  payload: unknown;
  flags: SendFlags;
  credential: Credential;
  /** Whether the request may be repeated (it cannot deliver twice): docs/security.md, "Retries". */
  retryable: boolean;
  answerId?: string;
  code?: string;
  /** Lines for --verbose about how the payload was built (defaults filled in, and so on). */
  notes?: string[];
}

/** Prints the warnings the validation found, one `warning: path: message` line each. */
export function printWarnings(warnings: Problem[], ctx: Context): void {
  for (const w of warnings) ctx.warn(`${w.path ? `${w.path}: ` : ''}${w.message}`);
}

/**
 * A payload that broke the rules: with --json the result document on stdout, and always the
 * problems on stderr through the error. Nothing is sent.
 */
export function rejectPayload(
  what: string,
  problems: Problem[],
  ctx: Context,
  input: { json: boolean; operation: Operation; settings: Settings | null; answerId?: string; hint?: string },
): never {
  if (input.json) {
    const result: RequestResult = {
      ok: false,
      status: null,
      method: input.operation.method,
      url: input.settings?.baseUrl ? joinUrl(input.settings.baseUrl.value, input.operation.path) : input.operation.path,
      requestId: null,
      durationMs: null,
      ...(input.answerId !== undefined ? { answerId: input.answerId } : {}),
      error: null,
      validationErrors: problems,
    };
    printResult(result, ctx, true);
  }
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  throw new PayloadError(`the ${what} is invalid (${count}); nothing was sent`, problems, {
    hint: input.hint ?? 'fix the fields above; `core schema` prints every rule',
  });
}

/**
 * Sends one validated payload, or shows it (--dry-run, --curl), and prints the result. Returns the
 * exit code: 0 for 2xx, 4 or 5 for an HTTP error, 6 for no answer.
 */
export async function deliver(input: DeliverInput, ctx: Context): Promise<number> {
  const { settings, flags } = input;
  const tokenSpec = input.credential === 'integrator' ? (settings.integratorToken ?? settings.token) : settings.token;
  const tokenVariable = input.credential === 'integrator' && settings.integratorToken ? 'CORE_INTEGRATOR_TOKEN' : 'CORE_TOKEN';

  if (flags.verbose) for (const note of input.notes ?? []) ctx.err(`* ${note}\n`);

  if (flags.dryRun || flags.curl) {
    // Nothing is sent, so nothing is required: missing values show as placeholders and a warning,
    // and a token command is not run just to be masked.
    const missing = (['baseUrl', 'tenant'] as const).filter((k) => settings[k] === null);
    if (!tokenSpec) missing.push('token' as never);
    if (missing.length > 0) ctx.warn(`not configured: ${missing.join(', ')} (a real send would stop here)`);
    // Not resolved (nothing is sent), but a token known without running a command is masked anyway,
    // should the payload quote it.
    registerKnownSecrets(settings, ctx);
    const { curlConnectionOptions, warnInsecure } = await import('./transport.js');
    warnInsecure(flags, ctx);
    const prepared = prepareRequest(
      input.operation,
      {
        baseUrl: settings.baseUrl?.value ?? '<base-url>',
        tenant: settings.tenant?.value ?? '<tenant>',
        // Always shown (masked, or as $CORE_TOKEN in --curl): the request needs it, configured or not.
        token: 'placeholder',
        headers: settings.headers.value,
      },
      input.payload,
      tokenVariable,
    );
    ctx.out(
      flags.curl
        ? renderCurl(prepared, ctx, curlConnectionOptions(settings.baseUrl?.value ?? null, settings, flags))
        : renderDryRun(prepared, ctx, flags.json),
    );
    if (input.answerId !== undefined && !flags.json) ctx.err(`answer id ${input.answerId}\n`);
    return ExitCode.ok;
  }

  const which = input.credential === 'integrator' ? 'integratorToken' : 'token';
  requireSettings(settings, ['baseUrl', 'tenant', which]);
  registerHeaderSecrets(settings.headers.value, ctx);
  // The network rules come before the token: a refused send never runs a token command.
  const { prepareTransport } = await import('./transport.js');
  const transport = await prepareTransport(settings.baseUrl!.value, settings, flags, ctx);
  try {
    const token = await resolveSettingsToken(settings, which, { env: ctx.env, cwd: ctx.cwd, signal: ctx.signal });
    ctx.addSecret(token);
    const prepared = prepareRequest(
      input.operation,
      { baseUrl: settings.baseUrl!.value, tenant: settings.tenant!.value, token, headers: settings.headers.value },
      input.payload,
      tokenVariable,
    );
    return await sendPrepared(prepared, { ...input, agent: transport.agents, proxy: transport.proxy }, ctx);
  } finally {
    transport.close();
  }
}

/** Sends a prepared request and prints its result (one request: reply, greet). */
export async function sendPrepared(
  prepared: PreparedRequest,
  input: DeliverInput & { agent?: HttpRequest['agent']; proxy?: string | null },
  ctx: Context,
): Promise<number> {
  const result = await exchange(prepared, { ...input, announceRetries: true }, ctx);
  printResult(result, ctx, input.flags.json);
  // Ctrl-C while waiting to repeat a failed request: the last answer is shown, and the exit code says
  // the run was interrupted rather than that the service failed.
  if (!result.ok && ctx.signal.aborted) {
    ctx.err('interrupted: no further attempt was made\n');
    return ExitCode.interrupted;
  }
  return exitCodeOf(result);
}

/** One request and its result as data; never throws for HTTP or network failures. */
export async function exchange(
  prepared: PreparedRequest,
  input: Pick<DeliverInput, 'settings' | 'flags' | 'retryable' | 'answerId' | 'code'> & {
    agent?: HttpRequest['agent'];
    /** The proxy in use, printable, for messages. */
    proxy?: string | null;
    retrySignal?: AbortSignal;
    /** Say on stderr when a request is repeated or not (single requests; a batch has its own progress). */
    announceRetries?: boolean;
  },
  ctx: Context,
): Promise<RequestResult> {
  const { sendRequest } = await import('../http/client.js');
  if (input.flags.verbose) ctx.err(renderVerboseRequest(prepared, ctx));
  const base = { method: prepared.method, url: prepared.url, answerId: input.answerId, code: input.code };
  let response: HttpResponse;
  try {
    response = await sendRequest({
      method: prepared.method,
      url: prepared.url,
      headers: prepared.headers,
      body: prepared.body,
      timeoutMs: input.settings.timeoutMs.value,
      retries: input.settings.retries.value,
      retryable: input.retryable,
      signal: ctx.signal,
      ...(input.agent ? { agent: input.agent } : {}),
      ...(input.proxy ? { proxy: input.proxy } : {}),
      ...(input.retrySignal ? { retrySignal: input.retrySignal } : {}),
      onRetry: (info) => {
        if (input.flags.verbose) ctx.err(`* ${info.reason}: attempt ${info.attempt} in ${info.delayMs} ms\n`);
        else if (input.announceRetries) {
          const wait = info.delayMs >= 1000 ? `${(info.delayMs / 1000).toFixed(1)} s` : `${info.delayMs} ms`;
          ctx.err(`${info.reason}: trying again in ${wait} (attempt ${info.attempt} of ${input.settings.retries.value + 1})\n`);
        }
      },
      onNoRetry: (reason) => {
        if (input.flags.verbose || input.announceRetries) ctx.err(`${reason}\n`);
      },
    });
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    if (ctx.debug && error.cause !== undefined) ctx.err(debugTrace(error.cause));
    const code = error.code;
    return {
      ok: false,
      status: null,
      method: prepared.method,
      url: prepared.url,
      requestId: null,
      durationMs: null,
      ...(input.code !== undefined ? { code: input.code } : {}),
      ...(input.answerId !== undefined ? { answerId: input.answerId } : {}),
      error: { code, message: error.message },
    };
  }
  if (input.flags.verbose) ctx.err(renderVerboseResponse(response, ctx));
  return resultFromResponse(
    { method: base.method, url: base.url, ...(base.answerId !== undefined ? { answerId: base.answerId } : {}), ...(base.code !== undefined ? { code: base.code } : {}) },
    response,
  );
}

export function exitCodeOf(result: RequestResult): number {
  if (result.status === null) {
    if (result.validationErrors) return ExitCode.usage;
    if (result.skipped) return ExitCode.ok;
    const code = (result.error as { code?: string } | null)?.code;
    return code === 'EABORTED' ? ExitCode.interrupted : ExitCode.network;
  }
  return exitCodeForStatus(result.status);
}
