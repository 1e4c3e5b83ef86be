import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { globOf, leftOut, NOT_ON_NODE24, ON_NODE24 } from '../../vitest.config.js';

/**
 * Which test files run again on Node 24 (vitest.config.ts, ON_NODE24 and NOT_ON_NODE24): every file
 * is in exactly one of the two lists, each entry with its reason, so that a new test file is
 * classified when it is added rather than silently left out of the run on Node 24 (or silently
 * run on it for nothing). test/tiers/node24-run.test.ts checks what vitest itself selects.
 */

const root = join(import.meta.dirname, '..', '..');

/** Every test file of the suite, relative to the project's root with forward slashes. */
function testFiles(): string[] {
  return readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) =>
      relative(root, join(root, 'test', path))
        .split(sep)
        .join('/'),
    )
    .sort();
}

const entries = [
  ...ON_NODE24.map(([path, why]) => ({ path, why, list: 'ON_NODE24' })),
  ...NOT_ON_NODE24.map(([path, why]) => ({ path, why, list: 'NOT_ON_NODE24' })),
];

/** Whether an entry (a folder ending in / or a file) names `file`. */
const names = (entry: string, file: string) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry);

describe('the run on Node 24', () => {
  it('has every test file in exactly one of ON_NODE24 and NOT_ON_NODE24 (vitest.config.ts)', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(150);
    const classified = files.map((file) => ({
      file,
      by: entries.filter((entry) => names(entry.path, file)).map((e) => `${e.list} ${e.path}`),
    }));
    expect(
      classified.filter(({ by }) => by.length === 0).map(({ file }) => file),
      'files in neither list: add each to ON_NODE24 or NOT_ON_NODE24 in vitest.config.ts, with the reason',
    ).toEqual([]);
    expect(
      classified.filter(({ by }) => by.length > 1),
      'files in more than one entry',
    ).toEqual([]);
  });

  it('has no entry that names no file, and a reason for each', () => {
    const files = testFiles();
    expect(entries.filter((entry) => !files.some((file) => names(entry.path, file))).map((e) => e.path)).toEqual([]);
    for (const entry of entries) {
      expect(entry.path, 'a folder ends with /, a file with .test.ts').toMatch(/^test\/([\w-]+\/)*([\w-]+\.test\.ts)?$/);
      expect(entry.why.length, entry.path).toBeGreaterThan(10);
    }
  });

  it('leaves out exactly NOT_ON_NODE24 when CORE_TEST_NODE24=1, and nothing otherwise', () => {
    expect(leftOut({})).toEqual([]);
    expect(leftOut({ CORE_TEST_NODE24: '0' })).toEqual([]);
    expect(leftOut({ CORE_TEST_NODE24: '1' })).toEqual(NOT_ON_NODE24.map(([path]) => globOf(path)));
    expect(globOf('test/page/')).toBe('test/page/**');
    expect(globOf('test/e2e/reply.test.ts')).toBe('test/e2e/reply.test.ts');
  });
});
