import { Command, Option } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';
import type { ConfigCheckOptions } from './check.js';
import type { ConfigInitOptions, ConfigPathOptions, ConfigShowOptions } from './run.js';
import type { ConfigUseOptions } from './use.js';

/** `core config show|check|use|path|init` (docs/commands/config.md and docs/configuration.md). */
export const configCommand: CommandFactory = (inv) => {
  const config = new Command('config')
    .summary('show, check and switch the settings and profiles, or set them up')
    .description(
      'Show the effective settings and where each came from (secrets masked), check that a send could go out, ' +
        'switch the default profile, print the config file in use, or add a profile with a guided set-up.',
    );

  config
    .command('show')
    .summary('print the effective settings and where each came from, secrets masked')
    .description(
      'Print the effective settings and where each came from: a flag, an environment variable, a profile, or the ' +
        'default. Tokens are masked; a token read from a variable shows the variable, and a token command is shown, not run.',
    )
    .option('--json', 'print one JSON object')
    .option('--base-url <url>', "the service's base URL (env CORE_BASE_URL)")
    .option('--tenant <name>', 'the tenant, sent as X-Tenant-Name (env CORE_TENANT)')
    .addHelpText(
      'after',
      `
Examples:
  $ core config show
  $ core -p prod config show
  $ CORE_BASE_URL=https://chat.example.com CORE_TENANT=acme core config show --json | jq -r .baseUrl.value`,
    )
    .action(async (raw: { json?: boolean }, self: Command) => {
      const options: ConfigShowOptions = { global: globalOptions(self), json: raw.json === true };
      const { runConfigShow } = await import('./run.js');
      inv.exitCode = await runConfigShow(options, inv.ctx);
    });

  config
    .command('check')
    .summary('check that a send could go out: settings present, network rules met, tokens resolved')
    .description(
      'Resolve everything a send needs, as a send would, and report each: the config file and the profile, the ' +
        'base URL and the network rules (plain http, the CA file, the proxy), the tenant, and both tokens (the ' +
        'variable read, the token command run; never shown). Every problem is listed at once. Sends nothing. ' +
        'Exits 0 when a send could go out, 2 otherwise.',
    )
    .option('--json', 'print one JSON object: ready, and each check')
    .option('--base-url <url>', "the service's base URL (env CORE_BASE_URL)")
    .option('--tenant <name>', 'the tenant, sent as X-Tenant-Name (env CORE_TENANT)')
    .option('--allow-http', 'allow plain http to a host other than this machine, as a send with --allow-http would')
    .addHelpText(
      'after',
      `
Examples:
  $ core config check
  $ core -p prod config check
  $ core config check --json | jq -r '.checks[] | select(.ok | not) | .name'
  $ core config check && core reason update -f reasons.ndjson`,
    )
    .action(async (raw: { json?: boolean; allowHttp?: boolean }, self: Command) => {
      const options: ConfigCheckOptions = { global: globalOptions(self), json: raw.json === true, allowHttp: raw.allowHttp === true };
      const { runConfigCheck } = await import('./check.js');
      inv.exitCode = await runConfigCheck(options, inv.ctx);
    });

  config
    .command('use')
    .summary('make a profile the default one of the config file in use')
    .description(
      'Set defaultProfile in the config file in use (found by the search, or named with --config or CORE_CONFIG) ' +
        "to NAME, keeping the file's comments, order and mode. It changes the file, not this shell: CORE_PROFILE, " +
        'when set, still wins.',
    )
    .argument('<name>', 'the profile to use from now on')
    .addHelpText(
      'after',
      `
Examples:
  $ core config use prod
  $ core config use staging && core config show
  $ core --config ~/work/core.yaml config use acme`,
    )
    .action(async (name: string, _raw: Record<string, never>, self: Command) => {
      const options: ConfigUseOptions = { global: globalOptions(self), name };
      const { runConfigUse } = await import('./use.js');
      inv.exitCode = await runConfigUse(options, inv.ctx);
    });

  config
    .command('path')
    .summary('print the path of the config file in use')
    .description('Print the path of the config file in use. When there is none, name the places searched and exit 2.')
    .addHelpText(
      'after',
      `
Examples:
  $ core config path
  $ "\${EDITOR:-vi}" "$(core config path)"`,
    )
    .action(async (_raw: Record<string, never>, self: Command) => {
      const options: ConfigPathOptions = { global: globalOptions(self) };
      const { runConfigPath } = await import('./run.js');
      inv.exitCode = await runConfigPath(options, inv.ctx);
    });

  config
    .command('init')
    .summary('add a profile to the user config file (created if needed) with a guided set-up')
    .description(
      'Add a profile to the user config file ($XDG_CONFIG_HOME/core/config.yaml, else ~/.config/core/config.yaml), ' +
        'creating the file when there is none, and asking only for what the options do not give. The base URL and ' +
        'tenant come from the --base-url and --tenant options. Without a terminal every value must be given as an ' +
        'option. A new file is written readable by you only (mode 0600) with defaultProfile set to the profile; an ' +
        'existing file keeps its comments, order, other profiles and default, and a profile of the same name is ' +
        'replaced only with --force.',
    )
    .option('--profile-name <name>', 'the name of the profile to create (default: "default")')
    .addOption(new Option('--token-env <name>', 'read the token from this environment variable').conflicts('tokenCommand'))
    .option('--token-command <cmd>', 'read the token from the output of this shell command')
    .option('--force', 'replace a profile of the same name in the existing file')
    .option('--base-url <url>', "the service's base URL (env CORE_BASE_URL)")
    .option('--tenant <name>', 'the tenant, sent as X-Tenant-Name (env CORE_TENANT)')
    .addHelpText(
      'after',
      `
Examples:
  $ core config init
  $ core config init --base-url https://chat.example.com --tenant acme --token-env CORE_ACME_TOKEN
  $ core config init --profile-name prod --base-url https://chat.example.org --tenant acme \\
      --token-command "pass show core/prod"
  $ core config init --profile-name prod --tenant acme-eu --token-env CORE_PROD_TOKEN \\
      --base-url https://eu.chat.example.org --force   # replace the prod profile`,
    )
    .action(async (raw: { profileName?: string; tokenEnv?: string; tokenCommand?: string; force?: boolean }, self: Command) => {
      const options: ConfigInitOptions = {
        global: globalOptions(self),
        force: raw.force === true,
        profileName: raw.profileName,
        tokenEnv: raw.tokenEnv,
        tokenCommand: raw.tokenCommand,
      };
      const { runConfigInit } = await import('./run.js');
      inv.exitCode = await runConfigInit(options, inv.ctx);
    });

  config.addHelpText(
    'after',
    `
Examples:
  $ core config show
  $ core config check
  $ core config use prod
  $ core config path
  $ core config init --base-url https://chat.example.com --tenant acme --token-env CORE_ACME_TOKEN`,
  );
  return config;
};
