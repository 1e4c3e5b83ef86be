import { Command } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const bridgeCommand: CommandFactory = (inv) => {
  const cmd = new Command('bridge')
    .summary("develop against a real tenant with the sandbox's eyes: check every request, and turn real conversations into tests")
    .description(
      "Run a sandbox in bridge mode between your bot and a real tenant (the profile's baseUrl, tenant and token). " +
        "The real platform's MESSAGE webhooks come in at the bridge's /webhook path (exposed by a tunnel of your " +
        'choice; --public-url is only shown) and go to your bot, signed with the local secret. Your bot uses the ' +
        "bridge as its base URL with a local token: each request is checked as the sandbox checks it (the payload's " +
        'rules, the answer against the question the bridge delivered, rule 2, a repeated answerId) and, if it passes, ' +
        "sent on to the platform with the profile's tenant and token, which the bot never holds; the platform's answer " +
        'comes back to the bot as it came. A request that breaks a rule is refused locally and never reaches the ' +
        'platform (--forward-invalid sends it anyway). The page shows every bridged conversation; save any as a ' +
        '`core test` file, or all of them with `core bridge record --out DIR`. See docs/bridge.md.',
    )
    .option('--bot-url <url>', "your bot's MESSAGE webhook, where the platform's deliveries go")
    .option('--port <n>', 'port to listen on (default 0: a free port)')
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--public-url <url>', "the tunnel's public address of the bridge, printed and shown (core opens no tunnel)")
    .option('--webhook-map <file>', "where a customer message's fields are in the platform's webhook, as JSON pointers (YAML or JSON)")
    .option('--forward-invalid', 'send on a request the bridge refused for its payload or its rules, marked on the page')
    .option('--token <token>', "the local bearer token your bot sends to the bridge (default sandbox-token; never the profile's)")
    .option(
      '--webhook-secret <secret>',
      'the local whsec_... secret deliveries to your bot are signed with (default: the one core sandbox keeps for you)',
    )
    .option('--webhook-timeout <duration>', 'time limit of one delivery attempt to your bot (default 10s)')
    .option('--webhook-retries <n>', 'how many times a failed delivery to your bot is tried again (default 3)')
    .option('--allow-host <name>', "a Host name accepted besides loopback and --public-url's, such as a tunnel's (repeatable)", collect)
    .option('--timeout <duration>', "time limit of one request to the platform (default: the profile's timeout)")
    .option('--ca-file <file>', 'PEM file of CA certificates to trust for the platform, on top of the system ones')
    .option('--allow-http', "send the profile's token over plain http to a host other than loopback")
    .option('--open', "open the bridge's page in your browser");
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core bridge --profile prod --bot-url http://127.0.0.1:3000/webhook
  $ core bridge -p prod --bot-url http://127.0.0.1:3000/webhook --port 8787 --public-url https://abc.tunnel.example
  $ eval "$(core bridge -p prod --bot-url http://127.0.0.1:3000/webhook --port 8787 &)"   # the bot's CORE_* lines
  $ core bridge -p prod --bot-url http://127.0.0.1:3000/webhook --webhook-map platform-map.yaml
  $ core bridge record --out tests/real                  # every bridged conversation as a core test file`,
  );
  cmd.action(async (raw: Record<string, unknown>) => {
    const { runBridge } = await import('./run.js');
    inv.exitCode = await runBridge(
      {
        botUrl: raw.botUrl as string | undefined,
        port: raw.port as string | undefined,
        host: raw.host as string | undefined,
        publicUrl: raw.publicUrl as string | undefined,
        webhookMap: raw.webhookMap as string | undefined,
        forwardInvalid: raw.forwardInvalid === true,
        token: raw.token as string | undefined,
        webhookSecret: raw.webhookSecret as string | undefined,
        webhookTimeout: raw.webhookTimeout as string | undefined,
        webhookRetries: raw.webhookRetries as string | undefined,
        allowHosts: raw.allowHost as string[] | undefined,
        timeout: raw.timeout as string | undefined,
        caFile: raw.caFile as string | undefined,
        allowHttp: raw.allowHttp === true,
        open: raw.open === true,
      },
      globalOptions(cmd),
      inv.ctx,
    );
  });

  const record = new Command('record')
    .summary('save every conversation of a running bridge as a core test file')
    .description(
      "Save every conversation a running bridge (or sandbox) keeps as a `core test` file in DIR: the customer's texts " +
        "kept, the bot's answers as expectations (exact text, or with --loose a pattern in which each number matches " +
        'any number), the identifiers left to the run. E-mail addresses, phone numbers and card-like numbers are replaced ' +
        'with placeholders unless --keep-personal-data. Existing files are not overwritten. See docs/bridge.md.',
    )
    .requiredOption('--out <dir>', 'the folder to write the test files into (made when missing)')
    .option('--sandbox <url>', 'the bridge to read (default CORE_BASE_URL)')
    .option('--loose', "write the numbers of the bot's texts as any number")
    .option('--keep-personal-data', 'keep e-mail addresses, phone numbers and card-like numbers as they were')
    .option('--json', 'print the files written as JSON');
  record.addHelpText(
    'after',
    `
Examples:
  $ core bridge record --out tests/real
  $ core bridge record --out tests/real --loose --sandbox http://127.0.0.1:8787`,
  );
  record.action(async (raw: Record<string, unknown>) => {
    const { runBridgeRecord } = await import('./record.js');
    inv.exitCode = await runBridgeRecord(
      {
        out: raw.out as string,
        sandbox: raw.sandbox as string | undefined,
        loose: raw.loose === true,
        keepPersonalData: raw.keepPersonalData === true,
        json: raw.json === true,
      },
      inv.ctx,
    );
  });
  cmd.addCommand(record);
  return cmd;
};
