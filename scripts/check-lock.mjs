#!/usr/bin/env node
// Fails when package-lock.json is not the lock file npm keeps as it is, so that `npm install` on a
// fresh clone changes no tracked file (CONTRIBUTING.md, "The lock file"). `npm test` runs it first.
//
// Two checks:
// 1. In a git checkout, package-lock.json must be the one git has (the index): CI runs
//    `npm install && npm test`, so a lock file that npm rewrote during the install is caught here.
//    A change made on purpose (a dependency added) passes once it is staged or committed.
// 2. npm, run on a copy of package.json, package-lock.json and .npmrc in a temporary folder with
//    --package-lock-only (no node_modules, no install scripts; the registry only for metadata that is
//    not in npm's cache), must leave the lock file byte for byte as it is.
//
// Both use the npm that runs `npm test` (npm_execpath), so each npm version checks its own view.
// Exit 0 when both hold, 1 with what to do otherwise.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lockFile = join(root, 'package-lock.json');
const problems = [];

function npm(args, cwd) {
  const execPath = process.env.npm_execpath;
  const [command, prefix] =
    execPath && /\.c?js$/.test(execPath) ? [process.execPath, [execPath]] : [process.platform === 'win32' ? 'npm.cmd' : 'npm', []];
  return spawnSync(command, [...prefix, ...args], { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error' } });
}

// 1. The lock file as git has it.
const inGit = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: root, encoding: 'utf8' });
if (inGit.status === 0 && inGit.stdout.trim() === 'true') {
  const tracked = spawnSync('git', ['ls-files', '--error-unmatch', 'package-lock.json'], { cwd: root, encoding: 'utf8' });
  if (tracked.status === 0) {
    const changed = spawnSync('git', ['diff', '--quiet', '--', 'package-lock.json'], { cwd: root });
    if (changed.status !== 0) {
      const stat = execFileSync('git', ['diff', '--stat', '--', 'package-lock.json'], { cwd: root, encoding: 'utf8' }).trim();
      problems.push(
        `package-lock.json differs from the one git has (${stat.split('\n').at(-1)?.trim()}): npm install rewrote it, or it was ` +
          'changed and not staged. Review it with `git diff package-lock.json`; stage or commit it if the change is meant, ' +
          'or restore it with `git checkout package-lock.json` and find which npm setting rewrites it.',
      );
    }
  }
}

// 2. What npm would make of the lock file.
if (!existsSync(lockFile)) problems.push('package-lock.json is missing: run npm install and commit it.');
else {
  const work = mkdtempSync(join(tmpdir(), 'core-lock-'));
  try {
    for (const name of ['package.json', 'package-lock.json', '.npmrc']) {
      if (existsSync(join(root, name))) copyFileSync(join(root, name), join(work, name));
    }
    const result = npm(['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], work);
    if (result.status !== 0) {
      problems.push(`npm install --package-lock-only failed (exit ${result.status}):\n${(result.stderr || result.stdout).trim()}`);
    } else if (readFileSync(join(work, 'package-lock.json'), 'utf8') !== readFileSync(lockFile, 'utf8')) {
      const version = npm(['--version'], work).stdout.trim();
      problems.push(
        `npm ${version} would rewrite package-lock.json: run npm install, review the change with git diff, and commit it ` +
          '(check that npm 10 keeps it as well: npx -y npm@10 install --package-lock-only).',
      );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`check-lock: ${problem}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write('check-lock: package-lock.json is as npm keeps it\n');
}
