import { stringifyJson } from '../payload/json.js';
import { unreachableJson } from './unreachable.js';
import type { RunReport } from './report.js';
import { isFlaky, outcomeOf } from './suite.js';

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
