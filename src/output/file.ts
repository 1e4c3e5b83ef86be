import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readlinkSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { linksOnTheWay } from '../links.js';

/**
 * Opening a file core writes for the user (`--report`, `core test --output` and `--reporter
 * NAME=FILE`, `core check-bot --output`, `--save`; docs/security.md, "Files core writes"): created
 * with mode 0600, as it may hold what was sent, and written only when it is a regular file of the
 * user's (or a character device, which only root can make), reached through no symbolic link of
 * another user. In a folder others may write (/tmp), a name planted there would otherwise let core
 * write where its owner chose: a link to another
 * user's file (truncated and overwritten, when core runs as root), a FIFO (nothing reads it, and the
 * write waits forever), a file of theirs that anyone may write (a report handed to them).
 *
 * Every check is made of the file opened, on its descriptor: it is opened without being emptied and
 * without waiting (O_NONBLOCK: a FIFO with no reader fails at once), then checked (a regular file,
 * owned by the user), then the path is walked again, link by link, to the same file; only then is it
 * emptied and written. A link at the name is followed when it is the user's own; a link to a folder
 * on the way when it is the user's or root's (`/var` on macOS); a link that appears at the name
 * between the look and the open is refused by the open itself (O_NOFOLLOW), and one that appears
 * anywhere else by the walk after it.
 */

/** The mode of a file core creates: readable and writable by the user alone. */
export const OUTPUT_FILE_MODE = 0o600;

const uidOf = () => process.getuid?.();

function foreignLink(shown: string, option: string, what: string): UsageError {
  return new UsageError(`${option} ${shown} is ${what}, not yours: core does not write through it (it may point at another user's file)`, {
    hint: `remove the link, or give ${option} another path`,
  });
}

function foreignFolderLink(shown: string, option: string, link: string, owner: number): UsageError {
  return new UsageError(
    `${option} ${shown} is reached through the symbolic link ${link}, owned by uid ${owner}, not yours: core does not write through it (it may point at another user's folder)`,
    { hint: `give ${option} a path through folders of yours` },
  );
}

/** What a file that is not a regular one is, for a message. */
function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  if (info.isDirectory()) return 'a folder';
  return 'not a regular file';
}

function notRegular(shown: string, option: string, kind: string): UsageError {
  return new UsageError(`${option} ${shown} is ${kind}: core writes only to a regular file`, {
    hint: `give ${option} the path of a new file, or of a file of yours`,
  });
}

function othersFile(shown: string, option: string, owner: number): UsageError {
  return new UsageError(`${option} ${shown} is a file of uid ${owner}, not yours: core does not write into another user's file`, {
    hint: `give ${option} another path (or remove the file if you may)`,
  });
}

/**
 * The rules of the path and of an existing file at it, by the path: checked before anything runs
 * (outputFilePath) so that a run is not lost for a file it may not write, and before the open. The
 * open then checks them again on its descriptor (`checkOpened`).
 */
function checkPath(full: string, shown: string, option: string): { follow: boolean; end?: string } {
  const uid = uidOf();
  if (uid === undefined) return { follow: true };
  let follow = false;
  let name;
  try {
    name = lstatSync(full);
  } catch {
    // Missing (the usual case) or unreadable: the open says what is wrong.
  }
  if (name?.isSymbolicLink()) {
    if (name.uid !== uid) throw foreignLink(shown, option, `a symbolic link owned by uid ${name.uid}`);
    follow = true;
  }
  let walked;
  try {
    walked = linksOnTheWay(full);
  } catch {
    return { follow };
  }
  for (const link of walked.links) {
    if (link.path === full || link.uid === uid || link.uid === 0) continue;
    // A link further down a chain that starts at the name is the name's as much as the first one.
    throw walked.links[0]?.path === full
      ? foreignLink(shown, option, `a symbolic link to the symbolic link ${link.path}, owned by uid ${link.uid}`)
      : foreignFolderLink(shown, option, link.path, link.uid);
  }
  if (walked.missing) return { follow };
  const target = statSync(walked.end, { throwIfNoEntry: false });
  if (target !== undefined && !writable(target) && !target.isDirectory()) throw notRegular(shown, option, kindOf(target));
  if (target?.isFile() && target.uid !== uid) throw othersFile(shown, option, target.uid);
  return { follow, end: walked.end };
}

/**
 * What core writes: a regular file, or a character device (`/dev/null`, `/dev/full`, a terminal),
 * which only root can make, so that naming one is the user's own doing. A FIFO or a socket anyone
 * may make, in a shared folder, under the name the user gives; a block device is a disk.
 */
const writable = (info: Stats) => info.isFile() || info.isCharacterDevice();

/** The checks of the file opened, on its descriptor, and of the path to it once more. */
function checkOpened(fd: number, full: string, shown: string, option: string): Stats {
  const info = fstatSync(fd);
  if (!writable(info)) throw notRegular(shown, option, kindOf(info));
  const uid = uidOf();
  if (uid === undefined) return info;
  if (info.isFile() && info.uid !== uid) throw othersFile(shown, option, info.uid);
  const { end } = checkPath(full, shown, option);
  const reached = end === undefined ? undefined : statSync(end, { throwIfNoEntry: false });
  if (reached?.dev !== info.dev || reached.ino !== info.ino) {
    throw new UsageError(`${option} ${shown} changed while it was opened: its path no longer leads to the file opened`, {
      hint: `run the command again; if it keeps failing, something is changing ${shown} or a folder of its path`,
    });
  }
  return info;
}

/** A failure to open, as the caller words it. */
function openFailure(error: unknown, shown: string, option: string): unknown {
  const code = (error as { code?: string }).code;
  // O_NOFOLLOW fails with ELOOP on a symbolic link: one that appeared after the check.
  if (code === 'ELOOP') return foreignLink(shown, option, 'a symbolic link');
  // O_WRONLY | O_NONBLOCK fails with ENXIO on a FIFO that no one reads.
  if (code === 'ENXIO') return notRegular(shown, option, 'a named pipe (FIFO)');
  return error;
}

/**
 * Opens a file for writing, checked and emptied, synchronously (a batch's report is written line by
 * line with writeSync). Throws a UsageError for a path or a file it may not write, and the open's
 * own error otherwise.
 */
export function openOutputFileSync(full: string, shown: string, option: string): number {
  const { follow } = checkPath(full, shown, option);
  let fd: number;
  try {
    fd = openSync(
      full,
      constants.O_WRONLY | constants.O_CREAT | (constants.O_NONBLOCK ?? 0) | (follow ? 0 : (constants.O_NOFOLLOW ?? 0)),
      OUTPUT_FILE_MODE,
    );
  } catch (error) {
    throw openFailure(error, shown, option);
  }
  let info: Stats;
  try {
    info = checkOpened(fd, full, shown, option);
    if (info.isFile()) {
      ftruncateSync(fd, 0);
      return fd;
    }
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  // A device is written as a terminal is, waiting when it must: opened again without O_NONBLOCK,
  // and it must be the very device checked.
  closeSync(fd);
  try {
    fd = openSync(full, constants.O_WRONLY | (follow ? 0 : (constants.O_NOFOLLOW ?? 0)));
  } catch (error) {
    throw openFailure(error, shown, option);
  }
  const again = fstatSync(fd);
  if (!again.isCharacterDevice() || again.rdev !== info.rdev) {
    closeSync(fd);
    throw notRegular(shown, option, kindOf(again));
  }
  return fd;
}

/** Writes `text` to a file as a whole, under the same rules. */
export async function writeOutputFile(full: string, text: string, shown: string, option: string): Promise<void> {
  const fd = openOutputFileSync(full, shown, option);
  try {
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  } finally {
    closeSync(fd);
  }
}

/**
 * The full path of an output file a command names (`--output`, `--reporter NAME=FILE`), checked before
 * anything runs, so a run is not lost for want of its folder or for a file it may not write: the folder
 * must exist, the path must not be a folder, and the rules of the open hold (a regular file of the
 * user's, no symbolic link of another user on the way).
 */
export async function outputFilePath(output: string, cwd: string, option: string): Promise<string> {
  const full = resolve(cwd, output);
  const folder = await stat(dirname(full)).catch(() => undefined);
  if (!folder?.isDirectory())
    throw new UsageError(`${option}: the folder of ${output} does not exist`, {
      hint: 'create it first, or name a file in an existing folder',
    });
  if ((await stat(full).catch(() => undefined))?.isDirectory()) throw new UsageError(`${option}: ${output} is a folder; name a file`);
  checkPath(full, output, option);
  return full;
}

/**
 * What file a path names, whatever path reaches it: two reports named by a link and by its target
 * (or through a linked folder) are one file, which the second would overwrite. An existing file is
 * its device and inode; a file not made yet is where it would be, its folder's links resolved (and a
 * dangling link at the name followed to where it points).
 */
export async function outputFileIdentity(full: string): Promise<string> {
  const info = await stat(full).catch(() => undefined);
  if (info !== undefined) return `file ${info.dev}:${info.ino}`;
  let at = full;
  for (let hops = 0; hops < 40; hops++) {
    const link = lstatSync(at, { throwIfNoEntry: false });
    if (!link?.isSymbolicLink()) break;
    at = resolve(dirname(at), readlinkSync(at));
  }
  const folder = await realpath(dirname(at)).catch(() => dirname(at));
  return `path ${join(folder, basename(at))}`;
}
