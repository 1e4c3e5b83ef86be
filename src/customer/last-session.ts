import { constants } from 'node:fs';
import { chmod, mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { envValue, homeDir } from '../config/locate.js';
import { UsageError } from '../errors.js';

/**
 * `--session last` of `core customer say` and `press` (docs/sandbox.md, "`core customer`"): the last
 * conversation `say` started against a base URL, kept per base URL in the user's state folder,
 * `$XDG_STATE_HOME/core/` (else `~/.local/state/core/`), as the XDG base directory spec places state
 * that outlives a run but is not worth a backup. The folder is made 0700 and the file 0600: session
 * ids are no secrets, but what a user did is theirs alone.
 */

export const LAST = 'last';
export const LAST_SESSIONS_FILE = 'customer-sessions.json';
/** The base URLs remembered; the oldest is forgotten past this, so the file cannot grow without end. */
const MAX_ENTRIES = 50;

/** The user state folder: `$XDG_STATE_HOME/core`, else `~/.local/state/core`. */
export function userStateDir(env: Record<string, string | undefined>): string {
  const xdg = envValue(env, 'XDG_STATE_HOME');
  // The XDG spec says a relative path in an XDG variable is invalid and must be ignored.
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeDir(env), '.local', 'state');
  return path.join(base, 'core');
}

/** The key of a base URL: the same sandbox written with or without a trailing slash is one entry. */
function keyOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

async function readAll(file: string): Promise<Record<string, string>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const entries = Object.entries(parsed as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    );
    return Object.fromEntries(entries);
  } catch {
    // A damaged file is started again: it only remembers, it decides nothing.
    return {};
  }
}

/** The sessionId `say` last started against `baseUrl`; a UsageError (exit 2) when there is none. */
export async function lastSession(env: Record<string, string | undefined>, baseUrl: string): Promise<string> {
  const file = path.join(userStateDir(env), LAST_SESSIONS_FILE);
  const sessionId = (await readAll(file))[keyOf(baseUrl)];
  if (sessionId === undefined) {
    throw new UsageError(
      `--session last: core customer say has started no conversation against ${keyOf(baseUrl)} yet (looked in ${file})`,
      {
        hint: 'start one with core customer say TEXT (without --session), or name the conversation with --session ID',
      },
    );
  }
  return sessionId;
}

/**
 * Remembers `sessionId` as the last conversation started against `baseUrl`. Written to a new file
 * renamed over the old one, so a reader never sees half of it; the newest entry goes last.
 */
export async function rememberSession(
  env: Record<string, string | undefined>,
  baseUrl: string,
  sessionId: string,
  { uid = process.getuid?.() }: { uid?: number | undefined } = {},
): Promise<void> {
  const dir = userStateDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await ownFolder(dir, uid);
  const file = path.join(dir, LAST_SESSIONS_FILE);
  const all = await readAll(file);
  const key = keyOf(baseUrl);
  delete all[key];
  all[key] = sessionId;
  const kept = Object.entries(all).slice(-MAX_ENTRIES);
  const temporary = `${file}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, `${JSON.stringify(Object.fromEntries(kept), null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, file);
}

/**
 * Makes the state folder 0700 if it is the user's own: mkdir leaves an existing folder's mode as it
 * is. Checked and changed on one descriptor opened without following a link, so what is checked is
 * what is changed. Another user's folder (root run with that user's HOME or XDG_STATE_HOME) or a
 * link is left as it is, and nothing is written into it: the error says why.
 */
async function ownFolder(dir: string, uid: number | undefined): Promise<void> {
  let handle;
  try {
    handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new Error(`${dir} is a symbolic link or not a folder: it is left as it is`);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (process.platform !== 'win32' && uid !== undefined && stats.uid !== uid) {
      throw new Error(`${dir} is owned by uid ${stats.uid}, not by you (uid ${uid}): it is left as it is`);
    }
    if ((stats.mode & 0o777) !== 0o700) await handle.chmod(0o700);
  } finally {
    await handle.close();
  }
}
