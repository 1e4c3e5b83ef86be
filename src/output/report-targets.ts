import { UsageError } from '../errors.js';
import { outputFileIdentity, outputFilePath, writeOutputFile } from './file.js';

/**
 * Where the reports of a run go, for `core test` and `core check-bot` alike: each `--reporter NAME=FILE`
 * to its file, and at most one `--reporter NAME` to `--output FILE`, or to stdout. The targets are
 * checked before anything runs (every name a reporter, no two reports on one output, every file's
 * folder there), so that a run is not lost for want of them; the reports are written once it has run.
 */

export interface ReportTarget<R extends string> {
  reporter: R;
  /** The full path of the file; undefined for stdout. */
  file?: string;
  /** The file as the user named it, for messages. */
  shown?: string;
  /** The option that named the file (`--output`, `--reporter junit=report.xml`), for messages. */
  given?: string;
}

/** One --reporter as given: NAME, or NAME=FILE. */
function parseReporter<R extends string>(raw: string, reporters: readonly R[]): ReportTarget<R> {
  const at = raw.indexOf('=');
  const name = (at === -1 ? raw : raw.slice(0, at)).trim();
  if (!(reporters as readonly string[]).includes(name)) {
    throw new UsageError(`--reporter: '${name}' is not a reporter: ${reporters.join(', ')}`, {
      hint: 'such as --reporter junit=report.xml --reporter json=report.json',
    });
  }
  if (at === -1) return { reporter: name as R };
  const file = raw.slice(at + 1);
  if (file === '') throw new UsageError(`--reporter ${raw}: name the file after =, such as ${name}=report`);
  return { reporter: name as R, file, given: `--reporter ${raw}` };
}

/**
 * The reports to write, from every --reporter as given (none: `fallback`) and --output, each file's
 * full path checked: its folder must exist, and no two reports may write one file.
 */
export async function reportTargets<R extends string>(
  given: readonly string[],
  output: string | undefined,
  reporters: readonly R[],
  fallback: R,
  cwd: string,
): Promise<ReportTarget<R>[]> {
  const targets = (given.length === 0 ? [fallback] : given).map((raw) => parseReporter(raw, reporters));
  const toStdout = targets.filter((target) => target.file === undefined);
  if (toStdout.length > 1) {
    throw new UsageError(`--reporter: ${toStdout.map((t) => t.reporter).join(' and ')} would both go to one output`, {
      hint: 'give each report its own file: --reporter NAME=FILE',
    });
  }
  if (output !== undefined) {
    if (toStdout.length === 0) {
      throw new UsageError('--output goes with a --reporter NAME without a file; every --reporter here names its own', {
        hint: 'drop --output, or write --reporter NAME --output FILE',
      });
    }
    toStdout[0]!.file = output;
  }
  // Two reports to one file (the same name, a link and its target, a name through a linked folder)
  // would leave only the last one written.
  const seen = new Map<string, { reporter: string; shown: string }>();
  for (const target of targets) {
    if (target.file === undefined) continue;
    const shown = target.file;
    target.shown = shown;
    target.file = await outputFilePath(shown, cwd, target.given ?? '--output');
    const identity = await outputFileIdentity(target.file);
    const before = seen.get(identity);
    if (before !== undefined) {
      throw new UsageError(
        before.shown === shown
          ? `--reporter: ${before.reporter} and ${target.reporter} both write ${shown}; give each its own file`
          : `--reporter: ${before.reporter} and ${target.reporter} both write one file: ${before.shown} and ${shown} are the same file; give each its own file`,
      );
    }
    seen.set(identity, { reporter: target.reporter, shown });
  }
  return targets;
}

/**
 * Writes each report: `render` makes its document, or undefined where the command has already said it
 * another way (a human report printed as the run went); to its file, or to stdout.
 */
export async function writeReports<R extends string>(
  targets: readonly ReportTarget<R>[],
  render: (target: ReportTarget<R>) => Promise<string | undefined>,
  out: (text: string) => void,
): Promise<void> {
  for (const target of targets) {
    const document = await render(target);
    if (document === undefined) continue;
    if (target.file === undefined) out(document);
    else await writeOutputFile(target.file, document, target.shown ?? target.file, target.given ?? '--output');
  }
}
