import type { Command } from 'commander';

/** The options every sending command takes (cli-contract.md, "Commands"). */
export interface SendOptions {
  file?: string;
  interactive: boolean;
  dryRun: boolean;
  curl: boolean;
  json: boolean;
  verbose: boolean;
  timeout?: string;
}

/**
 * --base-url and --tenant belong to the commands that talk to the service rather than to the root,
 * so `core sandbox --tenant` can mean the sandbox's own tenants.
 */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', "the service's base URL (env CORE_BASE_URL)")
    .option('--tenant <name>', 'the tenant, sent as X-Tenant-Name (env CORE_TENANT)');
}

export function addSendOptions(cmd: Command): Command {
  return addConnectionOptions(cmd)
    .option('-f, --file <path>', 'read the payload from a JSON or YAML file ("-" for standard input); flags override its fields')
    .option('-i, --interactive', 'compose the payload with prompts (needs a terminal)')
    .option('--dry-run', 'validate and print the request that would be sent (secrets masked); send nothing')
    .option('--curl', 'print an equivalent curl command (the token as $CORE_TOKEN); send nothing')
    .option('--json', 'print one JSON result document on stdout')
    .option('-v, --verbose', 'print request and response headers (secrets masked) on stderr')
    .option('--timeout <duration>', 'time limit per attempt, such as 10s or 1500ms (default 30s)');
}

export function readSendOptions(raw: Record<string, unknown>): SendOptions {
  return {
    file: raw.file as string | undefined,
    interactive: raw.interactive === true,
    dryRun: raw.dryRun === true,
    curl: raw.curl === true,
    json: raw.json === true,
    verbose: raw.verbose === true,
    timeout: raw.timeout as string | undefined,
  };
}
