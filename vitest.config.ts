import { defineConfig } from 'vitest/config';
import { hangLimit } from './test/helpers/time-scale.js';

/**
 * No test's verdict depends on the machine's speed (CONTRIBUTING.md, "A verdict that does not depend on the machine's speed"): tests wait
 * for events, never for a delay, and the limits below only catch a hang. They are generous so that
 * the suite passes on a loaded 2-core machine (the stress job of .github/workflows/stress.yml runs
 * it under `nice` beside two busy loops), and scaled to the machine's load (test/helpers/time-scale.ts);
 * a property test that runs many commands sets a limit of its own that grows with its number of
 * runs (test/hardening/argv.test.ts).
 *
 * Three tiers of tests, as vitest projects (CONTRIBUTING.md, "Tests"). `npm test` runs them all;
 * `npm run test:unit` runs the first alone, in well under a minute.
 *
 * - unit: rules and pure modules, in-process, no server, no child process (test/helpers/unit-tier.ts
 *   refuses one), no browser. A new test file goes here when it can.
 * - process: the test files that start a process (the built binary, a shell, a tool, Chromium), or
 *   that run for long by design (hundreds of command lines).
 * - integration: everything else: commands run in-process against a loopback server or the sandbox.
 */
export const UNIT_TESTS = [
  'test/batch/**/*.test.ts',
  'test/code/**/*.test.ts',
  'test/config/{duration,loaders,reading,require,schema}.test.ts',
  'test/customer/wait.test.ts',
  'test/doctor/clock.test.ts',
  'test/help/**/*.test.ts',
  'test/docs/generated.test.ts',
  'test/docs/install-recipes.test.ts',
  'test/hardening/{mask-rule,proxy-rules}.test.ts',
  'test/http/throttle.test.ts',
  'test/markdown/**/*.test.ts',
  'test/mutation/**/*.test.ts',
  'test/mask/**/*.test.ts',
  'test/output/{count,env-file,glyphs,hold}.test.ts',
  'test/payload/**/*.test.ts',
  'test/prompts/{composer,editor-encodings,reason,width}.test.ts',
  'test/reason/{lay-fields,lines,parse-line,second-pass}.test.ts',
  'test/reply/build.test.ts',
  'test/schema/{agreement,examples,openapi}.test.ts',
  'test/sandbox/events/**/*.test.ts',
  'test/sandbox/kept-secret.test.ts',
  'test/sandbox/rules/**/*.test.ts',
  'test/sandbox/store/**/*.test.ts',
  'test/send/prepare.test.ts',
  'test/testing/**/*.test.ts',
  'test/text/**/*.test.ts',
  'test/tiers/**/*.test.ts',
];

export const PROCESS_TESTS = [
  'test/agents/**/*.test.ts',
  'test/build/**/*.test.ts',
  'test/completion/**/*.test.ts',
  'test/config/{search,secret,stuck}.test.ts',
  'test/docs/{help-examples,man-page}.test.ts',
  'test/doctor/doctor.test.ts',
  'test/e2e/**/*.test.ts',
  'test/hardening/{argv,faults,hanging-proxy,masking,payload-files,proxy,terminal,tls}.test.ts',
  'test/package/**/*.test.ts',
  'test/page/**/*.test.ts',
  'test/prompts/{composer-tmux,no-terminal}.test.ts',
  'test/reason/{built,fifo-source,heap,quiet-resume,stopping}.test.ts',
  'test/reply/answer-id.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: hangLimit(120_000),
    hookTimeout: hangLimit(120_000),
    pool: 'forks',
    // An unhandled error or rejection fails the run, even when every test passed (vitest's
    // default, stated here so that it is not switched off by accident): it is a bug somewhere.
    dangerouslyIgnoreUnhandledErrors: false,
    // One temporary folder a run, removed at its end (test/helpers/temporary-folder.ts).
    globalSetup: ['test/helpers/temporary-folder.ts'],
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT_TESTS, setupFiles: ['test/helpers/unit-tier.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...UNIT_TESTS, ...PROCESS_TESTS] } },
      { extends: true, test: { name: 'process', include: PROCESS_TESTS } },
    ],
  },
});
