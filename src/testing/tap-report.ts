import { tapDocument, type TapPoint } from './tap.js';
import type { RunReport } from './report.js';
import { isFlaky, outcomeOf } from './suite.js';

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
