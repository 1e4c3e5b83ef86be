import { stringifyJson } from '../payload/json.js';
import { unreachableJson } from './unreachable.js';
import type { RunReport } from './report.js';
import type { RunResult } from './results.js';
import { isFlaky, outcomeOf, type ConversationSummary } from './suite.js';

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
      conversations: file.conversations.map(conversationJson),
    })),
    coverage: report.coverage,
  };
  return `${stringifyJson(document, 2)}\n`;
}

/** A conversation: its place, its runs, and the run shown in detail, step by step, with its failure. */
function conversationJson(summary: ConversationSummary) {
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
    failure: result.failure ? failureJson(result.failure) : null,
  };
}

/** A run's failure: where, why, and the fields that differ (an absent field received as null, with `absent`). */
function failureJson(failure: NonNullable<RunResult['failure']>) {
  return {
    step: failure.stepIndex === null ? null : failure.stepIndex + 1,
    line: failure.line,
    message: failure.message,
    expected: failure.expected ?? null,
    received: failure.received ?? null,
    diff: (failure.diff ?? []).map((d) => ({
      path: d.path,
      expected: d.expected ?? null,
      received: d.received ?? null,
      absent: d.received === undefined,
    })),
  };
}
