import { performance } from 'node:perf_hooks';
import { matchAnswer, type FieldDiff } from '../../testing/match.js';
import { CHECKED_FIELDS } from '../../testing/schema.js';
import { isRecord } from '../../payload/json.js';
import { openEventStream, requestJson, type ClientInit, type SandboxAnswer } from '../customer/client.js';
import { choose } from '../customer/run.js';
import type { PlannedConversation, PlannedStep } from './load.js';
import { formatDuration } from '../../text/duration.js';

/**
 * Plays one conversation of `core test` against the bot through the sandbox (docs/testing-bots.md,
 * "How a conversation runs"): its own thread and client, the customer's messages and presses sent
 * through the sandbox's customer endpoints, and the bot's answers read from the conversation's event
 * stream. Every wait is for an event, bounded by the step's time limit: nothing sleeps.
 *
 * - A `bot:` step takes the next answer delivered to the customer and matches it. An answer the
 *   sandbox refused (a broken rule of the API, a thread with agents) or an API request it refused
 *   (an invalid body) fails the step; a repeated answerId, which the platform silently drops, is
 *   skipped. The step fails at once when no answer can come: the thread is with agents, or the
 *   webhook failed for good.
 * - `bot: none` passes when no answer comes within its time (at once when the thread is with agents).
 * - An answer no step expects fails the step that follows it: before sending the next customer
 *   message, and after the last step, the runner waits until the webhook of the previous message has
 *   been answered (or failed), and any answer not yet taken is the failure. An answer to an earlier
 *   question that a `bot:` step meets is one too.
 */

export interface RunnerInit {
  client: ClientInit;
  /** How long each step waits for what it expects (--timeout). */
  stepTimeoutMs: number;
}

export type StepOutcome = 'passed' | 'failed' | 'skipped';

export interface Failure {
  message: string;
  /** What a `bot:` step expected. */
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
  failure?: Failure;
}

export interface ConversationResult {
  file: string;
  index: number;
  name: string;
  line: number;
  channel: string;
  sessionId: string | null;
  outcome: 'passed' | 'failed';
  durationMs: number;
  steps: StepResult[];
  /** The first failure: of a step (stepIndex), or of the conversation itself (null: its start, or after its last step). */
  failure?: Failure & { stepIndex: number | null; line: number };
  /** Every webhook attempt of the conversation: whether the bot could be reached at all. */
  attempts: { status: number | null; error: string | null }[];
  /** Whether any request of the bot reached the sandbox's API in this conversation. */
  botSpoke: boolean;
}

type Event = Record<string, unknown> & { seq: bigint; type: string };

interface Asked {
  seq: bigint;
  questionIndex: bigint;
  deliveryId: string | null;
  noWebhook: string | null;
}

/** What the bot did next in the conversation: an answer delivered to the customer, or something refused. */
type Next = { kind: 'answer'; event: Event } | { kind: 'refused'; event: Event };

const WITH_AGENTS = /agents/;

export function stepTitle(step: PlannedStep): string {
  switch (step.kind) {
    case 'customer':
      return `customer: ${step.text}`;
    case 'press':
      return `press: ${step.label}`;
    case 'bot':
      return 'bot';
    case 'none':
      return 'bot: none';
  }
}

export async function runConversation(plan: PlannedConversation, init: RunnerInit): Promise<ConversationResult> {
  const started = performance.now();
  const result: ConversationResult = {
    file: plan.file,
    index: plan.index,
    name: plan.name,
    line: plan.line,
    channel: plan.channel,
    sessionId: null,
    outcome: 'passed',
    durationMs: 0,
    steps: plan.steps.map((step) => ({
      index: step.index,
      line: step.line,
      kind: step.kind,
      title: stepTitle(step),
      outcome: 'skipped',
      durationMs: 0,
    })),
    attempts: [],
    botSpoke: false,
  };
  const finish = (failure?: Failure & { stepIndex: number | null; line: number }): ConversationResult => {
    if (failure) {
      result.outcome = 'failed';
      result.failure = failure;
    }
    result.durationMs = Math.round(performance.now() - started);
    return result;
  };

  const body: Record<string, unknown> = { channel: plan.channel };
  if (plan.client?.clientId !== undefined) body.clientId = plan.client.clientId;
  if (plan.client?.coreClientId !== undefined) body.coreClientId = plan.client.coreClientId;
  const opened = await requestJson(init.client, 'POST', '/_sandbox/conversations', body);
  if (opened.status !== 201 || !has(opened.json, 'sessionId')) {
    return finish({ stepIndex: null, line: plan.line, message: `the sandbox did not start the conversation: ${said(opened)}` });
  }
  const sessionId = String((opened.json as { sessionId: unknown }).sessionId);
  result.sessionId = sessionId;

  const events = new ConversationEvents(init.client.signal);
  const stream = openEventStream(init.client, `?session=${encodeURIComponent(sessionId)}&after=0`, (event) => {
    events.add(event as Event);
    if (event.type === 'webhook.attempt') {
      result.attempts.push({ status: event.status == null ? null : Number(event.status), error: (event.error as string | null) ?? null });
    }
    if (event.type === 'bot.answer' || event.type === 'api.request') result.botSpoke = true;
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
          const sent = await send(init.client, sessionId, step);
          if ('failure' in sent) failure = sent.failure;
          else asked = sent.asked;
        }
      } else if (step.kind === 'bot') {
        failure = await expectAnswer(events, asked, step.expect, init.stepTimeoutMs);
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

/** The events of one conversation as they arrive, and waits on them. */
class ConversationEvents {
  private readonly list: Event[] = [];
  /** The index of the first event a step has not looked at. */
  private cursor = 0;
  private readonly listeners = new Set<() => void>();
  ended = false;

  constructor(private readonly signal: AbortSignal) {}

  add(event: Event): void {
    this.list.push(event);
    for (const listener of [...this.listeners]) listener();
  }

  end(): void {
    this.ended = true;
    for (const listener of [...this.listeners]) listener();
  }

  /**
   * The bot's next doing since the cursor, taken (the cursor moves past it), or undefined. Answers
   * with a repeated answerId are not delivered, by the API's chatbot rule 6, and are passed over.
   */
  take(): Next | undefined {
    while (this.cursor < this.list.length) {
      const event = this.list[this.cursor++]!;
      if (event.type === 'bot.answer') {
        if (event.delivered === true) return { kind: 'answer', event };
        if (event.notDelivered !== 'duplicate answerId') return { kind: 'refused', event };
      } else if (event.type === 'api.request' && Number(event.status) >= 400) {
        return { kind: 'refused', event };
      }
    }
    return undefined;
  }

  /** Whether the webhook of a message has finished: delivered, failed for good, or none sent. */
  delivery(asked: Asked): { done: boolean; failed: Event | undefined; attempts: number } {
    if (asked.deliveryId === null) return { done: true, failed: undefined, attempts: 0 };
    const attempts = this.list.filter((e) => e.type === 'webhook.attempt' && e.deliveryId === asked.deliveryId);
    const last = attempts.at(-1);
    const done = last !== undefined && (last.outcome === 'delivered' || last.outcome === 'failed');
    return { done, failed: last?.outcome === 'failed' ? last : undefined, attempts: attempts.length };
  }

  /**
   * Waits until `check` gives a value (it is asked now and after every event), the time runs out, the
   * stream ends, or Ctrl-C.
   */
  until<T>(check: () => T | undefined, timeoutMs: number): Promise<T | 'timeout' | 'ended'> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (value: T | 'timeout' | 'ended') => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        this.signal.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const listener = () => {
        const value = check();
        if (value !== undefined) done(value);
        else if (this.ended) done('ended');
      };
      const onAbort = () => done('ended');
      this.listeners.add(listener);
      this.signal.addEventListener('abort', onAbort, { once: true });
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

async function expectAnswer(
  events: ConversationEvents,
  asked: Asked | undefined,
  expected: Parameters<typeof matchAnswer>[0],
  timeoutMs: number,
): Promise<Failure | undefined> {
  const outcome = await events.until<Next | { kind: 'none-can-come'; message: string }>(() => {
    const next = events.take();
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
  if (outcome === 'timeout') return { message: `no answer from the bot within ${formatMs(timeoutMs)}`, expected };
  if (outcome === 'ended') return { message: 'the sandbox closed the event stream before the bot answered', expected };
  if (outcome.kind === 'none-can-come') return { message: outcome.message, expected };
  if (outcome.kind === 'refused') return { ...refusal(outcome.event), expected };
  const answer = outcome.event;
  const index = answer.questionIndex;
  if (asked !== undefined && typeof index === 'bigint' && index < asked.questionIndex) {
    return {
      message: `the bot sent an answer no step expects: it answers question ${index}, and the customer's latest message is question ${asked.questionIndex}`,
      expected,
      received: visible(answer.body),
    };
  }
  const diff = matchAnswer(expected, answer.body);
  if (diff.length === 0) return undefined;
  return {
    message: `the answer differs in ${diff.map((d) => d.path || '(the answer)').join(', ')}`,
    expected,
    received: visible(answer.body),
    diff,
  };
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

/** A refused answer or request of the bot, as a failure. */
function refusal(event: Event): Failure {
  if (event.type === 'bot.answer') {
    return {
      message:
        `the bot's answer was not delivered (${String(event.status)}: ${String(event.notDelivered)}): ${String(event.error ?? '')}`.replace(
          /: $/,
          '',
        ),
      received: visible(event.body),
    };
  }
  return {
    message:
      `the sandbox refused a request of the bot: ${String(event.method)} ${String(event.path)} answered ${String(event.status)}: ${String(event.error ?? '')}`.replace(
        /: $/,
        '',
      ),
  };
}

/** Sends a customer message or a press; the failure is the sandbox's refusal. */
async function send(client: ClientInit, sessionId: string, step: PlannedStep): Promise<{ asked: Asked } | { failure: Failure }> {
  const path = `/_sandbox/conversations/${encodeURIComponent(sessionId)}`;
  let message: Record<string, string>;
  if (step.kind === 'customer') message = { text: step.text };
  else if (step.kind === 'press') {
    const shown = await requestJson(client, 'GET', `${path}?limit=0`);
    if (shown.status !== 200 || !has(shown.json, 'conversation')) {
      return { failure: { message: `the sandbox did not show the conversation: ${said(shown)}` } };
    }
    const { conversation } = shown.json as { conversation: { lastBotMessage: Parameters<typeof choose>[0] } };
    message = choose(conversation.lastBotMessage, step.label);
  } else throw new TypeError(`not a customer step: ${step.kind}`);
  const sent = await requestJson(client, 'POST', `${path}/messages`, message);
  if (sent.status !== 201 || !has(sent.json, 'seq'))
    return { failure: { message: `the sandbox refused the ${step.kind === 'press' ? 'press' : 'message'}: ${said(sent)}` } };
  const json = sent.json as { seq: bigint; questionIndex: bigint; deliveryId: string | null; noWebhook: string | null };
  return { asked: { seq: json.seq, questionIndex: json.questionIndex, deliveryId: json.deliveryId, noWebhook: json.noWebhook } };
}

/**
 * What a report shows of an answer: the fields a step can check, as the customer gets them. The
 * addressing fields and the answerId differ from run to run and would only hide the difference.
 */
export function visible(body: unknown): unknown {
  if (!isRecord(body)) return body;
  return Object.fromEntries(CHECKED_FIELDS.filter((field) => body[field] !== undefined).map((field) => [field, body[field]]));
}

function attemptSummary(attempt: Event): string {
  // Numbers of the event stream are read losslessly, as bigints.
  const status = attempt.status == null ? null : Number(attempt.status);
  if (status === 401 || status === 403) {
    return `status ${String(attempt.status)}: the bot refused the delivery; does it verify signatures with the secret the sandbox signs with (CORE_SANDBOX_WEBHOOK_SECRET)?`;
  }
  return attempt.status != null ? `status ${String(attempt.status)}` : String(attempt.error);
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
