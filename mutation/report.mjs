// Reading Stryker's JSON report (mutation-testing-report-schema) for scripts/mutate.mjs.
import { keyed } from './ledger.mjs';

/**
 * Every mutant of the report with its status and its key in the ledger of equivalents (mutation/ledger.mjs):
 * file, scope, mutator, original, replacement and occurrence. A report of some mutants only (a run with
 * `--mutate` ranges) would count occurrences among those alone: `known`, the keyed mutants of the whole module
 * (moduleMutants), gives each mutant found at the same place its key among all of them.
 */
export function mutantsOfReport(report, known = []) {
  const byPlace = new Map(known.map((mutant) => [placeOf(mutant), mutant]));
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
    ).map((mutant) => {
      const same = byPlace.get(placeOf(mutant));
      return same === undefined ? mutant : { ...mutant, occurrence: same.occurrence, occurrences: same.occurrences };
    }),
  );
}

function placeOf({ file, mutator, replacement, location: { start, end } }) {
  return `${file}:${start.line}:${start.column}-${end.line}:${end.column} ${mutator} ${replacement}`;
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
