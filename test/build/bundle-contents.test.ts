import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decode } from '../../src/compile-cache.js';
import { ensureBuilt, repoRoot } from '../helpers/run.js';

/**
 * Every run of core reads dist/main.cjs whole, decodes it and hands it to V8 with its code cache, so
 * its size is start-up time (docs/performance.md, "Start-up"). Code that only one rare path needs is
 * built into dist/vendor/ and loaded there (tsup.config.ts, `vendor`). These tests name what must not
 * creep back into main.cjs, each by a text only that code holds.
 */
const dist = join(repoRoot, 'dist');
let main = '';

beforeAll(() => {
  ensureBuilt();
  main = readFileSync(join(dist, 'main.cjs'), 'utf8');
});

describe('the application bundle read by every run', () => {
  it.each([
    {
      what: "zod's translations of its messages into 40 languages (pulled in whole by `import { z } from 'zod/mini'`; core imports the namespace, `import * as z`)",
      marker: 'Input tidak valid',
      home: 'vendor/zod.cjs',
    },
    {
      what: 'fast-check, which only `core check-bot --fuzz` uses',
      marker: 'Property failed by returning false',
      home: 'vendor/fast-check.cjs',
    },
  ])('does not hold $what: it is in dist/$home', ({ marker, home }) => {
    expect(readFileSync(join(dist, home), 'utf8')).toContain(marker);
    expect(main.includes(marker), `dist/main.cjs holds ${JSON.stringify(marker)}`).toBe(false);
  });

  it('is at most 900 KB, so that a module added to every run is a decision and not an accident', () => {
    expect(Buffer.byteLength(main)).toBeLessThanOrEqual(900 * 1024);
  });
});

describe('reading a module for the compile cache', () => {
  it('finds main.cjs in ASCII (a regular expression of the sources with a raw non-ASCII character breaks this), so it is decoded as Latin-1', () => {
    const bytes = readFileSync(join(dist, 'main.cjs'));
    expect(isAscii(bytes)).toBe(true);
  });

  it.each([
    { what: 'ASCII', text: 'let a = "x"; // plain' },
    { what: 'UTF-8 with characters of two, three and four bytes', text: 'const s = "é … 😀";' },
    { what: 'the empty file', text: '' },
  ])('decodes $what to the same text as UTF-8 does', ({ text }) => {
    expect(decode(Buffer.from(text, 'utf8'))).toBe(text);
  });
});
