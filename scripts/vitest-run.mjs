// One run of the test suite with vitest under a given Node binary, read back from vitest's JSON
// report as counts and the names of the tests that failed or were skipped. Shared by
// scripts/test.mjs (the current Node) and scripts/test-node24.mjs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The programs outside Node that tests need, and the variable that lets their tests be skipped. */
export const toolList = JSON.parse(readFileSync(join(root, 'test', 'helpers', 'tools.json'), 'utf8'));

/** Set to 1 to let tests be skipped (a tool missing, another platform); by default a skip fails the run. */
export const ALLOW_SKIP_VARIABLE = toolList.allowSkipVariable;

export function strictMode(env = process.env) {
  return env[ALLOW_SKIP_VARIABLE] !== '1';
}

/** "file > describe > test" for one test of vitest's JSON report. */
function testName(file, assertion) {
  return [relative(root, file), ...(assertion.ancestorTitles ?? []), assertion.title].join(' > ');
}

/**
 * CORE_TEST_REPORT_DIR names a folder to keep each run's vitest JSON report in, as
 * results-node<major>.json (each file's start and end times are there, to see where a run's time goes).
 */
function keepReport(node, report, env) {
  const folder = env.CORE_TEST_REPORT_DIR;
  if (!folder) return;
  const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim() ?? 'unknown';
  mkdirSync(folder, { recursive: true });
  copyFileSync(report, join(folder, `results-node${version.split('.')[0]}.json`));
}

/**
 * The first lines of a failed test's first message, indented under its name: the summary is the
 * part of a long run's output a CI page keeps, so it says why as well as what.
 */
function failureHead(assertion) {
  const message = String(assertion.failureMessages?.[0] ?? '')
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s+at /.test(line))
    .slice(0, 12)
    .map((line) => `      ${line.length > 300 ? `${line.slice(0, 300)}...` : line}`);
  return message.length === 0 ? '' : `\n${message.join('\n')}`;
}

/**
 * Runs vitest with `node` (a path to a Node binary) and returns
 * { code, passed, failed, skipped, failedTests, skippedTests, seconds }: the two lists are names, seconds
 * the wall time of vitest's run (its start-up and collection included).
 * A run that reports no tests at all, or no report, counts as a failure.
 */
export function runVitest(node, args, env = process.env) {
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'core-test-'));
  const report = join(dir, 'results.json');
  const vitest = spawnSync(
    node,
    [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args],
    { stdio: 'inherit', cwd: root, env },
  );
  const seconds = Math.round((performance.now() - started) / 1000);
  try {
    keepReport(node, report, env);
    const results = JSON.parse(readFileSync(report, 'utf8'));
    const failedTests = [];
    const skippedTests = [];
    for (const file of results.testResults ?? []) {
      // A file that failed to load has no tests to name: name the file and its error.
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) {
        failedTests.push(`${relative(root, file.name)} (did not load: ${String(file.message ?? '').split('\n')[0]})`);
      }
      for (const assertion of file.assertionResults ?? []) {
        if (assertion.status === 'failed') failedTests.push(`${testName(file.name, assertion)}${failureHead(assertion)}`);
        else if (assertion.status !== 'passed') skippedTests.push(testName(file.name, assertion));
      }
    }
    const counts = {
      code: vitest.status ?? 1,
      passed: results.numPassedTests ?? 0,
      failed: results.numFailedTests ?? 0,
      skipped: (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0),
      failedTests,
      skippedTests,
      seconds,
    };
    if (results.numTotalTests === 0) counts.code ||= 1;
    // A suite that failed to load, or an unhandled error or rejection (vitest exits 1 and its JSON
    // report still says success), with no failed test: one failure, named, so the summary says why.
    if (counts.code !== 0 && counts.failed === 0) {
      counts.failed = 1;
      if (failedTests.length === 0) {
        failedTests.push(
          `(vitest exited ${counts.code} with every test passed: an unhandled error or rejection, listed in its output above)`,
        );
      }
    }
    return counts;
  } catch {
    return {
      code: vitest.status || 1,
      passed: 0,
      failed: 1,
      skipped: 0,
      failedTests: ['(vitest wrote no report)'],
      skippedTests: [],
      seconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** "N passed, N failed, N skipped", and the run's wall time when known: " in N s". */
export function summary(counts) {
  const time = counts.seconds === undefined ? '' : ` in ${counts.seconds} s`;
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${time}`;
}
