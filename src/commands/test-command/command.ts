import { Command, Option } from 'commander';
import type { CommandFactory } from '../definition.js';
import type { TestOptions } from './plan.js';

/** The reporters, listed here as well as in src/testing/report.ts so that the definition loads nothing else; a test pins the two together. */
export const REPORTER_CHOICES = ['human', 'junit', 'tap', 'json'] as const;

/** `core test FILE...` (docs/testing-bots.md, docs/commands/test.md). */
export const testCommand: CommandFactory = (inv) => {
  const cmd = new Command('test')
    .summary('play conversation files against your bot through a sandbox, and report what passed: regression tests for CI')
    .description(
      'Play each conversation of the test files (YAML or JSON; a folder gives its .yaml, .yml and .json files) against ' +
        'your bot, as a customer, through a sandbox: core test starts one on --port (default a free port) that delivers ' +
        'MESSAGE webhooks to --bot-url, with the sandbox defaults (tenant sandbox, token sandbox-token) and ' +
        'the webhook secret of CORE_SANDBOX_WEBHOOK_SECRET, else the one kept for you, as core sandbox signs with; or it uses the running sandbox at --sandbox. Each conversation has its own thread ' +
        'and client, and they run at once (--concurrency). A step waits up to --timeout for what it expects.\n\n' +
        'Steps: customer: TEXT; press: LABEL (a button or list item of the last answer); bot: {text: ..., quickReplies: ' +
        '[...], code: ..., ...} checks the next answer (strings exact or /regex/flags, lists in order, objects by the ' +
        'fields they name), within: DURATION how soon it must come, capture: {NAME: /pattern/} keeps a value of it for ' +
        '${NAME} in later steps; bot: none expects no answer within a time. examples: [{KEY: value}, ...] beside steps ' +
        'runs the conversation once per row. `core schema test` prints the JSON Schema of the files; ' +
        'docs/testing-bots.md has the format and CI recipes.',
    )
    .argument('<file...>', 'test files (YAML or JSON), or folders of them')
    .option('--bot-url <url>', 'start a sandbox that delivers the MESSAGE webhooks to your bot at this URL')
    .option('--port <n>', 'the port of the sandbox core test starts (default 0: a free port); your bot answers to it')
    .option('--sandbox <url>', 'use the running core sandbox at this base URL instead, with the bot it delivers to')
    .option('--large-ids', 'the sandbox core test starts makes every coreClientId and questionId above 2^53 (as core sandbox --large-ids)')
    .option('--state <file>', 'keep the state of the sandbox core test starts in this file, as core sandbox --state does')
    .addOption(
      new Option(
        '--reporter <name>',
        'a report: human (default), junit (JUnit XML), tap (TAP 14) or json; NAME=FILE writes it to FILE (repeatable: several reports from one run)',
      )
        // The choices are for help and completion; the parser keeps every --reporter, NAME or NAME=FILE (run.ts checks them).
        .choices(REPORTER_CHOICES)
        .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]),
    )
    .option(
      '--output <file>',
      'write the report of the --reporter without =FILE to FILE instead of stdout (the human summary still goes to stderr)',
    )
    .option('--timeout <duration>', 'how long each step waits for what it expects, such as 30s (default 10s)')
    .option('--concurrency <n>', 'runs played at once, 1 to 64 (default 4)')
    .option(
      '--repeat <n>',
      'run every conversation N times, 1 to 100000 (each run a new thread and client): flaky conversations and latency percentiles',
    )
    .option(
      '--coverage',
      'report what of the platform the runs exercised (channels, codes, answer features, actions, outcomes), and what they did not',
    );
  cmd.addHelpText(
    'after',
    `
Exit status: 0 when every conversation passed (every run of it); 3 when one failed; 2 for a file that
is not a valid test, or bad usage (nothing ran); 6 when the bot could not be reached
at all (every webhook failed to connect), or the sandbox at --sandbox could not be.

Examples:
  $ export CORE_SANDBOX_WEBHOOK_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  $ export CORE_BASE_URL=http://127.0.0.1:8080 CORE_TENANT=sandbox CORE_TOKEN=sandbox-token
  $ core example bot > bot.mjs
  $ CORE_WEBHOOK_SECRET=$CORE_SANDBOX_WEBHOOK_SECRET node bot.mjs &   # the bot, answering to port 8080
  $ core test tests/*.yaml --port 8080 --bot-url http://127.0.0.1:3000/webhook
  $ core test tests/ --port 8080 --bot-url http://127.0.0.1:3000/webhook --reporter junit --output report.xml
  $ core test tests/ --bot-url http://127.0.0.1:3000/webhook --reporter junit=report.xml --reporter json=report.json
  $ core test tests/order.yaml --bot-url http://127.0.0.1:3000/webhook --repeat 200 --concurrency 16 --coverage
  $ core test tests/order.yaml --sandbox http://127.0.0.1:8080 --timeout 30s
  $ core test tests/*.yaml --sandbox http://127.0.0.1:8080 --reporter json | jq '.summary'
  $ curl -s http://127.0.0.1:8080/_sandbox/conversations/s-1f2e3d4c5b6a/test > tests/saved.yaml`,
  );
  cmd.action(async (files: string[], raw: Record<string, unknown>) => {
    const options: TestOptions = {
      files,
      reporters: Array.isArray(raw.reporter) ? (raw.reporter as string[]) : [],
      ...(raw.coverage === true ? { coverage: true } : {}),
      ...optional('repeat', raw.repeat),
      ...optional('botUrl', raw.botUrl),
      ...optional('port', raw.port),
      ...optional('state', raw.state),
      ...optional('sandbox', raw.sandbox),
      ...(raw.largeIds === true ? { largeIds: true } : {}),
      ...optional('output', raw.output),
      ...optional('timeout', raw.timeout),
      ...optional('concurrency', raw.concurrency),
    };
    const { runTest } = await import('./run.js');
    inv.exitCode = await runTest(options, inv.ctx);
  });
  return cmd;
};

function optional<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' ? ({ [key]: value } as Record<K, string>) : {};
}
