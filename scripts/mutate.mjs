#!/usr/bin/env node
// `npm run mutate [module...]`: mutation testing with Stryker, one module at a time against the unit
// tests that own it (mutation/modules.mjs), incremental (only the mutants whose code or tests changed
// since the last run are tested again; `--force` tests them all). Without a name, every module.
//
// After each module, the surviving mutants are compared with mutation/equivalents/<module>.json (the mutants
// that no test can kill, each with its reason): the run fails when a survivor is not listed there, and
// prints each module's score as Stryker counts it and with the listed equivalents left out.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { modules } from '../mutation/modules.mjs';
import { isEquivalent, scoreOf, survivorsOf } from '../mutation/report.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Options (`--force`: test every mutant again, not only those whose code or tests changed) go to Stryker.
// An option's value may follow it (`--concurrency 1`) or be joined to it (`--concurrency=1`).
// A name that is no module but begins some (`payload` for `payload-json`, `payload-reply`, ...) names them all.
const VALUED = new Set(['--concurrency', '--timeoutMS', '--logLevel', '--reporters', '--mutate']);
const given = [];
const options = [];
for (let args = process.argv.slice(2), i = 0; i < args.length; i += 1) {
  if (!args[i].startsWith('--')) given.push(args[i]);
  else if (VALUED.has(args[i]) && args[i + 1] !== undefined) options.push(args[i], args[(i += 1)]);
  else options.push(args[i]);
}
const names = given.flatMap((name) => {
  const parts = Object.keys(modules).filter((key) => key.startsWith(`${name}-`));
  return name in modules || parts.length === 0 ? [name] : parts;
});
const unknown = names.filter((name) => !(name in modules));
if (unknown.length > 0) {
  console.error(`mutate: no module named ${unknown.join(', ')}; the modules are ${Object.keys(modules).join(', ')}`);
  process.exit(2);
}
const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');

let failed = false;
const lines = [];
for (const name of names.length > 0 ? names : Object.keys(modules)) {
  // Stryker reuses a mutant's last result unless its code changed or a test that reached it did. As
  // every mutant here runs against every test (mutation/vitest-setup.ts), Stryker knows of no test
  // that reached it: so when a test file of the module changed, every mutant is tested again.
  const testsHash = hashOf(modules[name].tests);
  const hashFile = join(root, 'mutation', 'reports', `${name}.tests-hash`);
  const testsChanged = !existsSync(hashFile) || readFileSync(hashFile, 'utf8') !== testsHash;
  const force = testsChanged && !options.includes('--force') ? ['--force'] : [];
  const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs', ...options, ...force], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MUTATE_MODULE: name },
  });
  const reportFile = join(root, 'mutation', 'reports', `${name}.json`);
  if (run.status !== 0 || !existsSync(reportFile)) {
    failed = true;
    lines.push(`${name}: Stryker did not finish (exit ${run.status ?? run.signal})`);
    continue;
  }
  mkdirSync(dirname(hashFile), { recursive: true });
  writeFileSync(hashFile, testsHash);
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const survivors = survivorsOf(report);
  const equivalents = equivalentsOf(name);
  const unexplained = survivors.filter((mutant) => !isEquivalent(mutant, equivalents));
  const { raw, corrected } = scoreOf(report, survivors.length - unexplained.length);
  lines.push(
    `${name}: ${raw.toFixed(1)}% (${corrected.toFixed(1)}% with the listed equivalents left out), ${unexplained.length} survivor(s) neither killed nor listed`,
  );
  for (const mutant of unexplained) {
    lines.push(`  ${mutant.file}:${mutant.line} ${mutant.mutator}: ${mutant.original.trim()} -> ${mutant.replacement}`);
  }
  if (unexplained.length > 0) failed = true;
}
/** The mutants of a module that no test can kill, each with its reason: mutation/equivalents/<module>.json. */
function equivalentsOf(name) {
  const file = join(root, 'mutation', 'equivalents', `${name}.json`);
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
}

/** The files a glob of mutation/modules.mjs names: a path, or `folder/*.test.ts` (a `*` in the last part only). */
function filesOf(glob) {
  const folder = dirname(glob);
  const name = glob.slice(folder.length + 1);
  if (!name.includes('*')) return existsSync(join(root, glob)) ? [glob] : [];
  const pattern = new RegExp(
    `^${name
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*')}$`,
  );
  if (!existsSync(join(root, folder))) return [];
  return readdirSync(join(root, folder))
    .filter((file) => pattern.test(file))
    .map((file) => `${folder}/${file}`);
}

/** One hash of the test files the globs name, their names and contents. */
function hashOf(globs) {
  const hash = createHash('sha256');
  const files = globs.flatMap(filesOf).sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

console.log(`\nMutation scores\n${lines.join('\n')}`);
process.exitCode = failed ? 1 : 0;
