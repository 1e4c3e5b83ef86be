// What dist/ is built from, and the record the build leaves of it, so that the tests that run the
// built binary can tell a dist/ that no longer matches the sources (test/helpers/run.ts,
// `ensureBuilt`). scripts/build.mjs reads the state of the sources before it builds and writes it
// to the stamp once the build has succeeded; a stamp that is missing, or that differs from the
// sources now, means dist/ may not be what the sources make.
//
// The state is a SHA-256 of each input's content, by path: every file under src/ (the page's
// files are copied as they are), the build and its configuration (scripts/build.mjs,
// tsup.config.ts, tsconfig.json) and
// what decides the bundled dependencies and the version (package.json, package-lock.json).
// Content, not modification times: a checkout or a copy changes times without changing what
// the build makes, and an edit saved within the same second as the build is still seen.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The files and folders the build reads, relative to the project's root. */
export const BUILD_INPUTS = ['src', 'scripts/build.mjs', 'tsup.config.ts', 'tsconfig.json', 'package.json', 'package-lock.json'];

/** Where the build writes the state it was made from: beside dist/, not in it (npm would pack it), ignored by git. */
export function stampPath(projectRoot = root) {
  return join(projectRoot, '.build-stamp.json');
}

/** `path` itself when it is a file, else every file under it. */
function filesAt(path) {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The inputs of the build as they are now: { 'src/main.ts': '<sha256>', ... }, paths with forward slashes. */
export function sourceState(projectRoot = root) {
  const state = {};
  for (const input of BUILD_INPUTS) {
    const path = join(projectRoot, input);
    if (!existsSync(path)) continue;
    for (const file of filesAt(path)) {
      state[relative(projectRoot, file).split(sep).join('/')] = createHash('sha256').update(readFileSync(file)).digest('hex');
    }
  }
  return Object.fromEntries(Object.entries(state).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The state the last successful build recorded, or undefined when there is none (or it cannot be read). */
export function readStamp(projectRoot = root) {
  try {
    const stamp = JSON.parse(readFileSync(stampPath(projectRoot), 'utf8'));
    return stamp && typeof stamp.files === 'object' && stamp.files !== null ? stamp.files : undefined;
  } catch {
    return undefined;
  }
}

export function writeStamp(state, projectRoot = root) {
  writeFileSync(stampPath(projectRoot), `${JSON.stringify({ files: state }, null, 2)}\n`);
}

export function removeStamp(projectRoot = root) {
  rmSync(stampPath(projectRoot), { force: true });
}

/**
 * Whether dist/ was built from the sources as they are now: { fresh: true }, or { fresh: false,
 * reason } with the reason in words ("dist/bin.js does not exist", "src/main.ts changed since
 * dist/ was built", ...).
 */
export function buildFreshness(projectRoot = root) {
  if (!existsSync(join(projectRoot, 'dist', 'bin.js'))) return { fresh: false, reason: 'dist/bin.js does not exist' };
  const recorded = readStamp(projectRoot);
  if (recorded === undefined) {
    return { fresh: false, reason: `${relative(projectRoot, stampPath(projectRoot))} is missing: dist/ was not built by npm run build` };
  }
  const now = sourceState(projectRoot);
  const changed = [];
  for (const [path, hash] of Object.entries(now)) {
    if (!(path in recorded)) changed.push(`${path} is new`);
    else if (recorded[path] !== hash) changed.push(`${path} changed`);
  }
  for (const path of Object.keys(recorded)) if (!(path in now)) changed.push(`${path} was removed`);
  if (changed.length === 0) return { fresh: true };
  const shown = changed.slice(0, 3).join(', ') + (changed.length > 3 ? ` and ${changed.length - 3} more` : '');
  return { fresh: false, reason: `${shown} since dist/ was built` };
}
