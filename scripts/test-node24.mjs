#!/usr/bin/env node
// The test suite on Node 24, the newest release line core supports, next to the Node that runs
// `npm test` (20 in CI): vitest with Node 24 from the npm registry's `node` package, over the test
// files that exercise what could differ on it (CORE_TEST_NODE24=1 makes vitest.config.ts leave out
// NOT_ON_NODE24; CONTRIBUTING.md, "Tests on Node 24", says which and why).
//
// Node 24 is installed outside the project's dependencies, in node_modules/.cache/core-node24 with
// a package.json of its own, and reused while it is there: as a dependency of the project it would
// put its `node` into node_modules/.bin, and every `npm run` would silently use it. The `node`
// package fetches its binary in an install script, which npm 11 runs only when allowed: the
// folder's package.json allows that one package ("allowScripts"), and --strict-allow-scripts turns
// anything else into an error rather than a silent skip. Without a usable Node 24 (no network, a
// registry that refuses) this fails loudly: a compatibility run that silently did not run would
// pass CI for nothing.
//
// Run alone: node scripts/test-node24.mjs [vitest arguments]. scripts/test.mjs runs it after the
// suite on the current Node; CORE_TEST_COUNTS_FILE names a file for the counts it reads back.
// `node scripts/test-node24.mjs --install-only` installs Node 24 and runs nothing (exit 0 when it is
// there): scripts/test.mjs starts it beside the first run, so that the download is not waited for.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, runVitest, summary } from './vitest-run.mjs';

const MAJOR = 24;
const folder = join(root, 'node_modules', '.cache', `core-node${MAJOR}`);
const windows = process.platform === 'win32';
const binary = join(folder, 'node_modules', '.bin', windows ? 'node.cmd' : 'node');

function versionOf(node) {
  const run = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8', shell: windows });
  return run.status === 0 ? run.stdout.trim() : null;
}

/** The path of a Node 24 binary, installing it first when needed; throws with the reason otherwise. */
export function installNode24() {
  if (existsSync(binary) && versionOf(binary)?.startsWith(`${MAJOR}.`)) return binary;
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    join(folder, 'package.json'),
    `${JSON.stringify({ name: `core-node${MAJOR}`, private: true, description: 'Node for the compatibility run of scripts/test-node24.mjs', allowScripts: { node: true } }, null, 2)}\n`,
  );
  console.log(`\nInstalling node@${MAJOR} from the npm registry into ${folder} ...`);
  const install = spawnSync(
    'npm',
    ['install', `node@${MAJOR}`, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--strict-allow-scripts', '--loglevel=error'],
    { cwd: folder, stdio: 'inherit', shell: windows },
  );
  if (install.status !== 0) throw new Error(`npm install node@${MAJOR} failed (exit status ${install.status ?? install.signal})`);
  const version = existsSync(binary) ? versionOf(binary) : null;
  if (!version?.startsWith(`${MAJOR}.`)) {
    throw new Error(
      `npm installed node@${MAJOR}, but ${binary} ${version ? `is Node ${version}` : 'does not run'} (was its install script blocked?)`,
    );
  }
  return binary;
}

function main() {
  let node;
  try {
    node = installNode24();
  } catch (error) {
    console.error(`\nerror: the Node ${MAJOR} test run could not start: ${error.message}`);
    console.error(`hint: it needs the npm registry; to see why, run: cd ${folder} && npm install node@${MAJOR}`);
    return {
      code: 1,
      passed: 0,
      failed: 1,
      skipped: 0,
      failedTests: [`(Node ${MAJOR} could not be installed: ${error.message})`],
      skippedTests: [],
    };
  }
  const version = versionOf(node);
  console.log(`\nRunning the tests of what could differ on Node ${version} (${node}; vitest.config.ts, ON_NODE24)\n`);
  // Child processes of the tests that start `node` by name (the packed tarball's bin) get Node 24 too.
  const env = { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`, CORE_TEST_NODE24: '1' };
  const counts = runVitest(node, process.argv.slice(2), env);
  console.log(`\nNode ${version}: ${summary(counts)}`);
  return { ...counts, node: version };
}

function installOnly() {
  try {
    console.log(`Node ${MAJOR} for the second run: ${installNode24()}`);
    return 0;
  } catch (error) {
    console.error(`error: Node ${MAJOR} could not be installed: ${error.message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv[2] === '--install-only') {
  process.exit(installOnly());
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const counts = main();
  if (process.env.CORE_TEST_COUNTS_FILE) writeFileSync(process.env.CORE_TEST_COUNTS_FILE, JSON.stringify(counts));
  process.exit(counts.code);
}
