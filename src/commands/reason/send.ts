import { setMaxListeners } from 'node:events';
import type { Context } from '../../context.js';
import { ExitCode, type Problem } from '../../errors.js';
import type { CheckSummary, ItemSpec } from '../../batch/check.js';
import type { ReportWriter } from '../../batch/report.js';
import { sendBatch, type LocalOutcome } from '../../batch/send.js';
import type { BatchSource } from '../../batch/source.js';
import { startProgress } from '../../batch/progress.js';
import { mayRetry, operations } from '../../operations.js';
import { printResult } from '../../output/render.js';
import type { RequestResult } from '../../output/result.js';
import { failureHint } from '../../output/hints.js';
import { makeStyle } from '../../output/style.js';
import type { Session } from '../../send/session.js';
import { describeStop, STOP_GRACE_MS, stopReason, type StopReason } from '../../stop.js';
import { outcomeLine, summaryLine } from './render.js';

/**
 * The second pass of `core reason update`, once every reason has been checked (run.ts): each sent in
 * the session at the concurrency, its outcome printed and recorded as it comes, and the batch's end.
 */

/** The checks of an item, and whether an earlier run applied it (--resume). */
export type ResumableSpec = ItemSpec<unknown> & { alreadyApplied?: (key: string | undefined) => boolean };

/** What the second pass reads of the options of `core reason update` (run.ts). */
export interface SendFlags {
  json: boolean;
  /** Requests in flight at once, 1 to 64. */
  concurrency: number;
  /** After the first failure, start no new request. */
  failFast: boolean;
  /** A --report of an earlier run: the reasons it shows applied are not sent again. */
  resume?: string;
  /** Print only the failures and the summary. */
  quiet?: boolean;
}

/** The second pass: send every reason, print and record each outcome, and decide the exit code. */
export async function send(
  source: BatchSource,
  spec: ResumableSpec,
  summary: CheckSummary<unknown>,
  session: Session,
  options: SendFlags,
  ctx: Context,
  local: (code: string | undefined, why: LocalOutcome) => RequestResult,
  report: ReportWriter | undefined,
): Promise<number> {
  const { total } = summary;
  const single = total === 1;
  // Requests of a batch are not cut off by the first Ctrl-C (see src/batch/send.ts): ctx.signal only
  // stops new requests and further retries. A second Ctrl-C aborts ctx.abandonSignal, which every
  // request listens on while it is in flight (and stops listening to when it settles): it abandons
  // what is in flight, reported with its outcome unknown.
  // Each request in flight listens on these two signals (and the batch itself on the first): past
  // Node's default of 10 listeners it would warn of a leak that is not one.
  setMaxListeners(options.concurrency + 10, ctx.signal, ctx.abandonSignal);
  const progress = await startProgress(ctx, total);
  // A line per reason: written in larger pieces (src/output/hold.ts), stderr kept in order with it.
  const releaseOutput = single ? () => {} : ctx.holdOutput();
  let stoppedByFailure = false;
  // One hint per failing status, shown under the summary rather than under every failed reason.
  const failures = new Map<number, RequestResult>();
  // Repeating an update sets the same fields again, so it is retried (docs/api.md, gap 22; docs/security.md,
  // "Retries").
  const retryable = mayRetry(operations.reason, {});

  try {
    const tally = await sendBatch(source, {
      ...spec,
      concurrency: options.concurrency,
      failFast: options.failFast,
      checkedLines: summary.accepted,
      signal: ctx.signal,
      admit: (signal) => session.admit(signal),
      send: sendOneReason(session, retryable, single, ctx),
      localResult: local,
      onResult: printOutcome({ options, ctx, progress, single, failures, report }),
      onInterrupt: (inFlight) => progress.note(interruptNote(stopReason(ctx.signal), inFlight)),
      onFailFast: () => {
        stoppedByFailure = true;
      },
    });
    progress.stop();
    return closeBatch(tally, { stoppedByFailure, single, failures, retryable, session, options, report, ctx });
  } finally {
    progress.stop();
    releaseOutput();
  }
}

/** One reason sent in the session: a batch of one is shown as a single request is, its retries announced on stderr too. */
function sendOneReason(session: Session, retryable: boolean, single: boolean, ctx: Context) {
  return (payload: unknown, code: string | undefined, slot?: Parameters<Session['send']>[1]['slot']) =>
    session.send(payload, {
      retryable,
      ...(code !== undefined ? { code } : {}),
      signal: ctx.abandonSignal,
      retrySignal: ctx.signal,
      announceRetries: single,
      ...(slot ? { slot } : {}),
    });
}

type Progress = Awaited<ReturnType<typeof startProgress>>;

/**
 * Prints and records each reason's outcome as it comes: a line (or the JSON document, or a single
 * request's full view), and a line of the report; with --quiet only the failures are printed.
 */
function printOutcome(out: {
  options: SendFlags;
  ctx: Context;
  progress: Progress;
  single: boolean;
  failures: Map<number, RequestResult>;
  report: ReportWriter | undefined;
}): (result: RequestResult) => void {
  const { options, ctx, progress, single, failures, report } = out;
  const style = makeStyle(ctx.color.stdout, ctx.glyphs);
  return (result) => {
    // Masked by structure once (src/mask.ts), for stdout and the report alike; not made at all when
    // neither --json nor --report needs it.
    const line = options.json || (report && !result.resumed) ? ctx.json(result) : undefined;
    // --quiet: only the failures are printed; the report still records every reason.
    const shown = !options.quiet || (!result.ok && !result.skipped);
    // Shown first, so an outcome stays visible even if writing the report then fails.
    if (!shown) {
      // Counted in the summary.
    } else if (options.json) progress.print(line!);
    else if (single) printResult(result, ctx, false);
    else progress.print(outcomeLine(result, style));
    if (result.status !== null && !result.ok && !failures.has(result.status)) failures.set(result.status, result);
    progress.tick(!result.ok && !result.skipped);
    // A reason applied by an earlier run is in the report already (carried over when it was opened).
    if (!result.resumed && line) report?.write(line.text);
  };
}

/** The batch's end: the summary line, a hint per failing status, where the report is, and the exit code. */
function closeBatch(
  tally: Awaited<ReturnType<typeof sendBatch>>,
  end: {
    stoppedByFailure: boolean;
    single: boolean;
    failures: Map<number, RequestResult>;
    retryable: boolean;
    session: Session;
    options: SendFlags;
    report: ReportWriter | undefined;
    ctx: Context;
  },
): number {
  const { single, ctx, report } = end;
  if (!single || tally.interrupted || tally.resumed > 0) ctx.err(summaryLine(tally, end.stoppedByFailure, end.options.resume));
  for (const [status, result] of end.failures) {
    const hint = failureHint(result, { operation: 'reason', retryable: end.retryable, retries: end.session.settings.retries.value });
    if (hint !== undefined) ctx.err(`hint${single ? '' : ` (${status})`}: ${hint}\n`);
  }
  if (report && (tally.failed > 0 || tally.skipped > 0)) ctx.err(`report: ${report.path} holds one line per reason\n`);
  return tally.interrupted ? ExitCode.interrupted : tally.exitCode;
}

/**
 * What stopping means for the requests in flight: after Ctrl-C they finish (a second Ctrl-C abandons
 * them); after SIGTERM, SIGHUP or a closed output they get a short grace period (src/stop.ts).
 */
function interruptNote(reason: StopReason | undefined, inFlight: number): string {
  const what = `${describeStop(reason)}: no new requests`;
  if (inFlight === 0) return `${what}\n`;
  if (reason === undefined || reason === 'SIGINT') {
    return `${what}; waiting for ${inFlight} in flight (Ctrl-C again abandons them, and they are reported with their outcome unknown)\n`;
  }
  return `${what}; waiting up to ${STOP_GRACE_MS / 1000} s for ${inFlight} in flight, then they are reported with their outcome unknown\n`;
}

/** A result made by the command itself: skipped, invalid, or a failure inside the program. */
export function localResult(url: string, code: string | undefined, why: LocalOutcome): RequestResult {
  const base: RequestResult = {
    ok: false,
    status: null,
    method: operations.reason.method,
    url,
    requestId: null,
    durationMs: null,
    ...(code !== undefined ? { code } : {}),
    error: null,
  };
  if ('skipped' in why) return { ...base, skipped: true };
  if ('resumed' in why) return { ...base, ok: true, resumed: true };
  if ('problems' in why) return { ...base, validationErrors: why.problems satisfies Problem[] };
  return { ...base, error: why.error };
}
