import { performance } from 'node:perf_hooks';
import { count, countAnswer, countRouting } from './coverage.js';
import { ConversationEvents, type Asked, type Event } from './conversation-events.js';
import type { PlannedConversation, PlannedStep } from './load.js';
import type { SandboxClient } from './platform.js';
import type { Failure, RunResult, StepResult } from './results.js';
import { agentWrites, expectAnswer, expectSilence, has, releaseThread, said, send, unexpectedAnswer } from './steps.js';
import { substitute } from './substitute.js';
import type { WebhookAttemptEvent } from '../sandbox/events.js';
import type { PatternWorker } from './pattern-worker.js';
import type { RunReach } from './reach.js';

/**
 * Plays one run of one conversation of `core test` against the bot through the sandbox
 * (docs/testing-bots.md, "How a conversation runs"): its own thread and client, the customer's
 * messages and presses sent through the sandbox's customer endpoints, and the bot's answers read from
 * the conversation's event stream. Every wait is for an event, bounded by the step's time limit:
 * nothing sleeps, so a passing step costs no time of the runner's own.
 *
 * - A `bot:` step takes the next answer delivered to the customer and matches it, then checks its
 *   `within` (the sandbox's clock: question recorded to answer recorded) and keeps its `capture`s.
 *   An answer the sandbox refused, or an API request of the bot it refused, fails the step at once,
 *   naming the status and the sandbox's message; a refusal tied to no conversation does so too when
 *   it comes while the step waits (every conversation waiting then reports it). A repeated answerId,
 *   which the platform silently drops, is skipped. The step fails at once when no answer can come:
 *   the thread is with agents, or the webhook failed for good.
 * - `bot: none` passes when no answer comes within its time (at once when the thread is with agents).
 * - An answer no step expects fails the step that follows it: before sending the next customer
 *   message, and after the last step, the runner waits until the webhook of the previous message has
 *   been answered (or failed), and any answer not yet taken is the failure. An answer to an earlier
 *   question that a `bot:` step meets is one too.
 * - `handover:` beside a `bot:` step waits, after the answer, for the routing of its hand-over (routed
 *   to an agent, or queued) and compares it; `agent:` and `release: true` are requests of the agent's
 *   side. A thread still held by agents or queued when the run ends is given back to the bot.
 * - `${NAME}` in a step's strings is filled in from the conversation's examples row and the values
 *   captured so far (src/testing/substitute.ts).
 */

export interface RunnerInit {
  sandbox: SandboxClient;
  /** How long each step waits for what it expects (--timeout); a /pattern/ has as long to match. */
  stepTimeoutMs: number;
  /** Where the steps' /patterns/ run (one worker for the run: src/testing/pattern-worker.ts). */
  patterns: PatternWorker;
  /** The webhook attempts of every conversation, watched together: the run stops when the bot is down or refuses the signature. */
  reach?: RunReach;
}

export function stepTitle(step: PlannedStep, values: ReadonlyMap<string, string> = new Map()): string {
  switch (step.kind) {
    case 'customer':
      return `customer: ${substitute(step.text, values, 'send')}`;
    case 'press':
      return `press: ${substitute(step.label, values, 'send')}`;
    case 'bot':
      return 'bot';
    case 'none':
      return 'bot: none';
    case 'agent':
      return `agent${step.agentId === null ? '' : ` ${step.agentId}`}: ${substitute(step.text, values, 'send')}`;
    case 'release':
      return 'release: true';
  }
}

/** The first failure of a run, where it happened: a step (stepIndex), or the conversation itself (null). */
type RunFailure = Failure & { stepIndex: number | null; line: number };

/** One run in progress: the conversation started, its events as they come, and the question last asked. */
interface Run {
  plan: PlannedConversation;
  init: RunnerInit;
  /** The examples row's values and the values captured so far. */
  values: Map<string, string>;
  result: RunResult;
  sessionId: string;
  events: ConversationEvents;
  asked?: Asked;
  /** Whether agents or the queue hold the thread or a question of it: given back to the bot when the run ends. */
  held: boolean;
}

export async function runConversation(plan: PlannedConversation, init: RunnerInit): Promise<RunResult> {
  const started = performance.now();
  const values = new Map(plan.values);
  const result = newResult(plan, values, started);
  const finish = (failure?: RunFailure): RunResult => {
    if (failure) {
      result.outcome = 'failed';
      result.failure = failure;
    }
    result.endedAt = performance.now();
    result.durationMs = Math.round(result.endedAt - started);
    return result;
  };
  const conversation: Awaited<ReturnType<typeof continueThread>> =
    plan.from === undefined ? await startConversation(init.sandbox, plan) : await continueThread(init.sandbox, plan);
  if ('failure' in conversation) return finish(conversation.failure);
  result.sessionId = conversation.sessionId;
  let channel = plan.channel;
  if (conversation.continued !== undefined) {
    values.set('sessionId', conversation.sessionId);
    values.set('questionId', conversation.continued.questionId);
    channel = conversation.continued.channel;
  }
  count(result.coverage, channel);
  const run: Run = { plan, init, values, result, sessionId: conversation.sessionId, events: new ConversationEvents(), held: false };
  // From now on: the conversation has had nothing but its start, and its first message is sent once the stream is
  // open. Not from seq 0, which would replay to every new conversation the refusals of its tenant tied to none.
  const stream = init.sandbox.follow(conversation.sessionId, conversation.tenant, (event) => noteEvent(run, event));
  void stream.ended.then(() => run.events.end());
  // The run stopping (the bot down, or refusing the signature): what this conversation waits on ends now.
  const stop = () => run.events.end();
  init.reach?.signal.addEventListener('abort', stop);
  try {
    await stream.opened;
    const failure = await playSteps(run);
    await giveBack(run);
    return finish(failure);
  } finally {
    init.reach?.signal.removeEventListener('abort', stop);
    stream.close();
  }
}

/**
 * A thread that ends its run with agents or in the queue is given back to the bot, so that the agents
 * are as free for the next run (--repeat, the next conversation) as they were for this one. A
 * sandbox that refuses or cannot be reached then changes nothing of the run's result.
 */
async function giveBack(run: Run): Promise<void> {
  if (!run.held || run.init.sandbox.signal.aborted) return;
  try {
    await run.init.sandbox.release(run.sessionId);
  } catch {
    // The run's result is already decided; the sandbox keeps the thread where it is.
  }
}

/** A run before it plays: every step skipped until it has been played. */
function newResult(plan: PlannedConversation, values: ReadonlyMap<string, string>, started: number): RunResult {
  return {
    sessionId: null,
    outcome: 'passed',
    durationMs: 0,
    startedAt: started,
    endedAt: started,
    steps: plan.steps.map((step) => ({
      index: step.index,
      line: step.line,
      kind: step.kind,
      title: stepTitle(step, values),
      outcome: 'skipped',
      durationMs: 0,
    })),
    latenciesMs: [],
    coverage: new Map(),
    reach: { attempts: 0, connected: false, errors: [] },
    botSpoke: false,
  };
}

/** A new thread (and client) in the plan's channel, for the plan's client if it names one. */
async function startConversation(
  sandbox: SandboxClient,
  plan: PlannedConversation,
): Promise<{ sessionId: string; tenant: string } | { failure: RunFailure }> {
  const body: Record<string, unknown> = { channel: plan.channel };
  if (plan.client?.clientId !== undefined) body.clientId = plan.client.clientId;
  if (plan.client?.coreClientId !== undefined) body.coreClientId = plan.client.coreClientId;
  const opened = await sandbox.startConversation(body);
  if (opened.status !== 201 || !has(opened.json, 'sessionId')) {
    return { failure: { stepIndex: null, line: plan.line, message: `the sandbox did not start the conversation: ${said(opened)}` } };
  }
  const conversation = opened.json as { sessionId: unknown; tenant?: unknown };
  return { sessionId: String(conversation.sessionId), tenant: String(conversation.tenant ?? '') };
}

/**
 * The thread a conversation that starts mid-flow continues (docs/testing-bots.md, "Starting mid-flow"):
 * the last thread of its seed, applied now, or the thread written in last of its snapshot, restored now.
 */
async function continueThread(
  sandbox: SandboxClient,
  plan: PlannedConversation,
): Promise<
  | { sessionId: string; tenant: string; continued?: { channel: PlannedConversation['channel']; questionId: string } }
  | { failure: RunFailure }
> {
  const from = plan.from!;
  const seeded = 'seed' in from;
  const answer = seeded
    ? await sandbox.post('/_sandbox/seed', from.seed)
    : await sandbox.post(`/_sandbox/snapshots/${encodeURIComponent(from.snapshot)}/restore`, {});
  const json = answer.json as { threads?: unknown; latest?: unknown } | undefined;
  const thread = (seeded ? (Array.isArray(json?.threads) ? json.threads.at(-1) : undefined) : json?.latest) as
    { sessionId?: unknown; tenant?: unknown; channel?: unknown; questionId?: unknown } | undefined | null;
  const what = seeded ? `the seed ${from.file}` : `the snapshot ${from.snapshot}`;
  if (answer.status !== (seeded ? 201 : 200) || thread === null || thread === undefined || typeof thread.sessionId !== 'string') {
    const message = answer.status < 300 ? `${what} holds no thread to continue` : `the sandbox did not apply ${what}: ${said(answer)}`;
    return { failure: { stepIndex: null, line: plan.line, message } };
  }
  return {
    sessionId: thread.sessionId,
    tenant: String(thread.tenant ?? ''),
    continued: {
      channel: thread.channel as PlannedConversation['channel'],
      questionId: thread.questionId === null || thread.questionId === undefined ? '' : String(thread.questionId),
    },
  };
}

/** An event of the conversation: kept for the steps, and counted for reach and coverage. */
function noteEvent(run: Run, event: Event): void {
  const { result } = run;
  run.events.add(event);
  if (event.type === 'webhook.attempt') {
    noteAttempt(result.reach, event);
    run.init.reach?.attempt(event);
  } else if (event.type === 'bot.answer' || event.type === 'greeting') {
    result.botSpoke = true;
    run.init.reach?.botSpoke();
    if (event.type === 'bot.answer') countAnswer(result.coverage, event);
  } else if (event.type === 'handover.routed' || event.type === 'handover.queued') {
    run.held = true;
    countRouting(result.coverage, event);
  } else if (event.type === 'released') {
    run.held = false;
  } else if (event.type === 'api.request') {
    result.botSpoke = true;
    run.init.reach?.botSpoke();
    // A refusal tied to this conversation happened to it; one tied to none is counted where it fails a step.
    if (event.sessionId !== null && event.status >= 400) count(result.coverage, 'refusal');
  }
}

/** The steps in order, until one fails; then an answer no step took, unless the last step expected none. */
async function playSteps(run: Run): Promise<RunFailure | undefined> {
  const { plan } = run;
  for (const [i, step] of plan.steps.entries()) {
    const stepStarted = performance.now();
    const stepResult = run.result.steps[i]!;
    const failure = await playStep(run, step, stepResult);
    stepResult.durationMs = Math.round(performance.now() - stepStarted);
    stepResult.outcome = failure ? 'failed' : 'passed';
    if (failure) {
      stepResult.failure = failure;
      return { ...failure, stepIndex: i, line: step.line };
    }
  }
  // With no step, nothing was asked, and no answer can be one no step expects.
  const last = plan.steps.at(-1);
  if (last === undefined || last.kind === 'none') return undefined;
  const extra = await unexpectedAnswer(run.events, run.asked, run.init.stepTimeoutMs, 'after the last step');
  return extra && { ...extra, stepIndex: null, line: last.line };
}

async function playStep(run: Run, step: PlannedStep, stepResult: StepResult): Promise<Failure | undefined> {
  const { events, result, init } = run;
  if (step.kind === 'customer' || step.kind === 'press') {
    const failure = await unexpectedAnswer(events, run.asked, init.stepTimeoutMs, 'before this step');
    if (failure !== undefined) return failure;
    const sent = await send(init.sandbox, run.sessionId, step, run.values);
    if ('failure' in sent) return sent.failure;
    run.asked = sent.asked;
    if (sent.action !== undefined) count(result.coverage, sent.action);
    return undefined;
  }
  if (step.kind === 'agent' || step.kind === 'release') {
    const failure = await unexpectedAnswer(events, run.asked, init.stepTimeoutMs, 'before this step');
    if (failure !== undefined) return failure;
    return step.kind === 'agent' ? agentWrites(init.sandbox, run.sessionId, step, run.values) : releaseThread(init.sandbox, run.sessionId);
  }
  if (step.kind === 'none') return expectSilence(events, run.asked, step.withinMs);
  const taken = await expectAnswer(events, run.asked, step, run.values, init.stepTimeoutMs, init.patterns);
  if (taken.latencyMs !== undefined) {
    stepResult.latencyMs = taken.latencyMs;
    result.latenciesMs.push(taken.latencyMs);
  }
  if (taken.untiedRefusal) count(result.coverage, 'refusal');
  return taken.failure;
}

function noteAttempt(reach: RunResult['reach'], event: WebhookAttemptEvent): void {
  reach.attempts += 1;
  // A status, or a time-out (which means it connected), is a bot that could be reached.
  if (event.status !== null || event.error?.startsWith('timeout') === true) reach.connected = true;
  else {
    const error = event.error ?? 'no answer';
    if (reach.errors.length < 5 && !reach.errors.includes(error)) reach.errors.push(error);
  }
}
