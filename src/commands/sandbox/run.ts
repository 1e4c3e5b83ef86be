import { resolve } from 'node:path';
import type { Context } from '../../context.js';
import { ConfigError, ExitCode, PayloadError, UsageError } from '../../errors.js';
import { requestLog, type RequestLog } from '../../output/request-log.js';
import { isLoopbackHost, percent, sandboxDefaults } from '../../sandbox/options.js';
import { SandboxOptionsError, SeedError, StateFileError, startSandbox, type Sandbox } from '../../sandbox/server.js';
import { WEBHOOK_SECRET_VARIABLE, type SandboxRunOptions } from '../../platform/flags.js';
import type { ResolvedSecret } from '../../platform/secret.js';
import { listenError } from '../../platform/start.js';
import { startLines, startValues } from '../../output/sandbox-lines.js';

/**
 * `core sandbox`: starts the local server, prints where it is and how to point `core` at it
 * (stdout, lines a shell can source), logs each request on stderr, and stops cleanly on
 * Ctrl-C or SIGTERM with exit code 0: stopping is how a server's run normally ends.
 *
 * The sandbox's tokens are fixed, documented test values, not secrets, so they are printed as is.
 */
export async function runSandbox(
  runOptions: SandboxRunOptions & { envFile?: string; json?: boolean },
  ctx: Context,
  random?: () => number,
): Promise<number> {
  const { open, newWebhookSecret, envFile, json, ...named } = runOptions;
  // --env-file: refused before the sandbox starts when core would not write there (src/output/env-file.ts).
  const envFileAt = envFile === undefined ? undefined : await checkEnvFile(envFile, ctx);
  const { withSigningSecret, unkeptWarning } = await import('../../platform/secret.js');
  const { options, secret } = await withSigningSecret(named, ctx.env, newWebhookSecret === true);
  const unkept = unkeptWarning(secret);
  if (unkept !== undefined) ctx.warn(unkept);
  const host = options.host ?? sandboxDefaults.host;
  if (!isLoopbackHost(host)) {
    ctx.warn(`binding ${host}: other machines can reach this sandbox, and its tokens are public test values`);
  }
  if (ctx.signal.aborted) return ExitCode.ok;

  const log = requestLog(ctx);
  let sandbox: Sandbox;
  try {
    sandbox = await start(options, host, ctx, log, random);
  } catch (error) {
    log.close();
    throw error;
  }
  const lines = startLines(sandbox, options);
  if (envFileAt !== undefined) {
    try {
      await writeStartLines(envFileAt, envFile!, lines);
    } catch (error) {
      await sandbox.close();
      log.close();
      throw error;
    }
  }
  const unsubscribe = await printStart(sandbox, options, lines, json === true, ctx);
  ctx.err(guide(sandbox, options, secret, { open: open === true, envFile }));
  if (open) {
    const { openInBrowser } = await import('../../platform/open.js');
    openInBrowser(`${sandbox.url}/`, ctx);
  }

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  unsubscribe();
  await sandbox.close();
  log.close();
  ctx.err('core sandbox stopped\n');
  return ExitCode.ok;
}

/**
 * What stdout carries once the sandbox listens: the export lines or, with --json (docs/sandbox.md, "The
 * event log on stdout"), one JSON line of the export values, then every event as it happens, one a line,
 * in its one JSON form (src/sandbox/event-json.ts). Returns the function that stops the events.
 */
async function printStart(sandbox: Sandbox, options: SandboxRunOptions, lines: string[], json: boolean, ctx: Context): Promise<() => void> {
  if (!json) {
    ctx.out(lines.join('\n') + '\n');
    return () => {};
  }
  const { eventJson } = await import('../../sandbox/event-json.js');
  ctx.out(`${JSON.stringify(Object.fromEntries(startValues(sandbox, options)))}\n`);
  return sandbox.subscribe((event) => ctx.out(`${eventJson(event)}\n`));
}

/** Starts the sandbox, each request logged on stderr; an option or a failure to listen is the user's to fix. */
async function start(
  options: SandboxRunOptions,
  host: string,
  ctx: Context,
  log: RequestLog,
  random: (() => number) | undefined,
): Promise<Sandbox> {
  try {
    return await startSandbox({
      ...options,
      ...(random ? { random } : {}),
      log: log.line,
      warn: log.warn,
    });
  } catch (error) {
    if (error instanceof StateFileError) throw new ConfigError(error.message, { hint: error.hint, cause: error });
    if (error instanceof SeedError) {
      const problems = error.problems;
      throw new PayloadError(
        `--seed: ${options.seedFile ?? 'the seed'} cannot be applied (${problems.length === 1 ? 'a problem' : `${problems.length} problems`})`,
        problems,
        { hint: 'fix the seed; docs/sandbox.md "Fixtures" explains it', cause: error },
      );
    }
    if (error instanceof SandboxOptionsError) {
      // The flags were checked before; any option problem left is still the user's to fix.
      throw new UsageError(error.message, { hint: 'see core sandbox --help', cause: error });
    }
    throw listenError(error, host, options.port ?? sandboxDefaults.port);
  }
}

/** What stderr says once the sandbox listens: the bot, the webhook secret, the page, the customer, what to inspect. */
function guide(
  sandbox: Sandbox,
  options: SandboxRunOptions,
  secret: ResolvedSecret,
  { open, envFile }: { open: boolean; envFile: string | undefined },
): string {
  const bot =
    sandbox.botUrl === null
      ? 'no bot connected: customer messages are recorded, no webhook is sent (start with --bot-url URL to deliver them)\n'
      : `bot: a MESSAGE webhook for each customer message to POST ${sandbox.botUrl}, signed with CORE_WEBHOOK_SECRET ` +
        `(timeout ${options.webhookTimeoutMs ?? sandboxDefaults.webhookTimeoutMs} ms, ${options.webhookRetries ?? sandboxDefaults.webhookRetries} retries)\n`;
  return (
    bot +
    secretLine(secret) +
    `page: ${sandbox.url}/ (every conversation as the customer sees it, live${open ? '' : '; --open opens it'})\n` +
    `customer: core customer say "Hi" (with the export lines), or POST ${sandbox.url}/_sandbox/conversations\n` +
    `inspect: GET ${sandbox.url}/_sandbox/conversations, /_sandbox/messages, /_sandbox/reasons; live: GET ${sandbox.url}/_sandbox/events\n` +
    `${describeFaults(options)}${describeHosts(options)}${describeIds(options)}${describeState(sandbox)}` +
    `${envFile === undefined ? '' : `env file: the CORE_* lines are in ${envFile} too (NAME=value, mode 0600)\n`}stop with Ctrl-C\n`
  );
}

/** Where the secret CORE_WEBHOOK_SECRET carries came from: kept for the user, made now, or named. */
function secretLine(secret: ResolvedSecret): string {
  switch (secret.source) {
    case 'kept':
      return `webhook secret: the one kept in ${secret.file} since an earlier run (--new-webhook-secret makes a new one)\n`;
    case 'new':
      return `webhook secret: a new one, kept in ${secret.file} for the next runs (--new-webhook-secret makes a new one)\n`;
    case 'renewed':
      return `webhook secret: a new one, kept in ${secret.file} in place of the last: give it to your bot (CORE_WEBHOOK_SECRET)\n`;
    case 'named':
      return `webhook secret: the one --webhook-secret or ${WEBHOOK_SECRET_VARIABLE} names\n`;
    case 'unkept':
      return '';
  }
}

/** The names the sandbox sets, in an env file: one a run does not set (an integrator token) is dropped. */
const ENV_FILE_NAMES = ['CORE_BASE_URL', 'CORE_TENANT', 'CORE_TOKEN', 'CORE_INTEGRATOR_TOKEN', 'CORE_WEBHOOK_SECRET'];

async function checkEnvFile(file: string, ctx: Context): Promise<string> {
  const { envFileTarget } = await import('../../output/env-file.js');
  const full = resolve(ctx.cwd, file);
  await envFileTarget(full, file);
  return full;
}

/** The export lines of stdout as NAME=value lines in the env file, its other lines kept. */
async function writeStartLines(full: string, shown: string, lines: string[]): Promise<void> {
  const { writeEnvFile } = await import('../../output/env-file.js');
  const pairs = lines.flatMap((line) => {
    const found = /^export (\w+)=(.*)$/.exec(line);
    return found ? [[found[1]!, found[2]!] as const] : [];
  });
  await writeEnvFile(full, shown, pairs, ENV_FILE_NAMES);
}

function describeFaults(options: SandboxRunOptions): string {
  const parts: string[] = [];
  if (options.latencyMs) parts.push(`every answer delayed ${options.latencyMs} ms`);
  if (options.fail) parts.push(`${options.fail.status} injected into ${percent(options.fail.rate)} of API requests`);
  return parts.length > 0 ? `faults: ${parts.join('; ')}\n` : '';
}

function describeIds(options: SandboxRunOptions): string {
  return options.largeIds === true ? 'ids: every coreClientId and questionId above 2^53 (--large-ids)\n' : '';
}

function describeState(sandbox: Sandbox): string {
  const file = sandbox.stateFile;
  if (file === null) return '';
  return file.restored
    ? `state: restored from ${file.file} (${file.eventsRead} events read); every event is kept there\n`
    : `state: kept in ${file.file} (a new state file); a restart with --state ${file.file} restores it\n`;
}

function describeHosts(options: SandboxRunOptions): string {
  const names = options.allowHosts ?? [];
  return names.length > 0 ? `hosts: also answering requests addressed to ${names.join(', ')} (--allow-host)\n` : '';
}
