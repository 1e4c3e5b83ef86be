import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import { cacheFolder } from '../../cache-folder.js';
import type { Env } from '../../io.js';
import { userStateDir } from '../../customer/last-session.js';
import type { DoctorCheck } from './report.js';

/**
 * The folders core writes on its own: the compile cache ($XDG_CACHE_HOME/core, src/compile-cache.ts,
 * which passes over a folder others may write) and the state folder ($XDG_STATE_HOME/core, where
 * `core customer say` keeps the last conversation). Each must be a folder of yours that others may
 * not write, or not exist yet under a folder you may write (core makes it when it needs it).
 * Nothing is created or changed here.
 */
export async function folderChecks(env: Env): Promise<DoctorCheck[]> {
  const cache = cacheFolder(env as NodeJS.ProcessEnv);
  return [
    cache === undefined
      ? { id: 'folder.cache', name: 'cache folder', status: 'skip', message: 'no home folder: the compile cache is not used' }
      : await folderCheck('folder.cache', 'cache folder', cache, 'the compile cache, for a faster start'),
    await folderCheck('folder.state', 'state folder', userStateDir(env), 'core customer --session last'),
  ];
}

async function folderCheck(id: string, name: string, folder: string, what: string): Promise<DoctorCheck> {
  const uid = process.getuid?.();
  const info = await stat(folder).catch((error: NodeJS.ErrnoException) => error);
  if (!(info instanceof Error)) {
    if (!info.isDirectory())
      return fail(id, name, `${folder} is not a folder`, `remove it, so that core can make the folder there (${what})`);
    if (uid !== undefined && info.uid !== uid && uid !== 0)
      return fail(
        id,
        name,
        `${folder} is owned by uid ${info.uid}, not by you (uid ${uid})`,
        `remove it, or set the XDG variable to a folder of yours`,
      );
    if ((info.mode & 0o022) !== 0)
      return fail(id, name, `${folder} can be written by others: core does not use it (${what})`, `chmod go-w ${folder}`);
    if (!(await writable(folder))) return fail(id, name, `${folder} is not writable by you`, `chmod u+w ${folder}`);
    return { id, name, status: 'pass', message: `${folder}: yours and writable (${what})` };
  }
  if (info.code !== 'ENOENT')
    return fail(id, name, `${folder} cannot be read (${info.code ?? info.message})`, `check the permissions of ${folder}`);
  // Not made yet: core makes it, and the folders above it, on first use.
  let parent = path.dirname(folder);
  for (;;) {
    const above = await stat(parent).catch(() => undefined);
    if (above !== undefined) {
      if (above.isDirectory() && (await writable(parent)))
        return {
          id,
          name,
          status: 'pass',
          message: `${folder}: not made yet; ${parent} is writable, so core makes it on first use (${what})`,
        };
      return fail(
        id,
        name,
        `${folder} does not exist, and ${parent} is not a folder you may write`,
        `create ${folder} (mkdir -p -m 700), or set the XDG variable to a folder of yours`,
      );
    }
    const next = path.dirname(parent);
    if (next === parent)
      return fail(id, name, `${folder}: no folder above it exists`, 'set HOME, or the XDG variable, to a folder of yours');
    parent = next;
  }
}

async function writable(folder: string): Promise<boolean> {
  try {
    await access(folder, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function fail(id: string, name: string, message: string, fix: string): DoctorCheck {
  return { id, name, status: 'fail', message, fix };
}
