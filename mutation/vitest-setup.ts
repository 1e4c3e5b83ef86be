import { beforeEach, inject } from 'vitest';

/**
 * Every mutant against every test of its module, and active from the moment the module loads.
 *
 * Stryker's vitest runner records, in its first run, which tests reach which mutant, and then runs
 * each mutant only against the tests that reached it, whatever `coverageAnalysis` says. A mutant of
 * code that runs once, when a module is loaded (a zod schema built at import, a table, a regular
 * expression, a constant), is reached before any test starts. Worse, when a run names its test
 * files (`testFiles`, as ours do), the runner switches a mutant on only once the test files are
 * loaded, after that code ran unmutated. Either way such a mutant is reported as surviving
 * although a test kills it (docs: CONTRIBUTING.md, "Mutation testing").
 *
 * This file runs after the runner's own setup and before any test file is loaded:
 * - it switches the mutant on at once, so that code run at load time runs mutated;
 * - in the first run, it records every reach as made outside a test, so every mutant some test
 *   reaches runs against the module's whole test set (one that nothing reaches is still reported
 *   as not covered).
 */
type Namespace = { activeMutant?: string; currentTestId?: string };
const namespace = () => (globalThis as Record<string, unknown>)['__stryker__'] as Namespace | undefined;
const provided = inject as unknown as (key: string) => unknown;

if (provided('mode') === 'mutant') {
  const ns = namespace();
  if (ns) ns.activeMutant = provided('activeMutant') as string;
}
beforeEach(() => {
  const ns = namespace();
  if (ns) ns.currentTestId = undefined;
});
