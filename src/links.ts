import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * The symbolic links a path passes through, for the two rules that care who owns them: a config file
 * the search reads (src/config/locate.ts) and a file core writes (src/output/file.ts). Whoever owns a
 * link chooses what is reached through it, wherever it is on the way: at the name itself, further down
 * a chain of links, or as a folder of the path. A leaf: it imports nothing of the program.
 */

export interface LinkOnTheWay {
  /** The link, as a path with no link before it. */
  path: string;
  /** Its owner. */
  uid: number;
}

export interface Walk {
  /** Every link passed through, in the order the path is resolved. */
  links: LinkOnTheWay[];
  /** Where the path ends, with no link in it: the file, or (when `missing`) where it would be. */
  end: string;
  /** A component of the path does not exist (a file not made yet, or a folder gone). */
  missing: boolean;
}

/** The most symbolic links one path may pass through, as Linux allows (ELOOP past it). */
export const MAX_LINKS = 40;

/**
 * Resolves `file` one component at a time with lstat and readlink, as the kernel resolves it, and
 * notes each link and its owner. Synchronous: a few system calls a component, for a path core is
 * about to open. Throws ELOOP past MAX_LINKS, and the lstat's own error other than ENOENT.
 */
export function linksOnTheWay(file: string): Walk {
  const links: LinkOnTheWay[] = [];
  const absolute = path.resolve(file);
  let current = path.parse(absolute).root;
  let pending = absolute.slice(current.length).split(path.sep);
  while (pending.length > 0) {
    const [name, ...rest] = pending as [string, ...string[]];
    pending = rest;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      // `current` holds no link, so its parent is the folder the kernel goes up to.
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, name);
    let info;
    try {
      info = lstatSync(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return { links, end: path.join(next, ...pending), missing: true };
    }
    if (!info.isSymbolicLink()) {
      current = next;
      continue;
    }
    if (links.length >= MAX_LINKS) throw Object.assign(new Error(`ELOOP: too many symbolic links, ${file}`), { code: 'ELOOP' });
    links.push({ path: next, uid: info.uid });
    const target = readlinkSync(next);
    const root = path.isAbsolute(target) ? path.parse(target).root : '';
    if (root !== '') current = root;
    pending = [...target.slice(root.length).split(path.sep), ...pending];
  }
  return { links, end: current, missing: false };
}
