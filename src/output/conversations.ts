import type { Style } from './style.js';
import { printable } from './terminal.js';
import { runsText, showValue, whereFailed, type RunReport } from '../testing/report.js';
import { formatMs } from '../testing/results.js';
import { isFlaky, outcomeOf, type ConversationSummary } from '../testing/suite.js';

/**
 * The printer of conversations: the human view of a `core test` run (docs/testing-bots.md, "Reports"),
 * a line per conversation as it ends, each failure in detail, and the closing line; the same text
 * whole as the human report written to a file.
 */

/** The line printed as each conversation ends. */
export function conversationLine(summary: ConversationSummary, style: Style): string {
  const mark = outcomeOf(summary) === 'passed' ? style.green(style.glyphs.ok) : style.red(style.glyphs.fail);
  const runs = runsText(summary);
  const flaky = isFlaky(summary) ? ` ${style.yellow('flaky')}` : '';
  return `${mark} ${summary.name}${flaky} ${style.dim(`(${summary.file}:${summary.line}, ${runs === '' ? '' : `${runs}, `}${formatMs(summary.durationMs)})`)}\n`;
}

/** A failure in detail: where, why, and the fields that differ, expected against received. */
export function failureText(summary: ConversationSummary, style: Style): string {
  const result = summary.shown;
  const failure = result.failure;
  if (failure === undefined) return '';
  const lines = [
    `${style.red(style.glyphs.fail)} ${style.bold(summary.name)}${isFlaky(summary) ? ` ${style.yellow('flaky')}` : ''} ${style.dim(`(${summary.file})`)}`,
    `  ${whereFailed(summary)}${result.sessionId ? style.dim(`, conversation ${result.sessionId}`) : ''}`,
    // The message quotes the bot's strings (a refusal naming its labels, a text that differs): one line, every control escaped.
    `  ${printable(failure.message)}`,
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

/** Prints a run's conversations as they end, and the rest once the run has ended. */
export interface ConversationPrinter {
  readonly style: Style;
  /** A conversation's line, written together with the others that end in the same turn of the event loop. */
  line(summary: ConversationSummary): void;
  /** Writes what is held. */
  flush(): void;
  /** The lines held back (conversations that never reached the bot), each failure in detail, and the closing line. */
  end(report: RunReport, deferred: readonly ConversationSummary[]): void;
}

/**
 * A printer writing through `write` with `style`. Conversations end many at a time under load: their
 * lines are written together, once per turn of the event loop or every 16 KB (a write each was an
 * eighth of the run's time at 1,000 conversations).
 */
export function conversationPrinter(write: (text: string) => void, style: Style): ConversationPrinter {
  let pending = '';
  let flushing: NodeJS.Immediate | undefined;
  const flush = () => {
    clearImmediate(flushing);
    flushing = undefined;
    if (pending !== '') write(pending);
    pending = '';
  };
  return {
    style,
    line(summary) {
      pending += conversationLine(summary, style);
      if (pending.length >= 16_384) flush();
      else flushing ??= setImmediate(flush);
    },
    flush,
    end(report, deferred) {
      flush();
      for (const summary of deferred) write(conversationLine(summary, style));
      const failed = report.files.flatMap((file) => file.conversations).filter((summary) => outcomeOf(summary) === 'failed');
      if (failed.length > 0) write(`\n${failed.map((summary) => failureText(summary, style)).join('\n')}`);
      write(`\n${summaryLine(report, style)}${coverageText(report, style)}`);
    },
  };
}
