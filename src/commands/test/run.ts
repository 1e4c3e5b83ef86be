import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Context } from '../../context.js';
import { parseDuration } from '../../config/duration.js';
import { baseUrlProblem } from '../../config/schema.js';
import { ExitCode, InterruptedError, NetworkError, UsageError } from '../../errors.js';
import { makeStyle } from '../../output/style.js';
import { writeOutputFile } from '../../output/file.js';
import type { Sandbox } from '../../sandbox/server.js';
import { requestJson, type ClientInit } from '../customer/client.js';
import { listFiles, loadTests, type PlannedConversation } from './load.js';
import {
  buildReport,
  conversationLine,
  failureText,
  renderHuman,
  renderJson,
  renderJunit,
  renderTap,
  summaryLine,
  type Reporter,
  type RunReport,
} from './report.js';
import { runConversation, type ConversationResult } from './runner.js';
import { trimEndOf } from '../../text.js';

/**
 * `core test FILE...`: plays conversation files against a bot through a sandbox and reports the
 * outcome (docs/testing-bots.md). The sandbox is the one at --sandbox, or one started here on
 * --port (default a free port) delivering to --bot-url, with the sandbox's defaults and its
 * environment settings (CORE_SANDBOX_WEBHOOK_SECRET).
 *
 * Exit codes (docs/exit-codes.md): 0 every conversation passed, 3 one failed, 2 an invalid file or
 * usage (nothing ran), 6 the bot could not be reached at all (or the sandbox at --sandbox).
 */

export interface TestOptions {
  files: string[];
  sandbox?: string;
  botUrl?: string;
  port?: string;
  reporter: Reporter;
  output?: string;
  timeout?: string;
  concurrency?: string;
}

export const DEFAULT_TIMEOUT = '10s';
export const DEFAULT_CONCURRENCY = 4;
/** The most conversations at once: each holds an event stream, and a sandbox serves 256. */
export const MAX_CONCURRENCY = 64;
/** The time limit of one request to the sandbox's own endpoints. */
const REQUEST_TIMEOUT_MS = 30_000;

export async function runTest(options: TestOptions, ctx: Context): Promise<number> {
  const checked = checkOptions(options);
  const output = options.output === undefined ? undefined : await outputPath(options.output, ctx.cwd);
  const planned = await loadTests(await listFiles(options.files, ctx.cwd), ctx.cwd);
  const conversations = planned.flatMap((file) => file.conversations);

  const { url, botUrl, sandbox } = await connect(options, ctx);
  const startedAt = new Date();
  const started = performance.now();
  const results: ConversationResult[] = [];
  const deferred: ConversationResult[] = [];
  const humanOnStdout = options.reporter === 'human' && output === undefined;
  const write = humanOnStdout ? (text: string) => ctx.out(text) : (text: string) => ctx.err(text);
  const style = makeStyle(humanOnStdout ? ctx.color.stdout : ctx.color.stderr);
  try {
    ctx.err(
      `core test: ${count(conversations.length, 'conversation')} in ${count(planned.length, 'file')}, ` +
        `the bot at ${botUrl ?? "the sandbox's --bot-url"}, through the sandbox at ${url}\n`,
    );
    const client: ClientInit = { baseUrl: url, timeoutMs: REQUEST_TIMEOUT_MS, signal: ctx.signal };
    await pool(conversations, checked.concurrency, ctx.signal, async (plan) => {
      const result = await runConversation(plan, { client, stepTimeoutMs: checked.timeoutMs });
      results.push(result);
      // A conversation that never reached the bot is shown at the end: if none did, the run says so
      // once instead of failing each one.
      if (neverReached(result)) deferred.push(result);
      else write(conversationLine(result, style));
    });
  } finally {
    await sandbox?.close();
  }
  if (ctx.signal.aborted) throw new InterruptedError('interrupted: the run was stopped before every conversation ended, no report written');

  const report = buildReport(planned, results, {
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    unreachable: unreachable(results, botUrl),
  });
  if (!humanOnStdout) {
    const document = await render(report, options.reporter);
    if (output === undefined) ctx.out(document);
    else await writeOutputFile(output, document, output, '--output');
  }
  if (report.unreachable) {
    throw new NetworkError(report.unreachable.message, 'EBOTUNREACHABLE', {
      hint: `start the bot before core test, listening at ${botUrl ?? "the sandbox's --bot-url"}; its answers go to the sandbox's base URL (${url})`,
    });
  }
  for (const result of deferred) write(conversationLine(result, style));
  const failed = report.files.flatMap((file) => file.conversations).filter((result) => result.outcome === 'failed');
  if (failed.length > 0) write(`\n${failed.map((result) => failureText(result, style)).join('\n')}`);
  write(`\n${summaryLine(report, style)}`);
  return report.failed > 0 ? ExitCode.testFailed : ExitCode.ok;
}

function checkOptions(options: TestOptions): { timeoutMs: number; concurrency: number } {
  if (options.sandbox !== undefined && (options.botUrl !== undefined || options.port !== undefined)) {
    throw new UsageError(
      `--sandbox uses a running sandbox; --${options.botUrl !== undefined ? 'bot-url' : 'port'} is for the one core test starts`,
      {
        hint: 'give --sandbox URL alone, or --bot-url URL (and --port N) without it',
      },
    );
  }
  if (options.sandbox === undefined && options.botUrl === undefined) {
    throw new UsageError('core test needs a bot: --bot-url URL, or --sandbox URL of a running core sandbox that delivers to one', {
      hint: 'core test tests/*.yaml --bot-url http://127.0.0.1:3000/webhook',
    });
  }
  if (options.sandbox !== undefined) {
    const problem = baseUrlProblem(options.sandbox);
    if (problem !== undefined)
      throw new UsageError(`--sandbox: ${problem}`, { hint: 'the base URL core sandbox prints, such as http://127.0.0.1:8080' });
  }
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(options.timeout ?? DEFAULT_TIMEOUT);
  } catch (error) {
    throw new UsageError(`--timeout: ${(error as Error).message}`, { hint: 'such as --timeout 30s or --timeout 2500ms' });
  }
  let concurrency = DEFAULT_CONCURRENCY;
  if (options.concurrency !== undefined) {
    concurrency = /^\d+$/.test(options.concurrency.trim()) ? Number(options.concurrency) : NaN;
    if (!(concurrency >= 1 && concurrency <= MAX_CONCURRENCY)) {
      throw new UsageError(`--concurrency: '${options.concurrency}' is not a whole number from 1 to ${MAX_CONCURRENCY}`);
    }
  }
  return { timeoutMs, concurrency };
}

/** The report file's full path; its folder must exist, so a run is not lost for want of it. */
async function outputPath(output: string, cwd: string): Promise<string> {
  const full = resolve(cwd, output);
  const folder = await stat(dirname(full)).catch(() => undefined);
  if (!folder?.isDirectory())
    throw new UsageError(`--output: the folder of ${output} does not exist`, {
      hint: 'create it first, or name a file in an existing folder',
    });
  if ((await stat(full).catch(() => undefined))?.isDirectory()) throw new UsageError(`--output: ${output} is a folder; name a file`);
  return full;
}

/** The sandbox to play through: the one at --sandbox (which must deliver to a bot), or a new one. */
async function connect(options: TestOptions, ctx: Context): Promise<{ url: string; botUrl: string | null; sandbox?: Sandbox }> {
  if (options.sandbox !== undefined) {
    const url = trimEndOf(options.sandbox, '/');
    const info = await requestJson({ baseUrl: url, timeoutMs: REQUEST_TIMEOUT_MS, signal: ctx.signal }, 'GET', '/_sandbox/info');
    const bot = (info.json as { bot?: { url?: unknown } | null } | undefined)?.bot;
    if (info.status !== 200 || bot === undefined) {
      throw new UsageError(`--sandbox: ${url} did not answer as a core sandbox (GET /_sandbox/info answered ${info.status})`, {
        hint: 'give the base URL core sandbox printed (its first export line)',
      });
    }
    if (bot === null) {
      throw new UsageError(`--sandbox: the sandbox at ${url} has no bot connected, so no answer can come`, {
        hint: 'start it with core sandbox --bot-url URL, or let core test start one: --bot-url URL',
      });
    }
    return { url, botUrl: typeof bot.url === 'string' ? bot.url : null };
  }
  const [{ parseSandboxFlags }, { startSandbox, SandboxOptionsError }, { listenError }] = await Promise.all([
    import('../sandbox/options.js'),
    import('../../sandbox/server.js'),
    import('../sandbox/run.js'),
  ]);
  const sandboxOptions = await parseSandboxFlags({ botUrl: options.botUrl, port: options.port }, ctx.cwd, ctx.env);
  try {
    const sandbox = await startSandbox(sandboxOptions);
    return { url: sandbox.url, botUrl: sandbox.botUrl, sandbox };
  } catch (error) {
    if (error instanceof SandboxOptionsError) throw new UsageError(error.message, { hint: 'see core test --help', cause: error });
    throw listenError(error, '127.0.0.1', sandboxOptions.port ?? 0);
  }
}

/**
 * Runs the conversations, at most `limit` at once. Conversations that name one client run one after
 * another: bot answers addressed by client go to the client's latest thread, so two at once could
 * take each other's answers.
 */
async function pool(
  plans: readonly PlannedConversation[],
  limit: number,
  signal: AbortSignal,
  run: (plan: PlannedConversation) => Promise<void>,
): Promise<void> {
  const clients = new Map<string, Promise<void>>();
  const queue = [...plans];
  let failure: unknown;
  const worker = async () => {
    while (queue.length > 0 && failure === undefined && !signal.aborted) {
      const plan = queue.shift()!;
      const key =
        plan.client?.clientId !== undefined
          ? `clientId:${plan.client.clientId}`
          : plan.client?.coreClientId !== undefined
            ? `coreClientId:${plan.client.coreClientId}`
            : undefined;
      const before = key === undefined ? undefined : clients.get(key);
      const mine = (async () => {
        await before;
        await run(plan);
      })();
      if (key !== undefined)
        clients.set(
          key,
          mine.catch(() => {}),
        );
      await mine.catch((error: unknown) => {
        failure ??= error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, plans.length) }, worker));
  if (failure !== undefined) throw failure;
}

/**
 * The bot could not be reached at all: webhooks were attempted, none reached it (every attempt
 * failed to connect: no status, and not a time-out, which means it connected), and no request of the
 * bot came to the sandbox.
 */
function unreachable(results: readonly ConversationResult[], botUrl: string | null): RunReport['unreachable'] {
  const attempts = results.flatMap((result) => result.attempts);
  if (attempts.length === 0 || !results.every(neverReached)) return null;
  const errors = [...new Set(attempts.map((attempt) => attempt.error ?? 'no answer'))].join(', ');
  return {
    url: botUrl,
    message: `the bot could not be reached: every webhook delivery to ${botUrl ?? 'the bot'} failed to connect (${errors}), so no conversation could be played`,
  };
}

/** Whether a conversation's webhooks never reached the bot: some were attempted, none connected, and the bot made no request. */
function neverReached(result: ConversationResult): boolean {
  if (result.botSpoke) return false;
  return result.attempts.every((attempt) => attempt.status === null && !/^timeout/.test(attempt.error ?? ''));
}

async function render(report: RunReport, reporter: Reporter): Promise<string> {
  switch (reporter) {
    case 'junit':
      return renderJunit(report);
    case 'tap':
      return renderTap(report);
    case 'json':
      return renderJson(report);
    case 'human':
      return renderHuman(report, makeStyle(false));
  }
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
