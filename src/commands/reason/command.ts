import { Command, Option } from 'commander';
import { UsageError } from '../../errors.js';
import { globalOptions, type CommandFactory } from '../definition.js';
import { addSendOptions, readSendOptions } from '../send-options.js';
import type { ReasonUpdateOptions } from './run.js';

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 64;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Reads `--concurrency`: a whole number from 1 to 64. */
export function parseConcurrency(text: string | undefined): number {
  if (text === undefined) return DEFAULT_CONCURRENCY;
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(value) || value < 1 || value > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency takes a whole number from 1 to ${MAX_CONCURRENCY}, got ${JSON.stringify(text)}`, {
      hint: `for example --concurrency 8 (default ${DEFAULT_CONCURRENCY})`,
    });
  }
  return value;
}

/** `core reason`: the inactivity reasons of agents. Its one subcommand is `update`. */
export const reasonCommand: CommandFactory = (inv) => {
  const reason = new Command('reason')
    .summary("update agents' inactivity reasons (PUT /api/v1/inactivity/reasons)")
    .description('Inactivity reasons: the reasons agents give for becoming inactive.');
  reason.addCommand(updateCommand(inv));
  reason.addHelpText(
    'after',
    `
Examples:
  $ core reason update --code LUNCH --name en=Lunch --name de=Mittagspause --active
  $ core reason update -f reasons.ndjson --report applied.ndjson`,
  );
  return reason;
};

const updateCommand: CommandFactory = (inv) => {
  const cmd = new Command('update')
    .summary('update existing inactivity reasons, one from flags or many from a file')
    .description(
      [
        'Update existing inactivity reasons (PUT /api/v1/inactivity/reasons). A reason is found by its code: an unknown code is answered 404, and going over the limit of active reasons 409.',
        'One reason comes from flags; many come from -f FILE: one reason (a JSON or YAML object), a JSON array, or NDJSON (one reason a line, read as a stream). Every reason is checked before any is sent: if one is invalid, nothing is sent (exit 2). Then up to --concurrency requests run at once, failures are retried (network, 429, 5xx: repeating an update is harmless), and one outcome per reason is printed.',
        'active: without --active or --inactive the field is not sent, and the service applies its default, which the API gives as true. An update without it may therefore make an inactive reason active again: to keep a reason inactive, send --inactive (or "active": false in the file) every time.',
        'With -f, --color, --active/--inactive and --system apply to every reason in the file; --code and --name only to a file holding one reason.',
        '-i asks for one reason with prompts (on a terminal only): only for what the flags and a one-reason file left out, each answer checked as you type; then it shows a summary and sends nothing until you choose to.',
        "Credentials: the profile's integratorToken (env CORE_INTEGRATOR_TOKEN), else its token (CORE_TOKEN), sent as a Bearer token. An Authorization header in the profile's headers replaces it, and no token is needed then. See docs/reasons.md.",
      ].join('\n\n'),
    )
    .option('--code <code>', 'the code of the reason to update (1 to 256 characters)')
    .option('--name <locale=text>', "a translation, such as en=Lunch (repeatable; replaces the file's list)", collect)
    .option('--color <#RRGGBB>', "the reason's colour, such as '#FF8800'")
    .addOption(new Option('--active', 'make the reason available (sends "active": true)').conflicts('inactive'))
    .addOption(new Option('--inactive', 'make the reason unavailable (sends "active": false)').conflicts('active'))
    .option('--system', 'send "system": true')
    .option('--no-system', 'send "system": false');
  addSendOptions(cmd);
  // The shared send options, described as they work for reasons.
  const describe = (long: string, description: string) => {
    const option = cmd.options.find((o) => o.long === long);
    if (option) option.description = description;
  };
  describe('--file', 'read reasons from a file: one (JSON or YAML object), a JSON array, or NDJSON; "-" for standard input');
  describe('--interactive', 'ask for the reason with prompts: code, translations, colour, active, system (needs a terminal; one reason)');
  describe('--dry-run', 'check every reason and print the first request (secrets masked) and the count; send nothing');
  describe('--curl', 'print one curl command per reason (the token as $CORE_INTEGRATOR_TOKEN or $CORE_TOKEN); send nothing');
  describe('--json', 'print one JSON result per reason on stdout (NDJSON)');
  cmd
    .option('--concurrency <n>', `requests in flight at once, 1 to ${MAX_CONCURRENCY} (default ${DEFAULT_CONCURRENCY})`)
    .option('--fail-fast', 'after the first failure, send nothing more (the rest are reported as skipped)')
    .option('--report <file>', 'write one NDJSON line per reason to FILE as each outcome is known')
    .option('--resume <report>', "do not send again the reasons an earlier run's --report shows as applied")
    .option('-q, --quiet', "print only the failures and the summary (with --json, only the failures' documents)");
  cmd.addHelpText(
    'after',
    `
Exit status: 0 when every reason was updated; 2 when a reason is invalid (nothing
sent); else the largest among the failed reasons of 4 (the service answered 4xx),
5 (5xx) and 6 (no answer); 130 after Ctrl-C (requests in flight finish, the rest
are reported as skipped).

Examples:
  $ core reason update --code LUNCH --name en=Lunch --name de=Mittagspause --color '#FF8800' --active
  $ core reason update --code TRAINING --name en=Training --inactive
  $ core reason update -i --code LUNCH               # ask for the rest, show it, then send
  $ core reason update -f reasons.ndjson --concurrency 8 --report applied.ndjson
  $ core reason update -f reasons.json --dry-run
  $ jq -c '.[]' reasons.json | core reason update -f - --json | jq -r 'select(.ok | not) | .code'
  $ core reason update -f reasons.ndjson --inactive --fail-fast
  $ core reason update -f reasons.ndjson --quiet --report applied.ndjson
  $ core reason update -f reasons.ndjson --resume applied.ndjson --report applied.ndjson   # after Ctrl-C`,
  );
  cmd.action(async (raw: Record<string, unknown>, self: Command) => {
    const options: ReasonUpdateOptions = {
      ...readSendOptions(raw),
      global: globalOptions(self),
      concurrency: parseConcurrency(raw.concurrency as string | undefined),
      failFast: raw.failFast === true,
      report: raw.report as string | undefined,
      resume: raw.resume as string | undefined,
      quiet: raw.quiet === true,
      fields: {
        code: raw.code as string | undefined,
        names: raw.name as string[] | undefined,
        color: raw.color as string | undefined,
        active: raw.active === true ? true : raw.inactive === true ? false : undefined,
        system: typeof raw.system === 'boolean' ? raw.system : undefined,
      },
    };
    const { runReasonUpdate } = await import('./run.js');
    inv.exitCode = await runReasonUpdate(options, inv.ctx);
  });
  return cmd;
};
