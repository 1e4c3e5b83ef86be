import { performance } from 'node:perf_hooks';
import { isRefusal } from '../customer/wait.js';
import { isRecord } from '../payload/json.js';
import { count, countAnswer, type CoverageCounts } from './coverage.js';
import type { PlannedConversation, PlannedStep } from './load.js';
import { matchAnswer, type FieldDiff } from './match.js';
import { toPattern } from './pattern.js';
import type { BotAnswerEvent, SandboxEvent, WebhookAttemptEvent } from '../sandbox/events.js';
import type { SandboxAnswer, SandboxClient } from './platform.js';
import { ADDRESSING_FIELDS, CHECKED_FIELDS } from './schema.js';
import { substitute, substituteAll } from './substitute.js';
import { formatDuration } from '../text/duration.js';

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
 * - `${NAME}` in a step's strings is filled in from the conversation's examples row and the values
 *   captured so far (src/testing/substitute.ts).
 */

export interface RunnerInit {
  sandbox: SandboxClient;
  /** How long each step waits for what it expects (--timeout). */
  stepTimeoutMs: number;
}

export type StepOutcome = 'passed' | 'failed' | 'skipped';

export interface Failure {
  message: string;
  /** What a `bot:` step expected (its ${NAME}s filled in). */
  expected?: unknown;
  /** The body of the answer that came, as the bot sent it. */
  received?: unknown;
  /** The fields that differ. */
  diff?: FieldDiff[];
}

export interface StepResult {
  index: number;
  line: number;
  kind: PlannedStep['kind'];
  /** The step as the file writes it, in short: `customer: Hi`, `press: Yes`, `bot`, `bot: none`. */
  title: string;
  outcome: StepOutcome;
  durationMs: number;
  /** For a `bot:` step that got its answer: question recorded to answer recorded, on the sandbox's clock. */
  latencyMs?: number;
  failure?: Failure;
}

/** One run of one conversation. */
export interface RunResult {
  sessionId: string | null;
  outcome: 'passed' | 'failed';
  durationMs: number;
  /** When it started and ended (performance.now(), unrounded): a conversation's time is the span of its runs. */
  startedAt: number;
  endedAt: number;
  steps: StepResult[];
  /** The first failure: of a step (stepIndex), or of the conversation itself (null: its start, or after its last step). */
  failure?: Failure & { stepIndex: number | null; line: number };
  /** The latency of every answer a bot step took, in ms (the sandbox's clock). */
  latenciesMs: number[];
  /** What the run exercised (src/testing/coverage.ts). */
  coverage: CoverageCounts;
  /** Whether the bot could be reached: webhooks attempted, whether any connected, and the errors of those that did not. */
  reach: { attempts: number; connected: boolean; errors: string[] };
  /** Whether any request of the bot reached the sandbox's API in this conversation. */
  botSpoke: boolean;
}

/** An event of the conversation, as the sandbox records it (src/sandbox/events.ts), whichever way it came. */
type Event = SandboxEvent;

interface Asked {
  seq: bigint | number;
  questionIndex: bigint | number;
  deliveryId: string | null;
  noWebhook: string | null;
}

/** What the bot did next in the conversation: an answer delivered to the customer, or something refused. */
type Next = { kind: 'answer'; event: BotAnswerEvent } | { kind: 'refused'; event: Event };

const WITH_AGENTS = /agents/;

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
  }
}

export async function runConversation(plan: PlannedConversation, init: RunnerInit): Promise<RunResult> {
  const started = performance.now();
  const sandbox = init.sandbox;
  const values = new Map(plan.values);
  const result: RunResult = {
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
  const finish = (failure?: Failure & { stepIndex: number | null; line: number }): RunResult => {
    if (failure) {
      result.outcome = 'failed';
      result.failure = failure;
    }
    result.endedAt = performance.now();
    result.durationMs = Math.round(result.endedAt - started);
    return result;
  };

  const body: Record<string, unknown> = { channel: plan.channel };
  if (plan.client?.clientId !== undefined) body.clientId = plan.client.clientId;
  if (plan.client?.coreClientId !== undefined) body.coreClientId = plan.client.coreClientId;
  const opened = await sandbox.startConversation(body);
  if (opened.status !== 201 || !has(opened.json, 'sessionId')) {
    return finish({ stepIndex: null, line: plan.line, message: `the sandbox did not start the conversation: ${said(opened)}` });
  }
  const conversation = opened.json as { sessionId: unknown; tenant?: unknown };
  const sessionId = String(conversation.sessionId);
  result.sessionId = sessionId;
  count(result.coverage, plan.channel);

  const events = new ConversationEvents();
  // From now on: the conversation has had nothing but its start, and its first message is sent once the stream is
  // open. Not from seq 0, which would replay to every new conversation the refusals of its tenant tied to none.
  const stream = sandbox.follow(sessionId, String(conversation.tenant ?? ''), (event) => {
    events.add(event);
    if (event.type === 'webhook.attempt') noteAttempt(result.reach, event);
    else if (event.type === 'bot.answer' || event.type === 'greeting') {
      result.botSpoke = true;
      if (event.type === 'bot.answer') countAnswer(result.coverage, event);
    } else if (event.type === 'api.request') {
      result.botSpoke = true;
      // A refusal tied to this conversation happened to it; one tied to none is counted where it fails a step.
      if (event.sessionId !== null && event.status >= 400) count(result.coverage, 'refusal');
    }
  });
  void stream.ended.then(() => events.end());
  try {
    await stream.opened;
    let asked: Asked | undefined;
    for (const [i, step] of plan.steps.entries()) {
      const stepStarted = performance.now();
      const stepResult = result.steps[i]!;
      let failure: Failure | undefined;
      if (step.kind === 'customer' || step.kind === 'press') {
        failure = await unexpectedAnswer(events, asked, init.stepTimeoutMs, 'before this step');
        if (failure === undefined) {
          const sent = await send(sandbox, sessionId, step, values);
          if ('failure' in sent) failure = sent.failure;
          else {
            asked = sent.asked;
            if (sent.action !== undefined) count(result.coverage, sent.action);
          }
        }
      } else if (step.kind === 'bot') {
        const taken = await expectAnswer(events, asked, step, values, init.stepTimeoutMs);
        failure = taken.failure;
        if (taken.latencyMs !== undefined) {
          stepResult.latencyMs = taken.latencyMs;
          result.latenciesMs.push(taken.latencyMs);
        }
        if (taken.untiedRefusal) count(result.coverage, 'refusal');
      } else {
        failure = await expectSilence(events, asked, step.withinMs);
      }
      stepResult.durationMs = Math.round(performance.now() - stepStarted);
      stepResult.outcome = failure ? 'failed' : 'passed';
      if (failure) {
        stepResult.failure = failure;
        return finish({ ...failure, stepIndex: i, line: step.line });
      }
    }
    const last = plan.steps.at(-1);
    if (last?.kind !== 'none') {
      const extra = await unexpectedAnswer(events, asked, init.stepTimeoutMs, 'after the last step');
      if (extra) return finish({ ...extra, stepIndex: null, line: last?.line ?? plan.line });
    }
    return finish();
  } finally {
    stream.close();
  }
}

function noteAttempt(reach: RunResult['reach'], event: WebhookAttemptEvent): void {
  reach.attempts += 1;
  const { error } = event;
  // A status, or a time-out (which means it connected), is a bot that could be reached.
  if (event.status !== null || /^timeout/.test(error ?? '')) reach.connected = true;
  else if (reach.errors.length < 5 && !reach.errors.includes(error ?? 'no answer')) reach.errors.push(error ?? 'no answer');
}

/** The events of one conversation as they arrive, and waits on them. */
export class ConversationEvents {
  private readonly list: Event[] = [];
  /** The index of the first event a step has not looked at. */
  private cursor = 0;
  private readonly listeners = new Set<() => void>();
  /** When each question was recorded (ms since the epoch, the sandbox's clock), by questionIndex. */
  private readonly asked = new Map<string, number>();
  ended = false;

  add(event: Event): void {
    if (event.type === 'customer.message') this.asked.set(String(event.questionIndex), Date.parse(event.time));
    this.list.push(event);
    for (const listener of [...this.listeners]) listener();
  }

  end(): void {
    this.ended = true;
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * The bot's next doing since the cursor, taken (the cursor moves past it), or undefined. Answers
   * with a repeated answerId are not delivered, by the API's chatbot rule 6, and are passed over. A
   * refusal tied to no conversation (sessionId null: the request named nothing the sandbox could tie)
   * counts only for a step waiting on an answer to the question at `waitingAfter` that it followed.
   */
  take(waitingAfter?: bigint | number): Next | undefined {
    while (this.cursor < this.list.length) {
      const event = this.list[this.cursor++]!;
      if (event.type === 'bot.answer' && event.delivered) return { kind: 'answer', event };
      if (isRefusal(event)) {
        if (event.sessionId !== null) return { kind: 'refused', event };
        if (waitingAfter !== undefined && event.seq > waitingAfter) return { kind: 'refused', event };
      }
    }
    return undefined;
  }

  /** Question recorded to answer recorded, on the sandbox's clock; `fallback` is the question an answer naming none answers. */
  latency(answer: BotAnswerEvent, fallback: Asked | undefined): number | undefined {
    const index = answer.questionIndex ?? fallback?.questionIndex;
    const asked = index == null ? undefined : this.asked.get(String(index));
    const answered = Date.parse(answer.time);
    return asked === undefined || Number.isNaN(answered) || Number.isNaN(asked) ? undefined : Math.max(0, answered - asked);
  }

  /** Whether the webhook of a message has finished: delivered, failed for good, or none sent. */
  delivery(asked: Asked): { done: boolean; failed: WebhookAttemptEvent | undefined; attempts: number } {
    if (asked.deliveryId === null) return { done: true, failed: undefined, attempts: 0 };
    const attempts = this.list.filter((e): e is WebhookAttemptEvent => e.type === 'webhook.attempt' && e.deliveryId === asked.deliveryId);
    const last = attempts.at(-1);
    const done = last !== undefined && (last.outcome === 'delivered' || last.outcome === 'failed');
    return { done, failed: last?.outcome === 'failed' ? last : undefined, attempts: attempts.length };
  }

  /**
   * Waits until `check` gives a value (it is asked now and after every event), the time runs out, or
   * the stream ends (Ctrl-C ends every stream: the client listens to it once, for all of them).
   */
  until<T>(check: () => T | undefined, timeoutMs: number): Promise<T | 'timeout' | 'ended'> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (value: T | 'timeout' | 'ended') => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(value);
      };
      const listener = () => {
        const value = check();
        if (value !== undefined) done(value);
        else if (this.ended) done('ended');
      };
      this.listeners.add(listener);
      timer = setTimeout(() => done('timeout'), timeoutMs);
      listener();
    });
  }
}

/** Waits for the previous message's webhook to finish, then reports any answer no step took. */
async function unexpectedAnswer(
  events: ConversationEvents,
  asked: Asked | undefined,
  timeoutMs: number,
  where: string,
): Promise<Failure | undefined> {
  if (asked === undefined) return undefined;
  await events.until(() => (events.delivery(asked).done ? true : undefined), timeoutMs);
  const next = events.take();
  if (next === undefined) return undefined;
  if (next.kind === 'refused') return refusal(next.event);
  return {
    message: `the bot sent an answer no step expects, ${where}: add a bot step for it`,
    received: visible(next.event.body),
  };
}

type BotStep = Extract<PlannedStep, { kind: 'bot' }>;

async function expectAnswer(
  events: ConversationEvents,
  asked: Asked | undefined,
  step: BotStep,
  values: Map<string, string>,
  timeoutMs: number,
): Promise<{ failure?: Failure; latencyMs?: number; untiedRefusal?: boolean }> {
  const expected = substituteAll(step.expect, values) as BotStep['expect'];
  const outcome = await events.until<Next | { kind: 'none-can-come'; message: string }>(() => {
    const next = events.take(asked?.seq);
    if (next) return next;
    if (asked === undefined) return undefined;
    if (asked.deliveryId === null && asked.noWebhook !== null && WITH_AGENTS.test(asked.noWebhook)) {
      return { kind: 'none-can-come', message: `no answer can come: ${asked.noWebhook}, so no webhook was sent` };
    }
    const delivery = events.delivery(asked);
    if (delivery.failed) {
      return {
        kind: 'none-can-come',
        message: `no answer came, and the webhook was not delivered after ${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'} (last: ${attemptSummary(delivery.failed)})`,
      };
    }
    return undefined;
  }, timeoutMs);
  if (outcome === 'timeout') return { failure: { message: `no answer from the bot within ${formatMs(timeoutMs)}`, expected } };
  if (outcome === 'ended') return { failure: { message: 'the sandbox closed the event stream before the bot answered', expected } };
  if (outcome.kind === 'none-can-come') return { failure: { message: outcome.message, expected } };
  if (outcome.kind === 'refused')
    return { failure: { ...refusal(outcome.event), expected }, untiedRefusal: outcome.event.sessionId === null };
  const answer = outcome.event;
  const index = answer.questionIndex;
  if (asked !== undefined && typeof index === 'bigint' && index < asked.questionIndex) {
    return {
      failure: {
        message: `the bot sent an answer no step expects: it answers question ${index}, and the customer's latest message is question ${asked.questionIndex}`,
        expected,
        received: visible(answer.body, expected),
      },
    };
  }
  const latencyMs = events.latency(answer, asked);
  const diff = matchAnswer(expected, answer.body);
  if (diff.length > 0) {
    const failure = {
      message: `the answer differs in ${diff.map((d) => d.path || '(the answer)').join(', ')}`,
      expected,
      received: visible(answer.body, expected),
      diff,
    };
    return latencyMs === undefined ? { failure } : { failure, latencyMs };
  }
  if (step.withinMs !== null && latencyMs !== undefined && latencyMs > step.withinMs) {
    return {
      failure: {
        message: `too late: answered in ${formatLatency(latencyMs)}, within ${formatLatency(step.withinMs)} expected`,
        received: visible(answer.body, expected),
      },
      latencyMs,
    };
  }
  for (const [name, template] of step.capture) {
    const pattern = substitute(template, values, 'match');
    const text = isRecord(answer.body) ? answer.body.text : undefined;
    const compiled = toPattern(pattern);
    const found = typeof text === 'string' && compiled.kind === 'regex' ? compiled.regex.exec(text) : null;
    if (found === null) {
      const failure: Failure = {
        message:
          typeof text === 'string'
            ? `capture ${name}: ${pattern} does not match the answer's text ${JSON.stringify(text)}`
            : `capture ${name}: the answer has no text to match ${pattern} with`,
        received: visible(answer.body, expected),
      };
      return latencyMs === undefined ? { failure } : { failure, latencyMs };
    }
    values.set(name, found.length > 1 ? (found[1] ?? '') : found[0]);
  }
  return latencyMs === undefined ? {} : { latencyMs };
}

async function expectSilence(events: ConversationEvents, asked: Asked | undefined, withinMs: number): Promise<Failure | undefined> {
  const outcome = await events.until<Next | 'silent'>(() => {
    const next = events.take();
    if (next) return next;
    // With agents, no webhook goes to the bot, so no answer can come.
    if (asked?.deliveryId === null && asked.noWebhook !== null && WITH_AGENTS.test(asked.noWebhook)) return 'silent';
    return undefined;
  }, withinMs);
  if (outcome === 'timeout' || outcome === 'silent' || outcome === 'ended') return undefined;
  if (outcome.kind === 'refused') return refusal(outcome.event);
  return { message: `an answer came where none was expected (within ${formatMs(withinMs)})`, received: visible(outcome.event.body) };
}

/** A refused answer or request of the bot, as a failure: the status and the sandbox's message. */
export function refusal(event: Event): Failure {
  const untied = event.sessionId === null;
  if (event.type === 'bot.answer' || event.type === 'greeting') {
    const what = event.type === 'greeting' ? 'greeting' : 'answer';
    return {
      message:
        `the bot's ${what}${untied ? ' (not tied to a conversation)' : ''} was not delivered (${event.status}: ${event.notDelivered ?? 'refused'}): ${event.error ?? ''}`.replace(
          /: $/,
          '',
        ),
      received: visible(event.body),
    };
  }
  // An API request refused before an answer: the only other refusal (isRefusal).
  const request = event.type === 'api.request' ? event : undefined;
  const named = Object.entries(request?.named ?? {})
    .filter(([, value]) => value !== null)
    .map(([key, value]) => `${key} ${String(value)}`);
  const error = request?.error ? `: ${request.error}` : '';
  return {
    message:
      `the sandbox refused a request of the bot${untied ? ' (not tied to a conversation)' : ''}: ` +
      `${String(request?.method)} ${String(request?.path)} answered ${String(request?.status)}${error}` +
      (untied && named.length > 0 ? ` (it named ${named.join(', ')})` : ''),
  };
}

/** Sends a customer message or a press; the failure is the sandbox's refusal. */
async function send(
  sandbox: SandboxClient,
  sessionId: string,
  step: PlannedStep,
  values: ReadonlyMap<string, string>,
): Promise<{ asked: Asked; action?: 'press' | 'pick' } | { failure: Failure }> {
  let message: Record<string, string>;
  let action: 'press' | 'pick' | undefined;
  if (step.kind === 'customer') message = { text: substitute(step.text, values, 'send') };
  else if (step.kind === 'press') {
    const shown = await sandbox.showConversation(sessionId);
    if (shown.status !== 200 || !has(shown.json, 'conversation')) {
      return { failure: { message: `the sandbox did not show the conversation: ${said(shown)}` } };
    }
    const { conversation } = shown.json as { conversation: { lastBotMessage: unknown } };
    message = sandbox.choose(conversation.lastBotMessage, substitute(step.label, values, 'send'));
    action = 'pick' in message ? 'pick' : 'press';
  } else throw new TypeError(`not a customer step: ${step.kind}`);
  const sent = await sandbox.sendMessage(sessionId, message);
  if (sent.status !== 201 || !has(sent.json, 'seq'))
    return { failure: { message: `the sandbox refused the ${step.kind === 'press' ? 'press' : 'message'}: ${said(sent)}` } };
  const json = sent.json as Asked;
  const asked = { seq: json.seq, questionIndex: json.questionIndex, deliveryId: json.deliveryId, noWebhook: json.noWebhook };
  return action === undefined ? { asked } : { asked, action };
}

/**
 * What a report shows of an answer: its fields as the customer gets them, and those of the other
 * fields that the step checks. The addressing fields and the answerId differ from run to run and
 * would only hide the difference where the step does not name them.
 */
export function visible(body: unknown, expected?: unknown): unknown {
  if (!isRecord(body)) return body;
  const named = isRecord(expected) ? ADDRESSING_FIELDS.filter((field) => field in expected) : [];
  return Object.fromEntries(
    [...CHECKED_FIELDS, ...named].filter((field) => body[field] !== undefined).map((field) => [field, body[field]]),
  );
}

function attemptSummary(attempt: WebhookAttemptEvent): string {
  const { status } = attempt;
  if (status === 401 || status === 403) {
    return `status ${status}: the bot refused the delivery; does it verify signatures with the secret the sandbox signs with (CORE_SANDBOX_WEBHOOK_SECRET)?`;
  }
  return status !== null ? `status ${status}` : String(attempt.error);
}

function said(answer: SandboxAnswer): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message;
  return `${answer.status} ${typeof message === 'string' ? message : answer.text.slice(0, 500) || '(no body)'}`;
}

function has(json: unknown, key: string): boolean {
  return typeof json === 'object' && json !== null && key in json;
}

/** A duration in the test's messages and reports (src/text/duration.ts). */
export const formatMs = formatDuration;

/** A measured time, such as a latency (the same one formatter: `640ms`, `1.52s`). */
export const formatLatency = formatDuration;
