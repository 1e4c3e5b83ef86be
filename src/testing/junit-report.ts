import { unreachableJunit } from './unreachable.js';
import { xmlAttr, xmlText } from './xml.js';
import type { Failure } from './results.js';
import { runsText, showValue, whereFailed, type FileReport, type RunReport } from './report.js';
import { isFlaky, outcomeOf, type ConversationSummary } from './suite.js';

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
  const total = report.passed + report.failed;
  const errors = report.unreachable ? total : 0;
  const failures = report.unreachable ? 0 : report.failed;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="core test" tests="${total}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds(report.durationMs)}" timestamp="${report.startedAt}">`,
  ];
  for (const file of report.files) out.push(...testsuite(report, file));
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** A file's <testsuite>: its totals, then a <testcase> per conversation. */
function testsuite(report: RunReport, file: FileReport): string[] {
  const fileFailed = file.conversations.filter((r) => outcomeOf(r) === 'failed').length;
  const time = file.conversations.reduce((sum, r) => sum + r.durationMs, 0);
  return [
    `  <testsuite name="${attr(file.name)}" tests="${file.conversations.length}" failures="${report.unreachable ? 0 : fileFailed}" ` +
      `errors="${report.unreachable ? file.conversations.length : 0}" skipped="0" time="${seconds(time)}" timestamp="${report.startedAt}" file="${attr(file.file)}">`,
    ...file.conversations.flatMap((summary) => testcase(report, file, summary)),
    '  </testsuite>',
  ];
}

/** A conversation's <testcase>: its runs with --repeat, its <failure> or <error>, and its <system-out>. */
function testcase(report: RunReport, file: FileReport, summary: ConversationSummary): string[] {
  const result = summary.shown;
  const open =
    `    <testcase name="${attr(summary.name)}" classname="${attr(file.name)}" file="${attr(summary.file)}" line="${summary.line}" ` +
    `time="${seconds(summary.durationMs)}"`;
  const inner: string[] = report.repeat > 1 ? properties(summary) : [];
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
  return inner.length === 0 ? [`${open}/>`] : [`${open}>`, ...inner, '    </testcase>'];
}

/** A conversation's runs as <properties>: runs, failedRuns, flaky, and the latency percentiles in ms. */
function properties(summary: ConversationSummary): string[] {
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
  return [
    '      <properties>',
    ...properties.map(([name, value]) => `        <property name="${name}" value="${attr(String(value))}"/>`),
    '      </properties>',
  ];
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
