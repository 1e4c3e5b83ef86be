import type { Context } from '../../context.js';
import { ExitCode, InterruptedError } from '../../errors.js';
import { AnswerWait, type WaitEnd, type WaitResult } from '../../customer/wait.js';
import { stringifyJson } from '../../payload/json.js';
import type { EventStream, HttpConnection, SandboxAnswer } from '../../platform/connection.js';
import { StreamRefused } from '../../platform/event-stream.js';
import {
  bodyText,
  BotRefusedError,
  NoAnswerError,
  noAnswerHint,
  noAnswerMessage,
  refusedHint,
  refusedMessage,
  SandboxRefusedError,
} from './outcome.js';
import { renderExchange } from './render.js';

/**
 * One exchange of `core customer say` or `press`: the conversation's event stream opened, the
 * customer message sent, the wait for the bot's answers (src/customer/wait.ts), and what came of
 * it printed, as the composer's preview draws a message or as one JSON document; an exchange that
 * ends badly ends with its typed error (outcome.ts).
 */

/** What an exchange's options hold for it: --json. */
export interface ExchangeOptions {
  json: boolean;
}

/** A conversation of the sandbox, as it answers POST /_sandbox/conversations or shows one. */
export interface Conversation {
  tenant: string;
  sessionId: string;
  channel?: string;
  coreClientId?: bigint;
  clientId?: string | null;
}

/** An exchange's connection to the sandbox at the base URL, and how long it waits for the bot. */
export interface Exchange {
  connection: HttpConnection;
  waitMs: number;
  tenant: string | undefined;
}

/** What the sandbox answers to a customer message (POST /_sandbox/conversations/{sessionId}/messages). */
interface Asked {
  tenant: string;
  sessionId: string;
  seq: bigint;
  questionId: bigint;
  questionIndex: bigint;
  type: string;
  deliveryId: string | null;
  noWebhook: string | null;
}

/** Sends the customer message with the event stream open, waits, prints. */
export async function converse(
  exchange: Exchange,
  conversation: Conversation,
  message: Record<string, string>,
  options: ExchangeOptions,
  ctx: Context,
): Promise<number> {
  const wait = new AnswerWait(exchange.waitMs);
  // The stream is opened first, so no answer can slip by between the message and the wait.
  const stream = await openConversation(exchange.connection, conversation.sessionId, wait, options, ctx);
  const onAbort = () => wait.stop();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    void stream.ended.then(() => wait.streamEnded());
    const asked = await sendMessage(exchange.connection, conversation.sessionId, message, options, ctx);
    if (asked.noWebhook !== null && asked.deliveryId === null && !/agents/.test(asked.noWebhook))
      ctx.warn(`no webhook sent: ${asked.noWebhook}; waiting for an answer sent some other way`);
    wait.start(asked);
    const end = await wait.ended;
    if (ctx.signal.aborted) throw new InterruptedError('interrupted while waiting for the bot');
    const result = wait.result(end);
    await print(exchangeDocument(asked, message, end, result, exchange.waitMs), result, options, ctx);
    if (end === 'refused') throw new BotRefusedError(refusedMessage(result.refused), refusedHint(result.refused));
    if (end !== 'answered')
      throw new NoAnswerError(noAnswerMessage(end, result, exchange.waitMs, asked.noWebhook), noAnswerHint(end, asked.sessionId));
    return ExitCode.ok;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    stream.close();
  }
}

/** The conversation's event stream, open; a sandbox that refuses it (an unknown sessionId) is reported as refusing the conversation. */
async function openConversation(
  connection: HttpConnection,
  sessionId: string,
  wait: AnswerWait,
  options: ExchangeOptions,
  ctx: Context,
): Promise<EventStream> {
  const stream = connection.events(`?session=${encodeURIComponent(sessionId)}`, (event) => wait.accept(event));
  try {
    await stream.opened;
  } catch (error) {
    if (error instanceof StreamRefused) refused(error.answer, `conversation ${sessionId}`, { ...options, session: sessionId }, ctx);
    throw interrupted(error, ctx);
  }
  return stream;
}

/** Sends the customer message; what the sandbox recorded of it, or its refusal. */
async function sendMessage(
  connection: HttpConnection,
  sessionId: string,
  message: Record<string, string>,
  options: ExchangeOptions,
  ctx: Context,
): Promise<Asked> {
  const sent = await connection.sendMessage(sessionId, message).catch((error: unknown) => {
    throw interrupted(error, ctx);
  });
  if (sent.status !== 201 || !has(sent.json, 'seq')) refused(sent, 'the message', { ...options, session: sessionId }, ctx);
  return sent.json as Asked;
}

/** The document `--json` prints: the question, the delivery, the answers, the hand-overs, the refusals, and why it ended badly. */
function exchangeDocument(asked: Asked, message: Record<string, string>, end: WaitEnd, result: WaitResult, waitMs: number) {
  return {
    ok: end === 'answered',
    tenant: asked.tenant,
    sessionId: asked.sessionId,
    question: {
      seq: asked.seq,
      questionId: asked.questionId,
      questionIndex: asked.questionIndex,
      type: asked.type,
      ...message,
      deliveryId: asked.deliveryId,
      noWebhook: asked.noWebhook,
    },
    delivery: asked.deliveryId === null ? null : { deliveryId: asked.deliveryId, outcome: result.delivery, attempts: result.attempts },
    answers: result.answers,
    handovers: result.handovers,
    refused: result.refused,
    error:
      end === 'answered'
        ? null
        : end === 'refused'
          ? { code: 'EBOTREFUSED', message: refusedMessage(result.refused, 'in refused') }
          : { code: 'ENOANSWER', message: noAnswerMessage(end, result, waitMs, asked.noWebhook) },
  };
}

/** The exchange as one JSON document (--json), or drawn for people: the answers on stdout, the attempts and warnings on stderr. */
async function print(document: unknown, result: WaitResult, options: ExchangeOptions, ctx: Context): Promise<void> {
  if (options.json) {
    ctx.out(`${stringifyJson(document)}\n`);
    return;
  }
  const columns = (ctx.streams.stdout as { columns?: number }).columns ?? 80;
  const { out, err } = await renderExchange(result, { columns, color: ctx.color, glyphs: ctx.glyphs });
  if (out !== '') ctx.out(out);
  if (err !== '') ctx.err(err);
}

/** Reports a refusal of the sandbox: the JSON document with --json (with the sessionId when known), then the typed error. */
export function refused(answer: SandboxAnswer, what: string, options: ExchangeOptions & { session?: string }, ctx: Context): never {
  if (options.json) {
    const error = answer.json ?? { message: bodyText(answer) };
    ctx.out(
      `${stringifyJson({ ok: false, ...(options.session !== undefined ? { sessionId: options.session } : {}), status: answer.status, error })}\n`,
    );
  }
  const hint =
    answer.status < 400 || (answer.status === 404 && /no such path/.test(answer.text))
      ? 'is CORE_BASE_URL a core sandbox? core customer talks to the sandbox only'
      : answer.status === 403
        ? 'use the base URL core sandbox printed: it answers only requests addressed to its own address'
        : undefined;
  throw new SandboxRefusedError(answer, what, hint);
}

/** Whether an answer is a JSON object with `key`: what a sandbox's answer holds, and another server's may not. */
export function has(json: unknown, key: string): boolean {
  return typeof json === 'object' && json !== null && key in json;
}

function interrupted(error: unknown, ctx: Context): unknown {
  return ctx.signal.aborted ? new InterruptedError('interrupted') : error;
}
