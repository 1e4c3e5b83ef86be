import { constants, lstatSync, openSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * Opening a file core writes for the user (`--report`, `core test --output`, `--save`): created
 * with mode 0600, as it may hold what was sent, and never written through a symbolic link that is
 * not the user's (docs/security.md, "Files core writes"). In a folder others may write (/tmp), a
 * link planted under the name the user gave would otherwise let core truncate and overwrite the
 * file it points at, another user's file included when core runs as root. A link of the user's own
 * is followed, as the user made it; a link that appears between the check and the open is refused
 * by the open itself (O_NOFOLLOW).
 */

/** The mode of a file core creates: readable and writable by the user alone. */
export const OUTPUT_FILE_MODE = 0o600;

/**
 * The flags to open `full` with for writing (created, emptied), after refusing a symbolic link
 * there that is not the user's. `option` names the option the path came from, for the message.
 */
function openFlags(full: string, shown: string, option: string): number {
  const uid = process.getuid?.();
  let follow = false;
  try {
    const link = lstatSync(full);
    if (link.isSymbolicLink()) {
      if (uid !== undefined && link.uid !== uid) throw foreignLink(shown, option, `a symbolic link owned by uid ${link.uid}`);
      follow = true;
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    // Missing (the usual case) or unreadable: the open says what is wrong.
  }
  return constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (follow ? 0 : (constants.O_NOFOLLOW ?? 0));
}

function foreignLink(shown: string, option: string, what: string): UsageError {
  return new UsageError(`${option} ${shown} is ${what}, not yours: core does not write through it (it may point at another user's file)`, {
    hint: `remove the link, or give ${option} another path`,
  });
}

/** A failure to open, as the caller words it; a link planted since the check is refused here. */
function openFailure(error: unknown, shown: string, option: string): unknown {
  // O_NOFOLLOW fails with ELOOP on a symbolic link: one that appeared after the check.
  if ((error as { code?: string }).code === 'ELOOP') return foreignLink(shown, option, 'a symbolic link');
  return error;
}

/**
 * Opens a file for writing, synchronously (a batch's report is written line by line with
 * writeSync). Throws the UsageError above for a foreign link, and the open's own error otherwise.
 */
export function openOutputFileSync(full: string, shown: string, option: string): number {
  const flags = openFlags(full, shown, option);
  try {
    return openSync(full, flags, OUTPUT_FILE_MODE);
  } catch (error) {
    throw openFailure(error, shown, option);
  }
}

/** Writes `text` to a file as a whole, under the same rules. */
export async function writeOutputFile(full: string, text: string, shown: string, option: string): Promise<void> {
  const flags = openFlags(full, shown, option);
  let handle;
  try {
    handle = await open(full, flags, OUTPUT_FILE_MODE);
  } catch (error) {
    throw openFailure(error, shown, option);
  }
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The full path of an output file a command names (`--output`, `--reporter NAME=FILE`), checked before
 * anything runs, so a run is not lost for want of its folder: the folder must exist, and the path must
 * not be a folder.
 */
export async function outputFilePath(output: string, cwd: string, option: string): Promise<string> {
  const full = resolve(cwd, output);
  const folder = await stat(dirname(full)).catch(() => undefined);
  if (!folder?.isDirectory())
    throw new UsageError(`${option}: the folder of ${output} does not exist`, {
      hint: 'create it first, or name a file in an existing folder',
    });
  if ((await stat(full).catch(() => undefined))?.isDirectory()) throw new UsageError(`${option}: ${output} is a folder; name a file`);
  return full;
}
