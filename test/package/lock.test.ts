import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run.js';

/**
 * scripts/check-lock.mjs, the first step of `npm test`: it fails when package-lock.json is not the
 * one git has (the `npm install` of CI rewrote it) or when npm would rewrite it. Each case runs the
 * script in a copy of the repository's package.json, lock file and .npmrc, made a git repository.
 */

let folder: string;

function git(args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: folder, encoding: 'utf8' });
}

function checkLock() {
  return spawnSync(process.execPath, [join(folder, 'scripts', 'check-lock.mjs')], {
    cwd: folder,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_cache: process.env.npm_config_cache } as NodeJS.ProcessEnv,
  });
}

/** The lock file without one of rollup's optional platform packages: what npm 11 puts back. */
function withoutOnePlatformPackage(text: string): string {
  const lock = JSON.parse(text) as { packages: Record<string, unknown> };
  const name = Object.keys(lock.packages).find((key) => /^node_modules\/@rollup\/rollup-/.test(key));
  expect(name).toBeDefined();
  delete lock.packages[name!];
  return `${JSON.stringify(lock, null, 2)}\n`;
}

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'core-lock-test-'));
  mkdirSync(join(folder, 'scripts'));
  copyFileSync(join(repoRoot, 'scripts', 'check-lock.mjs'), join(folder, 'scripts', 'check-lock.mjs'));
  for (const name of ['package.json', 'package-lock.json', '.npmrc']) copyFileSync(join(repoRoot, name), join(folder, name));
  git(['init', '-q']);
  git(['add', '.']);
  git(['commit', '-qm', 'the project']);
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('the lock file check of npm test', () => {
  it('passes on the committed lock file, which npm keeps as it is', () => {
    const result = checkLock();
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('package-lock.json is as npm keeps it');
  });

  it('fails when npm install rewrote the lock file after the checkout, naming both what happened and what to do', () => {
    writeFileSync(join(folder, 'package-lock.json'), withoutOnePlatformPackage(readFileSync(join(folder, 'package-lock.json'), 'utf8')));
    const result = checkLock();
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/package-lock\.json differs from the one git has .*git diff package-lock\.json/);
    expect(result.stderr).toMatch(/npm [\d.]+ would rewrite package-lock\.json/);
  });

  it('still fails on a staged lock file that npm would rewrite, and passes once it is what npm keeps', () => {
    const original = readFileSync(join(folder, 'package-lock.json'), 'utf8');
    writeFileSync(join(folder, 'package-lock.json'), withoutOnePlatformPackage(original));
    git(['add', 'package-lock.json']);
    const staged = checkLock();
    expect(staged.status).toBe(1);
    expect(staged.stderr).not.toContain('differs from the one git has');
    expect(staged.stderr).toMatch(/would rewrite package-lock\.json/);

    writeFileSync(join(folder, 'package-lock.json'), original);
    git(['add', 'package-lock.json']);
    expect(checkLock().status).toBe(0);
  });
});
