import { constants, type Stats } from 'node:fs';
import { access, open, readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, InterruptedError } from '../errors.js';
import { linksOnTheWay } from '../links.js';

/**
 * Where the config file is looked for (docs/configuration.md, "Where the file is looked for").
 *
 * The search is cosmiconfig 9's, folder by folder, file name by file name, with its results and its
 * errors (see `readConfigFile`); a JSON or YAML file is read without loading cosmiconfig, which
 * would cost every run with a config file about 10 ms. We walk the folders ourselves instead of using
 * `searchStrategy: 'global'` because cosmiconfig 9 finds both its stop folder and its global folder
 * through `os.homedir()` and `env-paths`, which read `process.env` once at load time (and pick
 * `~/Library/Preferences/core` on macOS and `%APPDATA%\core\Config` on Windows).
 * docs/configuration.md promises `$XDG_CONFIG_HOME/core/`, else `~/.config/core/`, on every system,
 * and taking HOME and XDG_CONFIG_HOME from the invocation's environment lets tests point them at
 * temporary folders. The walk itself is the same as cosmiconfig's: from the start folder up to the
 * home folder (or to the root when the start folder is outside it), then the user config folder,
 * with cosmiconfig's own list of global names there.
 */

/** File names looked for in each folder from the current one up to home, in this order. */
export const projectSearchPlaces = [
  'package.json',
  '.corerc',
  '.corerc.json',
  '.corerc.yaml',
  '.corerc.yml',
  '.corerc.js',
  '.corerc.cjs',
  '.corerc.mjs',
  'core.config.js',
  'core.config.cjs',
  'core.config.mjs',
] as const;

/**
 * File names looked for in the user config folder: cosmiconfig 9's `globalConfigSearchPlaces`
 * without `config.ts` (a TypeScript loader would need the compiler at run time).
 */
export const userSearchPlaces = ['config', 'config.json', 'config.yaml', 'config.yml', 'config.js', 'config.cjs', 'config.mjs'] as const;

/** The name `core config init` writes: YAML, and one of the names above. */
export const USER_CONFIG_NAME = 'config.yaml';

/**
 * A one-line description of the names the search reads, for messages. The JavaScript names are
 * looked for too, only to say that they are not loaded (docs/configuration.md, "Where the file is
 * looked for").
 */
export const SEARCH_PLACES_TEXT = '.corerc, .corerc.json|yaml|yml, the "core" key of package.json';
export const USER_PLACES_TEXT = 'config, config.json|yaml|yml';

/** Whether a file is a JavaScript config, which runs code when loaded: only ever loaded when named. */
export function isJavaScriptConfig(file: string): boolean {
  return /\.(?:js|cjs|mjs)$/.test(file);
}

export interface LocateInput {
  cwd: string;
  env: Record<string, string | undefined>;
  flags: { config?: string };
  /** Stops waiting for a JavaScript config file that is still loading (Ctrl-C, SIGTERM). */
  signal?: AbortSignal;
  /** Told of a JavaScript config file that the search found and did not load. */
  warn?: (message: string) => void;
  /**
   * Never run code, not even of a file named with --config or CORE_CONFIG: for TAB completion, which
   * the shell runs on every key press (docs/configuration.md, "Trusted files only").
   */
  noCode?: boolean;
  /** The user whose files the search trusts (besides root's): the process's own by default. */
  uid?: number;
}

export interface Location {
  /** The config file to read, or null when the search found none. */
  configFile: string | null;
  /** The folders searched, in order (the user config folder last), or the one file named by --config. */
  searched: string[];
  /** How the file was named: `flag --config`, `env CORE_CONFIG`, or null when it was searched for. */
  namedBy: string | null;
}

/** An environment variable's value, with an empty string read as unset (as most CLIs do). */
export function envValue(env: Record<string, string | undefined>, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** The home folder from the environment, else the operating system's idea of it. */
export function homeDir(env: Record<string, string | undefined>): string {
  return path.resolve(envValue(env, 'HOME') ?? envValue(env, 'USERPROFILE') ?? os.homedir());
}

/** The user config folder: `$XDG_CONFIG_HOME/core`, else `~/.config/core`. */
export function userConfigDir(env: Record<string, string | undefined>): string {
  const xdg = envValue(env, 'XDG_CONFIG_HOME');
  // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
  const base = xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(homeDir(env), '.config');
  return path.join(base, 'core');
}

/** The folders searched from `cwd`: each folder up to home (or the root), then the user config folder. */
export function searchFolders(cwd: string, env: Record<string, string | undefined>): string[] {
  const stop = homeDir(env);
  const folders: string[] = [];
  let current = path.resolve(cwd);
  for (;;) {
    folders.push(current);
    if (current === stop) break;
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  folders.push(userConfigDir(env));
  return folders;
}

/**
 * Finds the config file without validating it: `--config` / `CORE_CONFIG` name one file (which
 * must exist); otherwise the first file found by the search, or null.
 */
export async function locateConfig(input: LocateInput): Promise<Location> {
  const { content: _content, ...location } = await findConfig(input, false);
  return location;
}

/**
 * Finds the config file and returns its content as loaded (undefined for an empty file). The search
 * loads each candidate to see whether it holds a config, so the content comes from that same load:
 * a JavaScript config file runs once.
 */
export async function findConfig(input: LocateInput, load = true): Promise<Location & { content?: unknown }> {
  const named = namedConfig(input);
  if (named) {
    const file = path.resolve(input.cwd, named.file);
    await assertReadableFile(file, named.by);
    if (input.noCode && isJavaScriptConfig(file)) {
      throw new ConfigError(`${file} (from ${named.by}) is a JavaScript config file, which TAB completion never loads`);
    }
    const location = { configFile: file, searched: [file], namedBy: named.by };
    if (!load) return location;
    return { ...location, content: (await readConfigFile(file, 'named', input))?.content };
  }
  const folders = searchFolders(input.cwd, input.env);
  // Most runs in CI have no config file at all: a plain listing of each folder settles that.
  const first = await firstCandidate(folders);
  const last = folders.length - 1;
  for (const [index, folder] of folders.entries()) {
    if (first < 0) break;
    if (index < first) continue;
    for (const place of index === last ? userSearchPlaces : projectSearchPlaces) {
      const file = path.join(folder, place);
      if (isJavaScriptConfig(place)) {
        // Found by the search, so possibly planted by someone else (a parent folder, /tmp): a
        // JavaScript config runs code, so it is only ever loaded when the user names it.
        if (await isFile(file)) input.warn?.(javaScriptNotLoaded(file));
        continue;
      }
      const found = await readConfigFile(file, 'search', input);
      if (found) return { configFile: file, searched: folders, namedBy: null, content: found.content };
    }
  }
  return { configFile: null, searched: folders, namedBy: null };
}

/** The one line said about a JavaScript config file the search passed over. */
export function javaScriptNotLoaded(file: string): string {
  return `${file} is not loaded: the search reads only YAML and JSON config files, as a JavaScript one runs code; to use it, name it: --config ${file} (or CORE_CONFIG=${file})`;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/** What one read of a file gives: its text, and what the descriptor that read it says of the file. */
interface FileRead {
  text: string;
  info: Stats;
}

/**
 * Opens `file` once and reads it through that descriptor; every check is then made of what the
 * descriptor names (fstat), never of the path again, so a file swapped under the same name between
 * the check and the read (a rename in a folder someone else owns) cannot be the one parsed. A
 * folder fails with EISDIR, as a read of it does; a FIFO, a device or a socket is refused, without
 * waiting for a writer (O_NONBLOCK; on a regular file it changes nothing).
 */
async function readOnce(file: string): Promise<FileRead> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${file}'`), { code: 'EISDIR' });
    if (!info.isFile()) throw new ConfigError(`the config file ${file} is not a regular file; core reads a config file only from one`);
    return { text: await handle.readFile('utf8'), info };
  } finally {
    await handle.close();
  }
}

/**
 * Refuses a config file the search found unless it is the user's (or root's) and no one else may
 * write it, as ssh refuses such a key file and git a repository of another owner: a file planted in
 * a parent folder or in /tmp would otherwise choose the service the token is sent to, and run its
 * token command. Every symbolic link the path passes through must be the user's (or root's) too: a
 * link at the name itself, in a folder of the path, or in a chain of links, since whoever owns one
 * chooses the file read. Not on Windows, which has no such owners and modes.
 *
 * The file checked is the one read: its owner and mode come from the descriptor that read it
 * (`read.info`), and the path is walked after the read, link by link, to the file whose device and
 * inode must be the descriptor's. A path changed meanwhile is refused: what was read cannot be told
 * to be what the walk saw.
 *
 * The same holds for every file such a file pulls in with `$import`, at any depth (docs/security.md,
 * "Configuration: trusted files only"): `imported` then names the file that imports it and the file
 * the search found, for the message and the fix.
 */
async function assertTrusted(
  file: string,
  info: Stats,
  input: Pick<LocateInput, 'uid'>,
  imported?: { by: string; searched: string },
): Promise<void> {
  const uid = input.uid ?? process.getuid?.();
  if (process.platform === 'win32' || uid === undefined) return;
  const foreign = (owner: number) => owner !== uid && owner !== 0;
  const which = imported ? `${file}, imported by ${imported.by}` : file;
  const rule = imported ? 'a config file found by the search, and every file it imports,' : 'a config file found by the search';
  const refuse = (reasons: string[], hint: string) =>
    new ConfigError(
      `refusing the config file ${which}: it ${reasons.join(' and ')}; ${rule} must be yours and writable by you alone, as it chooses where the token goes and may run a command`,
      { hint },
    );
  let walked;
  try {
    walked = linksOnTheWay(file);
    if (walked.missing) throw Object.assign(new Error('gone'), { code: 'ENOENT' });
  } catch (error) {
    throw refuse(
      [`changed while it was read (${(error as NodeJS.ErrnoException).code ?? 'error'})`],
      'run the command again; if it keeps failing, something is changing the file or a folder of its path',
    );
  }
  const reasons: string[] = [];
  const absolute = path.resolve(file);
  const foreignLinks = walked.links.filter((link) => foreign(link.uid));
  for (const link of foreignLinks) {
    reasons.push(
      link.path === absolute
        ? `is a symbolic link owned by uid ${link.uid}`
        : `is reached through the symbolic link ${link.path}, owned by uid ${link.uid}`,
    );
  }
  if (foreign(info.uid)) reasons.push(`is owned by uid ${info.uid}, not by you (uid ${uid}) or root`);
  const writers = [(info.mode & 0o020) !== 0 ? 'its group' : '', (info.mode & 0o002) !== 0 ? 'other users' : ''].filter(Boolean);
  if (writers.length > 0) reasons.push(`can be written by ${writers.join(' and ')}`);
  if (reasons.length === 0) {
    const end = await stat(walked.end).catch(() => undefined);
    if (end !== undefined && end.dev === info.dev && end.ino === info.ino) return;
    throw refuse(
      ['changed while it was read (the file its path leads to now is not the one read)'],
      'run the command again; if it keeps failing, something is changing the file or a folder of its path',
    );
  }
  const owned = foreignLinks.length === 0 && !foreign(info.uid);
  throw refuse(
    reasons,
    owned
      ? `if the file is yours, run: chmod go-w ${file}`
      : imported
        ? `if you do not know ${file}, remove its $import from ${imported.by}; a config file you trust can be named with --config ${imported.searched} (or CORE_CONFIG), which loads what it imports unchecked`
        : `remove ${file} if you do not know it, or run core from another folder; a file you trust can be named with --config ${file} (or CORE_CONFIG)`,
  );
}

/**
 * The search's check of a file, for a caller that does not read it (core doctor lists the files
 * the search would find): the file is opened, and the owner and mode checked are the descriptor's.
 * A file that cannot be opened is left to the reading of it, which fails on its own.
 */
export async function assertTrustedFile(file: string, input: Pick<LocateInput, 'uid'>): Promise<void> {
  let info: Stats;
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      info = await handle.stat();
    } finally {
      await handle.close();
    }
  } catch {
    return;
  }
  await assertTrusted(file, info, input);
}

/** Failures to read a candidate that the search passes over, as cosmiconfig's does. */
const PASSED_OVER = new Set(['ENOENT', 'EISDIR', 'ENOTDIR', 'EACCES']);

/**
 * Reads one config file as cosmiconfig 9's explorer does (its `search` in one folder, or its `load`),
 * with the same results and the same errors, without loading cosmiconfig when the file is JSON or
 * YAML and parses: JSON with `JSON.parse` (which cosmiconfig's parse-json calls first) and YAML with
 * js-yaml's `load` (cosmiconfig's YAML loader). A file that does not parse is handed to cosmiconfig's
 * loader, so its error is cosmiconfig's, word for word; a JavaScript file goes to cosmiconfig's
 * loaders as before. `$import` is read here too (`withImports`), with cosmiconfig's merge.
 *
 * The file is opened once (`readOnce`): the text parsed is the text of the descriptor whose owner
 * and mode were checked.
 *
 * Returns null when the search goes on past this file (missing, unreadable, empty, a package.json
 * without a "core" key, a null config); for a named file that means no content.
 */
async function readConfigFile(file: string, mode: 'search' | 'named', input: LocateInput): Promise<{ content: unknown } | null> {
  let read: FileRead;
  try {
    read = await readOnce(file);
  } catch (error) {
    if (mode === 'search' && PASSED_OVER.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
  const { text } = read;
  if (text.trim() === '') return mode === 'search' ? null : { content: undefined };
  // A package.json without a "core" key is passed over whoever owns it; any other file is checked
  // before it is parsed, so a refused file's content is never used.
  if (mode === 'search' && !(path.basename(file) === 'package.json' && !hasCoreKeyIn(text))) await assertTrusted(file, read.info, input);
  let loaded = await parseConfig(file, text, mode, input);
  if (isPackageJson(file)) loaded = coreKeyOf(loaded);
  loaded = await withImports(file, loaded, mode, input, [{ file, identity: identityOf(read.info) }]);
  if (loaded === null) return null;
  if (loaded === undefined) return mode === 'search' ? null : { content: undefined };
  return { content: loaded };
}

/** Extensions cosmiconfig's loaders know; a named file with any other is read as YAML. */
const LOADED_BY_EXTENSION = new Set(['.json', '.yaml', '.yml', '.js', '.cjs', '.mjs', '.ts']);

/**
 * A config file's text as a value: JSON and YAML parsed here, anything else (and a text that does
 * not parse, for cosmiconfig's message) by cosmiconfig's loader for its extension. JavaScript runs
 * only from a file named with --config or CORE_CONFIG, outside TAB completion.
 */
async function parseConfig(file: string, text: string, mode: 'search' | 'named', input: LocateInput): Promise<unknown> {
  const extension = path.extname(file);
  const kind = extension === '.json' ? 'json' : /^\.(ya?ml|)$/.test(extension) || !LOADED_BY_EXTENSION.has(extension) ? 'yaml' : 'other';
  const parsed = kind === 'other' ? undefined : await parseQuietly(kind, text);
  if (parsed !== undefined) return parsed.value;
  const loaders = await configLoaders(input.env, input.signal, mode === 'named' && !input.noCode);
  return (loaders[extension === '' ? 'noExt' : extension] ?? loaders.default!)(file, text);
}

const isPackageJson = (file: string) => path.basename(file, path.extname(file)) === 'package';

/**
 * The "core" key of a package.json, read as cosmiconfig's getPropertyByPath reads it: a package.json
 * of null (or empty) fails as it fails there, with the engine's TypeError.
 */
function coreKeyOf(loaded: unknown): unknown {
  if (!Object.prototype.hasOwnProperty.call(loaded, 'core')) return null;
  return (loaded as { core: unknown }).core ?? null;
}

/** A file as the kernel knows it, whatever path reaches it: a cycle of `$import` through links is still a cycle. */
const identityOf = (info: Stats) => `${info.dev}:${info.ino}`;

type ImportLink = { file: string; identity: string };

/**
 * A config value with its `$import` resolved, as cosmiconfig 9 resolves it (its
 * `#loadConfigFileWithImports`): each file named, relative to the importing file, is read with its
 * own imports, then merged in order, and the importing file's own keys last (objects merged key by
 * key, lists joined). Unlike cosmiconfig, here:
 *
 * - a file is read once, through one descriptor, and a file a file found by the search imports is
 *   checked as that file is (`assertTrusted`) before anything of it is parsed;
 * - a cycle (a file that imports itself, or one of the files that import it, by any path: a link
 *   is followed to the file) is a configuration error naming the chain, exit 2; so is an import
 *   that cannot be read, and one that does not hold a mapping;
 * - an empty imported file (or one of only `null`) adds nothing, where cosmiconfig fails on it.
 *
 * `chain` is the files from the one read first down to `file`.
 */
async function withImports(
  file: string,
  loaded: unknown,
  mode: 'search' | 'named',
  input: LocateInput,
  chain: ImportLink[],
): Promise<unknown> {
  if (!isObject(loaded) || !Object.hasOwn(loaded, '$import')) return loaded;
  const { $import: imports, ...own } = loaded as Record<string, unknown>;
  const names = Array.isArray(imports) ? (imports as unknown[]) : [imports];
  if (names.some((name) => typeof name !== 'string')) {
    throw new ConfigError(`${file}: $import must be a file name or a list of file names`, {
      hint: 'write each imported file as a path, relative to this file',
    });
  }
  const searched = chain[0]!.file;
  const imported: unknown[] = [];
  for (const name of names as string[]) {
    const target = path.resolve(path.dirname(file), name);
    const named = chain.find((link) => link.file === target);
    if (named !== undefined) throw importCycle(chain, target, named);
    let read: FileRead;
    try {
      read = await readOnce(target);
    } catch (error) {
      throw error instanceof ConfigError ? error : unreadableImport(error, target, file);
    }
    const identity = identityOf(read.info);
    const same = chain.find((link) => link.identity === identity);
    if (same !== undefined) throw importCycle(chain, target, same);
    // An empty imported file holds nothing to use, and nothing of it is used: it is not checked.
    if (read.text.trim() === '') continue;
    if (mode === 'search') await assertTrusted(target, read.info, input, { by: file, searched });
    let value = await parseConfig(target, read.text, mode, input);
    if (isPackageJson(target)) value = coreKeyOf(value);
    value = await withImports(target, value, mode, input, [...chain, { file: target, identity }]);
    if (value === null || value === undefined) continue;
    if (!isObject(value) || Array.isArray(value)) {
      throw new ConfigError(`${target}, imported by ${file}, does not hold a mapping of settings`, {
        hint: `a file that $import names must hold settings (profiles:, defaultProfile:), as ${searched} does`,
      });
    }
    imported.push(value);
  }
  return mergeAll([...imported, own]);
}

const isObject = (value: unknown): value is object => (typeof value === 'object' || typeof value === 'function') && value !== null;

function importCycle(chain: ImportLink[], target: string, repeated: ImportLink): ConfigError {
  const files = chain.map((link) => link.file);
  const last = files.at(-1)!;
  const through = target === repeated.file ? '' : ` (${target} is ${repeated.file})`;
  const message =
    files.length === 1
      ? `${last} imports itself${through}`
      : `$import cycle: ${files[0]}${[...files.slice(1), target].map((f, i) => (i === 0 ? ` imports ${f}` : `, which imports ${f}`)).join('')}${through}`;
  return new ConfigError(message, { hint: `remove the $import of ${target} from ${last}, or another $import of the cycle` });
}

function unreadableImport(error: unknown, target: string, by: string): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? 'does not exist'
      : code === 'EACCES'
        ? 'cannot be read (permission denied)'
        : code === 'EISDIR'
          ? 'is a folder'
          : code === 'ELOOP'
            ? 'cannot be reached (a loop of symbolic links)'
            : `cannot be read (${code ?? 'error'})`;
  return new ConfigError(`the config file ${target}, imported by ${by}, ${why}`, {
    hint: `check the $import of ${by}: a path relative to that file`,
  });
}

/**
 * cosmiconfig 9's merge of imported configs (its merge.js, `mergeImportArrays: true`): plain objects
 * key by key, lists joined, anything else replaced by the later value; `__proto__` and `constructor`
 * are never copied.
 */
function mergeAll(objects: readonly unknown[]): Record<string, unknown> {
  const merge = (target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> => {
    for (const key of Object.keys(source)) {
      if (key === '__proto__' || key === 'constructor') continue;
      const value = source[key];
      const current = target[key];
      if (Object.hasOwn(target, key)) {
        if (Array.isArray(current) && Array.isArray(value)) {
          current.push(...(value as unknown[]));
          continue;
        }
        if (isPlainObject(current) && isPlainObject(value)) {
          target[key] = merge(current, value);
          continue;
        }
      }
      target[key] = value;
    }
    return target;
  };
  return objects.reduce<Record<string, unknown>>((target, source) => merge(target, source as Record<string, unknown>), {});
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => Object.prototype.toString.call(value) === '[object Object]';

/** The parsed value, or undefined when the text does not parse (cosmiconfig's loader then says why). */
async function parseQuietly(kind: 'json' | 'yaml', text: string): Promise<{ value: unknown } | undefined> {
  try {
    if (kind === 'json') return { value: JSON.parse(text) as unknown };
    const { load } = await import('js-yaml');
    return { value: load(text) };
  } catch {
    return undefined;
  }
}

/**
 * The index of the first folder that holds a file the search would read (a package.json counts only
 * with a "core" key), or -1 when none does. Only a hint: cosmiconfig still decides from there on.
 */
async function firstCandidate(folders: string[]): Promise<number> {
  const last = folders.length - 1;
  for (const [index, folder] of folders.entries()) {
    let names: Set<string>;
    try {
      names = new Set(await readdir(folder));
    } catch {
      continue;
    }
    const places: readonly string[] = index === last ? userSearchPlaces : projectSearchPlaces;
    for (const place of places) {
      if (!names.has(place)) continue;
      if (place === 'package.json' && !(await hasCoreKey(path.join(folder, place)))) continue;
      return index;
    }
  }
  return -1;
}

async function hasCoreKey(file: string): Promise<boolean> {
  try {
    return hasCoreKeyIn(await readFile(file, 'utf8'));
  } catch {
    // A package.json that cannot be read: let cosmiconfig report it.
    return true;
  }
}

function hasCoreKeyIn(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'core' in parsed;
  } catch {
    // A package.json that cannot be parsed: let cosmiconfig report it.
    return true;
  }
}

function namedConfig(input: LocateInput): { file: string; by: string } | undefined {
  if (input.flags.config !== undefined) {
    if (input.flags.config === '') throw new ConfigError('--config needs a file name');
    return { file: input.flags.config, by: 'flag --config' };
  }
  const fromEnv = envValue(input.env, 'CORE_CONFIG');
  return fromEnv === undefined ? undefined : { file: fromEnv, by: 'env CORE_CONFIG' };
}

async function assertReadableFile(file: string, by: string): Promise<void> {
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ConfigError(`config file ${file} (from ${by}) is not a file`);
    // stat succeeds on a file its mode keeps from being read; the load would then fail unexplained.
    await access(file, constants.R_OK);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : `cannot be read (${code ?? 'error'})`;
    throw new ConfigError(`config file ${file} (from ${by}) ${why}`, {
      hint:
        by === 'flag --config'
          ? 'check the path, or drop --config to search for a config file'
          : 'check the path in CORE_CONFIG, or unset it to search for a config file',
    });
  }
}

type Loader = (filepath: string, content: string) => unknown;

/**
 * cosmiconfig's loaders, each wrapped so that a parse failure becomes a ConfigError that names the
 * file and the place but never quotes the file's text: js-yaml and parse-json print the offending
 * lines, which may hold a token. Any other extension of a file named by --config is read as YAML
 * (which reads JSON too); TypeScript is refused, as it would need the compiler at run time.
 */
export async function configLoaders(
  env: Record<string, string | undefined>,
  signal?: AbortSignal,
  code = true,
): Promise<Record<string, Loader>> {
  const { defaultLoaders } = (await import('cosmiconfig')).default;
  const wrap =
    (loader: Loader): Loader =>
    async (filepath, content) => {
      try {
        return await loader(filepath, content);
      } catch (error) {
        if (error instanceof InterruptedError) throw error;
        throw loadError(error, filepath, content, env);
      }
    };
  const js = (loader: Loader): Loader =>
    code
      ? wrap((filepath, content) => settled(loader(filepath, content), filepath, signal))
      : (filepath) => {
          throw new ConfigError(`${filepath}: a JavaScript file is not loaded from a config file the search found`, {
            hint: 'name the config file with --config FILE (or CORE_CONFIG) to let it import JavaScript',
          });
        };
  return {
    '.json': wrap(defaultLoaders['.json']),
    '.yaml': wrap(defaultLoaders['.yaml']),
    '.yml': wrap(defaultLoaders['.yml']),
    '.js': js(defaultLoaders['.js']),
    '.cjs': js(defaultLoaders['.cjs']),
    '.mjs': js(defaultLoaders['.mjs']),
    noExt: wrap(defaultLoaders.noExt),
    default: wrap(defaultLoaders.noExt),
    '.ts': (filepath) => {
      throw new ConfigError(`${filepath}: TypeScript config files are not supported`, {
        hint: 'use YAML, JSON or a .js/.cjs/.mjs file',
      });
    },
  };
}

/** The longest a JavaScript config file may take to load, as long as a token command may run. */
export const JS_CONFIG_LIMIT_MS = 10_000;

/**
 * A JavaScript config file runs code, and its top-level await may wait for anything: a promise
 * nothing settles (then Node would exit 13 in silence, the event loop being empty), or a request
 * that never ends. Loading it is bounded: it fails at once when nothing is left that could settle
 * it (the event loop empties: 'beforeExit'), after JS_CONFIG_LIMIT_MS otherwise, and on Ctrl-C or
 * SIGTERM. The timer holds nothing open.
 */
function settled(load: unknown, file: string, signal: AbortSignal | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const hint = 'a JavaScript config file must finish loading: remove the top-level await, or make sure it settles';
    const stop = (error: Error) => {
      cleanUp();
      reject(error);
    };
    const timer = setTimeout(
      () => stop(new ConfigError(`${file} did not finish loading within ${JS_CONFIG_LIMIT_MS / 1000} s`, { hint })),
      JS_CONFIG_LIMIT_MS,
    ).unref();
    const onStuck = () =>
      stop(new ConfigError(`${file} never finishes loading: its top-level await waits for nothing that can happen`, { hint }));
    const onAbort = () => stop(new InterruptedError('cancelled while loading the config file; nothing sent'));
    const cleanUp = () => {
      clearTimeout(timer);
      process.off('beforeExit', onStuck);
      signal?.removeEventListener('abort', onAbort);
    };
    if (signal?.aborted) return onAbort();
    process.once('beforeExit', onStuck);
    signal?.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(load).then(
      (value) => {
        cleanUp();
        resolve(value);
      },
      (error: unknown) => stop(error as Error),
    );
  });
}

/** A loader's failure as a ConfigError naming the file, the line and the kind of error, not the text. */
export function loadError(error: unknown, file: string, content: string, env: Record<string, string | undefined>): ConfigError {
  if (error instanceof ConfigError) return error;
  // A JavaScript file may throw anything; a non-Error is described only by its kind.
  const e = (error instanceof Error ? error : new Error('a non-Error value was thrown')) as Error & {
    reason?: string;
    mark?: { line: number; column: number };
  };
  if (e.name === 'YAMLException' && e.mark) {
    return new ConfigError(`${file}:${e.mark.line + 1}:${e.mark.column + 1}: invalid YAML: ${e.reason ?? 'syntax error'}`);
  }
  if (e.name === 'JSONError' || e.message.startsWith('JSON Error in ')) {
    const position = /at position (\d+)/.exec(e.message);
    const where = position ? lineColumnAt(content, Number(position[1])) : '';
    const what = /^(?:JSON Error in [^\n]*\n)?([^\n]*?) in JSON at position/.exec(e.message)?.[1];
    // V8's messages name the expected token ("Expected double-quoted property name") without quoting
    // the text; anything else is left out.
    const safe =
      what === undefined || /["'`]/.test(what) ? '' : what.startsWith('Unexpected token') ? ': unexpected character' : `: ${what}`;
    return new ConfigError(`${file}${where}: invalid JSON${safe}`);
  }
  // A JavaScript config file: its error message may quote the file's code (an unquoted token turns
  // into "<token> is not defined"), so only the error's kind and line are shown unless CORE_DEBUG=1.
  const line = new RegExp(`${escapeRegExp(file)}:(\\d+)`).exec(e.stack ?? '');
  const debug = env.CORE_DEBUG === '1' || env.CORE_DEBUG === 'true';
  return new ConfigError(
    `${file}${line ? `:${line[1]}` : ''}: cannot be loaded (${e.name || 'Error'})${debug ? `: ${e.message}` : ''}`,
    debug ? {} : { hint: 'run again with CORE_DEBUG=1 to see the full error (it may quote the file)' },
  );
}

function lineColumnAt(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `:${line}:${column}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
