#!/usr/bin/env node
// Runs the whole test suite with vitest and ends with one plain summary line,
// "N passed, N failed, N skipped", so any CI can read the outcome. Exits with vitest's code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'core-test-'));
const report = join(dir, 'results.json');
const vitest = spawnSync(
  process.execPath,
  ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
let code = vitest.status ?? 1;
try {
  const results = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
  console.log(`\n${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped`);
  if (results.numTotalTests === 0) code = code || 1;
} catch {
  console.log('\n0 passed, 1 failed');
  code = code || 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(code);
