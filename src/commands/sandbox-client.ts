import type { Context } from '../context.js';
import { parseDuration } from '../config/duration.js';
import { CoreError, ExitCode, exitCodeForStatus, UsageError } from '../errors.js';
import { stringifyJson } from '../payload/json.js';
import type { SandboxAnswer } from '../platform/connection.js';
import type { ClientInit } from '../platform/http.js';
import type { GlobalOptions } from './definition.js';
import { printable } from '../output/terminal.js';

/**
 * What the commands that send one request to a running sandbox's own endpoints share (`core agent`,
 * `core sandbox seed`, `core sandbox snapshot`): the sandbox's URL (--sandbox, else CORE_BASE_URL),
 * the time limit, and the answer printed, or its refusal as exit 4 (5 for a 5xx) with the sandbox's
 * message; no sandbox at the URL is exit 6.
 */
export interface AgentCommonOptions {
  global: GlobalOptions;
  sandbox?: string;
  timeout?: string;
  json: boolean;
}

const NO_SANDBOX_HINT =
  'start a sandbox in another shell with core sandbox and run the export lines it prints, which set CORE_BASE_URL; ' +
  'or pass --sandbox with the address of a running one';

/** The sandbox refused the agent's request: exit 4 (5 for a 5xx), its message as the sandbox wrote it. */
export class AgentRequestRefused extends CoreError {
  constructor(answer: SandboxAnswer, what: string, hint?: string) {
    const message = (answer.json as { message?: unknown } | undefined)?.message;
    const said = typeof message === 'string' ? message : answer.text.slice(0, 2048) || '(no body)';
    super(
      answer.status < 400
        ? `the server answered ${answer.status} to ${what}, not as a core sandbox answers: ${said}`
        : `the sandbox refused ${what} (${answer.status}): ${said}`,
      answer.status >= 500 ? exitCodeForStatus(answer.status) : ExitCode.http4xx,
      'EREFUSED',
      hint ? { hint } : {},
    );
  }
}

export function client(options: AgentCommonOptions, ctx: Context): ClientInit {
  const baseUrl = options.sandbox ?? options.global.baseUrl ?? ctx.env.CORE_BASE_URL;
  if (baseUrl === undefined || baseUrl === '')
    throw new UsageError('no sandbox to talk to: give --sandbox URL or set CORE_BASE_URL', { hint: NO_SANDBOX_HINT });
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new UsageError(`--sandbox: '${baseUrl}' is not an http URL`, {
      hint: 'use the URL core sandbox prints, such as http://127.0.0.1:43121',
    });
  }
  let timeoutMs = 30_000;
  if (options.timeout !== undefined) {
    try {
      timeoutMs = parseDuration(options.timeout);
    } catch (error) {
      throw new UsageError(`--timeout: ${(error as Error).message}`, { hint: 'such as --timeout 10s' });
    }
  }
  return { baseUrl, timeoutMs, signal: ctx.signal };
}

/** Prints a success, or throws the sandbox's refusal (exit 4; 5 for a 5xx), printing its JSON first with --json. */
export function done(
  answer: SandboxAnswer,
  expected: number,
  what: string,
  options: AgentCommonOptions,
  ctx: Context,
  line: (json: any) => string,
): number {
  if (answer.status !== expected || typeof answer.json !== 'object' || answer.json === null) {
    if (options.json) ctx.out(`${stringifyJson({ ok: false, status: answer.status, error: answer.json ?? { message: answer.text } })}\n`);
    throw new AgentRequestRefused(
      answer,
      what,
      answer.status === 404 && /no such path/.test(answer.text) ? 'is this URL a core sandbox?' : undefined,
    );
  }
  if (options.json) ctx.out(`${stringifyJson(answer.json)}\n`);
  else ctx.out(`${line(answer.json).split('\n').map(printable).join('\n')}\n`);
  return ExitCode.ok;
}
