import { readFileSync } from 'node:fs';

declare const __CORE_VERSION__: string | undefined;

/** The package version: written into the bundle at build time, read from package.json when run from source. */
export function version(): string {
  if (typeof __CORE_VERSION__ === 'string') return __CORE_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
