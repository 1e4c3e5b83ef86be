import { access, constants, lstat, readdir, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, InterruptedError } from '../errors.js';

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

/**
 * Refuses a config file the search found unless it is the user's (or root's) and no one else may
 * write it, as ssh refuses such a key file and git a repository of another owner: a file planted in
 * a parent folder or in /tmp would otherwise choose the service the token is sent to, and run its
 * token command. A symbolic link must be the user's (or root's) too, and so must its target. Not on
 * Windows, which has no such owners and modes.
 *
 * The same holds for every file such a file pulls in with `$import`, at any depth (docs/security.md,
 * "Configuration: trusted files only"): `imported` then names the file that imports it and the file
 * the search found, for the message and the fix.
 */
export async function assertTrusted(
  file: string,
  input: Pick<LocateInput, 'uid'>,
  imported?: { by: string; searched: string },
): Promise<void> {
  const uid = input.uid ?? process.getuid?.();
  if (process.platform === 'win32' || uid === undefined) return;
  let link;
  let target;
  try {
    link = await lstat(file);
    target = link.isSymbolicLink() ? await stat(file) : link;
  } catch {
    // It was just read: gone since, the reading of it fails on its own.
    return;
  }
  const foreign = (owner: number) => owner !== uid && owner !== 0;
  const reasons: string[] = [];
  const foreignLink = link.isSymbolicLink() && foreign(link.uid);
  if (foreignLink) reasons.push(`is a symbolic link owned by uid ${link.uid}`);
  if (foreign(target.uid)) reasons.push(`is owned by uid ${target.uid}, not by you (uid ${uid}) or root`);
  const writers = [(target.mode & 0o020) !== 0 ? 'its group' : '', (target.mode & 0o002) !== 0 ? 'other users' : ''].filter(Boolean);
  if (writers.length > 0) reasons.push(`can be written by ${writers.join(' and ')}`);
  if (reasons.length === 0) return;
  const owned = !foreignLink && !foreign(target.uid);
  const which = imported ? `${file}, imported by ${imported.by}` : file;
  const rule = imported ? 'a config file found by the search, and every file it imports,' : 'a config file found by the search';
  throw new ConfigError(
    `refusing the config file ${which}: it ${reasons.join(' and ')}; ${rule} must be yours and writable by you alone, as it chooses where the token goes and may run a command`,
    {
      hint: owned
        ? `if the file is yours, run: chmod go-w ${file}`
        : imported
          ? `if you do not know ${file}, remove its $import from ${imported.by}; a config file you trust can be named with --config ${imported.searched} (or CORE_CONFIG), which loads what it imports unchecked`
          : `remove ${file} if you do not know it, or run core from another folder; a file you trust can be named with --config ${file} (or CORE_CONFIG)`,
    },
  );
}

/**
 * The loaders for a file the search found, each checking with assertTrusted the file it is about to
 * parse: cosmiconfig hands every file of an `$import` to a loader, at any depth, once it has read
 * it and before it merges anything or the settings use it. A loader learns only the file's path, so
 * the `$import` of each file loaded is noted first, to name the importer in the message (a file that
 * two files import is named with one of them). The searched file was checked before cosmiconfig read
 * it; it is checked again on cosmiconfig's own read.
 */
function trustedLoaders(loaders: Record<string, Loader>, searched: string, input: LocateInput): Record<string, Loader> {
  const importers = new Map<string, string>();
  const checked =
    (loader: Loader): Loader =>
    async (filepath, content) => {
      const by = importers.get(filepath);
      await assertTrusted(filepath, input, filepath === searched ? undefined : { by: by ?? searched, searched });
      const loaded = await loader(filepath, content);
      for (const imported of importsOf(filepath, loaded)) importers.set(path.resolve(path.dirname(filepath), imported), filepath);
      return loaded;
    };
  return Object.fromEntries(Object.entries(loaders).map(([extension, loader]) => [extension, checked(loader)]));
}

/** The paths a loaded file names in `$import`, where cosmiconfig looks (a package.json's "core" key). */
function importsOf(file: string, loaded: unknown): string[] {
  const config = path.basename(file, path.extname(file)) === 'package' ? (loaded as { core?: unknown } | null | undefined)?.core : loaded;
  if (typeof config !== 'object' || config === null || !Object.hasOwn(config, '$import')) return [];
  const imports = (config as { $import: unknown }).$import;
  // cosmiconfig refuses anything but strings itself, after this loader returns.
  return (Array.isArray(imports) ? imports : [imports]).filter((item): item is string => typeof item === 'string');
}

/** Failures to read a candidate that the search passes over, as cosmiconfig's does. */
const PASSED_OVER = new Set(['ENOENT', 'EISDIR', 'ENOTDIR', 'EACCES']);

/**
 * Reads one config file as cosmiconfig 9's explorer does (its `search` in one folder, or its `load`),
 * with the same results and the same errors, without loading cosmiconfig when the file is JSON or
 * YAML and parses: JSON with `JSON.parse` (which cosmiconfig's parse-json calls first) and YAML with
 * js-yaml's `load` (cosmiconfig's YAML loader). A file that does not parse is handed to cosmiconfig's
 * loader, so its error is cosmiconfig's, word for word; a JavaScript file goes to cosmiconfig's
 * loaders as before; a file with `$import` to cosmiconfig itself, which merges the imported files.
 *
 * Returns null when the search goes on past this file (missing, unreadable, empty, a package.json
 * without a "core" key, a null config); for a named file that means no content.
 */
async function readConfigFile(file: string, mode: 'search' | 'named', input: LocateInput): Promise<{ content: unknown } | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (mode === 'search' && PASSED_OVER.has((error as NodeJS.ErrnoException).code ?? '')) return null;
    throw error;
  }
  if (text.trim() === '') return mode === 'search' ? null : { content: undefined };
  const extension = path.extname(file);
  // A package.json without a "core" key is passed over whoever owns it; any other file is checked
  // before it is parsed, so a refused file's content is never used.
  if (mode === 'search' && !(path.basename(file) === 'package.json' && !hasCoreKeyIn(text))) await assertTrusted(file, input);
  const kind = extension === '.json' ? 'json' : /^\.(ya?ml|)$/.test(extension) || !LOADED_BY_EXTENSION.has(extension) ? 'yaml' : 'other';
  let loaded: unknown;
  const parsed = kind === 'other' ? undefined : await parseQuietly(kind, text);
  if (parsed !== undefined) loaded = parsed.value;
  else {
    const loaders = await configLoaders(input.env, input.signal, mode === 'named' && !input.noCode);
    loaded = await (loaders[extension === '' ? 'noExt' : extension] ?? loaders.default!)(file, text);
  }
  if (path.basename(file, extension) === 'package') {
    // cosmiconfig reads the "core" key (its getPropertyByPath), and fails on a package.json of null.
    if (loaded === null || loaded === undefined) return viaCosmiconfig(file, mode, input);
    loaded = (loaded as Record<string, unknown>).core ?? null;
  }
  if ((typeof loaded === 'object' || typeof loaded === 'function') && loaded !== null && Object.hasOwn(loaded, '$import'))
    return viaCosmiconfig(file, mode, input);
  if (loaded === null) return null;
  if (loaded === undefined) return mode === 'search' ? null : { content: undefined };
  return { content: loaded };
}

/** Extensions cosmiconfig's loaders know; a named file with any other is read as YAML. */
const LOADED_BY_EXTENSION = new Set(['.json', '.yaml', '.yml', '.js', '.cjs', '.mjs', '.ts']);

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

/** One file through cosmiconfig itself: for `$import`, which it merges, and a package.json of null. */
async function viaCosmiconfig(file: string, mode: 'search' | 'named', input: LocateInput): Promise<{ content: unknown } | null> {
  // cosmiconfig is CommonJS: its exports arrive as `default` in the ESM bundle (and in Node alike).
  const { cosmiconfig } = (await import('cosmiconfig')).default;
  // A file found by the search may $import only YAML and JSON: JavaScript is loaded when named.
  const loaders = await configLoaders(input.env, input.signal, mode === 'named' && !input.noCode);
  // What a file found by the search imports must be trusted as the file itself is; a named file is
  // the user's choice, and so is what it imports (docs/configuration.md, "Trusted files only").
  const explorer = cosmiconfig('core', {
    searchStrategy: 'none',
    cache: false,
    loaders: mode === 'search' ? trustedLoaders(loaders, file, input) : loaders,
    searchPlaces: [path.basename(file)],
  });
  const result = mode === 'search' ? await explorer.search(path.dirname(file)) : await explorer.load(file);
  if (result === null) return null;
  return mode === 'search' && result.isEmpty === true ? null : { content: result.config };
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
