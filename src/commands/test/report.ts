import { cjs } from '../../interop.js';
import type { Style } from '../../output/style.js';
import { stringifyJson } from '../../payload/json.js';
import { looksLikePattern } from '../../testing/pattern.js';
import { xmlAttr, xmlText } from '../../testing/xml.js';
import type { PlannedFile } from './load.js';
import { formatMs, type ConversationResult, type Failure } from './runner.js';

/**
 * The result of a `core test` run as data, and its four renderings (docs/testing-bots.md,
 * "Reports"): human, JUnit XML, TAP 14 and JSON. Every reporter renders the same `RunReport`.
 */

export const REPORTERS = ['human', 'junit', 'tap', 'json'] as const;
export type Reporter = (typeof REPORTERS)[number];

export interface FileReport {
  file: string;
  name: string;
  conversations: ConversationResult[];
}

export interface RunReport {
  /** When the run started, ISO 8601. */
  startedAt: string;
  durationMs: number;
  files: FileReport[];
  passed: number;
  failed: number;
  /** Set when the bot could not be reached at all: no conversation could be played. */
  unreachable: { url: string | null; message: string } | null;
}

export function buildReport(
  files: readonly PlannedFile[],
  results: readonly ConversationResult[],
  init: Omit<RunReport, 'files' | 'passed' | 'failed'>,
): RunReport {
  const byFile = files.map((file) => ({
    file: file.file,
    name: file.name,
    conversations: file.conversations
      .map((conversation) => results.find((r) => r.file === conversation.file && r.index === conversation.index))
      .filter((r): r is ConversationResult => r !== undefined),
  }));
  const all = byFile.flatMap((file) => file.conversations);
  return {
    ...init,
    files: byFile,
    passed: all.filter((r) => r.outcome === 'passed').length,
    failed: all.filter((r) => r.outcome === 'failed').length,
  };
}

/** Which step failed, for people: `step 4, line 9 (bot)`, or `after the last step, line 9`. */
export function whereFailed(result: ConversationResult): string {
  const failure = result.failure;
  if (failure === undefined) return '';
  if (failure.stepIndex === null) {
    return result.sessionId === null ? `the start, line ${failure.line}` : `after the last step, line ${failure.line}`;
  }
  const step = result.steps[failure.stepIndex]!;
  return `step ${failure.stepIndex + 1}, line ${failure.line} (${step.title})`;
}

// ---- human ------------------------------------------------------------------------------------

/** The line printed as each conversation ends. */
export function conversationLine(result: ConversationResult, style: Style): string {
  const mark = result.outcome === 'passed' ? style.green('✓') : style.red('✗');
  return `${mark} ${result.name} ${style.dim(`(${result.file}:${result.line}, ${formatMs(result.durationMs)})`)}\n`;
}

/** What is shown for an expected or received value: patterns as written, the rest as JSON, absence as such. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value === 'string' && looksLikePattern(value)) return value;
  return stringifyJson(value) ?? String(value);
}

/** A failure in detail: where, why, and the fields that differ, expected against received. */
export function failureText(result: ConversationResult, style: Style): string {
  const failure = result.failure;
  if (failure === undefined) return '';
  const lines = [
    `${style.red('✗')} ${style.bold(result.name)} ${style.dim(`(${result.file})`)}`,
    `  ${whereFailed(result)}${result.sessionId ? style.dim(`, conversation ${result.sessionId}`) : ''}`,
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
  const counts = `${style.green(`${report.passed} passed`)}, ${report.failed > 0 ? style.red(`${report.failed} failed`) : '0 failed'}`;
  const conversations = report.passed + report.failed;
  return `${counts} ${style.dim(`(${conversations} conversation${conversations === 1 ? '' : 's'} in ${report.files.length} file${report.files.length === 1 ? '' : 's'}, ${formatMs(report.durationMs)})`)}\n`;
}

/** The whole human report: a line per conversation, each failure in detail, and the closing line. */
export function renderHuman(report: RunReport, style: Style): string {
  if (report.unreachable) return `${style.red('error:')} ${report.unreachable.message}\n`;
  const all = report.files.flatMap((file) => file.conversations);
  let out = all.map((result) => conversationLine(result, style)).join('');
  const failed = all.filter((result) => result.outcome === 'failed');
  if (failed.length > 0) out += `\n${failed.map((result) => failureText(result, style)).join('\n')}`;
  return `${out}\n${summaryLine(report, style)}`;
}

// ---- JUnit XML --------------------------------------------------------------------------------

/**
 * JUnit XML as CI systems read it (Jenkins, GitLab, GitHub Actions reporters, Azure): <testsuites>
 * with the totals, a <testsuite> per file, a <testcase> per conversation, and a <failure> (a step
 * failed) or an <error> (the bot could not be reached) with the message and the details.
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
    const fileFailed = file.conversations.filter((r) => r.outcome === 'failed').length;
    const time = file.conversations.reduce((sum, r) => sum + r.durationMs, 0);
    out.push(
      `  <testsuite name="${attr(file.name)}" tests="${file.conversations.length}" failures="${report.unreachable ? 0 : fileFailed}" ` +
        `errors="${report.unreachable ? file.conversations.length : 0}" skipped="0" time="${seconds(time)}" timestamp="${report.startedAt}" file="${attr(file.file)}">`,
    );
    for (const result of file.conversations) {
      const open =
        `    <testcase name="${attr(result.name)}" classname="${attr(file.name)}" file="${attr(result.file)}" line="${result.line}" ` +
        `time="${seconds(result.durationMs)}"`;
      if (report.unreachable) {
        out.push(`${open}>`, `      <error message="${attr(report.unreachable.message)}" type="BotUnreachable"/>`, '    </testcase>');
      } else if (result.failure) {
        out.push(
          `${open}>`,
          `      <failure message="${attr(`${whereFailed(result)}: ${result.failure.message}`)}" type="ConversationFailure">${text(failureDetails(result))}</failure>`,
          ...(result.sessionId ? [`      <system-out>${text(`sandbox conversation ${result.sessionId}`)}</system-out>`] : []),
          '    </testcase>',
        );
      } else out.push(`${open}/>`);
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** The details of a failure as plain text (the human view without colour). */
function failureDetails(result: ConversationResult): string {
  const failure = result.failure as Failure;
  const lines = [`${result.file}:${result.failure!.line}: ${whereFailed(result)}`, failure.message];
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
 * TAP version 14: a test point per conversation, the failure's details in a YAML diagnostic block,
 * and `Bail out!` when the bot could not be reached.
 */
export async function renderTap(report: RunReport): Promise<string> {
  const { stringify } = cjs(await import('yaml'), 'stringify');
  const all = report.files.flatMap((file) => file.conversations);
  const out = ['TAP version 14'];
  if (report.unreachable) {
    out.push(`Bail out! ${report.unreachable.message.replace(/\n/g, ' ')}`);
    return `${out.join('\n')}\n`;
  }
  out.push(`1..${all.length}`);
  all.forEach((result, i) => {
    const description = `${result.file}: ${result.name}`.replace(/\\/g, '\\\\').replace(/#/g, '\\#').replace(/\n/g, ' ');
    out.push(`${result.outcome === 'passed' ? 'ok' : 'not ok'} ${i + 1} - ${description}`);
    if (result.failure) {
      const failure = result.failure;
      const block: Record<string, unknown> = {
        message: failure.message,
        at: { file: result.file, line: failure.line },
        step: failure.stepIndex === null ? null : failure.stepIndex + 1,
        conversation: result.sessionId,
        duration_ms: result.durationMs,
      };
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
      const yaml = stringify(block, { lineWidth: 0 }).trimEnd();
      out.push('  ---', ...yaml.split('\n').map((line) => `  ${line}`), '  ...');
    }
  });
  return `${out.join('\n')}\n`;
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
    },
    error: report.unreachable ? { code: 'EBOTUNREACHABLE', message: report.unreachable.message, botUrl: report.unreachable.url } : null,
    files: report.files.map((file) => ({
      file: file.file,
      name: file.name,
      conversations: file.conversations.map((result) => ({
        name: result.name,
        line: result.line,
        channel: result.channel,
        sessionId: result.sessionId,
        outcome: result.outcome,
        durationMs: result.durationMs,
        steps: result.steps.map((step) => ({
          step: step.index + 1,
          line: step.line,
          title: step.title,
          outcome: step.outcome,
          durationMs: step.durationMs,
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
      })),
    })),
  };
  return `${stringifyJson(document, 2)}\n`;
}
