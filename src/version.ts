import { readFileSync } from 'node:fs';

declare const __CORE_VERSION__: string | undefined;

/** The package version: written into the bundle at build time, read from package.json when run from source. */
export function version(): string {
  if (typeof __CORE_VERSION__ === 'string') return __CORE_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** What `core version --json` and `core --version --json` print: core's version, Node's, and the platform. */
export interface VersionInfo {
  version: string;
  /** Node's version, without the `v`: `20.20.2`. */
  node: string;
  /** `process.platform`: `linux`, `darwin`, `win32`. */
  platform: string;
}

export function versionInfo(): VersionInfo {
  return { version: version(), node: process.versions.node, platform: process.platform };
}

/**
 * The output of `core version`: one line for people (the architecture beside the platform, for a
 * bug report), or the JSON document.
 */
export function versionText(json: boolean): string {
  const info = versionInfo();
  if (json) return `${JSON.stringify(info)}\n`;
  return `core ${info.version} (Node.js ${info.node}, ${info.platform}-${process.arch})\n`;
}

/**
 * Whether argv asks only for the version, as `core --version --json` or `core version` does, with
 * nothing else on the line: bin.ts then prints it without loading the program. Returns whether
 * JSON was asked for, or undefined for any other line.
 */
export function versionRequest(argv: readonly string[]): { json: boolean } | undefined {
  if (argv.length === 0 || argv.length > 2) return undefined;
  const words = new Set(argv);
  if (words.size !== argv.length) return undefined;
  const json = words.delete('--json');
  const asked = words.size === 1 && (words.has('--version') || words.has('-V') || words.has('version'));
  // `core --version` alone prints the bare version, as before: the caller handles it.
  return asked && (json || words.has('version')) ? { json } : undefined;
}
