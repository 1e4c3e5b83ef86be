import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import module, { createRequire } from 'node:module';
import { basename, dirname, isAbsolute, join } from 'node:path';
import vm from 'node:vm';
import type { HeapSettings } from './heap.js';

/**
 * Loads the application (dist/main.cjs and the dist/vendor/*.cjs modules it asks for) with V8's
 * compiled code kept between runs, in the user's cache folder (docs/configuration.md, "The
 * compile cache"). Compiling core's ~450 KB and got's ~150 KB is a third of a run's start-up on
 * Node 20; a run that finds them compiled skips it.
 *
 * - Each module is compiled with `vm.Script` and its `cachedData`, the way Node's own CommonJS
 *   loader would run it (the same wrapper and arguments), and the code V8 compiled during the run
 *   is written back once the command is done, if there was none, or if the one there was written
 *   by runs that took other paths through the code (`runPath`). Node 20 has no cache of its own;
 *   on Node 22 and 24 this one is used too: Node's (`module.enableCompileCache`) writes a module's
 *   code as it is compiled, before it runs, so it holds the top-level code only and every function
 *   a run calls is compiled again (Node 24: 2.35x against 2.95x `node -e 0` for a dry run, 3.49x
 *   against 4.43x for a send, in CPU time; docs/performance.md, "Start-up").
 * - Without zlib.crc32 (Node 20 before 20.15, Node 22.1), Node's own cache where there is one.
 *
 * A cache that is missing, corrupt, foreign or cannot be written is passed over in silence and the
 * run compiles as it would without one. V8 trusts the code cache it is given (a damaged one can
 * crash the process), so each file carries a CRC-32 of its content, checked before V8 sees it, and
 * is used only when it is a regular file of the user running core, not writable by anyone else, in
 * a folder that is the same. Files are written 0600 into a 0700 folder, whole (written aside, then
 * renamed), so a run never reads another's half-written file.
 *
 * `CORE_NO_COMPILE_CACHE=1` turns it off; the modules are then loaded with `require`.
 */

/** What dist/main.cjs exports, as bin.ts uses it. */
export type Application = typeof import('./main.js');

// The folder: `$XDG_CACHE_HOME/core`, or `~/.cache/core` (a leaf, which core doctor checks too).
export { cacheFolder } from './cache-folder.js';
import { cacheFolder } from './cache-folder.js';

const uid = process.getuid?.();

/** Whether `path` is a file or folder of this user that nobody else may write to. */
function ownedAndPrivate(stats: { uid: number; mode: number }): boolean {
  return (uid === undefined || stats.uid === uid) && (stats.mode & 0o022) === 0;
}

/** Creates the folder (0700) if needed; whether it can be trusted. */
function usableFolder(folder: string): boolean {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stats = lstatSync(folder);
    return stats.isDirectory() && ownedAndPrivate(stats);
  } catch {
    return false;
  }
}

/** The file's bytes, or nothing when it is not a private regular file of this user. */
function readPrivateFile(path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    const stats = fstatSync(fd);
    if (!stats.isFile() || !ownedAndPrivate(stats) || stats.size > 64 * 1024 * 1024) return undefined;
    const data = Buffer.allocUnsafe(stats.size);
    let read = 0;
    while (read < data.length) {
      const n = readSync(fd, data, read, data.length - read, read);
      if (n === 0) return undefined;
      read += n;
    }
    return data;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The cache file's layout: a magic word; the CRC-32 of everything after it; the length of the list
 * of run paths whose code the file holds (runPath below), then that list, one a line; V8's code cache.
 */
const MAGIC = 0x636f7232; // "cor2"
const HEADER = 12;

/**
 * The most run paths one file records. V8 caches only the functions a run compiled, so a file
 * written by `core --help` holds none of `core reply`'s: each run of a path the file does not yet
 * record writes it again, with the code of both (see `pathsToRecord`). Past this many paths a new
 * one is compiled as it runs, and the file is left as it is, so a script that runs core in ever new
 * ways never rewrites it on every run.
 */
export const MAX_RUN_PATHS = 16;

/** Root options that take a value (src/program.ts), so the word after them is not a command. */
const ROOT_VALUE_OPTIONS = new Set(['--config', '-p', '--profile']);
const WORD = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * The path a run takes through the code, as far as argv tells it cheaply: its command and
 * subcommand words (`reason update`), and whether it is a dry run or asks for help. Runs of one path
 * compile the same functions; the values of options (`-t Hello`) and other words play no part, and
 * a word that is not a plain name counts as `*`, so the set of paths stays small.
 */
export function runPath(argv: readonly string[]): string {
  const words: string[] = [];
  let i = 0;
  while (i < argv.length && words.length === 0) {
    const arg = argv[i]!;
    if (arg === '--') break;
    i += ROOT_VALUE_OPTIONS.has(arg) ? 2 : 1;
    if (!arg.startsWith('-')) words.push(WORD.test(arg) ? arg : '*');
  }
  // The subcommand, when the word right after the command is one (`reason update`, `customer say`).
  const next = argv[i];
  if (words.length === 1 && next !== undefined && !next.startsWith('-')) words.push(WORD.test(next) ? next : '*');
  if (argv.includes('--dry-run')) words.push('--dry-run');
  if (argv.includes('--help') || argv.includes('-h')) words.push('--help');
  return words.join(' ');
}

/**
 * The paths a cache file should record once a run of `path` is done, or nothing when the file is
 * to be left as it is: `recorded` is what the file the run used records (undefined: there was no
 * usable file, and the run compiled everything).
 */
export function pathsToRecord(recorded: readonly string[] | undefined, path: string): string[] | undefined {
  if (recorded === undefined) return [path];
  if (recorded.includes(path) || recorded.length >= MAX_RUN_PATHS) return undefined;
  return [...recorded, path];
}

type Crc32 = (data: Uint8Array | string, value?: number) => number;

/** zlib.crc32 (Node 20.15+); without it there is no way to check a file cheaply, and no cache. */
function loadCrc32(): Crc32 | undefined {
  try {
    const zlib = createRequire(import.meta.url)('node:zlib') as { crc32?: Crc32 };
    return typeof zlib.crc32 === 'function' ? zlib.crc32 : undefined;
  } catch {
    return undefined;
  }
}

interface CacheContent {
  data: Buffer;
  paths: string[];
}

function unwrapCache(file: Buffer, crc32: Crc32): CacheContent | undefined {
  if (file.length <= HEADER || file.readUInt32BE(0) !== MAGIC) return undefined;
  if (crc32(file.subarray(8)) !== file.readUInt32BE(4)) return undefined;
  const length = file.readUInt32BE(8);
  if (length > file.length - HEADER - 1) return undefined;
  const paths = file.toString('utf8', HEADER, HEADER + length).split('\n');
  return { data: file.subarray(HEADER + length), paths };
}

/** The parts of a cache file holding `data` for `paths` (the layout above). */
function wrapCache(data: Buffer, paths: readonly string[], crc32: Crc32): Uint8Array[] {
  const list = Buffer.from(paths.join('\n'), 'utf8');
  const header = Buffer.allocUnsafe(HEADER);
  header.writeUInt32BE(MAGIC, 0);
  header.writeUInt32BE(list.length, 8);
  header.writeUInt32BE(crc32(data, crc32(list, crc32(header.subarray(8)))), 4);
  return [header, list, data];
}

/** Writes `data` to `path` as a 0600 file, whole or not at all; failures are ignored. */
function writePrivateFile(path: string, parts: Uint8Array[]): void {
  const aside = `${path}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(aside, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    for (const part of parts) {
      let written = 0;
      while (written < part.length) written += writeSync(fd, part, written, part.length - written);
    }
    closeSync(fd);
    fd = undefined;
    renameSync(aside, path);
  } catch {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(aside);
    } catch {
      // Nothing was written.
    }
  }
}

/**
 * A module's text. The build writes main.cjs in ASCII (non-ASCII characters escaped), and ASCII read
 * as Latin-1 is the same text, decoded without UTF-8's checks: about half the time for the ~800 KB
 * that every run reads. Anything else is read as UTF-8.
 */
export function decode(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The same wrapper as Node's CommonJS loader, so a module runs as `require` would run it. */
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) { ';
const WRAPPER_END = '\n});';

interface Pending {
  path: string;
  stale: string;
  script: vm.Script;
  paths: string[];
}

/** A module loader for one run: `load(file)` returns its exports; `save()` writes what was compiled. */
export interface Loader {
  readonly cached: boolean;
  load(file: string): unknown;
  save(): void;
}

/** Runs `fn` as is: for a process whose V8 settings never change. */
const unchanged = { withDefaults: <T>(fn: () => T): T => fn() };

function plainLoader(heap: Pick<HeapSettings, 'withDefaults'>): Loader {
  // Node's own cache (22.1 and later) caches what require compiles, with the settings of the moment.
  return {
    cached: false,
    load: (file) => heap.withDefaults(() => createRequire(import.meta.url)(file)),
    save: () => {},
  };
}

/**
 * The loader for this run. `versions` key the cache: core's own version and Node's (V8 refuses a
 * cache made by another V8, but a key keeps their files apart instead of replacing each other's).
 * `heap` is how the run changes V8's heap settings (src/heap.ts): code is compiled, and its cache
 * made, with the defaults in place, since V8 refuses a cache made under other settings.
 */
export function createLoader(
  env: NodeJS.ProcessEnv,
  coreVersion: string,
  heap: Pick<HeapSettings, 'withDefaults'> = unchanged,
  path = '',
): Loader {
  if (env.CORE_NO_COMPILE_CACHE !== undefined && env.CORE_NO_COMPILE_CACHE !== '' && env.CORE_NO_COMPILE_CACHE !== '0')
    return plainLoader(heap);
  const root = cacheFolder(env);
  if (root === undefined) return plainLoader(heap);
  const folder = join(root, 'compile');
  if (!usableFolder(root) || !usableFolder(folder)) return plainLoader(heap);
  const crc32 = loadCrc32();
  if (crc32 !== undefined)
    return cachingLoader(folder, crc32, `${coreVersion}-node${process.versions.node}-v8${process.versions.v8}`, heap, path);
  // No zlib.crc32 (Node 22.1): Node's own cache, checked by Node, into the same folder.
  const enable = (module as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof enable === 'function') {
    try {
      enable(folder);
    } catch {
      // No cache, then.
    }
  }
  return plainLoader(heap);
}

function cachingLoader(folder: string, crc32: Crc32, key: string, heap: Pick<HeapSettings, 'withDefaults'>, runPath_: string): Loader {
  const modules = new Map<string, { exports: unknown }>();
  const pending: Pending[] = [];
  const nodeRequire = createRequire(import.meta.url);

  const load = (file: string): unknown => {
    const known = modules.get(file);
    if (known !== undefined) return known.exports;
    const bytes = readFileSync(file);
    const source = decode(bytes);
    // Code compiled by vm.Script cannot run `import()` (Node 20 loses the callback with a code
    // cache): such a module is left to Node's loader. The build turns core's own into `require`.
    if (source.includes('import(')) return nodeRequire(file);
    const name = basename(file);
    const stale = `${name}-${key}-`;
    const path = join(folder, `${stale}${crc32(bytes).toString(16).padStart(8, '0')}-${bytes.length}.v8`);
    const file_ = readPrivateFile(path);
    const cached = file_ === undefined ? undefined : unwrapCache(file_, crc32);
    const script = heap.withDefaults(
      () =>
        new vm.Script(WRAPPER_START + source + WRAPPER_END, {
          filename: file,
          ...(cached === undefined ? {} : { cachedData: cached.data }),
        }),
    );
    const paths = pathsToRecord(script.cachedDataRejected === true ? undefined : cached?.paths, runPath_);
    if (paths !== undefined) pending.push({ path, stale, script, paths });
    const mod = { exports: {} as unknown, id: file, filename: file, loaded: false };
    modules.set(file, mod);
    const localRequire = createRequire(file);
    const require = Object.assign(
      (id: string) => (id.startsWith('./vendor/') && id.endsWith('.cjs') ? load(join(dirname(file), id)) : localRequire(id)),
      { resolve: localRequire.resolve, cache: localRequire.cache, main: localRequire.main, extensions: localRequire.extensions },
    );
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(mod.exports, mod.exports, require, mod, file, dirname(file));
    mod.loaded = true;
    return mod.exports;
  };

  const save = () => {
    for (const { path, stale, script, paths } of pending.splice(0)) {
      try {
        // What V8 compiled from the cache it was given and what this run compiled on top of it.
        const data = heap.withDefaults(() => script.createCachedData());
        writePrivateFile(path, wrapCache(data, paths, crc32));
        // An earlier build's file for the same module and versions is of no more use.
        for (const entry of readdirSync(folder)) {
          if (entry.startsWith(stale) && join(folder, entry) !== path && entry.endsWith('.v8')) unlinkSync(join(folder, entry));
        }
      } catch {
        // A cache that cannot be written costs the next run its compile time, nothing more.
      }
    }
  };

  return { cached: true, load, save };
}
