import { performance } from 'node:perf_hooks';
import type { Context } from '../../context.js';
import { InterruptedError, NetworkError } from '../../errors.js';
import type { ConversationPrinter } from '../../output/conversations.js';
import { NO_PROGRESS, type LiveProgress } from '../../output/live-progress.js';
import type { SandboxConnection } from '../../platform/connection.js';
import { inProcessConnection } from '../../platform/in-process.js';
import { httpConnection } from '../../platform/over-http.js';
import { openBotSandbox, type BotSandbox } from '../../platform/target.js';
import { runSuite, type ConversationSummary, type SuiteResult } from '../../testing/suite.js';
import { trimEndOf } from '../../text/trim.js';
import type { TestPlan } from './plan.js';

/**
 * Playing a `core test` plan: the sandbox reached (--sandbox) or started (--bot-url), a connection to
 * it (src/platform/), and the suite run over it (src/testing/suite.ts), each conversation's line
 * printed as it ends.
 */

/** The time limit of one request to the sandbox's own endpoints. */
const REQUEST_TIMEOUT_MS = 30_000;

/** When and for how long a run played, or tried to. */
interface Timing {
  startedAt: Date;
  durationMs: number;
}

export type Played =
  | (Timing & {
      kind: 'played';
      url: string;
      botUrl: string | null;
      suite: SuiteResult;
      /** The conversations that never reached the bot, whose lines wait for the end: if none did, the run says so once. */
      deferred: ConversationSummary[];
    })
  /** The sandbox at --sandbox gave no answer at all: nothing was played. */
  | (Timing & { kind: 'sandbox-unreachable'; url: string; error: NetworkError });

export async function playTest(
  plan: TestPlan,
  printer: ConversationPrinter,
  ctx: Context,
  progress: LiveProgress = NO_PROGRESS,
): Promise<Played> {
  const connecting = { at: new Date(), started: performance.now() };
  let sandbox: BotSandbox;
  try {
    sandbox = await openBotSandbox(plan.target, {
      command: 'core test',
      withoutBot: 'so no answer can come',
      timeoutMs: REQUEST_TIMEOUT_MS,
      signal: ctx.signal,
      cwd: ctx.cwd,
      env: ctx.env,
      warn: (message) => ctx.warn(message),
    });
  } catch (error) {
    if (plan.target.sandbox === undefined || !(error instanceof NetworkError)) throw error;
    const durationMs = Math.round(performance.now() - connecting.started);
    return { kind: 'sandbox-unreachable', url: trimEndOf(plan.target.sandbox, '/'), error, startedAt: connecting.at, durationMs };
  }
  // A run of many conversations keeps little alive (the summaries, the runs in flight, the sandbox's
  // bounded log) and drops much: the heap of a batch (src/heap.ts), once the code the runs need is loaded.
  ctx.tuneHeapForBatch();
  return play(plan, sandbox, printer, ctx, progress);
}

async function play(
  plan: TestPlan,
  sandbox: BotSandbox,
  printer: ConversationPrinter,
  ctx: Context,
  progress: LiveProgress,
): Promise<Played> {
  const startedAt = new Date();
  const started = performance.now();
  const deferred: ConversationSummary[] = [];
  // The customer's side: directly on the sandbox started here, over HTTP to one at --sandbox.
  const connection: SandboxConnection = sandbox.started
    ? inProcessConnection(sandbox.started, ctx.signal)
    : httpConnection(sandbox.url, REQUEST_TIMEOUT_MS, ctx.signal, plan.concurrency);
  let suite: SuiteResult;
  try {
    ctx.err(header(plan, sandbox));
    progress.start();
    suite = await runSuite(plan.conversations, {
      runner: { sandbox: connection, stepTimeoutMs: plan.timeoutMs },
      concurrency: plan.concurrency,
      repeat: plan.repeat,
      onRun: (run) => progress.done(run.outcome === 'failed', run.latenciesMs),
      onConversation: (summary) => {
        // A conversation that never reached the bot is shown at the end: if none did, the run says so
        // once instead of failing each one.
        if (neverReached(summary)) deferred.push(summary);
        else printer.line(summary);
      },
    });
  } finally {
    printer.flush();
    progress.stop();
    connection.close();
    await sandbox.started?.close();
  }
  if (ctx.signal.aborted) throw new InterruptedError('interrupted: the run was stopped before every conversation ended, no report written');
  const durationMs = Math.round(performance.now() - started);
  return { kind: 'played', url: sandbox.url, botUrl: sandbox.botUrl, suite, deferred, startedAt, durationMs };
}

/** `core test: 3 conversations in 2 files, the bot at URL, through the sandbox at URL`, on stderr. */
function header(plan: TestPlan, sandbox: BotSandbox): string {
  return (
    `core test: ${count(plan.conversations.length, 'conversation')} in ${count(plan.files.length, 'file')}` +
    `${plan.repeat > 1 ? `, ${count(plan.repeat, 'run')} each` : ''}, ` +
    `the bot at ${sandbox.botUrl ?? "the sandbox's --bot-url"}, through the sandbox at ${sandbox.url}\n`
  );
}

/** Whether a conversation's webhooks never reached the bot: some were attempted, none connected, and the bot made no request. */
export function neverReached(summary: ConversationSummary): boolean {
  return !summary.reach.botSpoke && !summary.reach.connected;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
