import { choose } from '../customer/choose.js';
import { AnswerWait, SETTLE_MS, type WaitEnd, type WaitResult } from '../customer/wait.js';
import type { Channel, ChannelName } from '../payload/channels.js';
import type { SandboxAnswer } from '../platform/connection.js';
import { inProcessConnection } from '../platform/in-process.js';
import type { BotAnswerEvent, HandoverEvent, WebhookAttemptEvent } from '../sandbox/events.js';
import type { ConversationView, SandboxEvent } from '../sandbox/server.js';
import type { AddressedBy, ReplyBody } from './reply-body.js';

/**
 * The customer's side of a sandbox conversation from code: what `core customer say` and `press` do,
 * in-process, through the in-process connection of src/platform/ on the sandbox's handle. Messages go
 * to the sandbox's own endpoints over loopback HTTP (docs/sandbox.md, "The customer's side"), exactly
 * as the page and `core customer` send them; the bot's answers are read from the sandbox's events
 * through `sandbox.subscribe`, opened before each message is sent so none can slip by. When the wait
 * ends is the rule of `core customer` (src/customer/wait.ts).
 */

/** What the customer needs of a running sandbox: a handle of `startSandbox` has all of it. */
export interface CustomerSandbox {
  readonly url: string;
  subscribe(listener: (event: SandboxEvent) => void, onClose?: () => void): () => void;
  conversation(sessionId: string): ConversationView | undefined;
}

/**
 * A bot answer as an exchange gives it: the `bot.answer` event, its `body` typed as the reply it is
 * (only answers the API's schema accepts become bot answers), and `addressedBy` as the ways it was
 * addressed.
 */
export type ExchangeAnswer = Omit<BotAnswerEvent, 'body' | 'addressedBy'> & { body: ReplyBody; addressedBy: AddressedBy[] };

/** How a conversation starts: as POST /_sandbox/conversations takes it. */
export interface ConversationStart {
  /** Default: the sandbox's first tenant. */
  tenant?: string;
  /** 'WEB' (the default), 'IM' or 'EMAIL', in any case ('im' is 'IM'). */
  channel?: ChannelName;
  /** The external client ID of an authorized client. */
  clientId?: string;
  /** The internal client ID (a long); a new one by default. */
  coreClientId?: bigint;
}

export interface WaitOptions {
  /** How long to wait for the bot's answers, in milliseconds. Default 10000, as `core customer --wait`. */
  waitMs?: number;
  /**
   * How long a quiet spell after an answer (or a refusal) ends the wait, in milliseconds: each answer
   * restarts it, so answers sent one after another are all taken. Default 300, as `core customer`.
   * Longer for a bot that pauses between its answers; 0 to end at the first answer once the webhook
   * is delivered.
   */
  settleMs?: number;
}

/**
 * Why the wait ended: `answered` (at least one answer was delivered to the customer), `no-answer`
 * (the wait ran out), `with-agents` (the thread is with agents, so no webhook was sent, and no agent wrote),
 * `webhook-failed` (the bot was not reached and no answer came), `stream-ended` (the sandbox closed),
 * `refused` (the sandbox refused a request of the bot: see `refused`).
 */
export type ExchangeEnd = WaitEnd;

/** One customer message and what came of it: the document `core customer say --json` prints. */
export interface CustomerExchange {
  /** Whether at least one bot answer was delivered to the customer. */
  ok: boolean;
  end: ExchangeEnd;
  tenant: string;
  sessionId: string;
  question: {
    seq: number;
    questionId: bigint;
    questionIndex: bigint;
    type: 'TEXT' | 'EMAIL';
    deliveryId: string | null;
    noWebhook: string | null;
  };
  /** Every bot answer to the conversation after the message, delivered or not (`delivered`, `notDelivered` say). */
  answers: ExchangeAnswer[];
  /** The `text` of each delivered answer, in order: what the customer reads. */
  texts: string[];
  handovers: HandoverEvent[];
  /** Where each hand-over went (handover.routed to an agent, handover.queued), and a release back to the bot. */
  routings: WaitResult['routings'];
  /** What agents wrote in the thread during the wait (an agent's message counts as an answer for `ok`). */
  agentMessages: WaitResult['agentMessages'];
  /** The MESSAGE webhook's attempts; empty when none was sent. */
  attempts: WebhookAttemptEvent[];
  /** delivered or failed; pending when the wait ended during the attempts; null when no webhook was sent. */
  delivery: 'delivered' | 'failed' | 'pending' | null;
  /**
   * The bot's requests the sandbox refused during the wait, as `core customer say --json` lists them:
   * those tied to this conversation, and those tied to none (`sessionId` null: an unknown questionId,
   * an unknown tenant) that came while no answer had.
   */
  refused: SandboxEvent[];
}

export interface CustomerConversation {
  readonly tenant: string;
  readonly sessionId: string;
  readonly channel: Channel;
  readonly coreClientId: bigint;
  readonly clientId: string | null;
  /** Writes `text` as the customer and waits for the bot's answers. */
  say(text: string, options?: WaitOptions): Promise<CustomerExchange>;
  /**
   * Presses a button of the bot's last message, found by its text or shown_text, or picks a list
   * item by its identifier or title, and waits for the bot's answers.
   */
  press(label: string, options?: WaitOptions): Promise<CustomerExchange>;
}

/** The sandbox refused a customer request (an unknown tenant, a button the bot did not offer, ...). */
export class SandboxCustomerError extends Error {
  readonly status: number;
  constructor(status: number, what: string, said: string) {
    super(`the sandbox refused ${what} (${status}): ${said}`);
    this.name = 'SandboxCustomerError';
    this.status = status;
  }
}

const DEFAULT_WAIT_MS = 10_000;

/** A customer request's answer: its JSON object when the sandbox did it (201), else the sandbox's refusal. */
function created(answer: SandboxAnswer, what: string): Record<string, unknown> {
  const json = answer.json;
  if (answer.status !== 201 || typeof json !== 'object' || json === null) {
    const message = (json as { message?: unknown } | undefined)?.message;
    throw new SandboxCustomerError(answer.status, what, typeof message === 'string' ? message : answer.text.slice(0, 2048) || '(no body)');
  }
  return json as Record<string, unknown>;
}

/**
 * Starts a conversation as a customer of `sandbox` (a handle of `startSandbox`): the sandbox opens a
 * thread, and each `say` or `press` is a question, delivered to the bot as a MESSAGE webhook when
 * the sandbox has a `botUrl`.
 */
export async function startConversation(sandbox: CustomerSandbox, start: ConversationStart = {}): Promise<CustomerConversation> {
  const body: Record<string, unknown> = {};
  if (start.tenant !== undefined) body.tenant = start.tenant;
  if (start.channel !== undefined) body.channel = start.channel;
  if (start.clientId !== undefined) body.clientId = start.clientId;
  if (start.coreClientId !== undefined) body.coreClientId = start.coreClientId;
  const connection = inProcessConnection(sandbox);
  let started: Record<string, unknown>;
  try {
    started = created(await connection.startConversation(body), 'the new conversation');
  } finally {
    connection.close();
  }
  const conversation = { sessionId: String(started.sessionId), tenant: String(started.tenant) };
  return {
    ...conversation,
    channel: started.channel as Channel,
    coreClientId: BigInt(started.coreClientId as bigint),
    clientId: (started.clientId as string | null | undefined) ?? null,
    say: (text, options = {}) => exchange(sandbox, conversation, { text }, options),
    press: (label, options = {}) =>
      exchange(sandbox, conversation, choose(sandbox.conversation(conversation.sessionId)?.lastBotMessage ?? null, label), options),
  };
}

/**
 * One customer message and the wait for the bot's answers, on a connection of its own (src/platform/):
 * the conversation is followed before the message is sent, so no answer can come between the message
 * and the wait, and a sandbox that closes ends the wait (`stream-ended`), as a closed event stream
 * ends core customer's. The conversation's events come with the refusals tied to none that its event
 * stream carries too.
 */
async function exchange(
  sandbox: CustomerSandbox,
  conversation: { sessionId: string; tenant: string },
  message: Record<string, string>,
  options: WaitOptions,
): Promise<CustomerExchange> {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const settleMs = options.settleMs ?? SETTLE_MS;
  if (!Number.isFinite(waitMs) || waitMs < 0) throw new RangeError(`waitMs: ${waitMs} is not a number of milliseconds from 0`);
  if (!Number.isFinite(settleMs) || settleMs < 0) throw new RangeError(`settleMs: ${settleMs} is not a number of milliseconds from 0`);
  const wait = new AnswerWait(waitMs, settleMs);
  const connection = inProcessConnection(sandbox);
  const stream = connection.follow(conversation.sessionId, conversation.tenant, (event) => wait.accept(event));
  void stream.ended.then(() => wait.streamEnded());
  try {
    const asked = created(await connection.sendMessage(conversation.sessionId, message), 'the message');
    const question = questionOf(asked);
    wait.start({ seq: BigInt(question.seq), deliveryId: question.deliveryId, noWebhook: question.noWebhook });
    const end = await wait.ended;
    return exchangeOf(end, wait.result(end), conversation, question);
  } finally {
    connection.close();
    wait.stop();
  }
}

function questionOf(asked: Record<string, unknown>): CustomerExchange['question'] {
  return {
    seq: Number(asked.seq),
    questionId: BigInt(asked.questionId as bigint),
    questionIndex: BigInt(asked.questionIndex as bigint),
    type: asked.type as 'TEXT' | 'EMAIL',
    deliveryId: (asked.deliveryId as string | null) ?? null,
    noWebhook: (asked.noWebhook as string | null) ?? null,
  };
}

function exchangeOf(
  end: ExchangeEnd,
  result: WaitResult,
  conversation: { sessionId: string; tenant: string },
  question: CustomerExchange['question'],
): CustomerExchange {
  const { handovers, routings, agentMessages, attempts, delivery, refused } = result;
  // The same events, read more closely: a bot.answer is recorded only for an answer the reply
  // schema accepted (its body a ReplyBody), addressed by the ways replyAddressing names.
  const answers = result.answers as ExchangeAnswer[];
  return {
    ok: end === 'answered',
    end,
    tenant: conversation.tenant,
    sessionId: conversation.sessionId,
    question,
    answers,
    texts: answers.filter((answer) => answer.delivered).map((answer) => answer.body.text ?? ''),
    handovers,
    routings,
    agentMessages,
    attempts,
    delivery,
    refused,
  };
}
