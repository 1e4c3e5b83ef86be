import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
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
  'test/bridge/{map,verify,personal-data}.test.ts',
  'test/code/**/*.test.ts',
  'test/config/{duration,imports,loaders,reading,require,schema}.test.ts',
  'test/customer/{last-session,wait}.test.ts',
  'test/doctor/clock.test.ts',
  'test/help/**/*.test.ts',
  'test/docs/generated.test.ts',
  'test/docs/install-recipes.test.ts',
  'test/hardening/{mask-rule,proxy-rules}.test.ts',
  'test/http/throttle.test.ts',
  'test/markdown/**/*.test.ts',
  'test/mutation/**/*.test.ts',
  'test/mask/**/*.test.ts',
  'test/output/{count,env-file,glyphs,hold,request-log}.test.ts',
  'test/payload/**/*.test.ts',
  'test/prompts/{composer,editor-encodings,reason,width}.test.ts',
  'test/reason/{lay-fields,lines,parse-line,second-pass}.test.ts',
  'test/reply/build.test.ts',
  'test/schema/{agreement,examples,openapi}.test.ts',
  'test/sandbox/events/**/*.test.ts',
  'test/sandbox/kept-secret.test.ts',
  'test/sandbox/page-model.test.ts',
  'test/sandbox/rules/**/*.test.ts',
  'test/sandbox/store/**/*.test.ts',
  'test/send/prepare.test.ts',
  'test/testing/**/*.test.ts',
  'test/text/**/*.test.ts',
  'test/tiers/{node24,unit-tier}.test.ts',
];

export const PROCESS_TESTS = [
  'test/bridge/end-to-end.test.ts',
  'test/agents/**/*.test.ts',
  'test/build/**/*.test.ts',
  'test/check-bot/fuzz.test.ts',
  'test/completion/**/*.test.ts',
  'test/config/{search,secret,stuck,swapped}.test.ts',
  'test/docs/{help-examples,man-page}.test.ts',
  'test/doctor/doctor.test.ts',
  'test/e2e/**/*.test.ts',
  'test/hardening/{argv,faults,hanging-proxy,masking,payload-files,proxy,terminal,tls}.test.ts',
  'test/package/**/*.test.ts',
  'test/page/**/*.test.ts',
  'test/prompts/{composer-tmux,no-terminal}.test.ts',
  'test/reason/{built,fifo-source,heap,quiet-resume,stopping}.test.ts',
  'test/reply/answer-id.test.ts',
  'test/test-command/runaway-patterns.test.ts',
  'test/tiers/node24-run.test.ts',
];

/**
 * The second run, on Node 24 (scripts/test-node24.mjs sets CORE_TEST_NODE24=1), runs again what
 * could differ on it and nothing else (CONTRIBUTING.md, "Tests on Node 24"). What differs between
 * Node 20 and 24 is not the language core is written in but what Node brings (process.versions):
 * V8 11.3 and 13.6, OpenSSL 3.0 and 3.5, the URL parser Ada 2.9 and 4.0, undici (fetch) 6 and 7,
 * llhttp, libuv, the module loader (require of an ES module from 22.12), stream defaults, and which
 * APIs warn or are gone. So the files that reach those run on both; the rules computed in
 * JavaScript and the commands' own behaviour run once, on Node 20.
 *
 * Each test file is in exactly one of the two lists, by its folder ('test/e2e/') or by its name,
 * each with its reason; test/tiers/node24.test.ts fails when a file is in neither or in both, so a
 * new file is classified when it is added. A file in neither still runs on Node 24 (only
 * NOT_ON_NODE24 is left out of that run).
 */
const BINARY = 'the built binary: start-up, the loader, the standard streams, exit codes, warnings Node prints itself';
const SIGNALS = 'signals, child processes, pipes and FIFOs';
const HTTP_CLIENT = 'the HTTP client: got on node:http (llhttp, agents, socket errors and their codes), fetch (undici 6 and 7)';
const HTTP_SERVER = "the sandbox's node:http server: request parsing, time limits, connections, event streams";
const TLS = 'TLS and certificates (OpenSSL 3.0 and 3.5): error codes, trust, proxies that tunnel it';
const V8 = 'V8 itself: JSON.parse and its messages, strings in the heap, heap flags and their defaults, stack depth';
const URLS = 'the WHATWG URL parser (Ada 2.9 and 4.0)';
const STREAMS = 'streams and file reading: chunks, UTF-8 across chunks, standard input, idle pipes';
const FILES = 'file modes, owners, symbolic links and open flags';
const LOADER = 'the module loader: import() and require() of JavaScript config files';
const TERMINAL = 'readline and terminals: keypresses, raw mode, what inquirer draws';
const TEXT = "ICU: grapheme segmentation and TextDecoder's legacy encodings";
const PACKAGE = 'the package as installed: npm, exports, an ES module consumer, core-cli/sandbox on fetch and node:http';

const RULES = 'rules computed in JavaScript (schemas, matching, masking, planning, rendering): the language, not Node';
const COMMANDS =
  "a command's own behaviour run in-process (flags, payloads, output, exit codes), over the HTTP client and server that the files of HTTP_CLIENT and HTTP_SERVER run on Node 24";
const BROWSER = "the page in Chromium, the same browser whichever Node serves it; the sandbox's side is tested on Node 24 by HTTP_SERVER";
const SHELLS = 'what bash, zsh, fish, tmux and groff make of what core printed; the binary they call starts as test/e2e/ shows on Node 24';
const NPM = 'npm, git and YAML over the repository: no code of core runs';

export const ON_NODE24: ReadonlyArray<readonly [path: string, why: string]> = [
  ['test/batch/lines.test.ts', STREAMS],
  ['test/batch/parse-line.test.ts', V8],
  ['test/batch/source.test.ts', STREAMS],
  ['test/build/', `${BINARY}; V8's code cache, zlib.crc32 and module.enableCompileCache; the rewritten got on this V8`],
  ['test/config/header-values.test.ts', 'the header values node:http accepts'],
  ['test/config/imports.test.ts', FILES],
  ['test/customer/last-session.test.ts', `${FILES}: a folder opened without following a link, its owner`],
  ['test/config/loaders.test.ts', LOADER],
  ['test/config/prompts.test.ts', TERMINAL],
  ['test/config/reading.test.ts', `${LOADER}; ${V8}`],
  ['test/config/schema.test.ts', URLS],
  ['test/config/search.test.ts', `${FILES}; ${BINARY}`],
  ['test/config/secret.test.ts', `token commands: ${SIGNALS}`],
  ['test/config/stuck.test.ts', `${BINARY}; ${SIGNALS}; top-level await`],
  ['test/config/swapped.test.ts', FILES],
  ['test/config/trusted.test.ts', `${FILES}; ${BINARY}`],
  ['test/customer/refusal-stream.test.ts', `the event stream read over ${HTTP_CLIENT}`],
  ['test/doctor/doctor.test.ts', `${BINARY}; ${TLS}; ${HTTP_CLIENT}; token commands: ${SIGNALS}`],
  ['test/e2e/config.test.ts', BINARY],
  ['test/e2e/duration.test.ts', BINARY],
  ['test/e2e/mcp.test.ts', `${BINARY}; the MCP SDK over stdio`],
  ['test/e2e/output-streams.test.ts', BINARY],
  ['test/e2e/reply.test.ts', BINARY],
  ['test/e2e/sandbox.test.ts', BINARY],
  ['test/e2e/sandbox-env-file.test.ts', `${BINARY}; Node's own --env-file parsing`],
  ['test/e2e/sandbox-state.test.ts', `${FILES}; fdatasync, a full disk, a read-only file`],
  ['test/e2e/sandbox-state-crash.test.ts', `${FILES}; what a killed process leaves written`],
  [
    'test/hardening/endless-answers.test.ts',
    'the sandbox client on node:http: an answer read in chunks, the request destroyed past the bound',
  ],
  ['test/hardening/faults.test.ts', HTTP_CLIENT],
  ['test/hardening/hanging-proxy.test.ts', `${BINARY}; ${SIGNALS}; ${HTTP_CLIENT}`],
  ['test/hardening/output-files.test.ts', FILES],
  ['test/output/env-file.test.ts', FILES],
  ['test/hardening/payload-files.test.ts', `${BINARY}; ${V8}; ${STREAMS}`],
  ['test/hardening/proxy-rules.test.ts', URLS],
  ['test/hardening/proxy.test.ts', `${HTTP_CLIENT}; ${TLS}`],
  ['test/hardening/sandbox-connections.test.ts', HTTP_SERVER],
  ['test/hardening/sandbox-requests.test.ts', HTTP_SERVER],
  ['test/hardening/sandbox-streams.test.ts', HTTP_SERVER],
  ['test/hardening/sandbox-webhooks.test.ts', `${HTTP_SERVER}; ${HTTP_CLIENT}`],
  ['test/hardening/tls.test.ts', TLS],
  ['test/http/client.test.ts', HTTP_CLIENT],
  ['test/bridge/library.test.ts', `${HTTP_SERVER}; the bridge's requests to the platform on node:http`],
  ['test/bridge/nonconforming.test.ts', `${HTTP_SERVER}; the bridge's requests to the platform on node:http`],
  ['test/package/library.test.ts', PACKAGE],
  ['test/package/pack.test.ts', PACKAGE],
  ['test/payload/attachment.test.ts', URLS],
  ['test/payload/checks.test.ts', URLS],
  ['test/payload/flat-strings.test.ts', V8],
  ['test/payload/inexact.test.ts', `${V8}; how a decimal text is read as a number`],
  ['test/payload/json-readable.test.ts', V8],
  ['test/payload/json.test.ts', V8],
  ['test/prompts/composer-tmux.test.ts', `${BINARY}; ${TERMINAL}`],
  ['test/prompts/editor-encodings.test.ts', TEXT],
  ['test/prompts/inquirer-prompts.test.ts', TERMINAL],
  ['test/prompts/no-terminal.test.ts', `${BINARY}; ${STREAMS}`],
  ['test/prompts/width.test.ts', TEXT],
  ['test/reason/built.test.ts', `${BINARY}; ${SIGNALS}`],
  ['test/reason/fifo-source.test.ts', SIGNALS],
  ['test/reason/heap.test.ts', V8],
  ['test/reason/lines.test.ts', STREAMS],
  ['test/reason/parse-line.test.ts', V8],
  ['test/reason/quiet-resume.test.ts', BINARY],
  ['test/reason/stopping.test.ts', `${BINARY}; ${SIGNALS}`],
  ['test/reply/answer-id.test.ts', `${BINARY}: which of Node's modules a dry run loads`],
  ['test/reply/reply-edges.test.ts', `${HTTP_CLIENT}: redirects, Ctrl-C while waiting`],
  ['test/sandbox/api.test.ts', `${HTTP_SERVER}: a chunked body past the limit and the connection closed after the answer`],
  ['test/sandbox/command.test.ts', `${HTTP_SERVER}: listening, a port taken, stopping`],
  ['test/sandbox/customer-side.test.ts', HTTP_SERVER],
  ['test/sandbox/events/event-json.test.ts', `${V8}: identifiers past 2^53 read back exact`],
  ['test/sandbox/heap.test.ts', V8],
  ['test/sandbox/http.test.ts', HTTP_SERVER],
  ['test/sandbox/kept-secret.test.ts', FILES],
  ['test/sandbox/memory.test.ts', V8],
  ['test/sandbox/page-json.test.ts', `${V8}: JSON.parse's source text in a reviver (Node 21+)`],
  ['test/customer/stream-reconnect.test.ts', `${HTTP_CLIENT}: the event stream's client, its connections cut and made again`],
  ['test/sandbox/warm.test.ts', `${HTTP_CLIENT}: the sandbox's kept-alive connection to the bot, and one the bot closed`],
  ['test/sandbox/webhook.test.ts', `${HTTP_SERVER}; ${HTTP_CLIENT}`],
  ['test/test-command/clients.test.ts', `the sandbox reached over ${HTTP_CLIENT}`],
  ['test/test-command/long-patterns.test.ts', "V8's regular expressions: compiled when first used, and the size past which they cannot be"],
  ['test/test-command/runaway-patterns.test.ts', `${BINARY}; ${SIGNALS}; worker threads, and V8 interrupting an expression that runs`],
];

export const NOT_ON_NODE24: ReadonlyArray<readonly [path: string, why: string]> = [
  ['test/api/', COMMANDS],
  ['test/batch/check.test.ts', RULES],
  ['test/sandbox/large-ids.test.ts', COMMANDS],
  ['test/e2e/ascii-locale.test.ts', `${RULES}: the locale is read from LC_ALL, LC_CTYPE and LANG by core's own code`],
  ['test/e2e/core-test.test.ts', COMMANDS],
  [
    'test/e2e/progress-line.test.ts',
    `${COMMANDS}: the live line is core's own text, drawn with the same two control sequences on any Node`,
  ],
  ['test/e2e/demo.test.ts', COMMANDS],
  ['test/e2e/example-bot.test.ts', COMMANDS],
  ['test/e2e/sandbox-json.test.ts', COMMANDS],
  ['test/e2e/sandbox-fixtures.test.ts', COMMANDS],
  ['test/bridge/end-to-end.test.ts', `${COMMANDS}; the bridge's requests and its server are those of test/bridge/library.test.ts`],
  ['test/bridge/map.test.ts', RULES],
  ['test/bridge/personal-data.test.ts', RULES],
  ['test/bridge/verify.test.ts', RULES],
  ['test/batch/progress.test.ts', RULES],
  ['test/batch/resume.test.ts', RULES],
  ['test/batch/send.test.ts', RULES],
  ['test/check-bot/', COMMANDS],
  ['test/completion/', SHELLS],
  ['test/code/', 'the sources read by the TypeScript parser: no code of core runs'],
  ['test/config/command.test.ts', COMMANDS],
  ['test/config/duration.test.ts', RULES],
  ['test/config/precedence.test.ts', COMMANDS],
  ['test/config/profiles.test.ts', COMMANDS],
  ['test/config/require.test.ts', RULES],
  ['test/agents/agents.test.ts', COMMANDS],
  ['test/customer/customer.test.ts', COMMANDS],
  ['test/customer/render.test.ts', RULES],
  ['test/customer/wait.test.ts', RULES],
  ['test/docs/', `${RULES}; ${SHELLS}`],
  ['test/doctor/clock.test.ts', RULES],
  ['test/example/', COMMANDS],
  ['test/greet/', COMMANDS],
  ['test/help/', `${COMMANDS}; the sources read as text`],
  ['test/hardening/argv.test.ts', COMMANDS],
  ['test/hardening/hostile-markdown.test.ts', COMMANDS],
  ['test/hardening/linear-trim.test.ts', RULES],
  ['test/hardening/mask-rule.test.ts', RULES],
  ['test/hardening/masking.test.ts', COMMANDS],
  ['test/hardening/outside-colours.test.ts', COMMANDS],
  ['test/hardening/payload-properties.test.ts', RULES],
  ['test/hardening/plain-http.test.ts', COMMANDS],
  ['test/hardening/secrets.test.ts', COMMANDS],
  ['test/hardening/terminal.test.ts', COMMANDS],
  ['test/hardening/unknown-fields.test.ts', COMMANDS],
  ['test/http/throttle.test.ts', RULES],
  ['test/markdown/', RULES],
  ['test/mask/', RULES],
  ['test/mutation/', "mutation testing's ledger: Stryker's instrumenter over the sources as text; Stryker runs on the Node of npm test"],
  ['test/output/color.test.ts', COMMANDS],
  ['test/output/count.test.ts', RULES],
  ['test/output/error-body.test.ts', COMMANDS],
  ['test/output/glyphs.test.ts', RULES],
  ['test/output/hints.test.ts', COMMANDS],
  ['test/output/hold.test.ts', COMMANDS],
  ['test/output/request-log.test.ts', COMMANDS],
  ['test/package/lock.test.ts', NPM],
  ['test/package/release.test.ts', NPM],
  ['test/page/', BROWSER],
  ['test/payload/bounds.test.ts', RULES],
  ['test/payload/channels.test.ts', RULES],
  ['test/payload/common.test.ts', RULES],
  ['test/payload/descriptions.test.ts', RULES],
  ['test/payload/greeting-options.test.ts', RULES],
  ['test/payload/greeting.test.ts', RULES],
  ['test/payload/list-picker.test.ts', RULES],
  ['test/payload/load.test.ts', RULES],
  ['test/payload/long-messages.test.ts', RULES],
  ['test/payload/long.test.ts', RULES],
  ['test/payload/messages.test.ts', RULES],
  ['test/payload/quick-reply.test.ts', RULES],
  ['test/payload/reason-locales.test.ts', RULES],
  ['test/payload/reason.test.ts', RULES],
  ['test/payload/reply-options.test.ts', RULES],
  ['test/payload/reply-fields.test.ts', RULES],
  ['test/payload/reply.test.ts', RULES],
  ['test/payload/schema-walk.test.ts', RULES],
  ['test/payload/shared.test.ts', RULES],
  ['test/payload/validate.test.ts', RULES],
  ['test/program/', COMMANDS],
  ['test/prompts/composer.test.ts', RULES],
  ['test/prompts/reason.test.ts', RULES],
  ['test/prompts/run-interactive.test.ts', COMMANDS],
  ['test/reason/batch.test.ts', COMMANDS],
  ['test/reason/flags.test.ts', COMMANDS],
  ['test/reason/interactive.test.ts', COMMANDS],
  ['test/reason/lay-fields.test.ts', RULES],
  ['test/reason/progress.test.ts', COMMANDS],
  ['test/reason/rate-limit.test.ts', COMMANDS],
  ['test/reason/second-pass.test.ts', RULES],
  ['test/reason/single.test.ts', COMMANDS],
  ['test/reply/build.test.ts', RULES],
  ['test/reply/reply-run.test.ts', COMMANDS],
  ['test/sandbox/auth-and-tenants.test.ts', COMMANDS],
  ['test/sandbox/host.test.ts', RULES],
  ['test/sandbox/kept-secret-commands.test.ts', COMMANDS],
  ['test/sandbox/page-model.test.ts', RULES],
  ['test/sandbox/page.test.ts', COMMANDS],
  ['test/sandbox/platform.test.ts', COMMANDS],
  ['test/sandbox/snapshots-library.test.ts', COMMANDS],
  ['test/sandbox/random.test.ts', RULES],
  ['test/sandbox/reasons.test.ts', COMMANDS],
  ['test/sandbox/refusals.test.ts', COMMANDS],
  ['test/sandbox/replies.test.ts', COMMANDS],
  ['test/sandbox/rules/', RULES],
  ['test/sandbox/stdout-source.test.ts', RULES],
  ['test/sandbox/store/', RULES],
  ['test/schema/', RULES],
  ['test/send/', COMMANDS],
  ['test/test-command/agents.test.ts', COMMANDS],
  ['test/test-command/depth.test.ts', COMMANDS],
  ['test/test-command/file-problems.test.ts', COMMANDS],
  ['test/test-command/refusals.test.ts', COMMANDS],
  ['test/test-command/reports.test.ts', COMMANDS],
  ['test/test-command/run.test.ts', COMMANDS],
  ['test/test-command/save-as-test.test.ts', COMMANDS],
  ['test/testing/', RULES],
  ['test/text/', RULES],
  ['test/tiers/', 'the configuration of the test suite itself'],
];

/**
 * The files that took longest in the last run measured on a fresh 2-core machine (CI, Node 20; file
 * times of `CORE_TEST_REPORT_DIR`), longest first. They start first: two workers run the files in
 * the order given, and a long file started late is the run's tail, one core idle (the fuzzer alone
 * is half of a pass). A file missing from here only starts later; a stale entry costs nothing.
 */
export const LONGEST_FIRST = [
  'test/check-bot/fuzz.test.ts',
  'test/package/pack.test.ts',
  'test/check-bot/check-bot.test.ts',
  'test/e2e/sandbox-state-crash.test.ts',
  'test/completion/terminal.test.ts',
  'test/hardening/payload-files.test.ts',
  'test/e2e/ascii-locale.test.ts',
];

/** The tiers in the order their files start once LONGEST_FIRST has: the longer files first. */
const TIER_ORDER = ['process', 'integration', 'unit'];

/**
 * vitest's order (within a tier, the longest of the last run first when this machine ran it, else
 * the largest file first), but the files of LONGEST_FIRST first, then the tiers in TIER_ORDER:
 * vitest itself runs the tiers by name (integration, process, unit), which on a fresh machine
 * started the fuzzer, a small file of the process tier, after most of the run.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const listed = (spec: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(relative(import.meta.dirname, spec.moduleId));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    const tier = (spec: TestSpecification) => TIER_ORDER.indexOf(spec.project.name);
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => listed(a.spec) - listed(b.spec) || tier(a.spec) - tier(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}

/** A path of the lists above as a glob: a folder is everything under it. */
export const globOf = (path: string): string => (path.endsWith('/') ? `${path}**` : path);

/** What a run leaves out: NOT_ON_NODE24 in the run on Node 24 (CORE_TEST_NODE24=1), nothing otherwise. */
export function leftOut(env: Record<string, string | undefined> = process.env): string[] {
  return env.CORE_TEST_NODE24 === '1' ? NOT_ON_NODE24.map(([path]) => globOf(path)) : [];
}

export default defineConfig({
  test: {
    testTimeout: hangLimit(120_000),
    hookTimeout: hangLimit(120_000),
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    // Two test files at a time at least: much of the suite waits (on child processes, servers, a
    // browser, a time limit a check sits out), so vitest's default of one worker per core but one
    // left a 2-core machine with one file at a time and a core idle. More cores keep the default.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // An unhandled error or rejection fails the run, even when every test passed (vitest's
    // default, stated here so that it is not switched off by accident): it is a bug somewhere.
    dangerouslyIgnoreUnhandledErrors: false,
    // One temporary folder a run, removed at its end (test/helpers/temporary-folder.ts).
    globalSetup: ['test/helpers/temporary-folder.ts'],
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT_TESTS,
          exclude: [...configDefaults.exclude, ...leftOut()],
          setupFiles: ['test/helpers/unit-tier.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: [...UNIT_TESTS, ...PROCESS_TESTS, ...leftOut()] },
      },
      { extends: true, test: { name: 'process', include: PROCESS_TESTS, exclude: [...configDefaults.exclude, ...leftOut()] } },
    ],
  },
});
