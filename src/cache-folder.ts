import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';

/**
 * Where the compile cache is kept (src/compile-cache.ts): a leaf, so that `core doctor` checks the
 * same folder without importing the loader, which names the application it loads.
 */

/** The folder: `$XDG_CACHE_HOME/core`, or `~/.cache/core`. */
export function cacheFolder(env: NodeJS.ProcessEnv): string | undefined {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'core');
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : safeHomedir();
  return home === undefined ? undefined : join(home, '.cache', 'core');
}

function safeHomedir(): string | undefined {
  try {
    // node:os only when HOME is unset: --version and most runs never need it.
    return (createRequire(import.meta.url)('node:os') as typeof import('node:os')).homedir();
  } catch {
    return undefined;
  }
}
