import { Command, Option } from 'commander';
import type { CommandFactory } from '../definition.js';
import { BOT_LANGUAGES, type BotLanguage } from './languages.js';

/** `core example bot [--lang node|python|typescript]` (docs/commands/example.md). */
export const exampleCommand: CommandFactory = (inv) => {
  const cmd = new Command('example')
    .summary('print a working example: a bot that verifies the webhook and answers through the API')
    .description(
      'Print an example on stdout, to start from. `core example bot` is a small bot that passes every check of ' +
        'core check-bot: it verifies the Standard Webhooks signature of the MESSAGE webhook over the raw body, ' +
        'keeps identifiers exact past 2^53, answers each webhook with one answerId (a retry or a redelivery cannot ' +
        'deliver twice), addresses EMAIL answers by sessionId and questionIndex, and hands the thread over to ' +
        'agents when the customer asks for a person. It reads CORE_BASE_URL, CORE_TENANT, CORE_TOKEN and ' +
        'CORE_WEBHOOK_SECRET (the lines core sandbox prints) and PORT (default 3000). The same files ship in ' +
        'the package under docs/examples/bot/.',
    );
  const bot = new Command('bot')
    .summary('print an example bot: Node (default), Python or TypeScript')
    .description(
      'Print an example bot on stdout: --lang node (an ES module, Node 20 or later, no dependency), python ' +
        '(Python 3.9 or later, standard library only) or typescript (strict, typed; compile it with tsc, as its ' +
        'first lines say). Each passes every check of core check-bot against core sandbox as printed.',
    )
    .addOption(new Option('--lang <language>', 'the language of the bot').choices(BOT_LANGUAGES).default('node'));
  bot.addHelpText(
    'after',
    `
Examples:
  $ core example bot > bot.mjs && node bot.mjs                    # with the export lines of core sandbox
  $ core example bot --lang python > bot.py && python3 bot.py
  $ core example bot --lang typescript > bot.ts
  $ core sandbox --port 8080 --bot-url http://127.0.0.1:3000/webhook   # in another shell: the bot's platform`,
  );
  bot.action(async (options: { lang: BotLanguage }) => {
    const { runExampleBot } = await import('./run.js');
    inv.exitCode = await runExampleBot({ lang: options.lang }, inv.ctx);
  });
  cmd.addCommand(bot);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core example bot > bot.mjs
  $ core example bot --lang typescript > bot.ts`,
  );
  return cmd;
};
