#!/usr/bin/env node
// Runs the whole test suite with vitest on the Node running this script, then again on Node 24
// (scripts/test-node24.mjs), and ends with one plain summary line over both runs,
// "N passed, N failed, N skipped", so any CI can read the outcome. Exits non-zero when either
// run failed, or when the Node 24 run could not start.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, runVitest, summary } from './vitest-run.mjs';

const args = process.argv.slice(2);
const current = { ...runVitest(process.execPath, args), node: process.versions.node };
console.log(`\nNode ${current.node}: ${summary(current)}`);

const dir = mkdtempSync(join(tmpdir(), 'core-test24-'));
const countsFile = join(dir, 'counts.json');
const run24 = spawnSync(process.execPath, [join(root, 'scripts', 'test-node24.mjs'), ...args], {
  stdio: 'inherit',
  env: { ...process.env, CORE_TEST_COUNTS_FILE: countsFile },
});
let node24;
try {
  node24 = JSON.parse(readFileSync(countsFile, 'utf8'));
} catch {
  node24 = { code: run24.status || 1, passed: 0, failed: 1, skipped: 0, node: '24 (did not report)' };
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const total = {
  passed: current.passed + node24.passed,
  failed: current.failed + node24.failed,
  skipped: current.skipped + node24.skipped,
};
console.log(`\nNode ${current.node}: ${summary(current)}`);
console.log(`Node ${node24.node ?? '24'}: ${summary(node24)}`);
console.log(summary(total));
process.exit(current.code !== 0 || node24.code !== 0 || run24.status !== 0 ? 1 : 0);
