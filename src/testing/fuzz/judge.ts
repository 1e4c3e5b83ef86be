import type { Channel } from '../../payload/channels.js';
import type { SandboxEvent } from '../check-bot/observe.js';

/**
 * The platform's rules a fuzzed conversation is judged by (docs/check-bot.md, "Fuzzing"): pure, from
 * what the conversation played (how the bot answered each delivery, whether an answer came in time)
 * and the sandbox's events of its thread. The first rule broken is the conversation's failure, and
 * shrinking keeps a smaller conversation only when it breaks the same rule.
 */

export const FUZZ_RULES = [
  'unreachable',
  'server-error',
  'no-response',
  'refused-delivery',
  'email-addressing',
  'ids',
  'second-answer',
  'redelivery-answered',
  'invalid-answer',
  'no-answer',
] as const;
export type FuzzRule = (typeof FUZZ_RULES)[number];

/**
 * The rules decided by how the bot acknowledged each delivery and whether an answer came while it was
 * waited for: nothing the bot does after a conversation's last step can break one of them, so a
 * conversation that broke none when it ended breaks none later. The other rules read the bot's answers,
 * and a second answer can come late.
 */
export const PROMPT_RULES: ReadonlySet<FuzzRule> = new Set<FuzzRule>([
  'unreachable',
  'server-error',
  'no-response',
  'refused-delivery',
  'no-answer',
]);

/** The fix of each rule, in one line. */
export const FUZZ_FIXES: Readonly<Record<FuzzRule, string>> = {
  unreachable: 'keep the bot running: a delivery must never stop it; start it again and replay the case',
  'server-error': 'answer 2xx to every verified delivery, whatever its text, fields or format: catch what your handler throws',
  'no-response': 'answer every delivery (2xx) within the time limit; a handler that throws or hangs drops the connection',
  'refused-delivery': 'accept every correctly signed delivery: read the fields you need, ignore the others, parse any valid JSON',
  'email-addressing': 'answer a message of type EMAIL by sessionId and questionIndex, every question of the thread (chatbot rule 2)',
  ids: 'read questionId and coreClientId without losing digits (they go past 2^53) and send them back exactly',
  'second-answer': 'answer each question once: the platform refuses a second answer in strict mode (chatbot rule 7)',
  'redelivery-answered': 'do not answer a redelivered webhook-id anew: remember it, or make the answerId from it (chatbot rule 6)',
  'invalid-answer': "send answers the API takes: the sandbox's message says which rule the answer broke",
  'no-answer': 'answer every message within the time limit, whatever its text, attachments or fields',
};

/** How the bot answered one delivery (the probe's report). */
export interface Attempt {
  status: number | null;
  error: string | null;
  latencyMs: number;
  /** The bot's answer body, cut to 2 KB. */
  body: string;
  /** The exact body sent. */
  delivery: string;
}

export interface PlayedMessage {
  questionId: bigint;
  questionIndex: bigint;
  deliveryId: string;
  attempt: Attempt;
  redelivery: Attempt | null;
  /** Whether an answer to it came within the time limit (null: none was waited for, the delivery failed). */
  answered: boolean | null;
}

export interface PlayedConversation {
  sessionId: string;
  channel: Channel;
  coreClientId: bigint;
  messages: PlayedMessage[];
  /** The sandbox's events of the thread. */
  events: readonly SandboxEvent[];
  /** Refusals of the bot's requests that named no conversation, seen while it played. */
  untied: readonly SandboxEvent[];
  strict: boolean;
}

export interface FuzzFailure {
  rule: FuzzRule;
  /** The message of the conversation it is about (0-based). */
  message: number;
  text: string;
}

const is2xx = (status: number | null) => status !== null && status >= 200 && status < 300;

/** A delivery the bot did not take: why, or null when it answered 2xx. */
function attemptFailure(attempt: Attempt, what: string): { rule: FuzzRule; text: string } | null {
  if (is2xx(attempt.status)) return null;
  if (attempt.status === null) {
    const error = attempt.error ?? 'no answer';
    return /ECONNREFUSED/.test(error)
      ? { rule: 'unreachable', text: `${what} could not reach the bot (${error})` }
      : { rule: 'no-response', text: `${what} got no answer (${error})` };
  }
  const body = attempt.body.trim() === '' ? '' : `: ${JSON.stringify(attempt.body.trim().slice(0, 200))}`;
  if (attempt.status >= 500) return { rule: 'server-error', text: `${what}: the bot answered ${attempt.status}${body}` };
  return { rule: 'refused-delivery', text: `${what}: the bot refused it with ${attempt.status}${body}` };
}

/** Whether `named` is `ours` read through a double: the same number once rounded, another id. */
export function roundedFrom(named: unknown, ours: bigint): boolean {
  return named !== ours && BigInt(Number(ours)) === named;
}

export function judge(played: PlayedConversation, rules?: ReadonlySet<FuzzRule>): FuzzFailure | null {
  // With `rules` (--only), the first failure of those rules; a bot that cannot be reached always counts.
  const counts = (failure: FuzzFailure | null) =>
    failure !== null && (rules === undefined || rules.has(failure.rule) || failure.rule === 'unreachable');
  for (const [index, message] of played.messages.entries()) {
    const failure = attemptFailure(message.attempt, `message ${index + 1}`);
    if (failure && counts({ ...failure, message: index })) return { ...failure, message: index };
    const again = message.redelivery && attemptFailure(message.redelivery, `the redelivery of message ${index + 1}`);
    if (again && counts({ ...again, message: index })) return { ...again, message: index };
  }
  for (const rule of [wrongIds, refusedAnswer, repeatedAnswer, missingAnswer]) {
    const failure = rule(played);
    if (counts(failure)) return failure;
  }
  return null;
}

/**
 * What the judge reads of one event of a conversation whose play is over, kept until the end of the run
 * (a late answer is judged then): the bot's requests, its answers without their texts (of the body, the
 * two identifiers namedIn reads), and the redeliveries; undefined for every other event, which nothing
 * reads once the conversation has been played. A run of 1,000 conversations keeps this much of each.
 */
export function judgedPart(event: SandboxEvent): SandboxEvent | undefined {
  if (event.type === 'api.request' || event.type === 'webhook.redelivery') return event;
  if (event.type !== 'bot.answer') return undefined;
  const body = typeof event.body === 'object' ? (event.body as Record<string, unknown> | null) : null;
  return {
    ...event,
    body: body === null ? null : { questionId: body.questionId, coreClientId: body.coreClientId },
    formattedHtml: null,
    warnings: [],
    userAgent: null,
    during: [],
  };
}

/** The message a question belongs to, by its questionId; -1 when none. */
const messageOf = (played: PlayedConversation, questionId: unknown) =>
  played.messages.findIndex((message) => message.questionId === questionId);

/** An answer (or other request) of the bot that the sandbox refused, by the rule it broke. */
function refusedAnswer(played: PlayedConversation): FuzzFailure | null {
  for (const event of played.events) {
    if ((event.type !== 'bot.answer' && event.type !== 'api.request') || event.status < 400) continue;
    const { status } = event;
    const notDelivered = event.type === 'bot.answer' ? event.notDelivered : null;
    const index = Math.max(0, messageOf(played, event.type === 'bot.answer' ? event.questionId : event.named.questionId));
    const error = event.error ?? '';
    if (notDelivered === 'EMAIL question not addressed by sessionId and questionIndex') {
      return { rule: 'email-addressing', message: index, text: `the answer to message ${index + 1} was refused: ${status} ${error}` };
    }
    if (notDelivered === 'question already answered (strict mode)') {
      // The first wrong thing: a second answer that came before the message was redelivered is the second
      // answer, whatever comes after; only one that came after the redelivery answers it anew.
      const redelivered = event.seq > redeliveredAt(played, played.messages[index]);
      return {
        rule: redelivered ? 'redelivery-answered' : 'second-answer',
        message: index,
        text: `message ${index + 1} was answered twice${redelivered ? ', the second time after its redelivery' : ''}: ${status} ${error}`,
      };
    }
    return {
      rule: 'invalid-answer',
      message: index,
      text: `the bot's ${event.type === 'bot.answer' ? 'answer' : 'request'} was refused: ${status} ${error}`,
    };
  }
  return null;
}

/** The identifiers a refused request of the bot named: read by the sandbox (api.request), or in the answer's body. */
export function namedIn(event: SandboxEvent): { questionId?: unknown; coreClientId?: unknown; status: number } | null {
  if (event.type === 'api.request') return { ...event.named, status: event.status };
  if (event.type !== 'bot.answer' || typeof event.body !== 'object' || event.body === null) return null;
  const body = event.body as Record<string, unknown>;
  return { questionId: body.questionId, coreClientId: body.coreClientId, status: event.status };
}

/** Identifiers the bot sent back other than it was given: through a double (past 2^53), or another thread's. */
function wrongIds(played: PlayedConversation): FuzzFailure | null {
  // A refusal is tied to the conversation when it came while the conversation's delivery was the one with the bot,
  // and to none otherwise.
  for (const event of [...played.untied, ...played.events]) {
    if (event.type === 'bot.answer' && event.delivered === true) continue;
    const named = namedIn(event);
    if (named === null) continue;
    const index = played.messages.findIndex((message) => roundedFrom(named.questionId, message.questionId));
    const client = roundedFrom(named.coreClientId, played.coreClientId);
    if (index >= 0 || client) {
      const which =
        index >= 0
          ? `questionId ${String(named.questionId)} for ${played.messages[index]!.questionId}`
          : `coreClientId ${String(named.coreClientId)} for ${played.coreClientId}`;
      return {
        rule: 'ids',
        message: Math.max(index, 0),
        text: `the bot answered with ${which}: the id lost its last digits (read as a double); refused ${named.status}`,
      };
    }
  }
  for (const event of played.events) {
    if (event.type !== 'bot.answer' || event.delivered !== true) continue;
    const body = (event.body ?? {}) as Record<string, unknown>;
    const index = Math.max(0, messageOf(played, event.questionId));
    if (body.coreClientId !== undefined && body.coreClientId !== played.coreClientId) {
      return {
        rule: 'ids',
        message: index,
        text: `the answer named coreClientId ${String(body.coreClientId)}; the client is ${played.coreClientId}`,
      };
    }
    // addressedBy lists the ways an answer carries, such as `sessionId+questionIndex` and `questionId`.
    const ways = Array.isArray(event.addressedBy) ? event.addressedBy.map(String) : [];
    if (played.channel === 'EMAIL' && !ways.some((way) => way.includes('sessionId') && way.includes('questionIndex'))) {
      return {
        rule: 'email-addressing',
        message: index,
        text: `an answer in the EMAIL thread was addressed by ${ways.join(' and ') || 'nothing'}, not by sessionId and questionIndex`,
      };
    }
  }
  return null;
}

/**
 * The seq of the message's first redelivery (its webhook.redelivery event), or Infinity when it was not
 * redelivered: an answer recorded before it cannot be an answer to the redelivery.
 */
export function redeliveredAt(played: PlayedConversation, message: PlayedMessage | undefined): number {
  if (message === undefined || message.redelivery === null) return Infinity;
  const event = played.events.find((each) => each.type === 'webhook.redelivery' && each.deliveryId === message.deliveryId);
  return event?.seq ?? Infinity;
}

/**
 * A redelivered message answered anew: an answer after its redelivery under an answerId not given before
 * it (a repeated answerId is dropped, and fine). Answers before the redelivery are not counted: two of
 * them are a second answer, which only strict mode refuses (refusedAnswer).
 */
function repeatedAnswer(played: PlayedConversation): FuzzFailure | null {
  for (const [index, message] of played.messages.entries()) {
    const at = redeliveredAt(played, message);
    const answers = played.events.filter(
      (event): event is SandboxEvent & { type: 'bot.answer' } =>
        event.type === 'bot.answer' && event.questionId === message.questionId && event.notDelivered !== 'duplicate answerId',
    );
    const before = new Set(answers.filter((event) => event.seq < at).map((event) => String(event.answerId)));
    // Every answer before the redelivery is in `before`: an answerId not in it came after the redelivery.
    const anew = answers.filter((event) => !before.has(String(event.answerId))).map((event) => String(event.answerId));
    if (before.size > 0 && anew.length > 0) {
      return {
        rule: 'redelivery-answered',
        message: index,
        text: `message ${index + 1} was redelivered and answered anew (answerIds ${[...before, ...anew].join(', ')})`,
      };
    }
  }
  return null;
}

function missingAnswer(played: PlayedConversation): FuzzFailure | null {
  const index = played.messages.findIndex((message) => message.answered === false);
  return index < 0 ? null : { rule: 'no-answer', message: index, text: `message ${index + 1} got no answer within the time limit` };
}
