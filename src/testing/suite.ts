import { merge, type CoverageCounts } from './coverage.js';
import type { PlannedConversation } from './load.js';
import type { RunResult } from './results.js';
import { runConversation, stepTitle, type RunnerInit } from './runner.js';
import { PatternWorker } from './pattern-worker.js';
import { RunReach, type ReachStop } from './reach.js';

/**
 * A suite of `core test`: every conversation played `repeat` times (each run a new thread and
 * client), at most `concurrency` runs at once, each run summarised as it ends (docs/testing-bots.md,
 * "Repeated runs"). Only the runs shown in reports keep their details (the first failing run, else
 * the first run); the others leave counts and latencies, so memory does not grow with the runs.
 */

/** Latencies in whole milliseconds, counted by value: exact percentiles in memory bounded by the longest wait, not by the runs. */
export class Latencies {
  private readonly counts = new Map<number, number>();
  n = 0;
  max = 0;

  add(ms: number): void {
    const value = Math.round(ms);
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
    this.n += 1;
    if (value > this.max) this.max = value;
  }

  /** The nearest-rank percentile (q from 0 to 1); null without latencies. */
  percentile(q: number): number | null {
    if (this.n === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.n));
    let seen = 0;
    for (const value of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(value)!;
      if (seen >= rank) return value;
    }
    return this.max;
  }

  summary(): { p50: number; p95: number; max: number } | null {
    return this.n === 0 ? null : { p50: this.percentile(0.5)!, p95: this.percentile(0.95)!, max: this.max };
  }
}

export interface ConversationSummary {
  file: string;
  /** Its place in the file. */
  index: number;
  /** Its place in the run. */
  ordinal: number;
  name: string;
  line: number;
  channel: string;
  /** Its examples row, or null. */
  row: number | null;
  runs: number;
  failedRuns: number;
  /** The run reports show in detail: the first that failed, else the first that ended; its number (from 1). */
  shown: RunResult;
  shownRun: number;
  latency: Latencies;
  /**
   * From the start of its first run to the end of its last (runs overlap under --concurrency, so their
   * sum would exceed the run's time): it never exceeds its file's time, nor the file's the run's.
   */
  durationMs: number;
  /** When its first run started and its last ended (performance.now()); null: never played. */
  span: { from: number; to: number } | null;
  reach: { attempts: number; connected: boolean; errors: string[]; botSpoke: boolean };
}

/** A conversation passed when no run of it failed, and it ran (one never played, `unplayed`, did not pass). */
export const outcomeOf = (summary: ConversationSummary): 'passed' | 'failed' =>
  summary.failedRuns > 0 || summary.runs === 0 ? 'failed' : 'passed';
/** Some runs failed and some passed. */
export const isFlaky = (summary: ConversationSummary): boolean => summary.failedRuns > 0 && summary.failedRuns < summary.runs;

export interface SuiteInit {
  /** The runner's settings; the suite gives it the worker its /patterns/ run in, ended with the suite. */
  runner: Omit<RunnerInit, 'patterns'>;
  concurrency: number;
  repeat: number;
  /** Called once per conversation, when its last run has ended. */
  onConversation?: (summary: ConversationSummary) => void;
  /** Called as each run ends (the live progress line of core test). */
  onRun?: (run: RunResult) => void;
}

export interface SuiteResult {
  /** One per conversation, in the order of the files. */
  summaries: ConversationSummary[];
  coverage: CoverageCounts;
  /** Set when the run stopped early: the bot is down, or refuses the sandbox's signature (src/testing/reach.ts). */
  stopped: ReachStop | null;
}

export async function runSuite(plans: readonly PlannedConversation[], init: SuiteInit): Promise<SuiteResult> {
  const summaries: (ConversationSummary | undefined)[] = new Array(plans.length);
  const left = plans.map(() => init.repeat);
  const coverage: CoverageCounts = new Map();
  const signal = init.runner.sandbox.signal;
  const reach = new RunReach();
  const cleanups: (() => void)[] = [];
  const runner: RunnerInit = { ...init.runner, patterns: new PatternWorker(signal), reach };
  try {
    await pool(plans, plans.length * init.repeat, init.concurrency, either(signal, reach.signal, cleanups), async (plan, position) => {
      const run = await runConversation(plan, runner);
      init.onRun?.(run);
      merge(coverage, run.coverage);
      const summary = (summaries[position] = fold(summaries[position], plan, run));
      left[position]! -= 1;
      if (left[position] === 0) init.onConversation?.(summary);
    });
  } finally {
    for (const cleanup of cleanups) cleanup();
    await runner.patterns.close();
  }
  return { summaries: summaries.filter((s): s is ConversationSummary => s !== undefined), coverage, stopped: reach.stopped };
}

/** What names a conversation in the reports: its file, its places, its name, line, channel and examples row. */
function placeOf(plan: PlannedConversation): Pick<ConversationSummary, 'file' | 'index' | 'ordinal' | 'name' | 'line' | 'channel' | 'row'> {
  return {
    file: plan.file,
    index: plan.index,
    ordinal: plan.ordinal,
    name: plan.name,
    line: plan.line,
    channel: plan.channel,
    row: plan.row,
  };
}

/**
 * A conversation that was never played, because nothing could be (the sandbox at --sandbox did not
 * answer): no run, every step skipped, and `message` as the failure at its start.
 */
export function unplayed(plan: PlannedConversation, message: string): ConversationSummary {
  return {
    runs: 0,
    failedRuns: 0,
    shown: {
      sessionId: null,
      outcome: 'failed',
      durationMs: 0,
      startedAt: 0,
      endedAt: 0,
      steps: plan.steps.map((step) => ({
        index: step.index,
        line: step.line,
        kind: step.kind,
        title: stepTitle(step, plan.values),
        outcome: 'skipped',
        durationMs: 0,
      })),
      failure: { message, stepIndex: null, line: plan.line },
      latenciesMs: [],
      coverage: new Map(),
      reach: { attempts: 0, connected: false, errors: [] },
      botSpoke: false,
    },
    shownRun: 0,
    latency: new Latencies(),
    durationMs: 0,
    span: null,
    reach: { attempts: 0, connected: false, errors: [], botSpoke: false },
    // Last: on Node 20 a literal that starts with a spread pays for each property after it.
    ...placeOf(plan),
  };
}

/** A run folded into its conversation's summary; the run's details are kept only when reports show them. */
function fold(summary: ConversationSummary | undefined, plan: PlannedConversation, run: RunResult): ConversationSummary {
  const out: ConversationSummary = summary ?? {
    runs: 0,
    failedRuns: 0,
    shown: run,
    shownRun: 1,
    latency: new Latencies(),
    durationMs: 0,
    span: null,
    reach: { attempts: 0, connected: false, errors: [], botSpoke: false },
    ...placeOf(plan),
  };
  out.runs += 1;
  out.span =
    out.span === null
      ? { from: run.startedAt, to: run.endedAt }
      : { from: Math.min(out.span.from, run.startedAt), to: Math.max(out.span.to, run.endedAt) };
  out.durationMs = Math.round(out.span.to - out.span.from);
  for (const ms of run.latenciesMs) out.latency.add(ms);
  out.reach.attempts += run.reach.attempts;
  out.reach.connected ||= run.reach.connected;
  out.reach.botSpoke ||= run.botSpoke;
  for (const error of run.reach.errors) if (out.reach.errors.length < 5 && !out.reach.errors.includes(error)) out.reach.errors.push(error);
  if (run.outcome === 'failed') {
    if (out.failedRuns === 0) {
      out.shown = run;
      out.shownRun = out.runs;
    }
    out.failedRuns += 1;
  }
  // Details no report shows are let go as the run ends.
  if (out.shown !== run) {
    run.steps = [];
    run.latenciesMs = [];
  }
  return out;
}

/**
 * Runs `total` runs of the conversations (each conversation's runs one after another in the order),
 * at most `limit` at once. Runs that name one client run one after another: bot answers addressed by
 * client go to the client's latest thread, so two at once could take each other's answers.
 */
async function pool(
  plans: readonly PlannedConversation[],
  total: number,
  limit: number,
  signal: AbortSignal,
  run: (plan: PlannedConversation, position: number) => Promise<void>,
): Promise<void> {
  const repeat = plans.length === 0 ? 1 : total / plans.length;
  const clients = new Map<string, Promise<void>>();
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (next < total && failure === undefined && !signal.aborted) {
      const position = Math.floor(next / repeat);
      next += 1;
      const plan = plans[position]!;
      // A restored snapshot resets its tenant: conversations that start from one run one at a time.
      const key =
        plan.from !== undefined && 'snapshot' in plan.from
          ? 'snapshot'
          : plan.client?.clientId !== undefined
            ? `clientId:${plan.client.clientId}`
            : plan.client?.coreClientId !== undefined
              ? `coreClientId:${plan.client.coreClientId}`
              : undefined;
      const before = key === undefined ? undefined : clients.get(key);
      const mine = (async () => {
        await before;
        await run(plan, position);
      })();
      if (key !== undefined) {
        const settled = mine.catch(() => {});
        clients.set(key, settled);
        // The chain is let go once its last run has ended, so it holds nothing between runs.
        void settled.then(() => {
          if (clients.get(key) === settled) clients.delete(key);
        });
      }
      await mine.catch((error: unknown) => {
        failure ??= error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, total) }, worker));
  if (failure !== undefined) throw failure;
}

/** A signal aborted when either is, whose listeners `cleanups` removes (AbortSignal.any would leave one on the run's signal). */
function either(a: AbortSignal, b: AbortSignal, cleanups: (() => void)[]): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort();
  for (const signal of [a, b]) {
    if (signal.aborted) abort();
    signal.addEventListener('abort', abort, { once: true });
    cleanups.push(() => signal.removeEventListener('abort', abort));
  }
  return controller.signal;
}
