import { Command, Option } from 'commander';
import { CHANNELS, channelNamed } from '../../payload/channels.js';
import { globalOptions, type CommandFactory } from '../definition.js';
import { addConnectionOptions } from '../send-options.js';
import type { CustomerPressOptions, CustomerSayOptions } from './run.js';

/** `core customer`: the customer's side of a `core sandbox` conversation, from a shell. */
export const customerCommand: CommandFactory = (inv) => {
  const group = new Command('customer')
    .summary('play the customer of a core sandbox conversation: write to your bot, press its buttons')
    .description(
      "The customer's side of a conversation in a running `core sandbox`: each message becomes a question and, when the " +
        "sandbox was started with --bot-url, a signed MESSAGE webhook to your bot. The bot's answers are drawn as the " +
        'customer would see them. Talks to the sandbox at the base URL (--base-url, CORE_BASE_URL or the profile); needs ' +
        'no token. `--session last` goes on in the conversation `say` last started against that base URL. ' +
        'See docs/sandbox.md.',
    );
  group.addCommand(sayCommand(inv));
  group.addCommand(pressCommand(inv));
  group.addHelpText(
    'after',
    `
Examples:
  $ core customer say "Where is my order?"
  $ core customer say "And when will it arrive?" --session s-1f2e3d4c5b6a
  $ core customer press "Talk to a person" --session s-1f2e3d4c5b6a
  $ core customer press "Talk to a person" --session last`,
  );
  return group;
};

const waitOptions = (cmd: Command) => {
  addConnectionOptions(cmd)
    .option('--wait <duration>', "how long to wait for the bot's answers, such as 30s (default 10s)")
    .option('--timeout <duration>', 'time limit of each request to the sandbox (default 30s)')
    .option('--json', 'print one JSON document: the sessionId, the question, the webhook attempts, the answers, the refused requests');
  // The shared connection options, described as they work here: the sandbox is the service.
  for (const option of cmd.options) {
    if (option.long === '--base-url') option.description = "the sandbox's base URL, as core sandbox prints it (env CORE_BASE_URL)";
    if (option.long === '--tenant')
      option.description = "the tenant of a new conversation (env CORE_TENANT; default: the sandbox's first tenant)";
  }
  return cmd;
};

const EXIT_STATUS = `
Exit status: 0 when the bot answered in time (at least one answer delivered to the
customer); 6 when it did not, when the sandbox refused one of the bot's requests, or
when the sandbox could not be reached; 4 when the sandbox refused the message (an
unknown session, a button the last message does not have); 2 for bad usage.

The wait ends once the webhook has been delivered (or failed for good) and an answer has
arrived, plus 300 ms for answers that follow it; at once when no answer can come (the
thread is with agents, or the webhook failed and no answer came); 300 ms after the
sandbox refused a request of the bot tied to this conversation, or one tied to none
(a wrong token, an unknown questionId) while no answer had come (or once the webhook
delivery going on then has ended, at most 1 s after the refusal): it names the status
and the sandbox's message; else when --wait runs out.

--session last is the conversation say last started against the base URL, kept in
$XDG_STATE_HOME/core/ (else ~/.local/state/core/).`;

const sayCommand: CommandFactory = (inv) => {
  const cmd = new Command('say')
    .summary("send a customer message and wait for the bot's answers")
    .description(
      'Send TEXT as the customer. Without --session it starts a new conversation (a new client on a WEB thread, or ' +
        '--channel, --client-id, --core-client-id) and prints its sessionId on stderr (and in --json), so the next call ' +
        "can go on with --session ID, or --session last. Then it waits for the bot's answers to this message and draws them.",
    )
    .argument('<text>', 'what the customer writes')
    .option('--session <id>', 'go on in this conversation: the sessionId printed by the first call, or last')
    .addOption(
      new Option('--channel <channel>', 'the channel of a new conversation, in any case (default WEB)')
        .choices(CHANNELS)
        // Any case is a channel's name (im is IM); run.ts refuses a name that is none, listing the channels.
        .argParser((value: string) => channelNamed(value) ?? value),
    )
    .option('--client-id <id>', 'a new conversation of the authorized client with this external clientId')
    .option('--core-client-id <id>', 'a new conversation of the client with this coreClientId');
  waitOptions(cmd);
  cmd.addHelpText(
    'after',
    `${EXIT_STATUS}

Examples:
  $ core sandbox --bot-url http://127.0.0.1:3000/webhook        # in another shell
  $ core customer say "Where is my order?"
  $ core customer say "Where is my order?" --channel im --client-id alice@example.com
  $ core customer say "And when?" --session s-1f2e3d4c5b6a --wait 30s
  $ core customer say "And when?" --session last
  $ core customer say "Hello" --channel email --json | jq '.answers[].body.text'`,
  );
  cmd.action(async (text: string, raw: Record<string, unknown>, self: Command) => {
    const options: CustomerSayOptions = {
      text,
      global: globalOptions(self),
      json: raw.json === true,
      ...optional('session', raw.session),
      ...optional('channel', raw.channel),
      ...optional('clientId', raw.clientId),
      ...optional('coreClientId', raw.coreClientId),
      ...optional('wait', raw.wait),
      ...optional('timeout', raw.timeout),
    };
    const { runCustomerSay } = await import('./run.js');
    inv.exitCode = await runCustomerSay(options, inv.ctx);
  });
  return cmd;
};

const pressCommand: CommandFactory = (inv) => {
  const cmd = new Command('press')
    .summary("press a button or pick a list item of the bot's last message, and wait for the answers")
    .description(
      'Press a quick-reply button (by its text or shown_text) or pick a list item (by its identifier or title) of the ' +
        "bot's last message in the conversation, as the customer does; then wait for the bot's answers as say does. " +
        'A label the message does not offer is refused by the sandbox, which names what it offers.',
    )
    .argument('<label>', 'the button or list item')
    .requiredOption('--session <id>', 'the conversation: its sessionId, or last (the one say last started against the base URL)');
  waitOptions(cmd);
  cmd.addHelpText(
    'after',
    `${EXIT_STATUS}

Examples:
  $ core customer press "Talk to a person" --session s-1f2e3d4c5b6a
  $ core customer press size-l --session s-1f2e3d4c5b6a --json
  $ core customer press "Talk to a person" --session last`,
  );
  cmd.action(async (label: string, raw: Record<string, unknown>, self: Command) => {
    const options: CustomerPressOptions = {
      label,
      session: raw.session as string,
      global: globalOptions(self),
      json: raw.json === true,
      ...optional('wait', raw.wait),
      ...optional('timeout', raw.timeout),
    };
    const { runCustomerPress } = await import('./run.js');
    inv.exitCode = await runCustomerPress(options, inv.ctx);
  });
  return cmd;
};

function optional<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === 'string' ? ({ [key]: value } as Record<K, string>) : {};
}
