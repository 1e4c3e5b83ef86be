import type { Settings } from '../../config/index.js';
import type { Context } from '../../context.js';
import { ExitCode, PayloadError, UsageError } from '../../errors.js';
import { checkBatch, checkItem, listedProblems, type CheckSummary, type ItemSpec } from '../../batch/check.js';
import { openReport, refuseReportOverInput, sameFile, type ReportWriter } from '../../batch/report.js';
import type { LocalOutcome } from '../../batch/send.js';
import { openSource, valueSource, type BatchSource, type Position } from '../../batch/source.js';
import { operations } from '../../operations.js';
import type { RequestResult } from '../../output/result.js';
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
import { count } from '../../output/count.js';
import { localResult, send, type ResumableSpec } from './send.js';

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
