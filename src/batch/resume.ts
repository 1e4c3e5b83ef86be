import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PayloadError, UsageError } from '../errors.js';
import { isRecord, parseJson } from '../payload/json.js';
import { readLines } from './lines.js';
import { unreadableFile } from '../text/files.js';

/**
 * `--resume REPORT`: the reasons a previous run's --report records as applied (a line with `"ok":
 * true`, or one that an earlier resumed run carried over), by code. A batch cut short (Ctrl-C, a closed
 * terminal, a crash) is then run again with the same file, and what got through is not sent twice.
 *
 * The report is read as a stream, whatever its size. Its last line may have been cut by a crash in the
 * middle of a write: a last line without its end that does not parse is left out, with a warning; any
 * other line that does not parse is an error, since the report is not one core wrote.
 */
export interface Applied {
  codes: Set<string>;
  /** How many lines the report holds. */
  lines: number;
  /** The URL its requests went to, for the lines carried into a new report. */
  url: string | null;
}

export async function appliedIn(path: string, cwd: string, warn: (message: string) => void): Promise<Applied> {
  const full = resolve(cwd, path);
  try {
    const info = await stat(full);
    if (!info.isFile())
      throw new UsageError(`--resume: ${path} is not a file`, { hint: 'give --resume the --report file of the earlier run' });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(unreadableFile(path, error, '--resume'), { hint: 'give --resume the --report file of the earlier run' });
  }
  const codes = new Set<string>();
  let url: string | null = null;
  let lines = 0;
  let pending: { number: number; error: string } | undefined;
  for await (const line of readLines(full, path)) {
    if (pending) throw notAReport(path, pending.number, pending.error);
    if (line.text.trim() === '') continue;
    lines += 1;
    let value: unknown;
    try {
      value = parseJson(line.text);
    } catch (error) {
      // Held back: only the very last line may be a cut one.
      pending = { number: line.number, error: (error as Error).message };
      continue;
    }
    if (!isRecord(value) || typeof value.ok !== 'boolean')
      throw notAReport(path, line.number, 'a line of a report is a result object with "ok"');
    if (value.ok === true && typeof value.code === 'string') codes.add(value.code);
    if (url === null && typeof value.url === 'string') url = value.url;
  }
  if (pending) warn(`--resume: the last line of ${path} (line ${pending.number}) is cut short and was left out`);
  return { codes, lines, url };
}

function notAReport(path: string, line: number, why: string): PayloadError {
  return new PayloadError(`--resume: ${path} is not a report of core reason update (line ${line}: ${why})`, [], {
    hint: 'give --resume the file an earlier run wrote with --report',
  });
}
