import type { Command } from 'commander';
import type { QuickReplyFlag } from '../input/fields.js';

/** The options every sending command takes (docs/commands/reply.md, greet.md, reason-update.md). */
export interface SendOptions {
  file?: string;
  interactive: boolean;
  dryRun: boolean;
  curl: boolean;
  json: boolean;
  verbose: boolean;
  timeout?: string;
  /** --ca-file: a PEM file of CA certificates trusted on top of the system's. */
  caFile?: string;
  /** --insecure: do not check TLS certificates (warned about on every use). */
  insecure?: boolean;
  /** --allow-http: send credentials over plain http to a host other than this machine. */
  allowHttp?: boolean;
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

export function addSendOptions(cmd: Command, options: { interactive?: boolean } = {}): Command {
  addConnectionOptions(cmd).option(
    '-f, --file <path>',
    'read the payload from a JSON or YAML file ("-" for standard input); flags override its fields',
  );
  if (options.interactive !== false) cmd.option('-i, --interactive', 'compose the payload with prompts (needs a terminal)');
  return cmd
    .option('--dry-run', 'validate and print the request that would be sent (secrets masked); send nothing')
    .option('--curl', 'print an equivalent curl command (the token as $CORE_TOKEN); send nothing')
    .option('--json', 'print one JSON result document on stdout')
    .option('-v, --verbose', 'print request and response headers (secrets masked) on stderr')
    .option('--timeout <duration>', 'time limit per attempt, such as 10s or 1500ms (default 30s)')
    .option('--ca-file <file>', "trust the CA certificates in this PEM file too, on top of the system's (profile key caFile)")
    .option('--insecure', 'do not check TLS certificates: anyone on the network path could read the token (warns every time)')
    .option('--allow-http', 'allow sending the token over plain http to a host other than this machine');
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
    caFile: raw.caFile as string | undefined,
    insecure: raw.insecure === true,
    allowHttp: raw.allowHttp === true,
  };
}

/**
 * The message options reply and greet share: quick-reply buttons and the settings. --quick-reply and
 * --contact-reply fill one list, so the buttons keep the order they were typed in; the returned
 * function reads it after parsing (undefined when none was given).
 */
export function addQuickReplyOptions(cmd: Command): () => QuickReplyFlag[] | undefined {
  const quickReplies: QuickReplyFlag[] = [];
  cmd
    .option('--quick-reply <text>', 'a quick-reply button of type TEXT (repeatable)', (text: string) => {
      quickReplies.push({ type: 'TEXT', text });
      return text;
    })
    .option('--contact-reply <text>', 'a quick-reply button of type CONTACT (repeatable)', (text: string) => {
      quickReplies.push({ type: 'CONTACT', text });
      return text;
    })
    .option('--block-input', "block the customer's input field (works only with quick replies)")
    .option('--masked', "mask the digits in the client's linked message");
  return () => (quickReplies.length > 0 ? quickReplies : undefined);
}
