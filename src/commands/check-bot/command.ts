import { Command, Option } from 'commander';
import { CHECK_IDS, CHECK_REPORTERS } from '../../testing/check-bot/ids.js';
import type { CommandFactory } from '../definition.js';
import type { CheckBotOptions } from './plan.js';

/** `core check-bot` (docs/check-bot.md, docs/commands/check-bot.md). */
export const checkBotCommand: CommandFactory = (inv) => {
  const cmd = new Command('check-bot')
    .summary("grade your bot's webhook handling: signatures, timestamps, replays, retries, EMAIL addressing")
    .description(
      'Run a battery of MESSAGE deliveries against your bot through a sandbox and say, check by check, what it does ' +
        'right and wrong, with the fix: it answers a signed delivery; it refuses one that is unsigned, changed after ' +
        'signing, signed with another secret, or timestamped 10 minutes off; it accepts a key rotation; it does not ' +
        'answer a replay anew; it retries a refused answer with the same answerId; it addresses EMAIL answers by ' +
        'sessionId and questionIndex; it ignores fields it does not know. core check-bot starts a sandbox on --port ' +
        '(default a free port) that delivers to --bot-url, with the sandbox defaults (tenant sandbox, token ' +
        'sandbox-token) and the webhook secret of CORE_SANDBOX_WEBHOOK_SECRET, else the one kept for you, as core sandbox ' +
        'signs with; or it uses the running sandbox at --sandbox. The checks run ' +
        'at once, each in its own conversation; those that expect no answer wait --timeout for none, so a run takes ' +
        'about --timeout. docs/check-bot.md explains each check and how to pass it in Node and in Python.',
    )
    .option('--bot-url <url>', 'start a sandbox that delivers the MESSAGE webhooks to your bot at this URL')
    .option('--port <n>', 'the port of the sandbox core check-bot starts (default 0: a free port); your bot answers to it')
    .option('--sandbox <url>', 'use the running core sandbox at this base URL instead, with the bot it delivers to')
    .addOption(
      new Option('--reporter <name>', 'the report: human (a table), junit (JUnit XML), tap (TAP 14) or json')
        .choices(CHECK_REPORTERS)
        .default('human'),
    )
    .option('--output <file>', 'write the report to FILE instead of stdout')
    .option('--timeout <duration>', 'how long an answer may take, such as 5s (default 10s); a check that expects none waits this long')
    .option(
      '--only <id...>',
      `run only these checks (an id, or the part before its dot: signature, timestamp): ${CHECK_IDS.join(', ')}; with --fuzz, judge only these rules (fuzz.<rule>)`,
    )
    .option('--fuzz <n>', 'instead of the checks, send N fuzzed conversations and shrink each rule the bot breaks to its smallest case')
    .option('--seed <s>', 'with --fuzz: the seed of the conversations (default a new one, printed); the same seed makes the same run')
    .option(
      '--fuzz-replay <spec>',
      "play one fuzzed case again: a spec '<seed>:<path>' a failure printed, or a .fuzz.json file --fuzz-save wrote",
    )
    .option('--fuzz-save <dir>', 'write each failing fuzzed case into DIR as a core test file and a --fuzz-replay file');
  cmd.addHelpText(
    'after',
    `
With --fuzz, each rule the bot breaks is one failed check (fuzz.<rule>), shrunk to its smallest
conversation and printed with the command that replays exactly it (docs/check-bot.md, "Fuzzing").

Exit status: 0 when every check passed; 3 when one failed; 6 when the bot could not be
reached at all (or the sandbox at --sandbox could not be); 2 for bad usage.

Examples:
  $ export CORE_SANDBOX_WEBHOOK_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
  $ export CORE_BASE_URL=http://127.0.0.1:8080 CORE_TENANT=sandbox CORE_TOKEN=sandbox-token
  $ core example bot > bot.mjs
  $ CORE_WEBHOOK_SECRET=$CORE_SANDBOX_WEBHOOK_SECRET node bot.mjs &   # the bot, answering to port 8080
  $ core check-bot --port 8080 --bot-url http://127.0.0.1:3000/webhook
  $ core check-bot --port 8080 --bot-url http://127.0.0.1:3000/webhook --only signature replay
  $ core check-bot --sandbox http://127.0.0.1:8080 --reporter junit --output check-bot.xml
  $ core check-bot --sandbox http://127.0.0.1:8080 --reporter json | jq '.checks[] | select(.status == "fail")'
  $ core check-bot --port 8080 --bot-url http://127.0.0.1:3000/webhook --fuzz 300 --seed 42 --timeout 2s
  $ core check-bot --port 8080 --bot-url http://127.0.0.1:3000/webhook --fuzz-replay '42:17:0:3'
  $ core check-bot --sandbox http://127.0.0.1:8080 --fuzz 1000 --fuzz-save tests/fuzz`,
  );
  cmd.action(async (raw: Record<string, unknown>) => {
    const options: CheckBotOptions = {
      reporter: raw.reporter as CheckBotOptions['reporter'],
      ...optional('botUrl', raw.botUrl),
      ...optional('port', raw.port),
      ...optional('sandbox', raw.sandbox),
      ...optional('output', raw.output),
      ...optional('timeout', raw.timeout),
      ...(Array.isArray(raw.only) ? { only: raw.only as string[] } : {}),
      ...optional('fuzz', raw.fuzz),
      ...optional('seed', raw.seed),
      ...optional('fuzzReplay', raw.fuzzReplay),
      ...optional('fuzzSave', raw.fuzzSave),
    };
    const { runCheckBot } = await import('./run.js');
    inv.exitCode = await runCheckBot(options, inv.ctx);
  });
  return cmd;
};

function optional<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' ? ({ [key]: value } as Record<K, string>) : {};
}
