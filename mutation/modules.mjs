// The modules under mutation testing, each with the unit tests that own it (CONTRIBUTING.md,
// "Mutation testing"). Every mutant of a module runs against all of its tests, not only those that
// reached it (mutation/vitest-setup.ts says why). Tests that start a child process cannot kill a
// mutant of src/ (they run dist/), so they are not listed.
export const modules = {
  mask: {
    mutate: ['src/mask.ts'],
    tests: ['test/mask/*.test.ts', 'test/hardening/mask-rule.test.ts'],
  },
  throttle: {
    mutate: ['src/http/throttle.ts'],
    tests: ['test/http/throttle.test.ts'],
  },
  payload: {
    mutate: ['src/payload/**/*.ts'],
    tests: ['test/payload/*.test.ts'],
  },
  batch: {
    // report.ts writes the report file: its mode and refusals are tested end to end. The runs of
    // test/reason/batch.test.ts (a whole batch in-process, ~10 s) would make each mutant cost as
    // much; the rules they check are pinned by unit tests of test/batch/. So is the progress bar
    // (test/batch/progress.test.ts), whose whole-command test (test/reason/progress.test.ts, a
    // server and a run of main) cost each mutant seconds.
    mutate: ['src/batch/**/*.ts', '!src/batch/report.ts'],
    tests: ['test/batch/*.test.ts', 'test/reason/lines.test.ts', 'test/reason/second-pass.test.ts', 'test/reason/parse-line.test.ts'],
  },
  rules: {
    // The sandbox's rules: side-effect-free functions, each file deciding one rule.
    mutate: ['src/sandbox/rules/**/*.ts'],
    tests: ['test/sandbox/rules/*.test.ts'],
  },
  load: {
    // The test-file loader of core test.
    mutate: ['src/testing/load.ts'],
    tests: ['test/testing/load*.test.ts', 'test/testing/examples.test.ts', 'test/testing/substitute.test.ts'],
  },
  match: {
    mutate: ['src/testing/match.ts', 'src/testing/pattern.ts'],
    tests: ['test/testing/match.test.ts', 'test/testing/pattern.test.ts'],
  },
};
