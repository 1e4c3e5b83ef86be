import { Command } from 'commander';
import type { CommandFactory } from '../definition.js';
import type { SandboxFlags } from './options.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export const sandboxCommand: CommandFactory = (inv) => {
  const cmd = new Command('sandbox')
    .summary('run a local implementation of the three endpoints, for offline trials and tests')
    .description(
      'Run a local implementation of the API (POST /api/v1/chatbot, POST /api/v1/chatbot/greet, ' +
        "PUT /api/v1/inactivity/reasons) that follows the API's rules: validation, answerId de-duplication, " +
        'strict or soft handling of second answers, greeting addressing, inactivity reasons and their limit.\n\n' +
        'It prints its base URL and the environment lines that point `core` at it on stdout, then one log line ' +
        'per request on stderr. GET /_sandbox/messages and GET /_sandbox/reasons show what it received; ' +
        'POST /_sandbox/reset returns it to its start state. Stop it with Ctrl-C. See docs/sandbox.md.',
    )
    .option('--port <n>', 'port to listen on (default 0: a free port)')
    .option('--host <host>', 'address to bind (default 127.0.0.1; anything else is reachable from other machines)')
    .option('--tenant <name>', 'a tenant to serve, sent by clients as X-Tenant-Name (repeatable; default sandbox)', collect)
    .option('--token <token>', 'bearer token of the bot operations (default sandbox-token)')
    .option('--integrator-token <token>', 'bearer token of PUT /api/v1/inactivity/reasons (default: the --token value)')
    .option('--duplicates <mode>', 'a second answer to an answered question: strict rejects it (409), soft delivers it (default soft)')
    .option('--reasons <file>', 'JSON array of the inactivity reasons each tenant starts with (default: LUNCH, MEETING, TRAINING, OTHER)')
    .option('--max-active-reasons <n>', 'most reasons that may be active at once in a tenant (default 10)')
    .option('--latency <ms>', 'delay every answer by this many milliseconds (default 0)')
    .option('--fail <status:rate>', 'answer this status to this share of API requests, such as 503:0.2 (rate 1 when omitted)');
  cmd.addHelpText(
    'after',
    `
Examples:
  $ core sandbox
  $ core sandbox --port 8080
  $ export CORE_BASE_URL=http://127.0.0.1:8080 CORE_TENANT=sandbox CORE_TOKEN=sandbox-token   # in another shell
  $ core reply --core-client-id 9223372036854775807 -t "Hello from the sandbox"
  $ curl -s 'http://127.0.0.1:8080/_sandbox/messages?tenant=sandbox'
  $ core sandbox --tenant acme --tenant globex --duplicates strict
  $ core sandbox --reasons reasons.json --max-active-reasons 3
  $ core sandbox --fail 503:0.25 --latency 300`,
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
      maxActiveReasons: raw.maxActiveReasons as string | undefined,
      latency: raw.latency as string | undefined,
      fail: raw.fail as string | undefined,
    };
    // The parser reads the reasons file and checks it with the payload schemas: loaded only here.
    const { parseSandboxFlags } = await import('./options.js');
    const options = await parseSandboxFlags(flags, inv.ctx.cwd);
    const { runSandbox } = await import('./run.js');
    inv.exitCode = await runSandbox(options, inv.ctx);
  });
  return cmd;
};
