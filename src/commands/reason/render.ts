import type { BatchTally } from '../../batch/send.js';
import type { RequestResult } from '../../output/result.js';
import type { Style } from '../../output/style.js';
import { stringifyJson } from '../../payload/json.js';
import { printable } from '../../output/terminal.js';
import { plainText } from '../../output/glyphs.js';
import { count } from '../../output/count.js';

/**
 * The human view of a batch: one line per reason (status, code, the service's message), then a
 * summary. `--json` prints the same results as NDJSON instead (src/output/result.ts).
 */

export function outcomeLine(result: RequestResult, style: Style): string {
  // The code comes from the input file, the message from the service: neither may act on the terminal.
  const code = result.code === undefined ? '(no code)' : printable(result.code);
  const attempts = result.attempts && result.attempts > 1 ? `  (${result.attempts} attempts)` : '';
  const { ok, fail } = style.glyphs;
  if (result.resumed) return `${style.dim('= applied')}  ${code}  by an earlier run (--resume), not sent again\n`;
  if (result.ok) return `${style.green(`${ok} ${result.status}`)}  ${code}${attempts}\n`;
  if (result.skipped) return `${style.yellow('- skipped')}  ${code}  not sent\n`;
  if (result.validationErrors) {
    const first = result.validationErrors[0];
    const detail = first ? printable(plainText(`${first.path ? `${first.path}: ` : ''}${first.message}`, style.glyphs)) : 'invalid';
    return `${style.red(`${fail} invalid`)}  ${code}  ${detail} (not sent)\n`;
  }
  const error = result.error as { code?: unknown; message?: unknown } | null;
  const message = printable(typeof error?.message === 'string' ? error.message : error ? stringifyJson(error) : '');
  if (result.status === null) {
    const errorCode = typeof error?.code === 'string' ? ` (${printable(error.code)})` : '';
    return `${style.red(`${fail} no answer`)}  ${code}  ${message}${errorCode}${attempts}\n`;
  }
  return `${style.red(`${fail} ${result.status}`)}  ${code}${message ? `  ${message}` : ''}${attempts}\n`;
}

/** `N succeeded, N failed, N skipped`, the reasons an earlier run applied, and why some were skipped. */
export function summaryLine(tally: BatchTally, stoppedByFailure: boolean, resumedFrom?: string): string {
  const resumed =
    tally.resumed > 0 || resumedFrom !== undefined ? `, ${count(tally.resumed)} already applied (per ${resumedFrom ?? '--resume'})` : '';
  let line = `${count(tally.succeeded)} succeeded${resumed}, ${count(tally.failed)} failed, ${count(tally.skipped)} skipped`;
  if (tally.interrupted) line += ' (interrupted: the skipped reasons were not sent)';
  else if (stoppedByFailure && tally.skipped > 0) line += ' (--fail-fast: the skipped reasons were not sent)';
  return `${line}\n`;
}
