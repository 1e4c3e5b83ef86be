/**
 * The one message for a file that cannot be read: `file not found: PATH`, or `cannot read PATH
 * (CODE)`, after the name of what it was for (`--resume: file not found: report.ndjson`). A leaf.
 */

/** Why `path` could not be read, from the error of stat or open; `what` names the flag or the file's role. */
export function unreadableFile(path: string, error: unknown, what?: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const problem = code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path} (${typeof code === 'string' ? code : 'error'})`;
  return what === undefined ? problem : `${what}: ${problem}`;
}
