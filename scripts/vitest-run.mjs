// One run of the test suite with vitest under a given Node binary, read back from vitest's JSON
// report as counts. Shared by scripts/test.mjs (the current Node) and scripts/test-node24.mjs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Runs vitest with `node` (a path to a Node binary) and returns { code, passed, failed, skipped }.
 * A run that reports no tests at all, or no report, counts as a failure.
 */
export function runVitest(node, args, env = process.env) {
  const dir = mkdtempSync(join(tmpdir(), 'core-test-'));
  const report = join(dir, 'results.json');
  const vitest = spawnSync(
    node,
    [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args],
    { stdio: 'inherit', cwd: root, env },
  );
  try {
    const results = JSON.parse(readFileSync(report, 'utf8'));
    const counts = {
      code: vitest.status ?? 1,
      passed: results.numPassedTests ?? 0,
      failed: results.numFailedTests ?? 0,
      skipped: (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0),
    };
    if (results.numTotalTests === 0) counts.code ||= 1;
    // A suite that failed to load (vitest exits 1) with no failed test still counts one failure.
    if (counts.code !== 0 && counts.failed === 0) counts.failed = 1;
    return counts;
  } catch {
    return { code: vitest.status || 1, passed: 0, failed: 1, skipped: 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function summary(counts) {
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
}
