import type { Context } from '../../context.js';
import { ExitCode, InterruptedError, NetworkError, UsageError } from '../../errors.js';
import { requireSettings } from '../../config/index.js';
import { parseDuration } from '../../config/duration.js';
import { choose, type LastMessage } from '../../customer/choose.js';
import { AnswerWait, type StreamEvent } from '../../customer/wait.js';
import { stringifyJson } from '../../payload/json.js';
import { loadCommandSettings } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import type { SandboxAnswer } from '../../platform/connection.js';
import { openEventStream, StreamRefused } from '../../platform/event-stream.js';
import { requestJson, type ClientInit } from '../../platform/http.js';
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

export async function runCustomerSay(options: CustomerSayOptions, ctx: Context): Promise<number> {
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
  const { client, waitMs, tenant } = await prepare(options, ctx);
  return reportingNoAnswer(options, ctx, () => say(options, ctx, client, waitMs, tenant, channel, coreClientId));
}

async function say(
  options: CustomerSayOptions,
  ctx: Context,
  client: ClientInit,
  waitMs: number,
  tenant: string | undefined,
  channel: string | undefined,
  coreClientId: bigint | undefined,
): Promise<number> {
  let conversation: Conversation;
  if (options.session !== undefined) conversation = { tenant: '', sessionId: await sessionOf(options.session, client, ctx) };
  else {
    const body: Record<string, unknown> = {};
    if (tenant !== undefined) body.tenant = tenant;
    if (channel !== undefined) body.channel = channel;
    if (options.clientId !== undefined) body.clientId = options.clientId;
    if (coreClientId !== undefined) body.coreClientId = coreClientId;
    const started = await requestJson(client, 'POST', '/_sandbox/conversations', body);
    if (started.status !== 201 || !has(started.json, 'sessionId')) refused(started, 'the new conversation', options, ctx);
    conversation = started.json as Conversation;
    await rememberSession(ctx.env, client.baseUrl, conversation.sessionId).catch((error: unknown) =>
      ctx.warn(`--session last will not find this conversation: ${(error as Error).message}`),
    );
    ctx.err(
      `started conversation ${conversation.sessionId} (${conversation.channel}, coreClientId ${String(conversation.coreClientId)}` +
        `${conversation.clientId ? `, clientId ${conversation.clientId}` : ''}, tenant ${conversation.tenant}); ` +
        `go on with --session ${conversation.sessionId}\n`,
    );
  }
  return converse(client, conversation, { text: options.text }, waitMs, options, ctx);
}

export async function runCustomerPress(options: CustomerPressOptions, ctx: Context): Promise<number> {
  const { client, waitMs } = await prepare(options, ctx);
  return reportingNoAnswer(options, ctx, () => press(options, ctx, client, waitMs));
}

async function press(options: CustomerPressOptions, ctx: Context, client: ClientInit, waitMs: number): Promise<number> {
  const session = await sessionOf(options.session, client, ctx);
  const shown = await requestJson(client, 'GET', `/_sandbox/conversations/${encodeURIComponent(session)}?limit=0`);
  if (shown.status !== 200 || !has(shown.json, 'conversation')) refused(shown, `conversation ${session}`, { ...options, session }, ctx);
  const { conversation } = shown.json as { conversation: Conversation & { lastBotMessage: LastMessage | null } };
  return converse(client, conversation, choose(conversation.lastBotMessage, options.label), waitMs, options, ctx);
}

/**
 * Runs `exchange`; with --json, a sandbox that gives no answer at all (refused connection, time-out)
 * still leaves one document on stdout, as a send's does (docs/json-output.md): ok false, status null,
 * and the error's code and message.
 */
async function reportingNoAnswer(
  options: CommonOptions & { session?: string },
  ctx: Context,
  exchange: () => Promise<number>,
): Promise<number> {
  try {
    return await exchange();
  } catch (error) {
    if (options.json && error instanceof NetworkError) {
      const session = options.session !== undefined && options.session !== LAST ? { sessionId: options.session } : {};
      ctx.out(`${stringifyJson({ ok: false, ...session, status: null, error: { code: error.code, message: error.message } })}\n`);
    }
    throw error;
  }
}

/** The sessionId `--session` names: as given, or for `last` the one `say` last started against the base URL. */
async function sessionOf(session: string, client: ClientInit, ctx: Context): Promise<string> {
  return session === LAST ? lastSession(ctx.env, client.baseUrl) : session;
}

async function prepare(options: CommonOptions, ctx: Context): Promise<{ client: ClientInit; waitMs: number; tenant: string | undefined }> {
  let waitMs: number;
  try {
    waitMs = parseDuration(options.wait ?? DEFAULT_WAIT);
  } catch (error) {
    throw new UsageError(`--wait: ${(error as Error).message}`, { hint: 'such as --wait 30s or --wait 2500ms' });
  }
  const settings = await loadCommandSettings(options, ctx);
  requireSettings(settings, ['baseUrl']);
  return {
    client: { baseUrl: settings.baseUrl!.value, timeoutMs: settings.timeoutMs.value, signal: ctx.signal },
    waitMs,
    tenant: settings.tenant?.value,
  };
}

/** Sends the customer message with the event stream open, waits, prints. */
async function converse(
  client: ClientInit,
  conversation: Conversation,
  message: Record<string, string>,
  waitMs: number,
  options: CommonOptions,
  ctx: Context,
): Promise<number> {
  const wait = new AnswerWait(waitMs);
  // The stream is opened first, so no answer can slip by between the message and the wait.
  const stream = openEventStream(client, `?session=${encodeURIComponent(conversation.sessionId)}`, (event) =>
    wait.accept(event as StreamEvent),
  );
  try {
    await stream.opened;
  } catch (error) {
    if (error instanceof StreamRefused)
      refused(error.answer, `conversation ${conversation.sessionId}`, { ...options, session: conversation.sessionId }, ctx);
    throw interrupted(error, ctx);
  }
  const onAbort = () => wait.stop();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    void stream.ended.then(() => wait.streamEnded());
    const sent = await requestJson(
      client,
      'POST',
      `/_sandbox/conversations/${encodeURIComponent(conversation.sessionId)}/messages`,
      message,
    ).catch((error: unknown) => {
      throw interrupted(error, ctx);
    });
    if (sent.status !== 201 || !has(sent.json, 'seq')) refused(sent, 'the message', { ...options, session: conversation.sessionId }, ctx);
    const asked = sent.json as {
      tenant: string;
      sessionId: string;
      seq: bigint;
      questionId: bigint;
      questionIndex: bigint;
      type: string;
      deliveryId: string | null;
      noWebhook: string | null;
    };
    if (asked.noWebhook !== null && asked.deliveryId === null && !/agents/.test(asked.noWebhook))
      ctx.warn(`no webhook sent: ${asked.noWebhook}; waiting for an answer sent some other way`);
    wait.start(asked);
    const end = await wait.ended;
    if (ctx.signal.aborted) throw new InterruptedError('interrupted while waiting for the bot');
    const result = wait.result(end);
    const document = {
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
    if (options.json) ctx.out(`${stringifyJson(document)}\n`);
    else {
      const columns = (ctx.streams.stdout as { columns?: number }).columns ?? 80;
      const { out, err } = await renderExchange(result, { columns, color: ctx.color });
      if (out !== '') ctx.out(out);
      if (err !== '') ctx.err(err);
    }
    if (end === 'refused') throw new BotRefusedError(refusedMessage(result.refused), refusedHint(result.refused));
    if (end !== 'answered')
      throw new NoAnswerError(noAnswerMessage(end, result, waitMs, asked.noWebhook), noAnswerHint(end, asked.sessionId));
    return ExitCode.ok;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    stream.close();
  }
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
