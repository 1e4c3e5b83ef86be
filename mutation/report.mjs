// Reading Stryker's JSON report (mutation-testing-report-schema) for scripts/mutate.mjs.
import { keyed } from './ledger.mjs';

/**
 * Every mutant of the report with its status and its key in the ledger of equivalents (mutation/ledger.mjs):
 * file, scope, mutator, original, replacement and occurrence.
 */
export function mutantsOfReport(report) {
  return Object.entries(report.files).flatMap(([file, { source, mutants }]) =>
    keyed(
      file,
      source,
      mutants.map((mutant) => ({
        mutator: mutant.mutatorName,
        replacement: mutant.replacement,
        location: mutant.location,
        status: mutant.status,
      })),
    ),
  );
}

/** Whether a mutant survived its tests or was reached by none. */
export function survived(mutant) {
  return mutant.status === 'Survived' || mutant.status === 'NoCoverage';
}

/**
 * Stryker's mutation score (killed and timed out over every mutant that compiled and was not
 * ignored), and the same with the mutants listed as equivalent left out of the count.
 */
export function scoreOf(report, equivalent) {
  let detected = 0;
  let valid = 0;
  for (const { mutants } of Object.values(report.files)) {
    for (const { status } of mutants) {
      if (status === 'Killed' || status === 'Timeout') detected += 1;
      if (['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(status)) valid += 1;
    }
  }
  return {
    raw: valid === 0 ? 100 : (100 * detected) / valid,
    corrected: valid - equivalent === 0 ? 100 : (100 * detected) / (valid - equivalent),
    detected,
    valid,
  };
}
