import { Command } from 'commander';
import { globalOptions, type CommandFactory, type Invocation } from '../definition.js';
import type { FixtureOptions } from './fixtures-run.js';
import type { SandboxFlags } from '../../platform/flags.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const sandboxCommand: CommandFactory = (inv) => {
  const cmd = new Command('sandbox')
    .summary('run a local platform: the three endpoints, customers and threads, and a signed MESSAGE webhook to your bot')
    .description(
      'Run a local stand-in for the platform: the API (POST /api/v1/chatbot, POST /api/v1/chatbot/greet, ' +
        "PUT /api/v1/inactivity/reasons) with the API's rules (validation, answerId de-duplication, strict or soft " +
        "second answers, greeting addressing, inactivity reasons and their limit), and the customer's side: " +
        'conversations on WEB, IM or EMAIL threads, questions, and, with --bot-url, a MESSAGE webhook for each customer ' +
        'message, signed as Standard Webhooks do. Bot answers are checked against the questions they answer; ' +
        'SWITCH_TO_HUMAN and UNCLEAR_QUESTION hand threads and questions to agents.\n\n' +
        'It prints its base URL and the environment lines that point `core` and your bot at it on stdout, then one log ' +
        'line per request and webhook attempt on stderr. Its page (the base URL, printed on stderr; --open opens it) ' +
        'shows every conversation as the customer sees it, live, and lets you play the customer. Play the customer ' +
        'from a shell with `core customer say`; read what happened with GET /_sandbox/conversations, /_sandbox/messages ' +
        'and the event stream /_sandbox/events. Stop it with Ctrl-C. See docs/sandbox.md.',
    )
    .option('--port <n>', 'port to listen on (default 0: a free port)')
    .option('--host <host>', 'address to bind (default 127.0.0.1; anything else is reachable from other machines)')
    .option('--tenant <name>', 'a tenant to serve, sent by clients as X-Tenant-Name (repeatable; default sandbox)', collect)
    .option('--token <token>', 'bearer token of the bot operations (default sandbox-token)')
    .option('--integrator-token <token>', 'bearer token of PUT /api/v1/inactivity/reasons (default: the --token value)')
    .option('--duplicates <mode>', 'a second answer to an answered question: strict rejects it (409), soft delivers it (default soft)')
    .option('--reasons <file>', 'JSON array of the inactivity reasons each tenant starts with (default: LUNCH, MEETING, TRAINING, OTHER)')
    .option('--agents <file>', 'YAML or JSON file of the agents each tenant starts with (core schema agents; default: Ann, Boris, Chen)')
    .option('--max-active-reasons <n>', 'most reasons that may be active at once in a tenant (default 10)')
    .option('--latency <ms>', 'delay every answer by this many milliseconds (default 0)')
    .option('--fail <status:rate>', 'answer this status to this share of API requests, such as 503:0.2 (rate 1 when omitted)')
    .option('--bot-url <url>', 'deliver a MESSAGE webhook for each customer message to your bot at this URL')
    .option(
      '--webhook-secret <secret>',
      'the whsec_... secret webhooks are signed with (env CORE_SANDBOX_WEBHOOK_SECRET; default: the one kept for you in ' +
        '$XDG_DATA_HOME/core/webhook-secret, else ~/.local/share/core/webhook-secret, made on first use)',
    )
    .option('--new-webhook-secret', 'make a new kept webhook secret, in place of the last, and sign with it')
    .option('--webhook-timeout <duration>', 'time limit of one webhook attempt, such as 10s or 2500ms (default 10s)')
    .option('--webhook-retries <n>', 'how many times a failed webhook is tried again, with backoff (default 3)')
    .option('--max-events <n>', 'events kept per tenant, the oldest dropped first (default 10000)')
    .option('--max-connections <n>', 'connections open at once; at the cap idle and slow ones make room (default 1000)')
    .option('--webhook-concurrency <n>', 'webhook attempts in flight to the bot at once, the next ones queued (default 64)')
    .option(
      '--allow-host <name>',
      'a Host name accepted besides the loopback ones, with any port, such as host.docker.internal or a tunnel (repeatable)',
      collect,
    )
    .option(
      '--large-ids',
      'make every coreClientId and questionId above 2^53 (from 9007199254741993 and 9007199254745993), as a bot reading them with JSON.parse gets them wrong',
    )
    .option(
      '--state <file>',
      'keep the state in this file (an event log, NDJSON): a restart restores every conversation; a request is answered once its events are on disk',
    )
    .option(
      '--seed <file>',
      'YAML or JSON file of tenants, clients, threads, reasons and agents to start with (core schema seed); applied when the sandbox starts empty',
    )
    .option('--open', "open the sandbox's page in your browser ($BROWSER, else the system's opener)")
    .option(
      '--json',
      'stdout as NDJSON for jq and log shippers: a first line with the CORE_* values as one JSON object, then every event, one a line',
    )
    .option(
      '--env-file <file>',
      "also write the CORE_* lines into this file (NAME=value, mode 0600), updating them in place and keeping the file's other lines",
    );
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core sandbox
  $ core sandbox --open                                        # and its page in your browser
  $ core sandbox --port 8080
  $ export CORE_BASE_URL=http://127.0.0.1:8080 CORE_TENANT=sandbox CORE_TOKEN=sandbox-token   # in another shell
  $ core reply --core-client-id 9223372036854775807 -t "Hello from the sandbox"
  $ curl -s 'http://127.0.0.1:8080/_sandbox/messages?tenant=sandbox'
  $ core sandbox --tenant acme --tenant globex --duplicates strict
  $ core sandbox --reasons reasons.json --max-active-reasons 3
  $ core sandbox --agents agents.yaml
  $ core sandbox --fail 503:0.25 --latency 300
  $ core sandbox --port 8080 --bot-url http://127.0.0.1:3000/webhook
  $ core customer say "Where is my order?"                     # in another shell, with the export lines
  $ core sandbox --bot-url http://127.0.0.1:3000/webhook --webhook-timeout 3s --webhook-retries 1
  $ core sandbox --new-webhook-secret                          # a new kept secret: give the bot the new CORE_WEBHOOK_SECRET
  $ core sandbox --allow-host host.docker.internal             # a bot in a container calls the API by that name
  $ core sandbox --bot-url http://127.0.0.1:3000/webhook --env-file .env   # your bot reads .env (dotenv)
  $ core sandbox --json | jq -c 'select(.type? == "bot.answer")'          # the event log as NDJSON
  $ core sandbox --state sandbox.ndjson                        # stop and start again: every conversation is still there
  $ core sandbox --seed fixtures.yaml                          # start with the threads the seed declares
  $ core sandbox seed fixtures.yaml                            # into a running sandbox (CORE_BASE_URL)
  $ core sandbox snapshot save checkout                        # and later: core sandbox snapshot restore checkout`,
  );
  cmd.action(async (raw: Record<string, unknown>) => {
    const flags: SandboxFlags = {
      port: raw.port as string | undefined,
      host: raw.host as string | undefined,
      tenants: raw.tenant as string[] | undefined,
      token: raw.token as string | undefined,
      integratorToken: raw.integratorToken as string | undefined,
      duplicates: raw.duplicates as string | undefined,
      reasons: raw.reasons as string | undefined,
      agents: raw.agents as string | undefined,
      maxActiveReasons: raw.maxActiveReasons as string | undefined,
      latency: raw.latency as string | undefined,
      fail: raw.fail as string | undefined,
      maxEvents: raw.maxEvents as string | undefined,
      allowHosts: raw.allowHost as string[] | undefined,
      maxConnections: raw.maxConnections as string | undefined,
      webhookConcurrency: raw.webhookConcurrency as string | undefined,
      botUrl: raw.botUrl as string | undefined,
      webhookSecret: raw.webhookSecret as string | undefined,
      newWebhookSecret: raw.newWebhookSecret as boolean | undefined,
      webhookTimeout: raw.webhookTimeout as string | undefined,
      webhookRetries: raw.webhookRetries as string | undefined,
      largeIds: raw.largeIds as boolean | undefined,
      open: raw.open as boolean | undefined,
      state: raw.state as string | undefined,
      seed: raw.seed as string | undefined,
    };
    // The parser reads the reasons file and checks it with the payload schemas: loaded only here.
    const { parseSandboxFlags } = await import('../../platform/flags.js');
    const options = await parseSandboxFlags(flags, inv.ctx.cwd, inv.ctx.env);
    const { runSandbox } = await import('./run.js');
    const envFile = raw.envFile as string | undefined;
    const json = raw.json === true;
    inv.exitCode = await runSandbox({ ...options, ...(envFile === undefined ? {} : { envFile }), ...(json ? { json } : {}) }, inv.ctx);
  });
  for (const sub of fixtureCommands(inv)) cmd.addCommand(sub);
  return cmd;
};

/** What `core sandbox seed` and `core sandbox snapshot ...` take: their options, and how to read them. */
interface FixtureKit {
  common: (cmd: Command) => Command;
  base: (raw: Record<string, unknown>, self: Command) => FixtureOptions;
}

/** `core sandbox seed FILE` and `core sandbox snapshot save|restore|list`: requests to a running sandbox. */
function fixtureCommands(inv: Invocation): Command[] {
  const common = (cmd: Command) =>
    cmd
      .option('--sandbox <url>', "the sandbox's base URL, as core sandbox prints it (default CORE_BASE_URL)")
      .option('--timeout <duration>', 'time limit of the request to the sandbox (default 30s)')
      .option('--json', "print the sandbox's answer as one JSON document");
  // `core sandbox` has --json and --tenant of its own, which take these options wherever they are
  // written: read them from there too (--tenant the last one given).
  const base = (raw: Record<string, unknown>, self: Command): FixtureOptions => {
    const global = globalOptions(self);
    const tenant = (global as { tenant?: string | string[] }).tenant;
    return {
      global: { ...global, ...(Array.isArray(tenant) ? { tenant: tenant.at(-1) } : {}) },
      json: raw.json === true || (self.optsWithGlobals() as { json?: unknown }).json === true,
      ...(typeof raw.sandbox === 'string' ? { sandbox: raw.sandbox } : {}),
      ...(typeof raw.timeout === 'string' ? { timeout: raw.timeout } : {}),
    };
  };
  const kit: FixtureKit = { common, base };
  return [seedCommand(inv, kit), snapshotCommand(inv, kit)];
}

function seedCommand(inv: Invocation, { common, base }: FixtureKit): Command {
  const seed = common(
    new Command('seed')
      .summary('apply a seed (core schema seed) to a running sandbox: its threads, reasons and agents, as events')
      .argument('<file>', 'the seed, YAML or JSON'),
  );
  seed.action(async (file: string, raw: Record<string, unknown>, self: Command) => {
    const { runSeed } = await import('./fixtures-run.js');
    inv.exitCode = await runSeed({ ...base(raw, self), file }, inv.ctx);
  });
  seed.addHelpText(
    'after',
    '\nExamples:\n  $ core sandbox seed fixtures.yaml\n  $ core sandbox seed fixtures.json --sandbox http://127.0.0.1:8080 --json',
  );
  return seed;
}

function snapshotCommand(inv: Invocation, { common, base }: FixtureKit): Command {
  const snapshot = new Command('snapshot').summary("save a tenant's conversations under a name, restore them, list the snapshots");
  const save = common(
    new Command('save').summary("save the tenant's conversations under NAME (replacing a snapshot of that name)").argument('<name>'),
  );
  save.action(async (name: string, raw: Record<string, unknown>, self: Command) => {
    const { runSnapshotSave } = await import('./fixtures-run.js');
    inv.exitCode = await runSnapshotSave({ ...base(raw, self), name }, inv.ctx);
  });
  const restore = common(
    new Command('restore').summary('return the tenant to the snapshot NAME: its conversations as they were').argument('<name>'),
  );
  restore.action(async (name: string, raw: Record<string, unknown>, self: Command) => {
    const { runSnapshotRestore } = await import('./fixtures-run.js');
    inv.exitCode = await runSnapshotRestore({ ...base(raw, self), name }, inv.ctx);
  });
  const list = common(new Command('list').summary('list the snapshots'));
  list.action(async (raw: Record<string, unknown>, self: Command) => {
    const { runSnapshotList } = await import('./fixtures-run.js');
    inv.exitCode = await runSnapshotList(base(raw, self), inv.ctx);
  });
  save.addHelpText(
    'after',
    '\nExamples:\n  $ core sandbox snapshot save checkout\n  $ core sandbox snapshot save checkout --tenant acme --json',
  );
  restore.addHelpText(
    'after',
    '\nExamples:\n  $ core sandbox snapshot restore checkout\n  $ core sandbox snapshot restore checkout --sandbox http://127.0.0.1:8080',
  );
  list.addHelpText('after', '\nExamples:\n  $ core sandbox snapshot list\n  $ core sandbox snapshot list --json');
  for (const sub of [save, restore, list]) snapshot.addCommand(sub);
  snapshot.addHelpText(
    'after',
    '\nExamples:\n  $ core sandbox snapshot save checkout\n  $ core sandbox snapshot restore checkout\n  $ core sandbox snapshot list --json',
  );
  return snapshot;
}
