import { Command, Option } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';
import type { ConfigInitOptions, ConfigPathOptions, ConfigShowOptions } from './run.js';

/** `core config show|path|init` (docs/commands/config.md and docs/configuration.md). */
export const configCommand: CommandFactory = (inv) => {
  const config = new Command('config')
    .summary('show the effective settings, the config file in use, or create one')
    .description(
      'Show the effective settings and where each came from (secrets masked), print the config file in use, ' +
        'or create the user config file with a guided set-up.',
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
    .summary('create the user config file with a guided set-up')
    .description(
      'Create the user config file ($XDG_CONFIG_HOME/core/config.yaml, else ~/.config/core/config.yaml) with one ' +
        'profile, asking only for what the options do not give. The base URL and tenant come from the --base-url ' +
        'and --tenant options. Without a terminal every value must be given as an option. The file is ' +
        'written readable by you only (mode 0600) and is never replaced without --force.',
    )
    .option('--profile-name <name>', 'the name of the profile to create (default: "default")')
    .addOption(new Option('--token-env <name>', 'read the token from this environment variable').conflicts('tokenCommand'))
    .option('--token-command <cmd>', 'read the token from the output of this shell command')
    .option('--force', 'replace an existing user config file')
    .option('--base-url <url>', "the service's base URL (env CORE_BASE_URL)")
    .option('--tenant <name>', 'the tenant, sent as X-Tenant-Name (env CORE_TENANT)')
    .addHelpText(
      'after',
      `
Examples:
  $ core config init
  $ core config init --base-url https://chat.example.com --tenant acme --token-env CORE_ACME_TOKEN
  $ core config init --profile-name prod --base-url https://chat.example.org --tenant acme \\
      --token-command "pass show core/prod" --force`,
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
  $ core config path
  $ core config init --base-url https://chat.example.com --tenant acme --token-env CORE_ACME_TOKEN`,
  );
  return config;
};
