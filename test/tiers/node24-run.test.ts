import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_ON_NODE24, ON_NODE24 } from '../../vitest.config.js';
import { repoRoot } from '../helpers/run.js';

/**
 * What vitest itself selects in the run on Node 24 (scripts/test-node24.mjs sets CORE_TEST_NODE24=1):
 * the files of ON_NODE24 and none of NOT_ON_NODE24, in their tiers; and every file without it.
 * test/tiers/node24.test.ts checks that each file is in one list.
 */

/** The test files `vitest list` selects with `env`, relative to the project's root. */
function selected(env: Record<string, string | undefined>): string[] {
  const printed = execFileSync(process.execPath, [join(repoRoot, 'node_modules/vitest/vitest.mjs'), 'list', '--filesOnly'], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  // Each line: "[project] test/....test.ts".
  return printed
    .split('\n')
    .map((line) => /(test\/\S+\.test\.ts)$/.exec(line)?.[1])
    .filter((file): file is string => file !== undefined)
    .sort();
}

const names = (entry: string, file: string) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry);

describe('vitest on Node 24', () => {
  it('selects the files of ON_NODE24 and none of NOT_ON_NODE24; on another Node, every file', () => {
    const all = selected({ CORE_TEST_NODE24: undefined });
    const on24 = selected({ CORE_TEST_NODE24: '1' });
    expect(all.length).toBeGreaterThan(on24.length);
    expect(on24).toEqual(all.filter((file) => !NOT_ON_NODE24.some(([path]) => names(path, file))));
    expect(on24.every((file) => ON_NODE24.some(([path]) => names(path, file)))).toBe(true);
    expect(on24).toEqual(expect.arrayContaining(['test/e2e/reply.test.ts', 'test/hardening/tls.test.ts', 'test/payload/json.test.ts']));
  });
});
