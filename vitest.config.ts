import { defineConfig } from 'vitest/config';
import { hangLimit } from './test/helpers/time-scale.js';

/**
 * No test's verdict depends on the machine's speed (CONTRIBUTING.md, "A verdict that does not depend on the machine's speed"): tests wait
 * for events, never for a delay, and the limits below only catch a hang. They are generous so that
 * the suite passes on a loaded 2-core machine (the stress job of .github/workflows/stress.yml runs
 * it under `nice` beside two busy loops), and scaled to the machine's load (test/helpers/time-scale.ts);
 * a property test that runs many commands sets a limit of its own that grows with its number of
 * runs (test/hardening/argv.test.ts).
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: hangLimit(120_000),
    hookTimeout: hangLimit(120_000),
    pool: 'forks',
    // An unhandled error or rejection fails the run, even when every test passed (vitest's
    // default, stated here so that it is not switched off by accident): it is a bug somewhere.
    dangerouslyIgnoreUnhandledErrors: false,
    // One temporary folder a run, removed at its end (test/helpers/temporary-folder.ts).
    globalSetup: ['test/helpers/temporary-folder.ts'],
    reporters: ['default'],
  },
});
