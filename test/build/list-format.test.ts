import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { deferListFormat, listFormatPattern } from '../../tsup.config.js';
import { ensureBuilt, repoRoot } from '../helpers/run.js';

/**
 * got's type checks (@sindresorhus/is) build two Intl.ListFormat objects while loading; the build
 * defers them to first use (tsup.config.ts, lazyListFormat). These tests hold the three promises of
 * that rewrite: nothing is built at load, the messages stay the same, and an upgrade that changes the
 * code fails the build instead of silently undoing the saving.
 */

const distribution = join(repoRoot, 'node_modules', '@sindresorhus', 'is', 'distribution');
const original = readFileSync(join(distribution, 'index.js'), 'utf8');

type IsModule = {
  default: Record<string, (value: unknown) => boolean>;
  assertAny: (predicate: unknown, ...values: unknown[]) => void;
  assertAll: (predicate: unknown, ...values: unknown[]) => void;
};

/** A copy of the package's distribution folder with its index rewritten by the build's function. */
function patchedCopy(): string {
  const folder = join(mkdtempSync(join(tmpdir(), 'core-is-')), 'distribution');
  cpSync(distribution, folder, { recursive: true });
  writeFileSync(join(folder, 'index.js'), deferListFormat(original, 'index.js'));
  return join(folder, 'index.js');
}

/** Counts Intl.ListFormat constructions from now on. */
function countListFormats(): { count: () => number; restore: () => void } {
  const Real = Intl.ListFormat;
  let made = 0;
  class Counting extends Real {
    constructor(...args: ConstructorParameters<typeof Intl.ListFormat>) {
      super(...args);
      made += 1;
    }
  }
  const intl = Intl as { ListFormat: typeof Intl.ListFormat };
  intl.ListFormat = Counting;
  return { count: () => made, restore: () => void (intl.ListFormat = Real) };
}

function messageOf(run: () => void): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a failed check');
}

let restore: (() => void) | undefined;
afterEach(() => {
  restore?.();
  restore = undefined;
});

describe("the build's rewrite of Intl.ListFormat in got's type checks", () => {
  it('builds no Intl.ListFormat while the module loads, and each on the first message that needs it', async () => {
    const counter = countListFormats();
    restore = counter.restore;
    const patched = (await import(pathToFileURL(patchedCopy()).href)) as IsModule;
    expect(counter.count()).toBe(0);
    messageOf(() => patched.assertAny([patched.default.string!, patched.default.number!], true, null));
    expect(counter.count()).toBe(2);
    messageOf(() => patched.assertAny([patched.default.string!, patched.default.number!], true));
    expect(counter.count()).toBe(2);
  });

  it('gives every message of a failed check of several values word for word as before', async () => {
    const before = (await import(pathToFileURL(join(distribution, 'index.js')).href)) as IsModule;
    const after = (await import(pathToFileURL(patchedCopy()).href)) as IsModule;
    const cases: Array<[string, (m: IsModule) => void]> = [
      ['any of two, one value', (m) => m.assertAny([m.default.string!, m.default.number!], true)],
      ['any of three, two values of two types', (m) => m.assertAny([m.default.string!, m.default.number!, m.default.boolean!], null, [])],
      ['all, three values', (m) => m.assertAll(m.default.string!, 'a', 1, undefined)],
    ];
    for (const [, check] of cases) {
      const expected = messageOf(() => check(before));
      expect(expected).toMatch(/ or .* and |Expected values which are/);
      expect(messageOf(() => check(after))).toBe(expected);
    }
  });

  it.each([
    ['the conjunction', /type: 'conjunction'/],
    ['the disjunction', /type: 'disjunction'/],
  ])('fails the build, naming the file, when %s is no longer built as expected', (_what, changed) => {
    const upgraded = original.replace(changed, "type: 'unit'");
    expect(upgraded).not.toBe(original);
    expect(() => deferListFormat(upgraded, '/x/@sindresorhus/is/distribution/index.js')).toThrow(
      /\/x\/@sindresorhus\/is\/distribution\/index\.js: expected 2 constructions of Intl\.ListFormat to defer, found 1/,
    );
  });

  it('finds both constructions in the installed version, which the build rewrites', () => {
    expect(original.match(listFormatPattern)).toHaveLength(2);
  });

  it('leaves no Intl.ListFormat built while the built got loads (dist/vendor/got.cjs)', () => {
    ensureBuilt();
    const script = `
      let made = 0;
      const Real = Intl.ListFormat;
      Intl.ListFormat = class extends Real { constructor(...a) { super(...a); made += 1; } };
      await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'vendor', 'got.cjs')).href)});
      console.log(made);
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out.trim()).toBe('0');
  });
});
