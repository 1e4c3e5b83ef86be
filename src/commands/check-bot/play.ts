import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Context } from '../../context.js';
import { formatDuration } from '../../config/duration.js';
import { liveProgress, showsLiveProgress } from '../../output/live-progress.js';
import { InterruptedError, NetworkError } from '../../errors.js';
import type { HttpConnection } from '../../platform/connection.js';
import { StreamRefused } from '../../platform/event-stream.js';
import { httpConnection } from '../../platform/over-http.js';
import { openBotSandbox, type BotSandbox } from '../../platform/target.js';
import { runBattery, unplayedBattery, type BatteryReport, type SandboxPort } from '../../testing/check-bot/battery.js';
import { CHECK_IDS } from '../../testing/check-bot/ids.js';
import type { ReportContext } from '../../testing/check-bot/report.js';
import { trimEndOf } from '../../text/trim.js';
import type { FuzzPlan } from './fuzz.js';
import type { CheckPlan } from './plan.js';

/**
 * Playing a `core check-bot` plan: the sandbox reached (--sandbox) or started (--bot-url), and the
 * battery of src/testing/check-bot/ run against it over HTTP (the probes are HTTP endpoints of the
 * sandbox's own, so the sandbox started here is reached the same way as one already running).
 */

/** Added to the bot's webhook time limit for a request to the sandbox that waits on a delivery. */
const REQUEST_MARGIN_MS = 30_000;

export interface Played {
  report: BatteryReport;
  context: ReportContext;
  /** The sandbox at --sandbox gave no answer at all: the report says so, and this is the error the run ends with. */
  sandboxUnreachable?: NetworkError;
}

export async function playCheckBot(plan: CheckPlan, ctx: Context, fuzzing?: FuzzPlan): Promise<Played> {
  const connecting = { at: new Date(), started: performance.now() };
  let sandbox: BotSandbox;
  try {
    sandbox = await openBotSandbox(plan.target, {
      command: 'core check-bot',
      withoutBot: 'so there is nothing to check',
      timeoutMs: REQUEST_MARGIN_MS,
      signal: ctx.signal,
      cwd: ctx.cwd,
      env: ctx.env,
      warn: (message) => ctx.warn(message),
      // The sandbox started here waits for the bot's acknowledgement as long as the run waits for an
      // answer (--timeout), whatever the sandbox's default; a fuzz run keeps fewer events (fuzz.ts).
      settings: { webhookTimeoutMs: plan.timeoutMs, ...fuzzing?.sandbox },
    });
  } catch (error) {
    if (plan.target.sandbox === undefined || !(error instanceof NetworkError)) throw error;
    // Each selected check in its place in the report, failed with the sandbox's silence.
    const report = unplayedBattery(
      { timeoutMs: plan.timeoutMs, ...(plan.only ? { only: plan.only } : {}) },
      { kind: 'sandbox', message: error.message },
      connecting.at,
      Math.round(performance.now() - connecting.started),
    );
    return {
      report,
      context: { sandboxUrl: trimEndOf(plan.target.sandbox, '/'), botUrl: null, sandboxKept: true },
      sandboxUnreachable: error,
    };
  }
  // A fuzz run plays many conversations, keeps little of each (the sandbox's bounded log, what the judge
  // reads) and drops much: the heap of a batch (src/heap.ts), as core test's, once its code is loaded.
  if (fuzzing !== undefined) ctx.tuneHeapForBatch();
  // Nothing prints the secret; a bot that echoes a delivery's headers back in its answer must not make it either.
  if (sandbox.started) ctx.addSecret(sandbox.started.webhookSecret);
  const context: ReportContext = { sandboxUrl: sandbox.url, botUrl: sandbox.botUrl, sandboxKept: sandbox.started === undefined };
  return { report: await check(plan, sandbox, ctx, fuzzing), context };
}

async function check(plan: CheckPlan, sandbox: BotSandbox, ctx: Context, fuzzing: FuzzPlan | undefined): Promise<BatteryReport> {
  // Every check waits and asks at once, each listening to the stop signal: one signal of the run's
  // own, told of Ctrl-C, takes their listeners without Node's warning about a leak.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const onStop = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onStop, { once: true });
  const connection = httpConnection(sandbox.url, sandbox.webhookTimeoutMs + REQUEST_MARGIN_MS, stop.signal);
  const count = plan.only?.length ?? CHECK_IDS.length;
  let report;
  const bot = sandbox.botUrl ?? "the sandbox's --bot-url";
  // The live line (src/output/live-progress.ts): on a terminal only, and not when the report for a program goes to stdout.
  const forProgram = plan.report.file === undefined && plan.report.reporter !== 'human';
  const progress = liveProgress(
    ctx,
    fuzzing === undefined
      ? { command: 'core check-bot', unit: 'checks', total: count }
      : { command: 'core check-bot', unit: 'conversations', total: fuzzing.conversations },
    showsLiveProgress(ctx, forProgram),
  );
  try {
    const port = batteryPort(connection, sandbox.url);
    if (fuzzing !== undefined) {
      ctx.err(`core check-bot: ${fuzzing.what} against the bot at ${bot}, through the sandbox at ${sandbox.url}\n`);
      progress.start();
      report = await fuzzing.run(port, plan.timeoutMs, stop.signal, sandbox.url, (failed, ms) => progress.done(failed, [ms]));
    } else {
      ctx.err(
        `core check-bot: ${count} check${count === 1 ? '' : 's'} of the bot at ${bot}, through the sandbox at ${sandbox.url}; ` +
          `the checks that expect no answer wait ${formatDuration(plan.timeoutMs)}\n`,
      );
      progress.start();
      report = await runBattery({
        port,
        timeoutMs: plan.timeoutMs,
        ...(plan.only ? { only: plan.only } : {}),
        signal: stop.signal,
        onCheck: (check) => progress.done(check.status === 'fail', [check.durationMs]),
      });
    }
  } finally {
    progress.stop();
    ctx.signal.removeEventListener('abort', onStop);
    connection.close();
    await sandbox.started?.close();
  }
  if (ctx.signal.aborted) throw new InterruptedError('interrupted: the checks were stopped before they ended, no report written');
  return report;
}

/** The battery's port onto the connection; a sandbox that refuses the event stream is a NetworkError that says why it matters. */
function batteryPort(connection: HttpConnection, url: string): SandboxPort {
  return {
    request: (method, path, body) => connection.request(method, path, body),
    events: (query, onEvent) => {
      const stream = connection.events(query, onEvent);
      const opened = stream.opened.catch((error: unknown) => {
        if (!(error instanceof StreamRefused)) throw error;
        throw new NetworkError(
          `the sandbox at ${url} refused its event stream: ${error.answer.status} ${error.answer.text.slice(0, 200)}`,
          'ESANDBOXREFUSED',
          { hint: "the checks read the bot's answers from GET /_sandbox/events; a sandbox serves 256 streams at once" },
        );
      });
      return { opened, close: () => stream.close() };
    },
  };
}
