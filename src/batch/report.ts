import { closeSync, statSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { CoreError, ExitCode, UsageError } from '../errors.js';
import { openOutputFileSync } from '../output/file.js';

/**
 * The `--report FILE` record (docs/reasons.md, "The report"): one NDJSON line per item,
 * written with a synchronous write as soon as the item's outcome is known. A line is in the file
 * (the operating system's cache) before the next request starts, so a crash, a kill or a second
 * Ctrl-C still leaves a true record of every outcome known until then.
 */
export interface ReportWriter {
  readonly path: string;
  write(line: string): void;
  close(): void;
}

/** Refuses a report path that is the input file itself: emptying it would lose the batch. */
export function refuseReportOverInput(report: string, input: string | undefined, cwd: string): void {
  if (input === undefined || input === '-') return;
  if (sameFile(report, input, cwd)) {
    throw new UsageError(`--report ${report} is the input file: writing the report would erase the reasons before they are sent`, {
      hint: 'give --report another path, such as applied.ndjson',
    });
  }
}

/** Whether two paths name one file (a link to it included), or the same path when either is missing. */
export function sameFile(a: string, b: string, cwd: string): boolean {
  try {
    const first = statSync(resolve(cwd, a));
    const second = statSync(resolve(cwd, b));
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return resolve(cwd, a) === resolve(cwd, b);
  }
}

/**
 * Creates (or empties) the report file. Done before anything is sent, so an unwritable path stops
 * the command while nothing has happened yet, and a report left from an earlier run is never
 * mistaken for this one's. A new report is the user's alone (0600), and a symbolic link of another
 * user's is refused (src/output/file.ts).
 */
export function openReport(path: string, cwd: string): ReportWriter {
  const full = resolve(cwd, path);
  let fd: number;
  try {
    fd = openOutputFileSync(full, path, '--report');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as { code?: string }).code ?? 'error';
    throw new UsageError(`cannot write the report file ${path} (${code})`, { hint: 'give --report a path in a folder you can write to' });
  }
  let open = true;
  return {
    path,
    write(line) {
      if (!open) return;
      const bytes = Buffer.from(line.endsWith('\n') ? line : `${line}\n`, 'utf8');
      let offset = 0;
      try {
        while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      } catch (error) {
        open = false;
        const code = (error as { code?: string }).code ?? 'error';
        throw new CoreError(`cannot write the report file ${path} (${code}); no new request was started`, ExitCode.internal, 'EREPORT', {
          hint: 'the results printed above say which reasons were sent; free the disk or choose another --report path',
        });
      }
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}
