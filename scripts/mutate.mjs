#!/usr/bin/env node
// `npm run mutate [module...]`: mutation testing with Stryker, one module at a time against the unit
// tests that own it (mutation/modules.mjs), incremental (only the mutants whose code or tests changed
// since the last run are tested again; `--force` tests them all). Without a name, every module.
//
// Each module's ledger of equivalent mutants (mutation/equivalents/<module>.json: the mutants that no test
// can kill, each with its kind and reason) is checked before Stryker runs: a module whose ledger has an entry
// that names no mutant (stale) or more than one (ambiguous) fails at once, naming the entry. `--check` checks
// the ledgers alone, without running Stryker (seconds). After each run, the surviving mutants are compared with
// the ledger: the run fails when a survivor is not listed there, or when a listed mutant was killed, and prints
// each module's score as Stryker counts it and with the listed equivalents left out. `--equivalents` runs only the
// mutants the ledger lists, to see that each still survives every test (minutes, not the module's whole run).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  entryFor,
  filesMatching,
  labelOf,
  ledgerOf,
  ledgerProblems,
  moduleMutants,
  entryNames as namesMutant,
} from '../mutation/ledger.mjs';
import { modules } from '../mutation/modules.mjs';
import { mutantsOfReport, scoreOf, survived } from '../mutation/report.mjs';

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
// Our own options, not Stryker's. `--check`: the ledgers only, no Stryker run. `--equivalents`: Stryker runs only
// the mutants the ledger lists (and those nested in them), to see that no test kills them; its report is kept
// apart, and the module's score is not touched.
const checkOnly = options.includes('--check');
const equivalentsOnly = options.includes('--equivalents');
const strykerOptions = options.filter((option) => option !== '--check' && option !== '--equivalents');
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
  const equivalents = ledgerOf(root, name);
  const mutants = await moduleMutants(root, modules[name]);
  const problems = ledgerProblems(name, equivalents, mutants);
  if (problems.length > 0 || checkOnly) {
    lines.push(
      `${name}: ${problems.length === 0 ? `ledger of ${equivalents.length} equivalent(s) checked` : 'the ledger of equivalents is wrong'}`,
    );
    lines.push(...problems.map((problem) => `  ${problem}`));
    if (problems.length > 0) failed = true;
    continue;
  }
  if (equivalentsOnly) {
    if (equivalents.length === 0) {
      lines.push(`${name}: no equivalent listed`);
      continue;
    }
    const listed = equivalents.map((entry) => mutants.find((mutant) => namesMutant(entry, mutant)));
    // Stryker's ranges count lines from 1 and columns from 0.
    const ranges = listed.map(
      ({ file, location: { start, end } }) => `${file}:${start.line}:${start.column - 1}-${end.line}:${end.column - 1}`,
    );
    const report = runStryker(name, ['--mutate', ranges.join(','), ...strykerOptions], { MUTATE_EQUIVALENTS: '1' });
    if (!report) continue;
    const ran = mutantsOfReport(report, mutants);
    const statusOf = (entry) => ran.find((mutant) => namesMutant(entry, mutant))?.status ?? 'not run';
    const statuses = equivalents.map(statusOf);
    const count = (status) => statuses.filter((each) => each === status).length;
    lines.push(
      `${name}: ${equivalents.length} listed equivalent(s) run again: ${count('Survived') + count('NoCoverage')} survived, ${count('Killed')} killed, ${count('Timeout')} timed out`,
    );
    equivalents.forEach((entry, index) => {
      const status = statuses[index];
      if (status === 'Survived' || status === 'NoCoverage') return;
      lines.push(`  ${status === 'Killed' ? 'killed by a test (take it out of the ledger)' : status}: ${labelOf(name, index, entry)}`);
      if (status !== 'Timeout') failed = true;
    });
    continue;
  }
  // Stryker reuses a mutant's last result unless its code changed or a test that reached it did. As
  // every mutant here runs against every test (mutation/vitest-setup.ts), Stryker knows of no test
  // that reached it: so when a test file of the module changed, every mutant is tested again.
  const testsHash = hashOf(modules[name].tests);
  const hashFile = join(root, 'mutation', 'reports', `${name}.tests-hash`);
  const testsChanged = !existsSync(hashFile) || readFileSync(hashFile, 'utf8') !== testsHash;
  const force = testsChanged && !strykerOptions.includes('--force') ? ['--force'] : [];
  const report = runStryker(name, [...strykerOptions, ...force]);
  if (!report) continue;
  mkdirSync(dirname(hashFile), { recursive: true });
  writeFileSync(hashFile, testsHash);
  const ran = mutantsOfReport(report, mutants);
  const listed = (mutant) => equivalents.some((entry) => namesMutant(entry, mutant));
  const unexplained = ran.filter((mutant) => survived(mutant) && !listed(mutant));
  // A listed mutant that a test killed is no equivalent (one that timed out may only have met a busy machine).
  const labelled = (status) =>
    equivalents.flatMap((entry, index) =>
      ran.some((mutant) => mutant.status === status && namesMutant(entry, mutant)) ? [labelOf(name, index, entry)] : [],
    );
  const { raw, corrected } = scoreOf(report, ran.filter((mutant) => survived(mutant) && listed(mutant)).length);
  lines.push(
    `${name}: ${raw.toFixed(1)}% (${corrected.toFixed(1)}% with the listed equivalents left out), ${unexplained.length} survivor(s) neither killed nor listed`,
  );
  for (const mutant of unexplained) {
    lines.push(
      `  ${mutant.file}:${mutant.location.start.line}:${mutant.location.start.column} (${mutant.status}) ${JSON.stringify(entryFor(mutant))}`,
    );
  }
  for (const label of labelled('Killed')) lines.push(`  listed as equivalent but killed by a test (take it out of the ledger): ${label}`);
  for (const label of labelled('Timeout')) lines.push(`  listed as equivalent, timed out in this run (counted as killed): ${label}`);
  if (unexplained.length > 0 || labelled('Killed').length > 0) failed = true;
}

/** Runs Stryker on a module; its JSON report, or undefined (and the run marked failed) when it did not finish. */
function runStryker(name, args, env = {}) {
  const run = spawnSync(process.execPath, [stryker, 'run', 'stryker.config.mjs', ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env, MUTATE_MODULE: name },
  });
  const reportFile = join(root, 'mutation', 'reports', `${name}${env.MUTATE_EQUIVALENTS ? '.equivalents' : ''}.json`);
  if (run.status !== 0 || !existsSync(reportFile)) {
    failed = true;
    lines.push(`${name}: Stryker did not finish (exit ${run.status ?? run.signal})`);
    return undefined;
  }
  return JSON.parse(readFileSync(reportFile, 'utf8'));
}

/** One hash of the test files the globs name, their names and contents. */
function hashOf(globs) {
  const hash = createHash('sha256');
  const files = filesMatching(root, globs);
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

console.log(
  `\n${checkOnly ? 'Ledgers of equivalent mutants' : equivalentsOnly ? 'Listed equivalents' : 'Mutation scores'}\n${lines.join('\n')}`,
);
process.exitCode = failed ? 1 : 0;
