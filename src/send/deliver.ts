import type { Settings } from '../config/index.js';
import type { Context } from '../context.js';
import { ExitCode, PayloadError, type Problem } from '../errors.js';
import type { Operation } from '../operations.js';
import { failureHint } from '../output/hints.js';
import { printResult } from '../output/render.js';
import { printable } from '../output/terminal.js';
import { exitCodeOf, type RequestResult } from '../output/result.js';
import { joinUrl } from './request.js';
import { openSession, type SendFlags } from './session.js';

export type { SendFlags } from './session.js';

/** Prints the warnings the validation found, one `warning: path: message` line each. */
export function printWarnings(warnings: Problem[], ctx: Context): void {
  for (const w of warnings) ctx.warn(printable(`${w.path ? `${w.path}: ` : ''}${w.message}`));
}

/**
 * A payload that broke the rules: with --json the result document on stdout, and always the
 * problems on stderr through the error. Nothing is sent.
 */
export function rejectPayload(
  problems: Problem[],
  ctx: Context,
  input: { json: boolean; operation: Operation; settings: Settings | null; answerId?: string | null; hint?: string },
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
  throw new PayloadError(`the ${input.operation.name} is invalid (${count}); nothing was sent`, problems, {
    hint: input.hint ?? 'fix the fields above; `core schema` prints every rule',
  });
}

export interface SendOneInput {
  operation: Operation;
  settings: Settings;
  payload: unknown;
  flags: SendFlags;
  /** Whether the request may be repeated (it cannot deliver twice): see `mayRetry`. */
  retryable: boolean;
  answerId?: string;
  /** Lines for --verbose about how the payload was built (defaults filled in, and so on). */
  notes?: string[];
}

/**
 * One request of a single-payload command (reply, greet, api): shows it (--dry-run, --curl) or
 * sends it through a session and prints the result. Returns the exit code: 0 for 2xx, 4 or 5 for an
 * HTTP error, 6 for no answer, 130 when Ctrl-C stopped a repeat.
 */
export async function sendOne(input: SendOneInput, ctx: Context): Promise<number> {
  const { flags } = input;
  if (flags.verbose) for (const note of input.notes ?? []) ctx.err(`* ${note}\n`);
  const session = await openSession(input.operation, input.settings, flags, ctx);
  try {
    if (session.showOnly) {
      ctx.out(session.show(input.payload));
      if (input.answerId !== undefined && !flags.json) ctx.err(`answer id ${input.answerId}\n`);
      return ExitCode.ok;
    }
    const result = await session.send(input.payload, {
      retryable: input.retryable,
      ...(input.answerId !== undefined ? { answerId: input.answerId } : {}),
      announceRetries: true,
    });
    printResult(result, ctx, flags.json);
    return finishSend(result, { operation: input.operation, retryable: input.retryable, settings: input.settings }, ctx);
  } finally {
    session.close();
  }
}

/**
 * The end of a single request once its result is printed: the hint for a failure, then the exit code
 * (130 when Ctrl-C stopped a repeat: the last answer is shown, and the code says the run was
 * interrupted rather than that the service failed).
 */
export function finishSend(
  result: RequestResult,
  input: { operation: Operation; retryable: boolean; settings: Settings },
  ctx: Context,
): number {
  const hint = failureHint(result, { operation: input.operation.id, retryable: input.retryable, retries: input.settings.retries.value });
  if (hint !== undefined) ctx.err(`hint: ${hint}\n`);
  if (!result.ok && ctx.signal.aborted) {
    ctx.err('interrupted: no further attempt was made\n');
    return ExitCode.interrupted;
  }
  return exitCodeOf(result);
}
