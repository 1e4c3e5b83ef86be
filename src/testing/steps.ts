import { isRecord } from '../payload/json.js';
import { ConversationEvents, type Asked, type Event, type Next } from './conversation-events.js';
import type { Handover, PlannedStep } from './load.js';
import type { BotAnswerEvent, HandoverQueuedEvent, HandoverRoutedEvent, WebhookAttemptEvent } from '../sandbox/events.js';
import { matchAnswer, patternsToMatch } from './match.js';
import { patternParts, patternProblem, quoted, toPattern } from './pattern.js';
import type { PatternWorker } from './pattern-worker.js';
import type { SandboxAnswer, SandboxClient } from './platform.js';
import { formatLatency, formatMs, type Failure } from './results.js';
import { ADDRESSING_FIELDS, CHECKED_FIELDS } from './schema.js';
import { substitute, substituteAll } from './substitute.js';

/** The steps of a conversation of `core test` as the runner plays them (src/testing/runner.ts). */

const WITH_AGENTS = /agents/;

/** Waits for the previous message's webhook to finish, then reports any answer no step took. */
export async function unexpectedAnswer(
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

/** What a `bot:` step found: its failure, the answer's latency, and whether a refusal tied to no conversation failed it. */
type Taken = { failure?: Failure; latencyMs?: number; untiedRefusal?: boolean };

/** What a step waiting on an answer meets: the bot's next doing, or the sign that no answer can come. */
type Waited = Next | { kind: 'none-can-come'; message: string };

export async function expectAnswer(
  events: ConversationEvents,
  asked: Asked | undefined,
  step: BotStep,
  values: Map<string, string>,
  timeoutMs: number,
  patterns: PatternWorker,
): Promise<Taken> {
  const expected = substituteAll(step.expect, values) as BotStep['expect'];
  const outcome = await events.until<Waited>(() => nextDoing(events, asked), timeoutMs);
  if (outcome === 'timeout') return { failure: { message: `no answer from the bot within ${formatMs(timeoutMs)}`, expected } };
  if (outcome === 'ended') return { failure: { message: 'the sandbox closed the event stream before the bot answered', expected } };
  if (outcome.kind === 'none-can-come') return { failure: { message: outcome.message, expected } };
  if (outcome.kind === 'refused')
    return { failure: { ...refusal(outcome.event), expected }, untiedRefusal: outcome.event.sessionId === null };
  const taken = await checkAnswer(events, asked, step, values, expected, outcome.event, { worker: patterns, limitMs: timeoutMs });
  if (taken.failure !== undefined || step.handover === null) return taken;
  const failure = await expectHandover(events, outcome.event, step.handover, timeoutMs);
  return failure === undefined ? taken : { ...taken, failure };
}

/** A step's `handover` as the file writes it, for reports. */
const handoverShown = (handover: Handover) => (handover === 'queued' ? 'queued' : { agent: handover.agent });

function routingSaid(routing: HandoverRoutedEvent | HandoverQueuedEvent): string {
  if (routing.type === 'handover.queued') return `was queued (${routing.why})`;
  const by = routing.matched.length === 0 ? 'it named no targets, so any agent' : `matched by ${routing.matched.join(' and ')}`;
  return `went to agent ${routing.agentId} (${routing.agentName}), ${by}`;
}

/**
 * `handover:` beside a `bot:` step: the answer hands the thread or the question over, and the sandbox
 * routes it (docs/sandbox.md, "Agents") to the agent the step names, or queues it.
 */
export async function expectHandover(
  events: ConversationEvents,
  answer: BotAnswerEvent,
  handover: Handover,
  timeoutMs: number,
): Promise<Failure | undefined> {
  const expected = { handover: handoverShown(handover) };
  const wanted = handover === 'queued' ? 'queued' : `routed to agent ${handover.agent}`;
  const code = isRecord(answer.body) ? answer.body.code : undefined;
  if (code !== 'SWITCH_TO_HUMAN' && code !== 'UNCLEAR_QUESTION') {
    return {
      message: `the answer hands nothing over (code ${typeof code === 'string' ? code : 'none'}), and the step expects a hand-over ${wanted}: the bot answers with SWITCH_TO_HUMAN or UNCLEAR_QUESTION to hand over`,
      expected,
      received: visible(answer.body),
    };
  }
  const routing = await events.until(() => events.routingAfter(answer.seq), timeoutMs);
  if (routing === 'timeout' || routing === 'ended') {
    return {
      message:
        routing === 'ended'
          ? 'the sandbox closed the event stream before the hand-over was routed'
          : `the hand-over was neither routed nor queued within ${formatMs(timeoutMs)} (was the thread already with agents?)`,
      expected,
    };
  }
  const received = visible(answer.body);
  if (handover === 'queued') {
    return routing.type === 'handover.queued'
      ? undefined
      : { message: `the hand-over ${routingSaid(routing)}; the step expects it queued`, expected, received };
  }
  if (routing.type === 'handover.routed' && routing.agentId === handover.agent) return undefined;
  return { message: `the hand-over ${routingSaid(routing)}; the step expects agent ${handover.agent}`, expected, received };
}

/** An `agent:` step: an agent writes in the thread (the one named, or the one that holds it). */
export async function agentWrites(
  sandbox: SandboxClient,
  sessionId: string,
  step: Extract<PlannedStep, { kind: 'agent' }>,
  values: ReadonlyMap<string, string>,
): Promise<Failure | undefined> {
  const body: Record<string, unknown> = { text: substitute(step.text, values, 'send') };
  if (step.agentId !== null) body.agentId = step.agentId;
  const written = await sandbox.agentMessage(sessionId, body);
  if (written.status === 201) return undefined;
  return { message: `the sandbox refused the agent's message: ${said(written)}` };
}

/** A `release: true` step: the thread back to the bot; a thread that was with the bot already fails it. */
export async function releaseThread(sandbox: SandboxClient, sessionId: string): Promise<Failure | undefined> {
  const released = await sandbox.release(sessionId);
  if (released.status !== 200 || !has(released.json, 'released'))
    return { message: `the sandbox refused to give the thread back to the bot: ${said(released)}` };
  if ((released.json as { released: unknown }).released === true) return undefined;
  return {
    message:
      'nothing to give back: the thread and its questions are with the bot (release: true gives back what agents hold or the queue holds)',
  };
}

/** The bot's next doing since the step began, or why none can come: the thread is with agents, or the webhook failed. */
function nextDoing(events: ConversationEvents, asked: Asked | undefined): Waited | undefined {
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
}

/** Where a step's /patterns/ run, and how long each may take (the step's time limit). */
interface Matching {
  worker: PatternWorker;
  limitMs: number;
}

/** An answer that came, checked: the question it answers, the fields, `within`, then each `capture` kept in `values`. */
async function checkAnswer(
  events: ConversationEvents,
  asked: Asked | undefined,
  step: BotStep,
  values: Map<string, string>,
  expected: BotStep['expect'],
  answer: BotAnswerEvent,
  matching: Matching,
): Promise<Taken> {
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
  const withLatency = (failure: Failure): Taken => (latencyMs === undefined ? { failure } : { failure, latencyMs });
  // A pattern that its captured or examples values make one the engine cannot compile (a value of
  // 60,000 characters): the file was checked with placeholders, so it is known only now.
  const unusable = unusablePattern(expected, step.capture, values);
  if (unusable !== undefined) return withLatency({ message: unusable, received: visible(answer.body, expected) });
  // Each /pattern/ is run in the worker first, with its bound; the fields are then compared with those outcomes.
  const outcomes: boolean[] = [];
  for (const { pattern, text } of patternsToMatch(expected, answer.body)) {
    const found = await runPattern(matching, pattern, text);
    if ('failure' in found) return withLatency({ message: found.failure, received: visible(answer.body, expected) });
    outcomes.push(found.found !== null);
  }
  let next = 0;
  const diff = matchAnswer(expected, answer.body, () => outcomes[next++] ?? false);
  if (diff.length > 0) {
    return withLatency({
      message: `the answer differs in ${diff.map((d) => d.path || '(the answer)').join(', ')}`,
      expected,
      received: visible(answer.body, expected),
      diff,
    });
  }
  if (step.withinMs !== null && latencyMs !== undefined && latencyMs > step.withinMs) {
    return withLatency({
      message: `too late: answered in ${formatLatency(latencyMs)}, within ${formatLatency(step.withinMs)} expected`,
      received: visible(answer.body, expected),
    });
  }
  const failure = await capture(step, values, answer, expected, matching);
  if (failure) return withLatency(failure);
  return latencyMs === undefined ? {} : { latencyMs };
}

/** Why a /pattern/ of a step, its values filled in, cannot be used; undefined when every one can. */
function unusablePattern(expected: unknown, capture: BotStep['capture'], values: Map<string, string>): string | undefined {
  const inAnswer = patternProblemIn(expected);
  if (inAnswer !== undefined) return `with its values filled in, ${inAnswer}`;
  for (const [name, template] of capture) {
    const problem = patternProblem(substitute(template, values, 'match'));
    if (problem !== undefined) return `capture ${name}: with its values filled in, ${problem}`;
  }
  return undefined;
}

/** The first problem of a /pattern/ among the strings of an expected value. */
function patternProblemIn(value: unknown): string | undefined {
  if (typeof value === 'string') return patternProblem(value);
  const items = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : [];
  for (const item of items) {
    const problem = patternProblemIn(item);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * A /pattern/ run on a text in the worker, within the step's time limit. The failure: a pattern that
 * did not end in time (one that backtracks without end on this text), or that the engine refused.
 */
async function runPattern(
  matching: Matching,
  pattern: string,
  text: string,
): Promise<{ found: (string | null)[] | null } | { failure: string }> {
  const parts = patternParts(pattern);
  if (parts === undefined) return { found: null };
  const outcome = await matching.worker.exec(parts.source, parts.flags, text, matching.limitMs);
  if ('found' in outcome) return outcome;
  if ('error' in outcome) return { failure: `${quoted(pattern)} could not be matched: ${outcome.error}` };
  return {
    failure:
      `${quoted(pattern)} did not finish matching a text of ${text.length.toLocaleString('en-US')} characters within ${formatMs(matching.limitMs)} ` +
      "(the step's time limit): the pattern backtracks without end on this text. Write it without a repetition inside a repetition, " +
      'such as (\\w+\\s?)*, or anchor what each part may match',
  };
}

/** Keeps each value the step captures from the answer's text; a pattern that does not match is the failure. */
async function capture(
  step: BotStep,
  values: Map<string, string>,
  answer: BotAnswerEvent,
  expected: BotStep['expect'],
  matching: Matching,
): Promise<Failure | undefined> {
  for (const [name, template] of step.capture) {
    const pattern = substitute(template, values, 'match');
    const text = isRecord(answer.body) ? answer.body.text : undefined;
    let found: (string | null)[] | null = null;
    if (typeof text === 'string') {
      const run = await runPattern(matching, pattern, text);
      if ('failure' in run) return { message: `capture ${name}: ${run.failure}`, received: visible(answer.body, expected) };
      found = run.found;
    }
    if (found === null) {
      return {
        message:
          typeof text === 'string'
            ? `capture ${name}: ${pattern} does not match the answer's text ${JSON.stringify(text)}`
            : `capture ${name}: the answer has no text to match ${pattern} with`,
        received: visible(answer.body, expected),
      };
    }
    values.set(name, (found.length > 1 ? found[1] : found[0]) ?? '');
  }
  return undefined;
}

export async function expectSilence(events: ConversationEvents, asked: Asked | undefined, withinMs: number): Promise<Failure | undefined> {
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
export async function send(
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

export function said(answer: SandboxAnswer): string {
  const message = (answer.json as { message?: unknown } | undefined)?.message;
  return `${answer.status} ${typeof message === 'string' ? message : answer.text.slice(0, 500) || '(no body)'}`;
}

export function has(json: unknown, key: string): boolean {
  return typeof json === 'object' && json !== null && key in json;
}
