import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { OUTPUT_FILE_MODE } from './file.js';

/**
 * An env file core keeps for the user (`core sandbox --env-file FILE`): `NAME=value` lines, as
 * dotenv, docker --env-file, node --env-file and a POSIX shell's `.` read them. core writes its
 * own lines and keeps every other line of the file as it is: a line that sets one of the names it
 * manages is replaced where it stands (the first one; a repeat is dropped), and a name not in the
 * file yet is added at its end. The file may hold secrets (a token, a webhook secret), so it is
 * written readable by the user alone (0600), and, as every file core writes (src/output/file.ts,
 * docs/security.md, "Files core writes"), never through a symbolic link of another user, never into
 * a FIFO, a device or a folder, and never over a file another user owns. It is written whole: a new
 * file beside it, renamed over it, so a reader never sees half of it.
 */

/** A name and its value, written as `NAME=value`. */
export type EnvLine = readonly [name: string, value: string];

/** Refuses a path core will not write an env file at; returns the file to write (a link of the user's resolved). */
export async function envFileTarget(full: string, shown: string, option = '--env-file'): Promise<string> {
  const uid = process.getuid?.();
  let info;
  try {
    info = await lstat(full);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw cannot(shown, option, error);
    const folder = await stat(path.dirname(full)).catch(() => undefined);
    if (!folder?.isDirectory()) {
      throw new UsageError(`${option}: the folder of ${shown} does not exist`, {
        hint: 'create it first, or name a file in an existing folder',
      });
    }
    return full;
  }
  if (info.isSymbolicLink()) {
    if (uid !== undefined && info.uid !== uid) {
      throw new UsageError(`${option} ${shown} is a symbolic link owned by uid ${info.uid}, not yours: core does not write through it`, {
        hint: `remove the link, or give ${option} another path`,
      });
    }
    // A link of the user's own is followed, as the user made it; its target is checked as a file.
    const target = await realpath(full).catch((error: unknown) => {
      throw cannot(shown, option, error);
    });
    return envFileTarget(target, `${shown} (a link to ${target})`, option);
  }
  if (!info.isFile()) {
    const what = info.isFIFO() ? 'a FIFO' : info.isDirectory() ? 'a folder' : info.isSocket() ? 'a socket' : 'not a regular file';
    throw new UsageError(`${option} ${shown} is ${what}: core writes its lines only into a regular file`, {
      hint: `give ${option} a file`,
    });
  }
  if (uid !== undefined && info.uid !== uid) {
    throw new UsageError(
      `${option} ${shown} is owned by uid ${info.uid}, not by you (uid ${uid}): core does not write another user's file`,
      {
        hint: `give ${option} a file of your own`,
      },
    );
  }
  return full;
}

/** The text of a file with `lines` set in it, as the rule above says. */
export function withLines(text: string, lines: readonly EnvLine[], managed: readonly string[]): string {
  const values = new Map(lines);
  const names = new Set([...managed, ...values.keys()]);
  const out: string[] = [];
  const written = new Set<string>();
  const rows = text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
  for (const row of rows) {
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(row)?.[1];
    if (name === undefined || !names.has(name)) {
      out.push(row);
      continue;
    }
    // A name core manages: its line replaced where it first stands; a repeat, or a name this run
    // does not set (CORE_INTEGRATOR_TOKEN of an earlier run), dropped.
    if (written.has(name) || !values.has(name)) continue;
    out.push(`${name}=${values.get(name)!}`);
    written.add(name);
  }
  for (const [name, value] of lines) if (!written.has(name)) out.push(`${name}=${value}`);
  return `${out.join('\n')}\n`;
}

/** Writes `lines` into the env file at `full` (checked with envFileTarget), mode 0600. */
export async function writeEnvFile(
  full: string,
  shown: string,
  lines: readonly EnvLine[],
  managed: readonly string[],
  option = '--env-file',
): Promise<void> {
  const target = await envFileTarget(full, shown, option);
  let before = '';
  try {
    // Without following a link (one planted since the check is refused) and without waiting on a
    // FIFO (one put there since the check is refused: it is no file).
    const handle = await open(target, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      const info = await handle.stat();
      const uid = process.getuid?.();
      if (!info.isFile() || (uid !== undefined && info.uid !== uid)) {
        throw new UsageError(`${option} ${shown} changed while core read it: it is no longer a file of yours`, {
          hint: 'run the command again',
        });
      }
      before = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new UsageError(`${option} ${shown} became a symbolic link: core does not write through it`, { hint: 'run the command again' });
    if (code !== 'ENOENT') throw cannot(shown, option, error);
  }
  const aside = path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(
    aside,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    OUTPUT_FILE_MODE,
  ).catch((error: unknown) => {
    throw cannot(shown, option, error);
  });
  try {
    await handle.writeFile(withLines(before, lines, managed), 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(aside, { force: true });
    throw cannot(shown, option, error);
  }
  await handle.close();
  try {
    await rename(aside, target);
  } catch (error) {
    await rm(aside, { force: true });
    throw cannot(shown, option, error);
  }
}

function cannot(shown: string, option: string, error: unknown): UsageError {
  const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new UsageError(`${option}: cannot write ${shown} (${code})`, { hint: `check the permissions of ${shown} and its folder` });
}
