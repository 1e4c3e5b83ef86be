#!/usr/bin/env node
// Runs the whole test suite with vitest on the Node running this script, then on Node 24 the files
// of what could differ there (scripts/test-node24.mjs; vitest.config.ts, ON_NODE24), and ends with a plain summary that any CI can read: per Node and in
// total "N passed, N failed, N skipped", then every failed and every skipped test by name.
//
// Strict by default: a skipped test fails the run, so a test that could not run (a tool missing,
// another platform) is never mistaken for one that passed. CORE_TEST_ALLOW_SKIP=1 allows skips
// (and makes the tests of a missing tool skip rather than fail; test/helpers/tools.ts); they are
// still listed. Before vitest starts, the tools the tests need are installed when this runs as
// root with apt-get, or named with their install command (scripts/test-tools.mjs).
//
// Exits non-zero when either run failed, when the Node 24 run could not start, or when a test
// was skipped in strict mode. CORE_TEST_SUMMARY_FILE names a file to write the summary to as well.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTools } from './test-tools.mjs';
import { ALLOW_SKIP_VARIABLE, root, runVitest, strictMode, summary } from './vitest-run.mjs';

const args = process.argv.slice(2);
const strict = strictMode();
ensureTools();

// Node 24 is fetched (when it is not there yet) while the first run goes on, its output kept in a
// file and shown after that run; the second run installs it again only if this failed, and says why.
const dir = mkdtempSync(join(tmpdir(), 'core-test24-'));
const installLog = join(dir, 'install.log');
const logFd = openSync(installLog, 'w');
const installing = spawn(process.execPath, [join(root, 'scripts', 'test-node24.mjs'), '--install-only'], {
  stdio: ['ignore', logFd, logFd],
});
closeSync(logFd);
const installed = new Promise((resolve) => {
  installing.on('error', resolve);
  installing.on('close', resolve);
});

const current = { ...runVitest(process.execPath, args), node: process.versions.node };
console.log(`\nNode ${current.node}: ${summary(current)}`);

await installed;
process.stdout.write(`\n${readFileSync(installLog, 'utf8')}`);

const countsFile = join(dir, 'counts.json');
const run24 = spawnSync(process.execPath, [join(root, 'scripts', 'test-node24.mjs'), ...args], {
  stdio: 'inherit',
  env: { ...process.env, CORE_TEST_COUNTS_FILE: countsFile },
});
let node24;
try {
  node24 = JSON.parse(readFileSync(countsFile, 'utf8'));
} catch {
  node24 = {
    code: run24.status || 1,
    passed: 0,
    failed: 1,
    skipped: 0,
    failedTests: ['(the Node 24 run did not report)'],
    skippedTests: [],
    node: '24 (did not report)',
  };
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const runs = [current, node24];
const total = {
  passed: current.passed + node24.passed,
  failed: current.failed + node24.failed,
  skipped: current.skipped + node24.skipped,
  seconds: (current.seconds ?? 0) + (node24.seconds ?? 0),
};
const skipFails = strict && total.skipped > 0;
const failed = current.code !== 0 || node24.code !== 0 || run24.status !== 0 || skipFails;

const lines = [
  '',
  `Test summary (${strict ? `strict: a skipped test fails the run; ${ALLOW_SKIP_VARIABLE}=1 allows skips` : `${ALLOW_SKIP_VARIABLE}=1: skips allowed`})`,
];
for (const run of runs) lines.push(`Node ${run.node ?? '24'}: ${summary(run)}`);
lines.push(`Total: ${summary(total)}`);
for (const run of runs) {
  for (const [what, names] of [
    ['Failed', run.failedTests ?? []],
    ['Skipped', run.skippedTests ?? []],
  ]) {
    if (names.length === 0) continue;
    lines.push(`${what} on Node ${run.node ?? '24'} (${names.length}):`);
    for (const name of names) lines.push(`  ${name}`);
  }
}
if (skipFails) lines.push(`FAILED: ${total.skipped} skipped test${total.skipped === 1 ? '' : 's'} in strict mode (listed above).`);
lines.push(failed ? 'Result: FAILED' : 'Result: passed');
const text = `${lines.join('\n')}\n`;
process.stdout.write(text);
if (process.env.CORE_TEST_SUMMARY_FILE) writeFileSync(process.env.CORE_TEST_SUMMARY_FILE, text);
process.exit(failed ? 1 : 0);
