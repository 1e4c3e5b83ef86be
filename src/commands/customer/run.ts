import type { Context } from '../../context.js';
import { ExitCode, InterruptedError, NetworkError, UsageError } from '../../errors.js';
import { requireSettings } from '../../config/index.js';
import { parseDuration } from '../../config/duration.js';
import type { LastMessage } from '../../customer/choose.js';
import { AnswerWait, type StreamEvent, type WaitEnd, type WaitResult } from '../../customer/wait.js';
import { stringifyJson } from '../../payload/json.js';
import { loadCommandSettings } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import type { EventStream, HttpConnection, SandboxAnswer } from '../../platform/connection.js';
import { StreamRefused } from '../../platform/event-stream.js';
import { httpConnection } from '../../platform/over-http.js';
import { LAST, lastSession, rememberSession } from './last-session.js';
import { renderExchange } from './render.js';
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

/**
 * `core customer say` and `core customer press`: the customer's side of a sandbox conversation from
 * a shell. Each sends one customer message to the sandbox at the base URL (no token: these are the
 * sandbox's own endpoints), waits for the bot's answers on the event stream (src/customer/wait.ts says
 * when the wait ends), and prints them as the composer's preview draws a message, or as one JSON document.
 *
 * Exit codes (docs/exit-codes.md): 0 the bot answered in time; 6 it did not, the sandbox refused one
 * of the bot's requests (or the sandbox could not be reached); 2 bad usage; 4 the sandbox refused the
 * message.
 */

export const DEFAULT_WAIT = '10s';
export const CHANNEL_CHOICES = ['web', 'im', 'email'] as const;

interface CommonOptions {
  global: GlobalOptions;
  /** Per request to the sandbox, as --timeout elsewhere. */
  timeout?: string;
  /** How long to wait for the bot's answers (default 10s). */
  wait?: string;
  json: boolean;
}

export interface CustomerSayOptions extends CommonOptions {
  text: string;
  session?: string;
  channel?: string;
  clientId?: string;
  coreClientId?: string;
}

export interface CustomerPressOptions extends CommonOptions {
  label: string;
  session: string;
}

interface Conversation {
  tenant: string;
  sessionId: string;
  channel?: string;
  coreClientId?: bigint;
  clientId?: string | null;
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

/** An exchange's connection to the sandbox at the base URL, and how long it waits for the bot. */
interface Exchange {
  connection: HttpConnection;
  waitMs: number;
  tenant: string | undefined;
}

export async function runCustomerSay(options: CustomerSayOptions, ctx: Context): Promise<number> {
  const { channel, coreClientId } = checkSay(options);
  return exchanging(options, ctx, (exchange) => say(options, ctx, exchange, channel, coreClientId));
}

/** The flags of `say`, checked before anything is sent: the channel in upper case and the coreClientId as an identifier. */
function checkSay(options: CustomerSayOptions): { channel: string | undefined; coreClientId: bigint | undefined } {
  if (options.session !== undefined && options.channel !== undefined) {
    throw new UsageError('--channel starts a new conversation, and --session continues one: give one of them', {
      hint: 'the channel of an existing conversation is the one it started on',
    });
  }
  if (options.session !== undefined && (options.clientId !== undefined || options.coreClientId !== undefined)) {
    throw new UsageError('--client-id and --core-client-id name the client of a new conversation: leave them out with --session');
  }
  if (options.text.trim() === '') throw new UsageError('the message is empty: say something, such as core customer say "Hi"');
  const channel = options.channel?.toUpperCase();
  if (options.channel !== undefined && !CHANNEL_CHOICES.includes(options.channel.toLowerCase() as (typeof CHANNEL_CHOICES)[number])) {
    throw new UsageError(`--channel: '${options.channel}' is not a channel: use web, im or email`);
  }
  let coreClientId: bigint | undefined;
  if (options.coreClientId !== undefined) {
    if (!/^\d{1,19}$/.test(options.coreClientId) || BigInt(options.coreClientId) > 9_223_372_036_854_775_807n) {
      throw new UsageError(`--core-client-id: '${options.coreClientId}' is not an identifier from 0 to 9223372036854775807`);
    }
    coreClientId = BigInt(options.coreClientId);
  }
  return { channel, coreClientId };
}

async function say(
  options: CustomerSayOptions,
  ctx: Context,
  exchange: Exchange,
  channel: string | undefined,
  coreClientId: bigint | undefined,
): Promise<number> {
  const { connection } = exchange;
  let conversation: Conversation;
  if (options.session !== undefined) conversation = { tenant: '', sessionId: await sessionOf(options.session, connection, ctx) };
  else {
    const body: Record<string, unknown> = {};
    if (exchange.tenant !== undefined) body.tenant = exchange.tenant;
    if (channel !== undefined) body.channel = channel;
    if (options.clientId !== undefined) body.clientId = options.clientId;
    if (coreClientId !== undefined) body.coreClientId = coreClientId;
    const started = await connection.startConversation(body);
    if (started.status !== 201 || !has(started.json, 'sessionId')) refused(started, 'the new conversation', options, ctx);
    conversation = started.json as Conversation;
    await rememberSession(ctx.env, connection.url, conversation.sessionId).catch((error: unknown) =>
      ctx.warn(`--session last will not find this conversation: ${(error as Error).message}`),
    );
    ctx.err(
      `started conversation ${conversation.sessionId} (${conversation.channel}, coreClientId ${String(conversation.coreClientId)}` +
        `${conversation.clientId ? `, clientId ${conversation.clientId}` : ''}, tenant ${conversation.tenant}); ` +
        `go on with --session ${conversation.sessionId}\n`,
    );
  }
  return converse(exchange, conversation, { text: options.text }, options, ctx);
}

export async function runCustomerPress(options: CustomerPressOptions, ctx: Context): Promise<number> {
  return exchanging(options, ctx, (exchange) => press(options, ctx, exchange));
}

async function press(options: CustomerPressOptions, ctx: Context, exchange: Exchange): Promise<number> {
  const { connection } = exchange;
  const session = await sessionOf(options.session, connection, ctx);
  const shown = await connection.showConversation(session);
  if (shown.status !== 200 || !has(shown.json, 'conversation')) refused(shown, `conversation ${session}`, { ...options, session }, ctx);
  const { conversation } = shown.json as { conversation: Conversation & { lastBotMessage: LastMessage | null } };
  return converse(exchange, conversation, connection.choose(conversation.lastBotMessage, options.label), options, ctx);
}

/**
 * Runs `run` on a connection to the sandbox at the base URL. With --json, a sandbox that gives no
 * answer at all (refused connection, time-out) still leaves one document on stdout, as a send's does
 * (docs/json-output.md): ok false, status null, and the error's code and message.
 */
async function exchanging(
  options: CommonOptions & { session?: string },
  ctx: Context,
  run: (exchange: Exchange) => Promise<number>,
): Promise<number> {
  const exchange = await prepare(options, ctx);
  try {
    return await run(exchange);
  } catch (error) {
    if (options.json && error instanceof NetworkError) {
      const session = options.session !== undefined && options.session !== LAST ? { sessionId: options.session } : {};
      ctx.out(`${stringifyJson({ ok: false, ...session, status: null, error: { code: error.code, message: error.message } })}\n`);
    }
    throw error;
  } finally {
    exchange.connection.close();
  }
}

/** The sessionId `--session` names: as given, or for `last` the one `say` last started against the base URL. */
async function sessionOf(session: string, connection: HttpConnection, ctx: Context): Promise<string> {
  return session === LAST ? lastSession(ctx.env, connection.url) : session;
}

async function prepare(options: CommonOptions, ctx: Context): Promise<Exchange> {
  let waitMs: number;
  try {
    waitMs = parseDuration(options.wait ?? DEFAULT_WAIT);
  } catch (error) {
    throw new UsageError(`--wait: ${(error as Error).message}`, { hint: 'such as --wait 30s or --wait 2500ms' });
  }
  const settings = await loadCommandSettings(options, ctx);
  requireSettings(settings, ['baseUrl']);
  return {
    connection: httpConnection(settings.baseUrl!.value, settings.timeoutMs.value, ctx.signal),
    waitMs,
    tenant: settings.tenant?.value,
  };
}

/** Sends the customer message with the event stream open, waits, prints. */
async function converse(
  exchange: Exchange,
  conversation: Conversation,
  message: Record<string, string>,
  options: CommonOptions,
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
  options: CommonOptions,
  ctx: Context,
): Promise<EventStream> {
  const stream = connection.events(`?session=${encodeURIComponent(sessionId)}`, (event) => wait.accept(event as unknown as StreamEvent));
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
  options: CommonOptions,
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
async function print(document: unknown, result: WaitResult, options: CommonOptions, ctx: Context): Promise<void> {
  if (options.json) {
    ctx.out(`${stringifyJson(document)}\n`);
    return;
  }
  const columns = (ctx.streams.stdout as { columns?: number }).columns ?? 80;
  const { out, err } = await renderExchange(result, { columns, color: ctx.color });
  if (out !== '') ctx.out(out);
  if (err !== '') ctx.err(err);
}

/** Reports a refusal of the sandbox: the JSON document with --json (with the sessionId when known), then the typed error. */
function refused(answer: SandboxAnswer, what: string, options: CommonOptions & { session?: string }, ctx: Context): never {
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
function has(json: unknown, key: string): boolean {
  return typeof json === 'object' && json !== null && key in json;
}

function interrupted(error: unknown, ctx: Context): unknown {
  return ctx.signal.aborted ? new InterruptedError('interrupted') : error;
}
