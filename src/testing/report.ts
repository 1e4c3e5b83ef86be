import { stringifyJson } from '../payload/json.js';
import { looksLikePattern } from './pattern.js';
import { printable } from '../output/terminal.js';
import type { Unreachable } from './unreachable.js';
import { coverageReport, type CoverageCounts } from './coverage.js';
import type { PlannedFile } from './load.js';
import { formatLatency } from './results.js';
import { isFlaky, outcomeOf, type ConversationSummary } from './suite.js';

/**
 * The result of a `core test` run as data (docs/testing-bots.md, "Reports"), and what its four
 * renderings share. Every reporter renders the same `RunReport`: one entry per conversation (or
 * examples row), its runs summarised, the first failing run in detail: human (src/output/conversations.ts),
 * JUnit XML (junit-report.ts), TAP 14 (tap-report.ts) and JSON (json-report.ts).
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

/** What is shown for an expected or received value: patterns as written, the rest as JSON, absence as such. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  // A string written like a pattern is shown as written, its control characters escaped (JSON escapes the rest).
  if (typeof value === 'string' && looksLikePattern(value)) return printable(value);
  return stringifyJson(value) ?? String(value);
}
