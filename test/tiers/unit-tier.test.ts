import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { PROCESS_TESTS, UNIT_TESTS } from '../../vitest.config.js';

/** The unit tier (vitest.config.ts, test/helpers/unit-tier.ts): no child process, and no file in two tiers. */
describe('the unit tier', () => {
  it.each<[string, () => unknown]>([
    ['spawn', () => spawn('true')],
    ['spawnSync', () => spawnSync('true')],
    ['execFile', () => execFile('true')],
    ['execFileSync', () => execFileSync('true')],
  ])('refuses %s, naming where a test that needs a process belongs', (_name, start) => {
    expect(start).toThrow(/starts a child process .*add it to PROCESS_TESTS in vitest\.config\.ts/);
  });

  it('shares no pattern with the process tier', () => {
    expect(UNIT_TESTS.filter((glob) => PROCESS_TESTS.includes(glob))).toEqual([]);
  });
});
