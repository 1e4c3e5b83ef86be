import { spawnSync } from 'node:child_process';
import { openSync, closeSync, existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, binPath, ensureBuilt } from '../helpers/run.js';

/** When standard output cannot take what core prints: a full disk, a reader that stops early. */
describe('the built binary writing to a broken stdout', () => {
  beforeAll(() => ensureBuilt());

  it.skipIf(!existsSync('/dev/full'))('ends with one line and exit 1 on a full disk, never a stack trace', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const run = spawnSync(process.execPath, [binPath, 'schema', 'reply'], {
        env: baseEnv() as NodeJS.ProcessEnv,
        stdio: ['ignore', full, 'pipe'],
        encoding: 'utf8',
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toBe('error: cannot write the output (ENOSPC)\n');
    } finally {
      closeSync(full);
    }
  });

  it("exits with the command's own code when the reader stops after it has finished", () => {
    const run = spawnSync('bash', ['-c', `"${process.execPath}" "${binPath}" reply --help | head -1; exit \${PIPESTATUS[0]}`], {
      env: baseEnv() as NodeJS.ProcessEnv,
      encoding: 'utf8',
    });
    expect(run.stdout).toBe('Usage: core reply [options]\n');
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });
});
