import { baseUrlProblem } from '../config/schema.js';
import { NetworkError, UsageError } from '../errors.js';
import type { Env } from '../io.js';
import type { LocalSandbox } from '../sandbox/server.js';
import { trimEndOf } from '../text/trim.js';
import type { SandboxAnswer } from './connection.js';
import { requestJson } from './http.js';

/** The options of a command that drives a bot through a sandbox: `core test` and `core check-bot`. */
export interface SandboxTarget {
  sandbox?: string;
  botUrl?: string;
  port?: string;
  /** --large-ids: the sandbox started makes every identifier above 2^53. */
  largeIds?: boolean;
  /** --state FILE (core test): the state file of the sandbox it starts. */
  state?: string;
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
  if (options.sandbox !== undefined && options.state !== undefined) {
    throw new UsageError(`--sandbox uses a running sandbox, which keeps its own state; --state is for the one ${command} starts`, {
      hint: 'start the running sandbox with core sandbox --state FILE, or give --state without --sandbox',
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

/** The sandbox a command plays its bot through, reached at --sandbox or started for it. */
export interface BotSandbox {
  url: string;
  /** The bot's URL as the sandbox has it; null when the sandbox at --sandbox did not say. */
  botUrl: string | null;
  /** How long the sandbox waits for the bot's answer to a webhook. */
  webhookTimeoutMs: number;
  /** The sandbox started here, which the command closes; undefined for the one at --sandbox. */
  started?: LocalSandbox;
}

export interface BotSandboxInit {
  /** `core test`, `core check-bot`: for messages and hints. */
  command: string;
  /** What a sandbox without a bot means for the command: `so no answer can come`. */
  withoutBot: string;
  /** The time limit of GET /_sandbox/info. */
  timeoutMs: number;
  signal: AbortSignal;
  cwd: string;
  env: Env;
  /** Says what the run goes on without (a webhook secret that could not be kept). */
  warn: (message: string) => void;
  /**
   * Settings of the sandbox started here, over its defaults (the one at --sandbox keeps its own): the
   * webhook's time limit (`core check-bot --timeout`), the events kept (a fuzz run's).
   */
  settings?: { webhookTimeoutMs?: number; maxEvents?: number };
}

/**
 * The sandbox to play through: the one at --sandbox, which must answer as a core sandbox that delivers
 * to a bot (a NetworkError when it gives no answer at all), or a new one started on --port delivering
 * to --bot-url, with the sandbox's defaults, its environment settings and the user's webhook secret
 * (src/platform/start.ts).
 */
export async function openBotSandbox(target: SandboxTarget, init: BotSandboxInit): Promise<BotSandbox> {
  if (target.sandbox === undefined) {
    const { startBotSandbox } = await import('./start.js');
    return startBotSandbox(target, init);
  }
  const url = trimEndOf(target.sandbox, '/');
  const info = await sandboxInfo(url, init.timeoutMs, init.signal, init.command);
  const bot = (info.json as { bot?: { url?: unknown; timeoutMs?: unknown } | null } | undefined)?.bot;
  if (info.status !== 200 || bot === undefined) {
    throw new UsageError(`--sandbox: ${url} did not answer as a core sandbox (GET /_sandbox/info answered ${info.status})`, {
      hint: 'give the base URL core sandbox printed (its first export line)',
    });
  }
  if (bot === null) {
    throw new UsageError(`--sandbox: the sandbox at ${url} has no bot connected, ${init.withoutBot}`, {
      hint: `start it with core sandbox --bot-url URL, or let ${init.command} start one: --bot-url URL`,
    });
  }
  const webhookTimeoutMs = typeof bot.timeoutMs === 'bigint' ? Number(bot.timeoutMs) : 10_000;
  return { url, botUrl: typeof bot.url === 'string' ? bot.url : null, webhookTimeoutMs };
}
