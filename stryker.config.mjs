// Mutation testing (CONTRIBUTING.md, "Mutation testing"): `npm run mutate [module...]` runs Stryker on one
// module at a time (scripts/mutate.mjs), against the unit tests that own it. The module is named by
// MUTATE_MODULE; its source files and tests are in mutation/modules.mjs.
import { availableParallelism, loadavg } from 'node:os';
import { modules } from './mutation/modules.mjs';

const name = process.env.MUTATE_MODULE ?? '';
const equivalentsOnly = process.env.MUTATE_EQUIVALENTS === '1';
const module = modules[name];
if (!module) {
  throw new Error(`MUTATE_MODULE must name a module of mutation/modules.mjs (${Object.keys(modules).join(', ')}), not "${name}"`);
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: {
    configFile: 'mutation/vitest.config.ts',
    // Every test file of the module runs for every mutant; vitest's "related" guess is not needed.
    related: false,
  },
  mutate: module.mutate,
  testFiles: module.tests,
  // The machine is shared: two test processes at most.
  concurrency: 2,
  // Incremental: a rerun tests again only the mutants whose code or tests changed since the last run. A run of the
  // listed equivalents alone (`npm run mutate -- NAME --equivalents`) starts afresh and keeps its report apart.
  incremental: !equivalentsOnly,
  incrementalFile: `mutation/reports/${name}.incremental.json`,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: `mutation/reports/${name}${equivalentsOnly ? '.equivalents' : ''}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: `.stryker-tmp/${name}${equivalentsOnly ? '-equivalents' : ''}`,
  cleanTempDir: 'always',
  // A mutant that loops for ever is stopped by this limit, 5 s beyond the time its tests took unmutated, multiplied
  // by the machine's load as the suite's own limits are (test/helpers/time-scale.ts): on a busy machine a mutant
  // that changes nothing must not time out, which would count it as killed.
  timeoutMS: 5_000 * timeScale(),
  // Every mutant reached by a test runs against the whole set on purpose (mutation/vitest-setup.ts).
  warnings: { slow: false },
  thresholds: { high: 90, low: 80, break: null },
  ignorePatterns: ['dist', 'coverage', '.bench', 'mutation/reports', 'docs', 'bench'],
};

/** How many runnable processes share a core (the load average when the run starts), or CORE_TEST_TIME_SCALE; at least 1. */
function timeScale() {
  const given = Number(process.env.CORE_TEST_TIME_SCALE);
  if (Number.isFinite(given) && given >= 1) return given;
  return Math.max(1, Math.ceil(loadavg()[0] / availableParallelism()));
}
