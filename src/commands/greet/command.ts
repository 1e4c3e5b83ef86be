import { Command, Option } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';
import { addQuickReplyOptions, addSendOptions, readSendOptions } from '../send-options.js';
import type { GreetOptions } from './run.js';

export const greetCommand: CommandFactory = (inv) => {
  const cmd = new Command('greet')
    .summary("send the bot's first, proactive greeting to a client (POST /api/v1/chatbot/greet)")
    .description(
      "Send the bot's first, proactive greeting to a client (POST /api/v1/chatbot/greet).\n\n" +
        'Address it by --core-client-id (any client; preferred) or the deprecated --client-id (authorized clients ' +
        'only; when both are given, clientId takes priority).\n\n' +
        'A greeting carries no answer ID, so a repeat could greet twice: it is not retried on a failure unless ' +
        '--retry is given.\n\n' +
        '-i composes it with prompts: it asks only for what the flags and the file left out, checks every answer ' +
        'as you type, and shows a preview before anything is sent.',
    )
    .option('-t, --text <text>', "the greeting's text")
    .addOption(new Option('--text-file <path>', 'read the text from a file ("-" for standard input)').conflicts('text'))
    .option('--core-client-id <id>', 'internal client ID (long); any client; preferred')
    .option('--client-id <id>', 'external client ID; authorized clients only (deprecated: use --core-client-id)');
  const quickReplies = addQuickReplyOptions(cmd);
  cmd
    .option('--received-at <time>', 'time of receipt, yyyy-MM-ddTHH:mm:ss.SSSZ in UTC, or "now"')
    .option('--save <file>', 'also write the composed greeting to FILE as JSON; with --dry-run, only write it')
    .option('--retry', 'retry on network failures, 429 and 5xx (a repeat may greet twice)');
  addSendOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core greet --core-client-id 1234567 -t "Hi! Questions about your order? Ask here."
  $ core greet --core-client-id 1234567 -t "How can we help?" --quick-reply "Track my order" --contact-reply "Call me back"
  $ core greet --core-client-id 1234567 -t "Welcome back" --quick-reply Yes --quick-reply No --block-input
  $ git log -1 --format=%B | core greet --core-client-id 1234567 --text-file -
  $ core greet -i                                    # compose it with prompts and a preview
  $ core greet -i --save welcome.json --dry-run      # compose it and keep it for later; send nothing
  $ core greet -f welcome.json --core-client-id 7654321 --retry
  $ core greet -f welcome.yaml --dry-run --json | jq .body`,
  );
  cmd.action(async (raw: Record<string, unknown>, self: Command) => {
    const options: GreetOptions = {
      ...readSendOptions(raw),
      global: globalOptions(self),
      save: raw.save as string | undefined,
      retry: raw.retry === true,
      textFile: raw.textFile as string | undefined,
      fields: {
        text: raw.text as string | undefined,
        coreClientId: raw.coreClientId as string | undefined,
        clientId: raw.clientId as string | undefined,
        quickReplies: quickReplies(),
        blockInput: raw.blockInput === true ? true : undefined,
        masked: raw.masked === true ? true : undefined,
        receivedAt: raw.receivedAt as string | undefined,
      },
    };
    const { runGreet } = await import('./run.js');
    inv.exitCode = await runGreet(options, inv.ctx);
  });
  return cmd;
};
