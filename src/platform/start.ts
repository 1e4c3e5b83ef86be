import { ConfigError, UsageError } from '../errors.js';
import type { Env } from '../io.js';
import { sandboxDefaults } from '../sandbox/options.js';
import { SandboxOptionsError, StateFileError, startLocalSandbox, type LocalSandbox } from '../sandbox/server.js';
import { parseSandboxFlags } from './flags.js';
import { unkeptWarning, withSigningSecret } from './secret.js';

/**
 * Starting a sandbox for a command that drives a bot (`core test`, `core check-bot`): on loopback,
 * --port (default a free one), delivering to --bot-url, with the sandbox's defaults and its
 * environment settings (and the command's own `settings` over them), signing with the secret CORE_SANDBOX_WEBHOOK_SECRET names, else the one kept
 * for the user, as `core sandbox` does (src/platform/secret.ts); and the words for a failure to
 * listen, which `core sandbox` shares.
 */
export async function startBotSandbox(
  target: { botUrl?: string; port?: string; largeIds?: boolean; state?: string },
  init: {
    command: string;
    cwd: string;
    env: Env;
    warn: (message: string) => void;
    settings?: { webhookTimeoutMs?: number; maxEvents?: number };
  },
): Promise<{ url: string; botUrl: string | null; webhookTimeoutMs: number; started: LocalSandbox }> {
  const { options: flagged, secret } = await withSigningSecret(
    await parseSandboxFlags(
      { botUrl: target.botUrl, port: target.port, largeIds: target.largeIds, state: target.state },
      init.cwd,
      init.env,
    ),
    init.env,
  );
  const options = { ...flagged, ...init.settings };
  const unkept = unkeptWarning(secret);
  if (unkept !== undefined) init.warn(unkept);
  try {
    const sandbox = await startLocalSandbox({ ...options, warn: init.warn });
    return {
      url: sandbox.url,
      botUrl: sandbox.botUrl,
      webhookTimeoutMs: options.webhookTimeoutMs ?? sandboxDefaults.webhookTimeoutMs,
      started: sandbox,
    };
  } catch (error) {
    if (error instanceof StateFileError) throw new ConfigError(error.message, { hint: error.hint, cause: error });
    if (error instanceof SandboxOptionsError) throw new UsageError(error.message, { hint: `see ${init.command} --help`, cause: error });
    throw listenError(error, '127.0.0.1', options.port ?? 0);
  }
}

/** Turns a failure to listen into a UsageError that says what to change; anything else passes through. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return new UsageError(`port ${port} on ${host} is already in use`, {
        hint: 'choose another --port, or --port 0 for a free one',
        cause: error,
      });
    case 'EACCES':
      return new UsageError(`no permission to listen on port ${port} of ${host}`, {
        hint: 'ports below 1024 need privileges; choose --port 1024 or above',
        cause: error,
      });
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(`cannot listen on ${host}: not an address of this machine`, {
        hint: 'leave out --host to bind 127.0.0.1',
        cause: error,
      });
    default:
      return error;
  }
}
