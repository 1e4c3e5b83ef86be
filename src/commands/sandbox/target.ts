import { baseUrlProblem } from '../../config/schema.js';
import { NetworkError, UsageError } from '../../errors.js';
import { requestJson, type SandboxAnswer } from '../customer/client.js';

/** The options of a command that drives a bot through a sandbox: `core test` and `core check-bot`. */
export interface SandboxTarget {
  sandbox?: string;
  botUrl?: string;
  port?: string;
  largeIds?: boolean;
}

/**
 * Checks, before anything runs, where such a command finds its sandbox: `--sandbox URL` of a running
 * one, or `--bot-url URL` (and `--port N`) for one it starts; never both, never neither.
 */
export function checkSandboxTarget(options: SandboxTarget, command: string, example: string): void {
  if (options.sandbox !== undefined && (options.botUrl !== undefined || options.port !== undefined || options.largeIds === true)) {
    const flag = options.botUrl !== undefined ? 'bot-url' : options.port !== undefined ? 'port' : 'large-ids';
    throw new UsageError(`--sandbox uses a running sandbox; --${flag} is for the one ${command} starts`, {
      hint:
        flag === 'large-ids'
          ? 'start the running sandbox with core sandbox --large-ids, or give --bot-url URL --large-ids without --sandbox'
          : 'give --sandbox URL alone, or --bot-url URL (and --port N) without it',
    });
  }
  if (options.sandbox === undefined && options.botUrl === undefined) {
    throw new UsageError(`${command} needs a bot: --bot-url URL, or --sandbox URL of a running core sandbox that delivers to one`, {
      hint: example,
    });
  }
  if (options.sandbox !== undefined) {
    const problem = baseUrlProblem(options.sandbox);
    if (problem !== undefined)
      throw new UsageError(`--sandbox: ${problem}`, { hint: 'the base URL core sandbox prints, such as http://127.0.0.1:8080' });
  }
}

/**
 * GET /_sandbox/info of the sandbox at `--sandbox URL`. When it gives no answer at all, the error
 * says how to give this command a sandbox (the customer client's own hint speaks of CORE_BASE_URL,
 * which `core test` and `core check-bot` do not read).
 */
export async function sandboxInfo(url: string, timeoutMs: number, signal: AbortSignal, command: string): Promise<SandboxAnswer> {
  try {
    return await requestJson({ baseUrl: url, timeoutMs, signal }, 'GET', '/_sandbox/info');
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    throw new NetworkError(error.message, error.code, {
      hint: `start one with core sandbox --bot-url URL and give ${command} the base URL it prints with --sandbox, or let ${command} start one: --bot-url URL`,
      cause: error,
    });
  }
}
