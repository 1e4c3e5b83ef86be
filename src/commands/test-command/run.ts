import { performance } from 'node:perf_hooks';
import type { Context } from '../../context.js';
import { parseDuration } from '../../config/duration.js';
import { ConfigError, ExitCode, InterruptedError, NetworkError, UsageError } from '../../errors.js';
import { makeStyle } from '../../output/style.js';
import type { Glyphs } from '../../output/glyphs.js';
import { outputFilePath, writeOutputFile } from '../../output/file.js';
import { checkSandboxTarget, sandboxInfo } from '../sandbox/target.js';
import type { LocalSandbox } from '../../sandbox/server.js';
import { httpClient, inProcessClient, type TestClient } from './clients.js';
import { listFiles, loadTests } from '../../testing/load.js';
import {
  buildReport,
  conversationLine,
  coverageText,
  failureText,
  renderHuman,
  renderJson,
  renderJunit,
  renderTap,
  REPORTERS,
  summaryLine,
  type Reporter,
  type RunReport,
} from '../../testing/report.js';
import { outcomeOf, runSuite, unplayed, type ConversationSummary, type SuiteResult } from '../../testing/suite.js';
import { trimEndOf } from '../../text/trim.js';

/**
 * `core test FILE...`: plays conversation files against a bot through a sandbox and reports the
 * outcome (docs/testing-bots.md). The sandbox is the one at --sandbox, or one started here on
 * --port (default a free port) delivering to --bot-url, with the sandbox's defaults and its
 * environment settings (CORE_SANDBOX_WEBHOOK_SECRET).
 *
 * Exit codes (docs/exit-codes.md): 0 every conversation passed, 3 one failed, 2 an invalid file or
 * usage (nothing ran), 6 the bot could not be reached at all (or the sandbox at --sandbox). Either
 * way every report requested is written, saying which could not be reached.
 */

export interface TestOptions {
  files: string[];
  sandbox?: string;
  botUrl?: string;
  port?: string;
  /** --state FILE: the state file of the sandbox core test starts. */
  state?: string;
  /** Each --reporter as given: NAME, or NAME=FILE; none means human. */
  reporters: string[];
  output?: string;
  timeout?: string;
  concurrency?: string;
  repeat?: string;
  coverage?: boolean;
}

/** One report to write: to FILE (a full path), or to stdout. */
interface ReportTarget {
  reporter: Reporter;
  file?: string;
  /** The option that named the file, for messages. */
  given?: string;
}

export const DEFAULT_TIMEOUT = '10s';
export const DEFAULT_CONCURRENCY = 4;
/** The most conversations at once. */
export const MAX_CONCURRENCY = 64;
/** The most runs of each conversation (--repeat). */
export const MAX_REPEAT = 100_000;
/** The time limit of one request to the sandbox's own endpoints. */
const REQUEST_TIMEOUT_MS = 30_000;

export async function runTest(options: TestOptions, ctx: Context): Promise<number> {
  const checked = checkOptions(options);
  const targets = await reportTargets(options, ctx.cwd);
  const planned = await loadTests(await listFiles(options.files, ctx.cwd), ctx.cwd);
  const conversations = planned.flatMap((file) => file.conversations);

  const connecting = { at: new Date(), started: performance.now() };
  const { url, botUrl, sandbox } = await connect(options, ctx).catch(async (error: unknown) => {
    // The sandbox at --sandbox gave no answer at all: the reports say so, as they do for a bot that
    // cannot be reached, each planned conversation in its place; then the error as it came.
    if (options.sandbox !== undefined && error instanceof NetworkError) {
      const message = error.message;
      const report = buildReport(
        planned,
        conversations.map((conversation) => unplayed(conversation, message)),
        {
          startedAt: connecting.at.toISOString(),
          durationMs: Math.round(performance.now() - connecting.started),
          repeat: checked.repeat,
          coverage: options.coverage === true ? new Map() : null,
          unreachable: { kind: 'sandbox', url: trimEndOf(options.sandbox, '/'), message },
        },
      );
      await writeReports(report, targets, ctx);
    }
    throw error;
  });
  // A run of many conversations keeps little alive (the summaries, the runs in flight, the sandbox's
  // bounded log) and drops much: the heap of a batch (src/heap.ts), once the code the runs need is loaded.
  ctx.tuneHeapForBatch();
  const startedAt = new Date();
  const started = performance.now();
  const deferred: ConversationSummary[] = [];
  const humanOnStdout = targets.some((target) => target.reporter === 'human' && target.file === undefined);
  const write = humanOnStdout ? (text: string) => ctx.out(text) : (text: string) => ctx.err(text);
  // Conversations end many at a time under load: their lines are written together, once per turn of
  // the event loop (a write each was an eighth of the run's time at 1,000 conversations).
  let pending = '';
  let flushing: NodeJS.Immediate | undefined;
  const flush = () => {
    clearImmediate(flushing);
    flushing = undefined;
    if (pending !== '') write(pending);
    pending = '';
  };
  const writeLine = (text: string) => {
    pending += text;
    if (pending.length >= 16_384) flush();
    else flushing ??= setImmediate(flush);
  };
  const style = makeStyle(humanOnStdout ? ctx.color.stdout : ctx.color.stderr, ctx.glyphs);
  let suite: SuiteResult;
  // The customer's side: directly on the sandbox started here, over HTTP to one at --sandbox.
  const client: TestClient = sandbox
    ? inProcessClient(sandbox, ctx.signal)
    : httpClient(url, REQUEST_TIMEOUT_MS, ctx.signal, checked.concurrency);
  try {
    ctx.err(
      `core test: ${count(conversations.length, 'conversation')} in ${count(planned.length, 'file')}` +
        `${checked.repeat > 1 ? `, ${count(checked.repeat, 'run')} each` : ''}, ` +
        `the bot at ${botUrl ?? "the sandbox's --bot-url"}, through the sandbox at ${url}\n`,
    );
    suite = await runSuite(conversations, {
      runner: { sandbox: client, stepTimeoutMs: checked.timeoutMs },
      concurrency: checked.concurrency,
      repeat: checked.repeat,
      onConversation: (summary) => {
        // A conversation that never reached the bot is shown at the end: if none did, the run says so
        // once instead of failing each one.
        if (neverReached(summary)) deferred.push(summary);
        else writeLine(conversationLine(summary, style));
      },
    });
  } finally {
    flush();
    client.close();
    await sandbox?.close();
  }
  if (ctx.signal.aborted) throw new InterruptedError('interrupted: the run was stopped before every conversation ended, no report written');

  const report = buildReport(planned, suite.summaries, {
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    repeat: checked.repeat,
    coverage: options.coverage === true ? suite.coverage : null,
    unreachable: unreachable(suite.summaries, botUrl),
  });
  await writeReports(report, targets, ctx);
  if (report.unreachable) {
    throw new NetworkError(report.unreachable.message, 'EBOTUNREACHABLE', {
      hint: `start the bot before core test, listening at ${botUrl ?? "the sandbox's --bot-url"}; its answers go to the sandbox's base URL (${url})`,
    });
  }
  for (const summary of deferred) write(conversationLine(summary, style));
  const failed = report.files.flatMap((file) => file.conversations).filter((summary) => outcomeOf(summary) === 'failed');
  if (failed.length > 0) write(`\n${failed.map((summary) => failureText(summary, style)).join('\n')}`);
  write(`\n${summaryLine(report, style)}${coverageText(report, style)}`);
  return report.failed > 0 ? ExitCode.testFailed : ExitCode.ok;
}

/** Writes each report but the human one on stdout, which the run prints as it goes. */
async function writeReports(report: RunReport, targets: readonly ReportTarget[], ctx: Context): Promise<void> {
  for (const target of targets) {
    if (target.reporter === 'human' && target.file === undefined) continue;
    const document = await render(report, target.reporter, ctx.glyphs);
    if (target.file === undefined) ctx.out(document);
    else await writeOutputFile(target.file, document, target.file, target.given ?? '--output');
  }
}

/**
 * The reports to write: each --reporter NAME=FILE to its file, and at most one --reporter NAME to
 * --output, or to stdout. Every file's folder must exist, so a run is not lost for want of it.
 */
async function reportTargets(options: TestOptions, cwd: string): Promise<ReportTarget[]> {
  const given = options.reporters.length === 0 ? ['human'] : options.reporters;
  const targets: ReportTarget[] = [];
  for (const raw of given) {
    const at = raw.indexOf('=');
    const name = (at === -1 ? raw : raw.slice(0, at)).trim();
    if (!(REPORTERS as readonly string[]).includes(name)) {
      throw new UsageError(`--reporter: '${name}' is not a reporter: ${REPORTERS.join(', ')}`, {
        hint: 'such as --reporter junit=report.xml --reporter json=report.json',
      });
    }
    if (at !== -1 && raw.slice(at + 1) === '') throw new UsageError(`--reporter ${raw}: name the file after =, such as ${name}=report`);
    targets.push(
      at === -1 ? { reporter: name as Reporter } : { reporter: name as Reporter, file: raw.slice(at + 1), given: `--reporter ${raw}` },
    );
  }
  const toStdout = targets.filter((target) => target.file === undefined);
  if (toStdout.length > 1) {
    throw new UsageError(`--reporter: ${toStdout.map((t) => t.reporter).join(' and ')} would both go to one output`, {
      hint: 'give each report its own file: --reporter NAME=FILE',
    });
  }
  if (options.output !== undefined) {
    if (toStdout.length === 0) {
      throw new UsageError('--output goes with a --reporter NAME without a file; every --reporter here names its own', {
        hint: 'drop --output, or write --reporter NAME --output FILE',
      });
    }
    toStdout[0]!.file = options.output;
  }
  const seen = new Map<string, string>();
  for (const target of targets) {
    if (target.file === undefined) continue;
    const shown = target.file;
    target.file = await outputFilePath(shown, cwd, target.given ?? '--output');
    const before = seen.get(target.file);
    if (before !== undefined)
      throw new UsageError(`--reporter: ${before} and ${target.reporter} both write ${shown}; give each its own file`);
    seen.set(target.file, target.reporter);
  }
  return targets;
}

function checkOptions(options: TestOptions): { timeoutMs: number; concurrency: number; repeat: number } {
  checkSandboxTarget(options, 'core test', 'core test tests/*.yaml --bot-url http://127.0.0.1:3000/webhook');
  if (options.sandbox !== undefined && options.state !== undefined) {
    throw new UsageError('--sandbox uses a running sandbox, which keeps its own state; --state is for the one core test starts', {
      hint: 'start the running sandbox with core sandbox --state FILE, or give --state without --sandbox',
    });
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
  let repeat = 1;
  if (options.repeat !== undefined) {
    repeat = /^\d+$/.test(options.repeat.trim()) ? Number(options.repeat) : NaN;
    if (!(repeat >= 1 && repeat <= MAX_REPEAT)) {
      throw new UsageError(`--repeat: '${options.repeat}' is not a whole number from 1 to ${MAX_REPEAT}`, {
        hint: 'such as --repeat 20: every conversation runs 20 times',
      });
    }
  }
  return { timeoutMs, concurrency, repeat };
}

/**
 * The sandbox to play through: the one at --sandbox (which must deliver to a bot), or a new one
 * started on --port delivering to --bot-url (closed by the caller).
 */
export async function connect(
  options: Pick<TestOptions, 'sandbox' | 'botUrl' | 'port' | 'state'>,
  ctx: Context,
): Promise<{ url: string; botUrl: string | null; sandbox?: LocalSandbox }> {
  if (options.sandbox !== undefined) {
    const url = trimEndOf(options.sandbox, '/');
    const info = await sandboxInfo(url, REQUEST_TIMEOUT_MS, ctx.signal, 'core test');
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
  const [
    { parseSandboxFlags },
    { withSigningSecret, unkeptWarning },
    { startLocalSandbox, SandboxOptionsError, StateFileError },
    { listenError },
  ] = await Promise.all([
    import('../sandbox/options.js'),
    import('../sandbox/secret.js'),
    import('../../sandbox/server.js'),
    import('../sandbox/run.js'),
  ]);
  // The secret named by CORE_SANDBOX_WEBHOOK_SECRET, else the one kept for the user, as core sandbox signs with.
  const { options: sandboxOptions, secret } = await withSigningSecret(
    await parseSandboxFlags({ botUrl: options.botUrl, port: options.port, state: options.state }, ctx.cwd, ctx.env),
    ctx.env,
  );
  const unkept = unkeptWarning(secret);
  if (unkept !== undefined) ctx.warn(unkept);
  try {
    const sandbox = await startLocalSandbox({ ...sandboxOptions, warn: (line) => ctx.warn(line) });
    return { url: sandbox.url, botUrl: sandbox.botUrl, sandbox };
  } catch (error) {
    if (error instanceof StateFileError) throw new ConfigError(error.message, { hint: error.hint, cause: error });
    if (error instanceof SandboxOptionsError) throw new UsageError(error.message, { hint: 'see core test --help', cause: error });
    throw listenError(error, '127.0.0.1', sandboxOptions.port ?? 0);
  }
}

/**
 * The bot could not be reached at all: webhooks were attempted, none reached it (every attempt
 * failed to connect: no status, and not a time-out, which means it connected), and no request of the
 * bot came to the sandbox.
 */
function unreachable(summaries: readonly ConversationSummary[], botUrl: string | null): RunReport['unreachable'] {
  const attempts = summaries.reduce((sum, summary) => sum + summary.reach.attempts, 0);
  if (attempts === 0 || !summaries.every(neverReached)) return null;
  const errors = [...new Set(summaries.flatMap((summary) => summary.reach.errors))].join(', ') || 'no answer';
  return {
    kind: 'bot',
    url: botUrl,
    message: `the bot could not be reached: every webhook delivery to ${botUrl ?? 'the bot'} failed to connect (${errors}), so no conversation could be played`,
  };
}

/** Whether a conversation's webhooks never reached the bot: some were attempted, none connected, and the bot made no request. */
function neverReached(summary: ConversationSummary): boolean {
  return !summary.reach.botSpoke && !summary.reach.connected;
}

async function render(report: RunReport, reporter: Reporter, glyphs: Glyphs): Promise<string> {
  switch (reporter) {
    case 'junit':
      return renderJunit(report);
    case 'tap':
      return renderTap(report);
    case 'json':
      return renderJson(report);
    case 'human':
      return renderHuman(report, makeStyle(false, glyphs));
  }
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
