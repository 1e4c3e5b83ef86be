import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Context } from '../../context.js';
import { parseDuration, formatDuration } from '../../config/duration.js';
import { suggest } from '../../config/schema.js';
import { ExitCode, InterruptedError, NetworkError, UsageError } from '../../errors.js';
import { outputFilePath, writeOutputFile } from '../../output/file.js';
import { checkSandboxTarget, sandboxInfo } from '../sandbox/target.js';
import { makeStyle } from '../../output/style.js';
import type { Sandbox } from '../../sandbox/server.js';
import { runBattery, unplayedBattery, type BatteryReport, type SandboxPort } from '../../testing/check-bot/battery.js';
import { CHECK_IDS, type CheckId, type CheckReporter } from '../../testing/check-bot/ids.js';
import { renderCheckReport, summaryLine, type ReportContext } from '../../testing/check-bot/report.js';
import { trimEndOf } from '../../text/trim.js';
import { openEventStream, requestJson, StreamRefused, type ClientInit } from '../customer/client.js';

/**
 * `core check-bot`: grades the bot's side of the MESSAGE webhook with the battery of
 * src/testing/check-bot/ (docs/check-bot.md), through the sandbox at --sandbox or one started here
 * on --port delivering to --bot-url, with the sandbox's defaults and its environment settings
 * (CORE_SANDBOX_WEBHOOK_SECRET).
 *
 * Exit codes (docs/exit-codes.md): 0 every check passed, 3 one failed, 6 the bot could not be
 * reached at all (or the sandbox at --sandbox), 2 bad usage. Either way the report is written, saying
 * which could not be reached.
 */

export interface CheckBotOptions {
  sandbox?: string;
  botUrl?: string;
  port?: string;
  reporter: CheckReporter;
  output?: string;
  timeout?: string;
  /** Check ids, or the part before their dot (`signature`), each word possibly a comma-separated list. */
  only?: string[];
  largeIds?: boolean;
}

export const DEFAULT_TIMEOUT = '10s';
/** The longest --timeout: a battery waits about this long. */
export const MAX_TIMEOUT_MS = 10 * 60_000;
/** Added to the bot's webhook time limit for a request to the sandbox that waits on a delivery. */
const REQUEST_MARGIN_MS = 30_000;

export async function runCheckBot(options: CheckBotOptions, ctx: Context): Promise<number> {
  const checked = checkOptions(options);
  const output = options.output === undefined ? undefined : await outputFilePath(options.output, ctx.cwd, '--output');
  const humanOnStdout = options.reporter === 'human' && output === undefined;
  /** The report to stdout or --output; the human one on stdout is only the error when nothing could be checked. */
  const writeReport = async (report: BatteryReport, context: ReportContext) => {
    if (humanOnStdout && report.unreachable) return;
    const document = await renderCheckReport(report, options.reporter, context, makeStyle(humanOnStdout && ctx.color.stdout, ctx.glyphs));
    if (output !== undefined) await writeOutputFile(output, document, options.output ?? output, '--output');
    else ctx.out(document);
  };
  const connecting = { at: new Date(), started: performance.now() };
  const { url, botUrl, webhookTimeoutMs, sandbox } = await connect(options, ctx).catch(async (error: unknown) => {
    // The sandbox at --sandbox gave no answer at all: the report says so, as it does for a bot that
    // cannot be reached, each selected check in its place; then the error as it came.
    if (options.sandbox !== undefined && error instanceof NetworkError) {
      const report = unplayedBattery(
        { timeoutMs: checked.timeoutMs, ...(checked.only ? { only: checked.only } : {}) },
        { kind: 'sandbox', message: error.message },
        connecting.at,
        Math.round(performance.now() - connecting.started),
      );
      await writeReport(report, { sandboxUrl: trimEndOf(options.sandbox, '/'), botUrl: null, sandboxKept: true });
    }
    throw error;
  });
  const context: ReportContext = { sandboxUrl: url, botUrl, sandboxKept: sandbox === undefined };
  const style = makeStyle(humanOnStdout ? ctx.color.stdout : ctx.color.stderr, ctx.glyphs);
  // Every check waits and asks at once, each listening to the stop signal: one signal of the run's
  // own, told of Ctrl-C, takes their listeners without Node's warning about a leak.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const onStop = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onStop, { once: true });
  const client: ClientInit = { baseUrl: url, timeoutMs: webhookTimeoutMs + REQUEST_MARGIN_MS, signal: stop.signal };
  const port: SandboxPort = {
    request: (method, path, body) => requestJson(client, method, path, body),
    events: (query, onEvent) => {
      const stream = openEventStream(client, query, onEvent);
      const opened = stream.opened.catch((error: unknown) => {
        if (!(error instanceof StreamRefused)) throw error;
        throw new NetworkError(
          `the sandbox at ${url} refused its event stream: ${error.answer.status} ${error.answer.text.slice(0, 200)}`,
          'ESANDBOXREFUSED',
          {
            hint: "the checks read the bot's answers from GET /_sandbox/events; a sandbox serves 256 streams at once",
          },
        );
      });
      return { opened, close: () => stream.close() };
    },
  };
  const count = checked.only?.length ?? CHECK_IDS.length;
  let report;
  try {
    ctx.err(
      `core check-bot: ${count} check${count === 1 ? '' : 's'} of the bot at ${botUrl ?? "the sandbox's --bot-url"}, through the sandbox at ${url}; ` +
        `the checks that expect no answer wait ${formatDuration(checked.timeoutMs)}\n`,
    );
    report = await runBattery({ port, timeoutMs: checked.timeoutMs, ...(checked.only ? { only: checked.only } : {}), signal: stop.signal });
  } finally {
    ctx.signal.removeEventListener('abort', onStop);
    await sandbox?.close();
  }
  if (ctx.signal.aborted) throw new InterruptedError('interrupted: the checks were stopped before they ended, no report written');

  await writeReport(report, context);
  if (report.unreachable) {
    throw new NetworkError(report.unreachable.message, 'EBOTUNREACHABLE', {
      hint: `start the bot before core check-bot, listening at ${botUrl ?? "the sandbox's --bot-url"}; its answers go to the sandbox's base URL (${url})`,
    });
  }
  if (!humanOnStdout) ctx.err(summaryLine(report, context, style));
  return report.failed > 0 ? ExitCode.testFailed : ExitCode.ok;
}

interface Checked {
  timeoutMs: number;
  only: CheckId[] | undefined;
}

function checkOptions(options: CheckBotOptions): Checked {
  checkSandboxTarget(options, 'core check-bot', 'core check-bot --bot-url http://127.0.0.1:3000/webhook');
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(options.timeout ?? DEFAULT_TIMEOUT);
  } catch (error) {
    throw new UsageError(`--timeout: ${(error as Error).message}`, { hint: 'such as --timeout 5s or --timeout 2500ms' });
  }
  if (timeoutMs > MAX_TIMEOUT_MS) {
    throw new UsageError(`--timeout: ${formatDuration(timeoutMs)} is longer than the limit of ${formatDuration(MAX_TIMEOUT_MS)}`, {
      hint: 'a run of core check-bot takes about --timeout; such as --timeout 30s',
    });
  }
  return { timeoutMs, only: options.only === undefined ? undefined : selectChecks(options.only) };
}

/** The parts before the dot of the check ids that have one (`signature`, `timestamp`, ...): each names its checks. */
const CHECK_GROUPS = [...new Set(CHECK_IDS.flatMap((id) => (id.includes('.') ? [id.slice(0, id.indexOf('.'))] : [])))];

/**
 * The checks --only names: ids, or the part before their dot (`signature`, also written
 * `signature.*`); every unknown word is reported at once, each with its likeliest meaning.
 */
export function selectChecks(words: readonly string[]): CheckId[] {
  const chosen = new Set<CheckId>();
  const unknown: string[] = [];
  for (const word of words.flatMap((w) => w.split(',')).map((w) => w.trim())) {
    if (word === '') continue;
    const name = word.endsWith('.*') ? word.slice(0, -2) : word;
    const matches = CHECK_IDS.filter((id) => id === name || id.startsWith(`${name}.`));
    if (matches.length === 0) unknown.push(word);
    for (const id of matches) chosen.add(id);
  }
  const hint = `the checks: ${CHECK_IDS.join(', ')}; or all of a group: ${CHECK_GROUPS.map((group) => `${group}.*`).join(', ')}`;
  if (unknown.length > 0) {
    const described = unknown.map((word) => {
      const guess = guessCheck(word);
      return `'${word}'${guess ? ` (did you mean ${guess}?)` : ''}`;
    });
    throw new UsageError(`--only: no check ${described.join(', ')}`, { hint });
  }
  if (chosen.size === 0) throw new UsageError('--only: name at least one check', { hint });
  return CHECK_IDS.filter((id) => chosen.has(id));
}

/**
 * What an unknown --only word most likely meant: a near miss of a whole id; else an id that ends as
 * the word does (`missing`, `sig.missing`); else a near miss of a group, as `signature.*` (`signatur`).
 */
function guessCheck(word: string): string | undefined {
  const tail = word.split('.').pop();
  const group = suggest(word.replace(/\.\*$/, ''), CHECK_GROUPS);
  return suggest(word, CHECK_IDS) ?? CHECK_IDS.find((id) => id.split('.').pop() === tail) ?? (group ? `${group}.*` : undefined);
}

interface Connected {
  url: string;
  botUrl: string | null;
  webhookTimeoutMs: number;
  sandbox?: Sandbox;
}

/** The sandbox to check through: the one at --sandbox (which must deliver to a bot), or a new one. */
async function connect(options: CheckBotOptions, ctx: Context): Promise<Connected> {
  if (options.sandbox !== undefined) {
    const url = trimEndOf(options.sandbox, '/');
    const info = await sandboxInfo(url, REQUEST_MARGIN_MS, ctx.signal, 'core check-bot');
    const bot = (info.json as { bot?: { url?: unknown; timeoutMs?: unknown } | null } | undefined)?.bot;
    if (info.status !== 200 || bot === undefined) {
      throw new UsageError(`--sandbox: ${url} did not answer as a core sandbox (GET /_sandbox/info answered ${info.status})`, {
        hint: 'give the base URL core sandbox printed (its first export line)',
      });
    }
    if (bot === null) {
      throw new UsageError(`--sandbox: the sandbox at ${url} has no bot connected, so there is nothing to check`, {
        hint: 'start it with core sandbox --bot-url URL, or let core check-bot start one: --bot-url URL',
      });
    }
    const timeout = typeof bot.timeoutMs === 'bigint' ? Number(bot.timeoutMs) : 10_000;
    return { url, botUrl: typeof bot.url === 'string' ? bot.url : null, webhookTimeoutMs: timeout };
  }
  const [
    { parseSandboxFlags },
    { withSigningSecret, unkeptWarning },
    { startSandbox, SandboxOptionsError },
    { listenError },
    { sandboxDefaults },
  ] = await Promise.all([
    import('../sandbox/options.js'),
    import('../sandbox/secret.js'),
    import('../../sandbox/server.js'),
    import('../sandbox/run.js'),
    import('../../sandbox/options.js'),
  ]);
  // The secret named by CORE_SANDBOX_WEBHOOK_SECRET, else the one kept for the user, as core sandbox signs with.
  const { options: sandboxOptions, secret } = await withSigningSecret(
    await parseSandboxFlags({ botUrl: options.botUrl, port: options.port, largeIds: options.largeIds }, ctx.cwd, ctx.env),
    ctx.env,
  );
  const unkept = unkeptWarning(secret);
  if (unkept !== undefined) ctx.warn(unkept);
  try {
    const sandbox = await startSandbox(sandboxOptions);
    // Nothing prints the secret; a bot that echoes a delivery's headers back in its answer must not make it either.
    ctx.addSecret(sandbox.webhookSecret);
    return {
      url: sandbox.url,
      botUrl: sandbox.botUrl,
      webhookTimeoutMs: sandboxOptions.webhookTimeoutMs ?? sandboxDefaults.webhookTimeoutMs,
      sandbox,
    };
  } catch (error) {
    if (error instanceof SandboxOptionsError) throw new UsageError(error.message, { hint: 'see core check-bot --help', cause: error });
    throw listenError(error, '127.0.0.1', sandboxOptions.port ?? 0);
  }
}
