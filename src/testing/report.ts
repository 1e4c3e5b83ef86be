import type { Style } from '../output/style.js';
import { stringifyJson } from '../payload/json.js';
import { looksLikePattern } from './pattern.js';
import { tapDocument, type TapPoint } from './tap.js';
import { unreachableJson, unreachableJunit, type Unreachable } from './unreachable.js';
import { xmlAttr, xmlText } from './xml.js';
import { coverageReport, type CoverageCounts } from './coverage.js';
import type { PlannedFile } from './load.js';
import { formatLatency, formatMs, type Failure } from './runner.js';
import { isFlaky, outcomeOf, type ConversationSummary } from './suite.js';

/**
 * The result of a `core test` run as data, and its four renderings (docs/testing-bots.md,
 * "Reports"): human, JUnit XML, TAP 14 and JSON. Every reporter renders the same `RunReport`: one
 * entry per conversation (or examples row), its runs summarised, the first failing run in detail.
 */

export const REPORTERS = ['human', 'junit', 'tap', 'json'] as const;
export type Reporter = (typeof REPORTERS)[number];

export interface FileReport {
  file: string;
  name: string;
  conversations: ConversationSummary[];
}

export interface RunReport {
  /** When the run started, ISO 8601. */
  startedAt: string;
  durationMs: number;
  files: FileReport[];
  passed: number;
  failed: number;
  /** Conversations some of whose runs failed and some passed (counted among the failed). */
  flaky: number;
  /** Runs of each conversation (--repeat; 1 without it). */
  repeat: number;
  /** What the suite exercised, with --coverage; null without it. */
  coverage: ReturnType<typeof coverageReport> | null;
  /**
   * Set when the bot could not be reached at all, or the sandbox at --sandbox: no conversation could be
   * played. `url` is the one that could not be reached (the bot's null when the sandbox did not say it).
   */
  unreachable: (Unreachable & { url: string | null }) | null;
}

export function buildReport(
  files: readonly PlannedFile[],
  summaries: readonly ConversationSummary[],
  init: Omit<RunReport, 'files' | 'passed' | 'failed' | 'flaky' | 'coverage'> & { coverage: CoverageCounts | null },
): RunReport {
  const byOrdinal = new Map(summaries.map((summary) => [summary.ordinal, summary]));
  const byFile = files.map((file) => ({
    file: file.file,
    name: file.name,
    conversations: file.conversations
      .map((conversation) => byOrdinal.get(conversation.ordinal))
      .filter((r): r is ConversationSummary => r !== undefined),
  }));
  const all = byFile.flatMap((file) => file.conversations);
  return {
    ...init,
    coverage: init.coverage === null ? null : coverageReport(init.coverage),
    files: byFile,
    passed: all.filter((r) => outcomeOf(r) === 'passed').length,
    failed: all.filter((r) => outcomeOf(r) === 'failed').length,
    flaky: all.filter(isFlaky).length,
  };
}

/** Which step failed, for people: `step 4, line 9 (bot)`, or `after the last step, line 9`. */
export function whereFailed(summary: ConversationSummary): string {
  const result = summary.shown;
  const failure = result.failure;
  if (failure === undefined) return '';
  const run = summary.runs > 1 ? `run ${summary.shownRun} of ${summary.runs}, ` : '';
  if (failure.stepIndex === null) {
    return `${run}${result.sessionId === null ? `the start, line ${failure.line}` : `after the last step, line ${failure.line}`}`;
  }
  const step = result.steps[failure.stepIndex]!;
  return `${run}step ${failure.stepIndex + 1}, line ${failure.line} (${step.title})`;
}

/** `100 runs, 3 failed (flaky), p50 12 ms, p95 40 ms, max 52 ms`: a conversation's runs in short. */
export function runsText(summary: ConversationSummary): string {
  const parts: string[] = [];
  if (summary.runs > 1) {
    parts.push(`${summary.runs} runs`);
    if (summary.failedRuns > 0) parts.push(`${summary.failedRuns} failed${isFlaky(summary) ? ' (flaky)' : ''}`);
  }
  const latency = summary.latency.summary();
  if (latency !== null && summary.runs > 1) {
    parts.push(`p50 ${formatLatency(latency.p50)}, p95 ${formatLatency(latency.p95)}, max ${formatLatency(latency.max)}`);
  }
  return parts.join(', ');
}

// ---- human ------------------------------------------------------------------------------------

/** The line printed as each conversation ends. */
export function conversationLine(summary: ConversationSummary, style: Style): string {
  const mark = outcomeOf(summary) === 'passed' ? style.green(style.glyphs.ok) : style.red(style.glyphs.fail);
  const runs = runsText(summary);
  const flaky = isFlaky(summary) ? ` ${style.yellow('flaky')}` : '';
  return `${mark} ${summary.name}${flaky} ${style.dim(`(${summary.file}:${summary.line}, ${runs === '' ? '' : `${runs}, `}${formatMs(summary.durationMs)})`)}\n`;
}

/** What is shown for an expected or received value: patterns as written, the rest as JSON, absence as such. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value === 'string' && looksLikePattern(value)) return value;
  return stringifyJson(value) ?? String(value);
}

/** A failure in detail: where, why, and the fields that differ, expected against received. */
export function failureText(summary: ConversationSummary, style: Style): string {
  const result = summary.shown;
  const failure = result.failure;
  if (failure === undefined) return '';
  const lines = [
    `${style.red(style.glyphs.fail)} ${style.bold(summary.name)}${isFlaky(summary) ? ` ${style.yellow('flaky')}` : ''} ${style.dim(`(${summary.file})`)}`,
    `  ${whereFailed(summary)}${result.sessionId ? style.dim(`, conversation ${result.sessionId}`) : ''}`,
    `  ${failure.message}`,
  ];
  for (const diff of failure.diff ?? []) {
    lines.push(`    ${diff.path || '(the answer)'}`);
    lines.push(style.red(`      - expected  ${showValue(diff.expected)}`));
    lines.push(style.green(`      + received  ${showValue(diff.received)}`));
  }
  if (failure.diff === undefined && failure.expected !== undefined) lines.push(`  expected: ${showValue(failure.expected)}`);
  if (failure.received !== undefined) lines.push(`  the answer: ${showValue(failure.received)}`);
  return `${lines.join('\n')}\n`;
}

/** The closing line: `2 passed, 1 failed`, and what ran. */
export function summaryLine(report: RunReport, style: Style): string {
  const counts =
    `${style.green(`${report.passed} passed`)}, ${report.failed > 0 ? style.red(`${report.failed} failed`) : '0 failed'}` +
    (report.flaky > 0 ? ` (${style.yellow(`${report.flaky} flaky`)})` : '');
  const conversations = report.passed + report.failed;
  const runs = report.repeat > 1 ? `, ${report.repeat} runs each` : '';
  return `${counts} ${style.dim(`(${conversations} conversation${conversations === 1 ? '' : 's'} in ${report.files.length} file${report.files.length === 1 ? '' : 's'}${runs}, ${formatMs(report.durationMs)})`)}\n`;
}

/** The suite's blind spots, with --coverage: what of the platform no run exercised. */
export function coverageText(report: RunReport, style: Style): string {
  if (report.coverage === null) return '';
  const { notExercised } = report.coverage;
  if (notExercised.length === 0) return `coverage: every channel, code, feature, action and outcome was exercised\n`;
  return `${style.yellow('not exercised')}: ${notExercised.join(', ')}\n`;
}

/** The whole human report: a line per conversation, each failure in detail, and the closing line. */
export function renderHuman(report: RunReport, style: Style): string {
  if (report.unreachable) return `${style.red('error:')} ${report.unreachable.message}\n`;
  const all = report.files.flatMap((file) => file.conversations);
  let out = all.map((result) => conversationLine(result, style)).join('');
  const failed = all.filter((result) => outcomeOf(result) === 'failed');
  if (failed.length > 0) out += `\n${failed.map((result) => failureText(result, style)).join('\n')}`;
  return `${out}\n${summaryLine(report, style)}${coverageText(report, style)}`;
}

// ---- JUnit XML --------------------------------------------------------------------------------

/**
 * JUnit XML as CI systems read it (Jenkins, GitLab, GitHub Actions reporters, Azure): <testsuites>
 * with the totals, a <testsuite> per file, a <testcase> per conversation (or examples row), and a
 * <failure> (a step failed) or an <error> (the bot or the sandbox could not be reached) with the message and the
 * details. With --repeat a conversation is still one testcase, failed when any run failed; its runs
 * are in its <properties> (runs, failedRuns, flaky, latency.p50/p95/max in ms) and, for consumers
 * that show only output, in its <system-out>. Beyond the common schema a testcase carries `file`
 * and `line`, which GitLab and the GitHub reporters link to and Jenkins ignores.
 */
export function renderJunit(report: RunReport): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = report.passed + report.failed;
  const errors = report.unreachable ? total : 0;
  const failures = report.unreachable ? 0 : report.failed;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="core test" tests="${total}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds(report.durationMs)}" timestamp="${report.startedAt}">`,
  ];
  for (const file of report.files) {
    const fileFailed = file.conversations.filter((r) => outcomeOf(r) === 'failed').length;
    // The span of its conversations, which run at once: a sum would exceed the run's own time.
    const spans = file.conversations.flatMap((r) => (r.span === null ? [] : [r.span]));
    let from = Infinity;
    let to = -Infinity;
    for (const span of spans) {
      from = Math.min(from, span.from);
      to = Math.max(to, span.to);
    }
    const time = spans.length === 0 ? 0 : Math.round(to - from);
    out.push(
      `  <testsuite name="${attr(file.name)}" tests="${file.conversations.length}" failures="${report.unreachable ? 0 : fileFailed}" ` +
        `errors="${report.unreachable ? file.conversations.length : 0}" skipped="0" time="${seconds(time)}" timestamp="${report.startedAt}" file="${attr(file.file)}">`,
    );
    for (const summary of file.conversations) {
      const result = summary.shown;
      const open =
        `    <testcase name="${attr(summary.name)}" classname="${attr(file.name)}" file="${attr(summary.file)}" line="${summary.line}" ` +
        `time="${seconds(summary.durationMs)}"`;
      const inner: string[] = [];
      if (report.repeat > 1) {
        const latency = summary.latency.summary();
        const properties: [string, string | number | boolean][] = [
          ['runs', summary.runs],
          ['failedRuns', summary.failedRuns],
          ['flaky', isFlaky(summary)],
          ...(latency === null
            ? []
            : ([
                ['latency.p50', latency.p50],
                ['latency.p95', latency.p95],
                ['latency.max', latency.max],
              ] as [string, number][])),
        ];
        inner.push(
          '      <properties>',
          ...properties.map(([name, value]) => `        <property name="${name}" value="${attr(String(value))}"/>`),
          '      </properties>',
        );
      }
      if (report.unreachable) inner.push(`      ${unreachableJunit(report.unreachable)}`);
      else if (result.failure) {
        inner.push(
          `      <failure message="${attr(`${whereFailed(summary)}: ${result.failure.message}`)}" type="ConversationFailure">${text(failureDetails(summary))}</failure>`,
        );
      }
      const output = [
        ...(report.repeat > 1 ? [runsText(summary) || `${summary.runs} runs`] : []),
        ...(result.failure && result.sessionId ? [`sandbox conversation ${result.sessionId}`] : []),
      ];
      if (output.length > 0 && !report.unreachable) inner.push(`      <system-out>${text(output.join('\n'))}</system-out>`);
      if (inner.length === 0) out.push(`${open}/>`);
      else out.push(`${open}>`, ...inner, '    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** The details of a failure as plain text (the human view without colour). */
function failureDetails(summary: ConversationSummary): string {
  const result = summary.shown;
  const failure = result.failure as Failure;
  const lines = [`${summary.file}:${result.failure!.line}: ${whereFailed(summary)}`, failure.message];
  for (const diff of failure.diff ?? []) {
    lines.push(`${diff.path || '(the answer)'}`, `  - expected  ${showValue(diff.expected)}`, `  + received  ${showValue(diff.received)}`);
  }
  if (failure.diff === undefined && failure.expected !== undefined) lines.push(`expected: ${showValue(failure.expected)}`);
  if (failure.received !== undefined) lines.push(`the answer: ${showValue(failure.received)}`);
  return lines.join('\n');
}

const text = xmlText;
const attr = xmlAttr;

// ---- TAP 14 -----------------------------------------------------------------------------------

/**
 * TAP version 14: a test point per conversation, the failure's details (and, with --repeat, the
 * runs) in a YAML diagnostic block written without anchors or aliases, and `Bail out!` when the bot
 * or the sandbox could not be reached.
 */
export async function renderTap(report: RunReport): Promise<string> {
  const all = report.files.flatMap((file) => file.conversations);
  const points = all.map((summary): TapPoint => {
    const result = summary.shown;
    const block: Record<string, unknown> = {};
    if (result.failure) {
      const failure = result.failure;
      Object.assign(block, {
        message: failure.message,
        at: { file: summary.file, line: failure.line },
        step: failure.stepIndex === null ? null : failure.stepIndex + 1,
        conversation: result.sessionId,
        duration_ms: result.durationMs,
      });
      // The values as YAML, identifiers exact; an absent field as null, with `absent: true`.
      if (failure.diff) {
        block.diff = failure.diff.map((d) => ({
          path: d.path,
          expected: d.expected,
          received: d.received ?? null,
          ...(d.received === undefined ? { absent: true } : {}),
        }));
      } else if (failure.expected !== undefined) block.expected = failure.expected;
      if (failure.received !== undefined) block.received = failure.received;
    }
    if (report.repeat > 1) {
      Object.assign(block, { runs: summary.runs, failed_runs: summary.failedRuns, flaky: isFlaky(summary) });
      if (result.failure) block.failed_run = summary.shownRun;
      const latency = summary.latency.summary();
      if (latency !== null) block.latency_ms = latency;
    }
    return { ok: outcomeOf(summary) === 'passed', description: `${summary.file}: ${summary.name}`, block };
  });
  return tapDocument(points, report.unreachable?.message ?? null);
}

// ---- JSON -------------------------------------------------------------------------------------

/** One JSON document (docs/json-output.md, "core test"); identifiers exact. */
export function renderJson(report: RunReport): string {
  const document = {
    ok: report.failed === 0 && report.unreachable === null,
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    summary: {
      files: report.files.length,
      conversations: report.passed + report.failed,
      passed: report.passed,
      failed: report.failed,
      flaky: report.flaky,
      runsEach: report.repeat,
    },
    error: report.unreachable ? unreachableJson(report.unreachable, report.unreachable.url) : null,
    files: report.files.map((file) => ({
      file: file.file,
      name: file.name,
      conversations: file.conversations.map((summary) => {
        const result = summary.shown;
        return {
          name: summary.name,
          line: summary.line,
          channel: summary.channel,
          row: summary.row,
          sessionId: result.sessionId,
          outcome: outcomeOf(summary),
          durationMs: summary.durationMs,
          runs: summary.runs,
          failedRuns: summary.failedRuns,
          flaky: isFlaky(summary),
          latencyMs: summary.latency.summary(),
          run: summary.shownRun,
          steps: result.steps.map((step) => ({
            step: step.index + 1,
            line: step.line,
            title: step.title,
            outcome: step.outcome,
            durationMs: step.durationMs,
            latencyMs: step.latencyMs ?? null,
          })),
          failure: result.failure
            ? {
                step: result.failure.stepIndex === null ? null : result.failure.stepIndex + 1,
                line: result.failure.line,
                message: result.failure.message,
                expected: result.failure.expected ?? null,
                received: result.failure.received ?? null,
                diff: (result.failure.diff ?? []).map((d) => ({
                  path: d.path,
                  expected: d.expected ?? null,
                  received: d.received ?? null,
                  absent: d.received === undefined,
                })),
              }
            : null,
        };
      }),
    })),
    coverage: report.coverage,
  };
  return `${stringifyJson(document, 2)}\n`;
}
