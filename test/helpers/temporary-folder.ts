import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * vitest's global setup: one temporary folder for the whole run, named in TMPDIR before the test
 * workers start (they inherit it, and os.tmpdir() reads it), and removed when the run ends. The tests
 * make thousands of temporary homes, files and reports; none is left behind in the machine's /tmp.
 * CORE_TEST_KEEP_TMP=1 keeps the folder to look into after a failure.
 */
export default function setup(): () => void {
  // Every vitest project runs the global setup: the first makes the folder, the others use it (a
  // folder in a folder in a folder made socket paths too long for Chromium).
  if (process.env.CORE_TEST_TMPDIR !== undefined) return () => {};
  const folder = mkdtempSync(join(tmpdir(), 'core-tests-'));
  process.env.TMPDIR = folder;
  process.env.CORE_TEST_TMPDIR = folder;
  return () => {
    if (process.env.CORE_TEST_KEEP_TMP === '1') {
      console.log(`kept the tests' temporary folder: ${folder}`);
      return;
    }
    rmSync(folder, { recursive: true, force: true, maxRetries: 3 });
  };
}
