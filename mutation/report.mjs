// Reading Stryker's JSON report (mutation-testing-report-schema) for scripts/mutate.mjs.

/**
 * The mutants that survived or that no test reached, each with the text it replaced and the line it
 * is on, which is how mutation/equivalents/<module>.json names them (line numbers move; the line's text
 * rarely does).
 */
export function survivorsOf(report) {
  const survivors = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    const lines = source.split('\n');
    for (const mutant of mutants) {
      if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') continue;
      const { start, end } = mutant.location;
      survivors.push({
        file,
        line: start.line,
        mutator: mutant.mutatorName,
        status: mutant.status,
        replacement: mutant.replacement,
        original: textOf(lines, start, end),
        lineText: lines[start.line - 1].trim(),
      });
    }
  }
  return survivors;
}

function textOf(lines, start, end) {
  if (start.line === end.line) return lines[start.line - 1].slice(start.column - 1, end.column - 1);
  return [
    lines[start.line - 1].slice(start.column - 1),
    ...lines.slice(start.line, end.line - 1),
    lines[end.line - 1].slice(0, end.column - 1),
  ].join('\n');
}

/** Whether mutation/equivalents/<module>.json lists the mutant: same file, mutator, replacement and line text. */
export function isEquivalent(mutant, equivalents) {
  return equivalents.some(
    (entry) =>
      entry.file === mutant.file &&
      entry.mutator === mutant.mutator &&
      entry.replacement === mutant.replacement &&
      entry.line === mutant.lineText,
  );
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
