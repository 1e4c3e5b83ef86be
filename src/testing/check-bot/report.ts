import { formatDuration } from '../../config/duration.js';
import type { Style } from '../../output/style.js';
import { printable } from '../../output/terminal.js';
import { stringifyJson } from '../../payload/json.js';
import { tapDocument } from '../tap.js';
import { unreachableJson, unreachableJunit } from '../unreachable.js';
import { xmlAttr, xmlText } from '../xml.js';
import type { BatteryReport, CheckResult } from './battery.js';
import type { CheckReporter } from './ids.js';

/**
 * The report of `core check-bot` as data (`BatteryReport`) and its four renderings (docs/check-bot.md,
 * "Reports"): a table for people, JSON, JUnit XML and TAP 14, as `core test` writes them.
 */

export { CHECK_REPORTERS, type CheckReporter } from './ids.js';

export interface ReportContext {
  /** The sandbox the checks ran through and the bot it delivered to. */
  sandboxUrl: string;
  botUrl: string | null;
  /** Whether the sandbox goes on running after the report (--sandbox): its conversations can then be read. */
  sandboxKept: boolean;
}

// ---- human ------------------------------------------------------------------------------------

/**
 * The table: check, pass or FAIL, what happened; under a failed check, the fix in one line. The
 * closing line counts them.
 */
export function renderTable(report: BatteryReport, context: ReportContext, style: Style): string {
  if (report.unreachable) return `${style.red('error:')} ${report.unreachable.message}\n`;
  const width = Math.max('check'.length, ...report.checks.map((check) => check.id.length));
  const pad = (text: string, size: number) => text + ' '.repeat(Math.max(0, size - text.length));
  const lines = [style.bold(`${pad('check', width)}  ${pad('result', 6)}  what happened`)];
  for (const check of report.checks) {
    const result = check.status === 'pass' ? style.green(pad('pass', 6)) : style.red(pad('FAIL', 6));
    // A message quotes what the bot sent (an answerId, a status text): every control character in it
    // escaped, line breaks and colour codes included, so the bot cannot draw rows of its own.
    lines.push(`${pad(check.id, width)}  ${result}  ${printable(check.message)}`);
    if (check.fix !== null) lines.push(`${' '.repeat(width + 10)}${style.dim('fix:')} ${printable(check.fix)}`);
    for (const [label, value] of replayLines(check)) lines.push(`${' '.repeat(width + 10)}${style.dim(`${label}:`)} ${value}`);
  }
  return `${lines.join('\n')}\n\n${summaryLine(report, context, style)}`;
}

/** What a fuzzed case adds to a failed check: the command that replays it and the delivery that broke the bot. */
interface Replayable {
  command?: string | null;
  delivery?: string | null;
  replay?: string | null;
}

function replayLines(check: CheckResult & Replayable): [string, string][] {
  const lines: [string, string][] = [];
  if (check.command) lines.push(['replay', check.command]);
  if (check.delivery) lines.push(['delivery', printableBody(check.delivery)]);
  return lines;
}

/** A delivery's body on one line: its control characters and separators as escapes, 2,000 characters at most. */
function printableBody(body: string): string {
  const escaped = body.replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return escaped.length > 2000 ? `${escaped.slice(0, 2000)}… (${body.length} characters)` : escaped;
}

export function summaryLine(report: BatteryReport, context: ReportContext, style: Style): string {
  const counts = `${style.green(`${report.passed} passed`)}, ${report.failed > 0 ? style.red(`${report.failed} failed`) : '0 failed'}`;
  const total = report.passed + report.failed;
  const where = context.sandboxKept ? `; each check's conversation is in the sandbox at ${context.sandboxUrl}` : '';
  return `${counts} ${style.dim(`(${total} check${total === 1 ? '' : 's'} of the bot at ${context.botUrl ?? "the sandbox's --bot-url"}, ${formatDuration(report.durationMs)})`)}${where}\n`;
}

// ---- JSON -------------------------------------------------------------------------------------

/** One JSON document (docs/json-output.md, "core check-bot"). */
export function renderCheckJson(report: BatteryReport, context: ReportContext): string {
  const document = {
    ok: report.failed === 0 && report.unreachable === null,
    startedAt: report.startedAt,
    durationMs: report.durationMs,
    botUrl: context.botUrl,
    sandboxUrl: context.sandboxUrl,
    tenant: report.tenant,
    timeoutMs: report.timeoutMs,
    checks: report.checks.map((check) => ({
      id: check.id,
      status: check.status,
      message: check.message,
      fix: check.fix,
      sends: check.sends,
      passes: check.passes,
      sessionId: check.sessionId,
      durationMs: check.durationMs,
      ...fuzzFields(check),
    })),
    summary: { checks: report.checks.length, passed: report.passed, failed: report.failed },
    error: report.unreachable
      ? unreachableJson(report.unreachable, report.unreachable.kind === 'bot' ? context.botUrl : context.sandboxUrl)
      : null,
  };
  return `${stringifyJson(document, 2)}\n`;
}

/** The replay spec, command and delivery of a fuzzed case, in the JSON report. */
function fuzzFields(check: CheckResult & Replayable): Record<string, unknown> {
  return check.replay === undefined ? {} : { replay: check.replay, command: check.command ?? null, delivery: check.delivery ?? null };
}

// ---- JUnit XML --------------------------------------------------------------------------------

/**
 * JUnit XML: one <testsuite> "core check-bot", a <testcase> per check, a <failure> with the message and
 * the fix; every case an <error> when the bot or the sandbox could not be reached.
 */
export function renderCheckJunit(report: BatteryReport): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const total = report.checks.length;
  const errors = report.unreachable ? total : 0;
  const failures = report.unreachable ? 0 : report.failed;
  const head = `tests="${total}" failures="${failures}" errors="${errors}" skipped="0" time="${seconds(report.durationMs)}" timestamp="${report.startedAt}"`;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="core check-bot" ${head}>`,
    `  <testsuite name="core check-bot" ${head}>`,
  ];
  for (const check of report.checks) {
    const open = `    <testcase name="${xmlAttr(check.id)}" classname="core check-bot" time="${seconds(check.durationMs)}"`;
    if (report.unreachable) {
      out.push(`${open}>`, `      ${unreachableJunit(report.unreachable)}`, '    </testcase>');
    } else if (check.status === 'fail') {
      out.push(
        `${open}>`,
        `      <failure message="${xmlAttr(check.message)}" type="CheckFailure">${xmlText(details(check))}</failure>`,
        ...(check.sessionId ? [`      <system-out>${xmlText(`sandbox conversation ${check.sessionId}`)}</system-out>`] : []),
        '    </testcase>',
      );
    } else out.push(`${open}/>`);
  }
  out.push('  </testsuite>', '</testsuites>');
  return `${out.join('\n')}\n`;
}

function details(check: CheckResult & Replayable): string {
  return [
    `sent: ${check.sends}`,
    `passes when: ${check.passes}`,
    `what happened: ${check.message}`,
    `fix: ${check.fix ?? ''}`,
    ...(check.command ? [`replay: ${check.command}`] : []),
    ...(check.delivery ? [`delivery: ${check.delivery}`] : []),
  ].join('\n');
}

// ---- TAP 14 -----------------------------------------------------------------------------------

/**
 * TAP version 14: a test point per check, the message and the fix of a failure in a YAML block; `Bail out!`
 * when the bot or the sandbox could not be reached.
 */
export function renderCheckTap(report: BatteryReport): Promise<string> {
  const points = report.checks.map((check) => ({
    ok: check.status === 'pass',
    description: check.id,
    ...(check.status === 'fail'
      ? {
          block: {
            message: check.message,
            fix: check.fix,
            sent: check.sends,
            conversation: check.sessionId,
            duration_ms: check.durationMs,
            ...((check as Replayable).command ? { replay: (check as Replayable).command, delivery: (check as Replayable).delivery } : {}),
          },
        }
      : {}),
  }));
  return tapDocument(points, report.unreachable?.message ?? null);
}

export async function renderCheckReport(
  report: BatteryReport,
  reporter: CheckReporter,
  context: ReportContext,
  style: Style,
): Promise<string> {
  switch (reporter) {
    case 'junit':
      return renderCheckJunit(report);
    case 'tap':
      return renderCheckTap(report);
    case 'json':
      return renderCheckJson(report, context);
    case 'human':
      return renderTable(report, context, style);
  }
}
