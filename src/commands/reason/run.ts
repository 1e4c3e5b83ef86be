import { setMaxListeners } from 'node:events';
import type { Settings } from '../../config/index.js';
import type { Context } from '../../context.js';
import { ExitCode, PayloadError, UsageError, type Problem } from '../../errors.js';
import { checkBatch, checkItem, listedProblems, type CheckSummary, type ItemSpec } from '../../batch/check.js';
import { openReport, refuseReportOverInput, sameFile, type ReportWriter } from '../../batch/report.js';
import { sendBatch, type LocalOutcome } from '../../batch/send.js';
import { openSource, valueSource, type BatchSource, type Position } from '../../batch/source.js';
import { startProgress } from '../../batch/progress.js';
import { mayRetry, operations } from '../../operations.js';
import { printResult } from '../../output/render.js';
import type { RequestResult } from '../../output/result.js';
import { failureHint } from '../../output/hints.js';
import { makeStyle } from '../../output/style.js';
import { validateReason } from '../../payload/reason.js';
import { printWarnings } from '../../send/deliver.js';
import { isRecord } from '../../input/fields.js';
import { joinUrl, maskHeaders } from '../../send/request.js';
import { openSession, type Session } from '../../send/session.js';
import { loadSendSettings, requireTerminal } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import type { SendOptions } from '../send-options.js';
import { appliedIn, type Applied } from '../../batch/resume.js';
import { hasReasonFields, layFields, parseName, reasonFromFlags, singleReasonFlags, type ReasonFields } from './build.js';
import { describeStop, STOP_GRACE_MS, stopReason, type StopReason } from '../../stop.js';
import { outcomeLine, summaryLine } from './render.js';
import { count } from '../../output/count.js';

export interface ReasonUpdateOptions extends SendOptions {
  global: GlobalOptions;
  fields: ReasonFields;
  /** Requests in flight at once, 1 to 64. */
  concurrency: number;
  /** After the first failure, start no new request. */
  failFast: boolean;
  /** Where to write one NDJSON line per reason, as each outcome is known. */
  report?: string;
  /** A --report of an earlier run: the reasons it shows applied are not sent again. */
  resume?: string;
  /** Print only the failures and the summary. */
  quiet?: boolean;
}

/**
 * `core reason update`: one reason from flags, or many from a file, through one path. The whole
 * input is checked first (nothing is sent if any reason is invalid), then sent with bounded
 * concurrency, with one result per reason on stdout and in the --report file.
 */
export async function runReasonUpdate(options: ReasonUpdateOptions, ctx: Context): Promise<number> {
  // --resume is read first: its report is often the very file this run reports to (docs/reasons.md,
  // "Running a batch again"). A report that cannot be read stops the run after the new report is
  // emptied, unless the two are one file: then it is left as it is, the only record of what an
  // earlier run applied.
  let applied: Applied | undefined;
  let unreadable: unknown;
  if (options.resume !== undefined) {
    try {
      applied = await appliedIn(options.resume, ctx.cwd, (message) => ctx.warn(message));
    } catch (error) {
      unreadable = error;
    }
  }
  // The report is emptied before anything can fail (docs/reasons.md, "The report"): a run that
  // stops early (a missing file or token, an invalid input) must not leave the previous run's
  // outcomes in it, for a script or CI to read as this run's. Nothing is written with --dry-run or --curl.
  let report: ReportWriter | undefined;
  if (unreadable !== undefined && options.report !== undefined && sameFile(options.report, options.resume!, ctx.cwd)) throw unreadable;
  if (!options.dryRun && !options.curl && options.report !== undefined) {
    refuseReportOverInput(options.report, options.file, ctx.cwd);
    report = openReport(options.report, ctx.cwd);
    // What the --resume report shows applied is carried into the new report at once, so it stays as
    // complete a record as the old one even if this run stops early: a later --resume still works.
    if (applied) {
      for (const code of applied.codes)
        report.write(ctx.json(localResult(applied.url ?? operations.reason.path, code, { resumed: true })).text);
    }
  }
  try {
    if (unreadable !== undefined) throw unreadable;
    return await updateFromOptions(options, ctx, report, applied);
  } finally {
    report?.close();
  }
}

async function updateFromOptions(
  options: ReasonUpdateOptions,
  ctx: Context,
  report: ReportWriter | undefined,
  applied: Applied | undefined,
): Promise<number> {
  // Checked before anything else, so that -i without a terminal fails at once instead of waiting.
  if (options.interactive) {
    requireTerminal(
      ctx,
      'core reason update',
      '--code CODE --name LOCALE=TEXT (with --color, --active or --inactive, --system as needed), or -f FILE',
    );
  }
  if (options.dryRun && options.curl) throw new UsageError('--dry-run and --curl cannot be used together');
  if (!options.interactive && options.file === undefined && !hasReasonFields(options.fields)) {
    throw new UsageError('nothing to update: give --code and --name LOCALE=TEXT, or -f FILE', {
      hint: 'for example: core reason update --code LUNCH --name en=Lunch',
    });
  }
  // Flag syntax first, so a typo stops the command before a large file is read.
  for (const name of options.fields.names ?? []) parseName(name);

  const settings = await loadSendSettings(options, ctx);
  // -i: the prompts read the file (one reason), lay the flags over it and ask for the rest; the
  // reason they return is what is sent, as a batch of one.
  const composed = options.interactive ? await (await import('./interactive.js')).composeReasonInteractively(options, ctx) : undefined;
  const fromFile = options.file !== undefined && composed === undefined;
  const spec: ItemSpec<unknown> = {
    prepare: fromFile ? (value) => layFields(value, options.fields) : (value) => value,
    validate: (payload) => validateReason(payload),
    // The reason schema has no transforms: what it accepts is what it returns (src/payload/reason.ts).
    accepted: (payload) => payload,
    keyOf: (payload) => (isRecord(payload) && typeof payload.code === 'string' ? payload.code : undefined),
  };
  const source = composed
    ? valueSource(composed, 'the prompts')
    : fromFile
      ? await openSource(options.file!, ctx)
      : valueSource(reasonFromFlags(options.fields));
  // For the composed reason, --verbose's note on `active` follows the answer, not the flags.
  const sendOptions = composed
    ? {
        ...options,
        file: undefined,
        fields: { ...options.fields, active: typeof composed.active === 'boolean' ? composed.active : undefined },
      }
    : options;
  try {
    const resumable: ResumableSpec = applied ? { ...spec, alreadyApplied: (key) => key !== undefined && applied.codes.has(key) } : spec;
    return await updateReasons(source, resumable, settings, sendOptions, ctx, report);
  } finally {
    await source.close();
  }
}

async function updateReasons(
  source: BatchSource,
  spec: ResumableSpec,
  settings: Settings,
  options: ReasonUpdateOptions,
  ctx: Context,
  report: ReportWriter | undefined,
): Promise<number> {
  const showOnly = options.dryRun || options.curl;
  if (showOnly && options.report !== undefined)
    ctx.warn(`--report is not written with ${options.dryRun ? '--dry-run' : '--curl'}: nothing is sent`);
  if (options.verbose && options.fields.active === undefined) {
    ctx.err(
      options.file === undefined
        ? '* active is not sent: the service applies its default, which the API gives as true\n'
        : '* reasons without "active" leave it to the service, whose default the API gives as true\n',
    );
  }
  const url = joinUrl(settings.baseUrl?.value ?? '', operations.reason.path);
  const local = (code: string | undefined, why: LocalOutcome): RequestResult => localResult(url, code, why);

  // The session applies the network rules and resolves the credential before the file is read: a
  // missing token fails at once, not after checking 100,000 lines. Its connections are kept alive,
  // at most one per request in flight: a batch of 1,000 reasons opens `concurrency` connections.
  const session = await openSession(operations.reason, settings, options, ctx, {
    pool: { keepAlive: true, maxSockets: options.concurrency },
    concurrency: options.concurrency,
  });
  try {
    // Before the first pass, so that both passes run with a heap sized for the little they keep;
    // the HTTP client is loaded first, so that its compiled code is cached under V8's defaults
    // (src/heap.ts).
    if (source.kind !== 'single' && !showOnly) {
      await session.ready();
      ctx.tuneHeapForBatch();
    }
    const summary = await checkAll(source, spec, options, ctx, local);
    if (showOnly) return await show(source, spec, summary, session, options, ctx);
    return await send(source, spec, summary, session, options, ctx, local, report);
  } finally {
    session.close();
  }
}

/** The checks of an item, and whether an earlier run applied it (--resume). */
type ResumableSpec = ItemSpec<unknown> & { alreadyApplied?: (key: string | undefined) => boolean };

/** The first pass: every reason checked, every problem listed (up to 50), or PayloadError and nothing sent. */
async function checkAll(
  source: BatchSource,
  spec: ItemSpec<unknown>,
  options: ReasonUpdateOptions,
  ctx: Context,
  local: (code: string | undefined, why: LocalOutcome) => RequestResult,
): Promise<CheckSummary<unknown>> {
  const singleOnly = source.kind === 'single' ? [] : singleReasonFlags(options.fields);
  const summary = await checkBatch(source, spec, {
    signal: ctx.signal,
    keyName: 'code',
    onItem: (checked, index) => {
      if (index === 1 && singleOnly.length > 0) {
        throw new UsageError(
          `${singleOnly.join(' and ')} ${singleOnly.length === 1 ? 'applies' : 'apply'} to one reason, and ${source.name} holds more than one`,
          {
            hint: 'put codes and names in the file; --color, --active/--inactive and --system apply to every reason',
          },
        );
      }
      // With --json, each invalid reason is also a result document on stdout (docs/reasons.md).
      if (options.json && !checked.ok) {
        const result = { ...local(checked.key, { problems: checked.problems }), ...positionField(checked.position) };
        ctx.out(ctx.json(result));
      }
    },
  });
  printWarnings(summary.warnings, ctx);
  if (summary.warningCount > summary.warnings.length)
    ctx.warn(`… and ${count(summary.warningCount - summary.warnings.length)} more warnings`);
  if (summary.problemCount > 0) {
    const problems = `${count(summary.problemCount)} ${summary.problemCount === 1 ? 'problem' : 'problems'}`;
    const message =
      source.kind === 'single'
        ? `the reason is invalid (${problems}); nothing was sent`
        : `${count(summary.invalid)} of ${count(summary.total)} reasons in ${source.name} ${summary.invalid === 1 ? 'is' : 'are'} invalid (${problems}); nothing was sent`;
    throw new PayloadError(message, listedProblems(summary), { hint: 'fix the reasons above; `core schema reason` prints every rule' });
  }
  return summary;
}

function positionField(position: Position): { line?: number; index?: number } {
  if (position.kind === 'line') return { line: position.line };
  if (position.kind === 'index') return { index: position.index };
  return {};
}

/** --dry-run: the count and the first request. --curl: one curl command per reason, in input order. */
async function show(
  source: BatchSource,
  spec: ResumableSpec,
  summary: CheckSummary<unknown>,
  session: Session,
  options: ReasonUpdateOptions,
  ctx: Context,
): Promise<number> {
  const batch = source.kind !== 'single';
  if (options.dryRun) {
    if (!batch) {
      ctx.out(session.show(summary.first));
    } else if (options.json) {
      const { method, url, headers, payload } = session.prepare(summary.first);
      ctx.out(ctx.json({ dryRun: true, count: summary.total, method, url, headers: maskHeaders(headers, ctx), body: payload }));
    } else {
      ctx.err(`dry run: all ${count(summary.total)} reasons in ${source.name} are valid; nothing was sent. The first request:\n`);
      ctx.out(session.show(summary.first, { json: false }));
    }
    return ExitCode.ok;
  }
  let written = 0;
  for await (const item of source.items()) {
    if (ctx.signal.aborted) return ExitCode.interrupted;
    const checked = checkItem(item, spec);
    if (!checked.ok) continue; // Only when the input changed since the check; nothing to show for it.
    if (spec.alreadyApplied?.(checked.key)) continue; // --resume: it would not be sent.
    // Curl commands are set apart by a blank line; JSON documents are one a line (NDJSON).
    if (written > 0 && !options.json) ctx.out('\n');
    ctx.out(session.show(checked.value));
    written += 1;
  }
  if (batch) ctx.err(`${count(written)} curl commands, one per reason; nothing was sent\n`);
  return ExitCode.ok;
}

/** The second pass: send every reason, print and record each outcome, and decide the exit code. */
async function send(
  source: BatchSource,
  spec: ResumableSpec,
  summary: CheckSummary<unknown>,
  session: Session,
  options: ReasonUpdateOptions,
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
  const style = makeStyle(ctx.color.stdout, ctx.glyphs);
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
      send: (payload, code, slot) =>
        // A batch of one is shown as a single request is, its retries announced on stderr too.
        session.send(payload, {
          retryable,
          ...(code !== undefined ? { code } : {}),
          signal: ctx.abandonSignal,
          retrySignal: ctx.signal,
          announceRetries: single,
          ...(slot ? { slot } : {}),
        }),
      localResult: local,
      onResult: (result) => {
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
      },
      onInterrupt: (inFlight) => progress.note(interruptNote(stopReason(ctx.signal), inFlight)),
      onFailFast: () => {
        stoppedByFailure = true;
      },
    });
    progress.stop();
    if (!single || tally.interrupted || tally.resumed > 0) ctx.err(summaryLine(tally, stoppedByFailure, options.resume));
    for (const [status, result] of failures) {
      const hint = failureHint(result, { operation: 'reason', retryable, retries: session.settings.retries.value });
      if (hint !== undefined) ctx.err(`hint${single ? '' : ` (${status})`}: ${hint}\n`);
    }
    if (report && (tally.failed > 0 || tally.skipped > 0)) ctx.err(`report: ${report.path} holds one line per reason\n`);
    return tally.interrupted ? ExitCode.interrupted : tally.exitCode;
  } finally {
    progress.stop();
    releaseOutput();
  }
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
