import { beforeEach } from 'vitest';

/**
 * Every mutant against every test of its module.
 *
 * Stryker's vitest runner records, in its first run, which tests reach which mutant, and then runs
 * each mutant only against the tests that reached it, whatever `coverageAnalysis` says. A mutant
 * of code that runs once, when the module is loaded (a zod schema built at import, a table, a
 * constant), is reached before any test starts, so it would be run against no test that checks
 * what that code built, and be reported as surviving although a test kills it.
 *
 * Stryker runs a mutant it saw reached outside any test ("static") against all the tests. This
 * hook, which runs after the runner's own, records every reach as such: every mutant some code of
 * the tests reaches runs against the module's whole test set; one that nothing reaches is still
 * reported as not covered.
 */
beforeEach(() => {
  const namespace = (globalThis as Record<string, unknown>)['__stryker__'] as { currentTestId?: string } | undefined;
  if (namespace) namespace.currentTestId = undefined;
});
