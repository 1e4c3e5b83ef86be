// The modules under mutation testing, each with the unit tests that own it (CONTRIBUTING.md,
// "Mutation testing"). Every mutant of a module runs against all of its tests, not only those that
// reached it (mutation/vitest-setup.ts says why). Tests that start a child process cannot kill a
// mutant of src/ (they run dist/), so they are not listed.
/** The test files that reach src/payload/ through its validators (all but json.ts's own two). */
const PAYLOAD_TESTS = [
  ...['bounds', 'greeting', 'load', 'long', 'reason', 'reply', 'shared', 'validate'].map((name) => `test/payload/${name}.test.ts`),
  // The JSON Schema expressions written beside the rules (z.meta), run through ajv against the validators.
  'test/schema/agreement.test.ts',
];
/**
 * Each source file of src/payload/ but json.ts, and the test files written for its rules alone,
 * beside PAYLOAD_TESTS (descriptions.test.ts: the words of the JSON Schema, for the files that write them).
 */
const PAYLOAD_FILES = {
  checks: ['test/payload/checks.test.ts', 'test/payload/descriptions.test.ts'],
  messages: ['test/payload/messages.test.ts'],
  validate: ['test/payload/schema-walk.test.ts'],
  common: ['test/payload/common.test.ts', 'test/payload/descriptions.test.ts'],
  long: ['test/payload/descriptions.test.ts', 'test/payload/long-messages.test.ts'],
  attachment: ['test/payload/attachment.test.ts', 'test/payload/descriptions.test.ts'],
  'list-picker': ['test/payload/descriptions.test.ts', 'test/payload/list-picker.test.ts'],
  'quick-reply': ['test/payload/descriptions.test.ts', 'test/payload/quick-reply.test.ts'],
  reply: ['test/payload/descriptions.test.ts', 'test/payload/reply-options.test.ts'],
  greeting: ['test/payload/descriptions.test.ts', 'test/payload/greeting-options.test.ts'],
  reason: ['test/payload/descriptions.test.ts', 'test/payload/reason-locales.test.ts'],
  // The lists read without zod: the channels (and the reading of a channel's name), the codes, the answer's model.
  channels: ['test/payload/channels.test.ts'],
  codes: ['test/payload/reply-fields.test.ts'],
  'reply-fields': ['test/payload/reply-fields.test.ts'],
};

export const modules = {
  mask: {
    mutate: ['src/mask.ts'],
    tests: ['test/mask/*.test.ts', 'test/hardening/mask-rule.test.ts'],
  },
  throttle: {
    mutate: ['src/http/throttle.ts'],
    tests: ['test/http/throttle.test.ts'],
  },
  // src/payload/, one sub-module a source file (`npm run mutate -- payload` runs them all): each run
  // is shorter, keeps its result when a later one is stopped, and runs again alone when its tests
  // change. Every file but json.ts is reached only through the validators, so its mutants run
  // against every test file that imports them (PAYLOAD_TESTS); json.ts is reached by those and by
  // the two files that test it alone, which reach nothing else (a mutant of another file cannot
  // change what they see, and they hold the module's slowest tests: ~3 s of a ~4 s run).
  ...Object.fromEntries(
    Object.entries(PAYLOAD_FILES).map(([file, own]) => [
      `payload-${file}`,
      { mutate: [`src/payload/${file}.ts`], tests: [...PAYLOAD_TESTS, ...own] },
    ]),
  ),
  'payload-json': {
    mutate: ['src/payload/json.ts', 'src/payload/index.ts'],
    tests: [...PAYLOAD_TESTS, 'test/payload/json.test.ts', 'test/payload/json-readable.test.ts', 'test/payload/flat-strings.test.ts'],
  },
  batch: {
    // report.ts writes the report file: its mode and refusals are tested end to end. The runs of
    // test/reason/batch.test.ts (a whole batch in-process, ~10 s) would make each mutant cost as
    // much; the rules they check are pinned by unit tests of test/batch/. So is the progress bar
    // (test/batch/progress.test.ts), whose whole-command test (test/reason/progress.test.ts, a
    // server and a run of main) cost each mutant seconds.
    mutate: ['src/batch/**/*.ts', '!src/batch/report.ts'],
    // test/reason/fifo-source.test.ts makes a named pipe with mkfifo (so it is not a unit test), then
    // reads it in-process: the one way to reach the copy of a -f path that is not a regular file.
    tests: [
      'test/batch/*.test.ts',
      'test/reason/lines.test.ts',
      'test/reason/second-pass.test.ts',
      'test/reason/parse-line.test.ts',
      'test/reason/fifo-source.test.ts',
    ],
  },
  rules: {
    // The sandbox's rules: side-effect-free functions, each file deciding one rule.
    mutate: ['src/sandbox/rules/**/*.ts'],
    tests: ['test/sandbox/rules/*.test.ts'],
  },
  store: {
    // The sandbox's store, its pure parts: the reducer every change of state goes through (apply.ts),
    // a tenant as it starts (tenant.ts), a MESSAGE webhook's bytes (delivery.ts), the event budget's
    // count of bytes (bytes.ts) and the model as plain data (digest.ts). checkpoint.ts and store.ts
    // write no file either, but are reached in-process only by the property tests of replay.test.ts
    // (a model rebuilt from its log or a checkpoint equals the original): their 237 mutants, at the
    // cost of a run of those tests each, are left for a module of their own once unit tests pin
    // them. The rules' tests (test/sandbox/rules/) use the store as their world, not as what they test.
    mutate: [
      'src/sandbox/store/apply.ts',
      'src/sandbox/store/tenant.ts',
      'src/sandbox/store/delivery.ts',
      'src/sandbox/store/bytes.ts',
      'src/sandbox/store/digest.ts',
    ],
    tests: ['test/sandbox/store/*.test.ts'],
  },
  load: {
    // The test-file loader of core test, against files in a new folder, in-process. The runs of
    // test/test-command/ (a sandbox and a bot on loopback) reach it too, at a run's cost per mutant;
    // what they check of the files is pinned by test/testing/load.test.ts.
    mutate: ['src/testing/load.ts', 'src/testing/read-file.ts'],
    tests: ['test/testing/load*.test.ts'],
  },
  match: {
    mutate: ['src/testing/match.ts', 'src/testing/pattern.ts'],
    tests: ['test/testing/match.test.ts', 'test/testing/pattern.test.ts'],
  },
  random: {
    mutate: ['src/sandbox/random.ts'],
    tests: ['test/sandbox/random.test.ts'],
  },
  api: {
    // The API's side of the sandbox: the checks before an operation's body is read (an injected
    // fault, the declared size, the token, the tenant, the Content-Type), the reading of the body and
    // the record of every refused request, over real HTTP to a sandbox started in-process.
    // replies.test.ts holds the reading of a body's identifiers as written (1.9999999999999999 is not 2).
    mutate: ['src/sandbox/api.ts'],
    tests: [
      'test/sandbox/api.test.ts',
      'test/sandbox/auth-and-tenants.test.ts',
      'test/sandbox/http.test.ts',
      'test/sandbox/refusals.test.ts',
      'test/sandbox/replies.test.ts',
    ],
  },
  runner: {
    // One run of one conversation of core test, against a scripted sandbox client in-process.
    mutate: ['src/testing/runner.ts'],
    tests: ['test/testing/runner.test.ts'],
  },
  'fuzz-judge': {
    // The rules a conversation of core check-bot --fuzz is judged by: pure, from what it played.
    mutate: ['src/testing/fuzz/judge.ts'],
    tests: ['test/testing/fuzz/judge.test.ts'],
  },
};
