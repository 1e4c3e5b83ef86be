import { Command } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';
import type { DoctorOptions } from './report.js';

/** `core doctor` (docs/doctor.md). */
export const doctorCommand: CommandFactory = (inv) =>
  new Command('doctor')
    .summary('check everything core depends on, and say how to fix what is wrong')
    .description(
      'Check, at once, everything a run of core depends on, and print each failure with its fix: the Node.js ' +
        'version; the config files found and whether each is trusted; the profile and where each setting comes ' +
        'from; both tokens resolved (the variable read, the token command run; never shown); the base URL reached ' +
        "(its name resolved, TLS with the configured CA, the proxy; no token is sent); the service's clock against " +
        "this machine's (webhook timestamps more than 5 minutes off are refused); for a core sandbox, its webhook " +
        'secret against CORE_WEBHOOK_SECRET and whether its bot listens; and the cache and state folders. ' +
        'Exits 0 when every check passed (or does not apply), 1 when one failed.',
    )
    .option('--json', 'print one JSON object: ok, each check (id, name, status, message, source, fix), summary')
    .option('--base-url <url>', "the service's base URL (env CORE_BASE_URL)")
    .option('--tenant <name>', 'the tenant, sent as X-Tenant-Name (env CORE_TENANT)')
    .option('--timeout <duration>', "time limit of each request, such as 10s (default: the profile's, else 30s)")
    .option('--ca-file <file>', "trust the CA certificates in this PEM file too, on top of the system's (profile key caFile)")
    .option('--allow-http', 'allow plain http to a host other than this machine, as a send with --allow-http would')
    .addHelpText(
      'after',
      `
Examples:
  $ core doctor
  $ core -p prod doctor
  $ core doctor --base-url http://127.0.0.1:8080        # a sandbox: its secret and its bot too
  $ core doctor --json | jq -r '.checks[] | select(.status == "fail") | "\\(.name): \\(.fix)"'`,
    )
    .action(async (raw: { json?: boolean; allowHttp?: boolean; timeout?: string; caFile?: string }, self: Command) => {
      const options: DoctorOptions = {
        global: globalOptions(self),
        json: raw.json === true,
        allowHttp: raw.allowHttp === true,
        ...(raw.timeout !== undefined ? { timeout: raw.timeout } : {}),
        ...(raw.caFile !== undefined ? { caFile: raw.caFile } : {}),
      };
      const { runDoctor } = await import('./run.js');
      inv.exitCode = await runDoctor(options, inv.ctx);
    });
