import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { assertTrustedFile, isJavaScriptConfig } from '../../config/locate.js';
import { envValue, projectSearchPlaces, searchFolders, userSearchPlaces } from '../../config/index.js';
import type { Context } from '../../context.js';
import { ConfigError } from '../../errors.js';
import type { GlobalOptions } from '../definition.js';

/**
 * The config files core would find, each with whether the search trusts it (src/config/locate.ts,
 * `assertTrustedFile`: yours or root's, writable by you alone) and whether it is the one in use: the
 * first the search reads. A JavaScript file found by the search is never loaded; a file named with
 * --config or CORE_CONFIG is the only one read, as the user's own choice.
 */

export interface FoundFile {
  path: string;
  /** The one the settings come from (or would, once trusted). */
  inUse: boolean;
  /** Why the search refuses it. */
  problem?: string;
  fix?: string;
  /** What to know about it when it is fine. */
  note: string;
  /** `flag --config` or `env CORE_CONFIG` for a named file. */
  namedBy?: string;
}

export async function configFiles(global: GlobalOptions, ctx: Context): Promise<FoundFile[]> {
  const named = global.config !== undefined ? { file: global.config, by: 'flag --config' } : namedByEnv(ctx);
  return named !== undefined ? [await namedFile(named, ctx)] : searchedFiles(ctx);
}

/** The file --config or CORE_CONFIG names: the only one read, whoever owns it. */
async function namedFile(named: { file: string; by: string }, ctx: Context): Promise<FoundFile> {
  const file = path.resolve(ctx.cwd, named.file);
  return (await isFile(file))
    ? {
        path: file,
        inUse: true,
        namedBy: named.by,
        note: `in use, named by ${named.by} (read as you named it, without the search's ownership check)`,
      }
    : {
        path: file,
        inUse: true,
        namedBy: named.by,
        note: '',
        problem: `named by ${named.by}, but there is no such file`,
        fix: `create it (core config init), or fix ${named.by.replace(/^(flag|env) /, '')}`,
      };
}

/** Every file the search would find, in its order; the first YAML or JSON one is in use. */
async function searchedFiles(ctx: Context): Promise<FoundFile[]> {
  const folders = searchFolders(ctx.cwd, ctx.env);
  const found: FoundFile[] = [];
  let first: string | undefined;
  for (const [index, folder] of folders.entries()) {
    const places: readonly string[] = index === folders.length - 1 ? userSearchPlaces : projectSearchPlaces;
    for (const place of places) {
      const file = path.join(folder, place);
      if (!(await isFile(file))) continue;
      if (place === 'package.json' && !(await hasCoreKey(file))) continue;
      if (isJavaScriptConfig(file)) {
        found.push({
          path: file,
          inUse: false,
          note: `not loaded: the search reads only YAML and JSON, as JavaScript runs code; to use it: --config ${file}`,
        });
        continue;
      }
      const inUse = first === undefined;
      first ??= file;
      const note = inUse ? 'in use; yours and writable by you alone' : `not read: ${first} comes first; yours and writable by you alone`;
      found.push({ path: file, inUse, note, ...(await distrust(file)) });
    }
  }
  if (found.length === 0) {
    found.push({
      path: 'none found',
      inUse: false,
      note: `the environment alone (searched ${folders.length} folders: ${ctx.cwd} up to the home folder, then ${folders.at(-1)})`,
    });
  }
  return found;
}

/** Why the search refuses a file (src/config/locate.ts, `assertTrustedFile`), and the fix; nothing when it trusts it. */
async function distrust(file: string): Promise<{ problem: string; fix: string | undefined } | Record<string, never>> {
  try {
    await assertTrustedFile(file, {});
    return {};
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problem: error.message.replace(/^refusing the config file [^:]*: /, 'refused: '), fix: error.hint };
  }
}

function namedByEnv(ctx: Context): { file: string; by: string } | undefined {
  const value = envValue(ctx.env, 'CORE_CONFIG');
  return value === undefined ? undefined : { file: value, by: 'env CORE_CONFIG' };
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

async function hasCoreKey(file: string): Promise<boolean> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'core' in parsed;
  } catch {
    return true;
  }
}
