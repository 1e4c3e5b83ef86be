import type { Context } from '../../context.js';
import { ConfigError, CoreError, ExitCode, InterruptedError, NetworkError, UsageError, exitCodeForStatus } from '../../errors.js';
import { requireSettings } from '../../config/index.js';
import { parseDuration } from '../../config/duration.js';
import { choose, type LastMessage } from '../../customer/choose.js';
import { AnswerWait, type WaitResult } from '../../customer/wait.js';
import type { SandboxEvent } from '../../sandbox/events.js';
import { htmlSummary } from '../../output/result.js';
import { channelNamed, notAChannel, type Channel } from '../../payload/channels.js';
import { stringifyJson } from '../../payload/json.js';
import { loadCommandSettings } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import { openEventStream, requestJson, StreamRefused, type ClientInit, type SandboxAnswer } from './client.js';
import { LAST, lastSession, rememberSession } from './last-session.js';
import { describeRefusal, renderExchange } from './render.js';
import { formatDuration } from '../../text/duration.js';

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

/**
 * The sandbox refused the customer's request: exit 4 (5 for a 5xx), its message as the sandbox wrote it. An answer
 * that is no refusal but not what a sandbox answers either (a 200 where 201 was due) is exit 4 too.
 */
export class SandboxRefusedError extends CoreError {
  constructor(
    readonly answer: SandboxAnswer,
    what: string,
    hint?: string,
  ) {
    const message = (answer.json as { message?: unknown } | undefined)?.message;
    const said = typeof message === 'string' ? message : bodyText(answer);
    super(
      answer.status < 400
        ? `the server answered ${answer.status} to ${what}, not as a core sandbox answers: ${said}`
        : `the sandbox refused ${what} (${answer.status}): ${said}`,
      answer.status >= 500 ? exitCodeForStatus(answer.status) : ExitCode.http4xx,
      'EREFUSED',
      hint ? { hint } : {},
    );
  }
}

/** A body that is not the sandbox's JSON: an HTML page (a proxy's) in one line, else its text cut to 2 KB. */
function bodyText(answer: SandboxAnswer): string {
  return htmlSummary(answer.text) ?? (answer.text.slice(0, 2048) || '(no body)');
}

/** No answer from the bot in time, or none can come (exit 6). */
export class NoAnswerError extends CoreError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.network, 'ENOANSWER', hint ? { hint } : {});
  }
}

/** The sandbox refused one of the bot's API requests during the wait (exit 6, as no answer). */
export class BotRefusedError extends CoreError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.network, 'EBOTREFUSED', hint ? { hint } : {});
  }
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
  const channel = options.channel === undefined ? undefined : channelNamed(options.channel);
  if (options.channel !== undefined && channel === undefined) throw new UsageError(`--channel: ${notAChannel(options.channel)}`);
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
  channel: Channel | undefined,
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

/** What `core customer` says when it has no base URL: the sandbox gives one. */
export const NO_SANDBOX_HINT =
  'start a sandbox in another shell with core sandbox (or core sandbox --bot-url URL of your bot) and run the export lines it prints, ' +
  'which set CORE_BASE_URL; or pass --base-url with the address of a running one';

async function prepare(options: CommonOptions, ctx: Context): Promise<{ client: ClientInit; waitMs: number; tenant: string | undefined }> {
  let waitMs: number;
  try {
    waitMs = parseDuration(options.wait ?? DEFAULT_WAIT);
  } catch (error) {
    throw new UsageError(`--wait: ${(error as Error).message}`, { hint: 'such as --wait 30s or --wait 2500ms' });
  }
  const settings = await loadCommandSettings(options, ctx);
  try {
    requireSettings(settings, ['baseUrl']);
  } catch (error) {
    // The base URL `core customer` needs is a sandbox's, which no config file holds: say how to get one.
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.message, { problems: error.problems, hint: NO_SANDBOX_HINT, cause: error });
  }
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
  const stream = openEventStream(client, `?session=${encodeURIComponent(conversation.sessionId)}`, (event) => wait.accept(event));
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
      routings: result.routings,
      agentMessages: result.agentMessages,
      holder: await holderOf(client, asked.sessionId),
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
      const { out, err } = await renderExchange(result, { columns, color: ctx.color, glyphs: ctx.glyphs });
      if (out !== '') ctx.out(out);
      if (err !== '') ctx.err(err);
      if (document.holder !== null) ctx.err(`${holderLine(document.holder)}\n`);
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

/**
 * The error line of a wait ended by refusals: the one refusal, or how many (each is listed above it
 * on stderr, or in `refused` in JSON).
 */
export function refusedMessage(refused: SandboxEvent[], listed = 'listed above'): string {
  if (refused.length === 1) return `the sandbox refused the bot's ${describeRefusal(refused[0]!)}`;
  return `the sandbox refused ${refused.length} of the bot's requests (${listed})`;
}

/**
 * What the bot should change, from the first refusal's status: the sandbox's message says what was
 * wrong, the hint where the right value comes from. Never to wait longer: a refusal does not heal.
 */
export function refusedHint(refused: SandboxEvent[]): string | undefined {
  const first = refused[0];
  if (first === undefined) return undefined;
  switch ('status' in first ? first.status : null) {
    case 401:
      return "the bot must send Authorization: Bearer with the sandbox's token (CORE_TOKEN in the lines core sandbox prints)";
    case 403:
      return 'the bot must name a tenant of the sandbox in X-Tenant-Name (CORE_TENANT in the lines core sandbox prints)';
    case 404:
      return 'the bot must answer the question of the MESSAGE webhook it received: its questionId, or sessionId with questionIndex';
    case 400:
      return "the bot's request breaks a rule of the API, named in the message; core schema reply prints the rules of an answer";
    case 409:
      return first.type === 'bot.answer' && /agents/.test(first.error ?? first.notDelivered ?? '')
        ? 'the thread is with agents: give it back to the bot (the page, or POST /_sandbox/conversations/SESSION/release) before the bot answers'
        : 'the request conflicts with the state of the conversation, as the message says';
    case 413:
      return 'the request is larger than the API takes: shorter texts, fewer quick replies, attachments or list items';
    case 415:
      return 'the bot must send its body as JSON, with Content-Type: application/json';
    default:
      return undefined;
  }
}

function noAnswerMessage(end: string, result: WaitResult, waitMs: number, noWebhook: string | null): string {
  const refusedCount = result.answers.filter((a) => a.delivered !== true).length;
  const refusedNote = refusedCount > 0 ? ` (${refusedCount} answer${refusedCount === 1 ? ' was' : 's were'} not delivered; see above)` : '';
  switch (end) {
    case 'with-agents':
      return `no answer from the bot or an agent within ${formatDuration(waitMs)}: ${noWebhook ?? 'the thread is with agents'}, so no webhook was sent`;
    case 'webhook-failed': {
      const last = result.attempts.at(-1);
      const why = last ? (last.status != null ? `status ${String(last.status)}` : String(last.error)) : 'no attempt';
      return `the webhook was not delivered after ${result.attempts.length} attempt${result.attempts.length === 1 ? '' : 's'} (last: ${why}), and no answer came`;
    }
    case 'stream-ended':
      return 'the sandbox closed the event stream before the bot answered';
    default:
      return `no answer from the bot within ${formatDuration(waitMs)}${refusedNote}`;
  }
}

function noAnswerHint(end: string, sessionId: string): string | undefined {
  if (end === 'with-agents')
    return `answer as the agent (core agent say --session ${sessionId} TEXT), or give the thread back to the bot: core agent release --session ${sessionId}, or curl -X POST -H 'Content-Type: application/json' $CORE_BASE_URL/_sandbox/conversations/${sessionId}/release`;
  if (end === 'webhook-failed')
    return "check the bot is running at the sandbox's --bot-url and verifies with CORE_WEBHOOK_SECRET; the attempts are in the sandbox's log";
  if (end === 'no-answer')
    return 'wait longer with --wait 30s, or check the bot answers POST /api/v1/chatbot (the sandbox logs each request)';
  return undefined;
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

/** Who has the thread now (GET /_sandbox/conversations/{sessionId}): the bot, an agent, or the queue; null when unknown. */
async function holderOf(client: ClientInit, sessionId: string): Promise<{ by: string; agentId: bigint | null } | null> {
  const shown = await requestJson(client, 'GET', `/_sandbox/conversations/${encodeURIComponent(sessionId)}?limit=0`).catch(() => null);
  const conversation = (shown?.json as { conversation?: { holder?: unknown; agentId?: unknown } } | undefined)?.conversation;
  if (shown?.status !== 200 || typeof conversation?.holder !== 'string') return null;
  return { by: conversation.holder, agentId: typeof conversation.agentId === 'bigint' ? conversation.agentId : null };
}

function holderLine(holder: { by: string; agentId: bigint | null }): string {
  if (holder.by === 'agent') return `the thread is with agent ${String(holder.agentId)}`;
  if (holder.by === 'queue') return 'the thread waits in the queue for an agent';
  return 'the thread is with the bot';
}

/** Whether an answer is a JSON object with `key`: what a sandbox's answer holds, and another server's may not. */
function has(json: unknown, key: string): boolean {
  return typeof json === 'object' && json !== null && key in json;
}

function interrupted(error: unknown, ctx: Context): unknown {
  return ctx.signal.aborted ? new InterruptedError('interrupted') : error;
}
