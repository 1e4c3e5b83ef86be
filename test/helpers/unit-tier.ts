import { createRequire, syncBuiltinESMExports } from 'node:module';
import { expect } from 'vitest';

/**
 * The setup of the unit tier (vitest.config.ts, project "unit"): a unit test starts no process (no
 * built binary, no shell, no tool, no browser). Every way node:child_process has of starting one
 * throws here, naming the list a test that needs one belongs in, so the tier stays fast by rule
 * rather than by care.
 */
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  childProcess[name] = () => {
    const test = expect.getState().testPath ?? 'this test file';
    throw new Error(`${test} starts a child process (${name}): add it to PROCESS_TESTS in vitest.config.ts, or test the code in-process`);
  };
}
syncBuiltinESMExports();
