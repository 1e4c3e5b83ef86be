import type { Context } from '../../context.js';
import { CoreError, ExitCode, InterruptedError, UsageError, exitCodeForStatus } from '../../errors.js';
import { requireSettings } from '../../config/index.js';
import { parseDuration } from '../../config/duration.js';
import { stringifyJson } from '../../payload/json.js';
import { loadCommandSettings } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import { openEventStream, requestJson, StreamRefused, type ClientInit, type SandboxAnswer } from './client.js';
import { renderExchange } from './render.js';
import { AnswerWait, type StreamEvent, type WaitResult } from './wait.js';
import { formatDuration } from '../../text/duration.js';

/**
 * `core customer say` and `core customer press`: the customer's side of a sandbox conversation from
 * a shell. Each sends one customer message to the sandbox at the base URL (no token: these are the
 * sandbox's own endpoints), waits for the bot's answers on the event stream (./wait.ts says when the
 * wait ends), and prints them as the composer's preview draws a message, or as one JSON document.
 *
 * Exit codes (docs/exit-codes.md): 0 the bot answered in time; 6 it did not (or the sandbox could
 * not be reached); 2 bad usage; 4 the sandbox refused the message.
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
    const said = typeof message === 'string' ? message : answer.text.slice(0, 2048) || '(no body)';
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

/** No answer from the bot in time, or none can come (exit 6). */
export class NoAnswerError extends CoreError {
  constructor(message: string, hint?: string) {
    super(message, ExitCode.network, 'ENOANSWER', hint ? { hint } : {});
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

  let conversation: Conversation;
  if (options.session !== undefined) conversation = { tenant: '', sessionId: options.session };
  else {
    const body: Record<string, unknown> = {};
    if (tenant !== undefined) body.tenant = tenant;
    if (channel !== undefined) body.channel = channel;
    if (options.clientId !== undefined) body.clientId = options.clientId;
    if (coreClientId !== undefined) body.coreClientId = coreClientId;
    const started = await requestJson(client, 'POST', '/_sandbox/conversations', body);
    if (started.status !== 201 || !has(started.json, 'sessionId')) refused(started, 'the new conversation', options, ctx);
    conversation = started.json as Conversation;
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
  const shown = await requestJson(client, 'GET', `/_sandbox/conversations/${encodeURIComponent(options.session)}?limit=0`);
  if (shown.status !== 200 || !has(shown.json, 'conversation')) refused(shown, `conversation ${options.session}`, options, ctx);
  const { conversation } = shown.json as { conversation: Conversation & { lastBotMessage: LastMessage | null } };
  return converse(client, conversation, choose(conversation.lastBotMessage, options.label), waitMs, options, ctx);
}

interface LastMessage {
  quickReplies: Record<string, unknown>[];
  messageListPicker: { sections?: { items?: { identifier?: string; title?: string }[] }[] } | null;
}

/**
 * What pressing LABEL sends: a button whose text (or shown_text) is LABEL, else a list item whose
 * identifier (or title) is LABEL. Anything else is sent as a press, so the sandbox's refusal names
 * what the message offers: the one place that knows it.
 */
export function choose(last: LastMessage | null, label: string): { press: string } | { pick: string } {
  const buttons = last?.quickReplies ?? [];
  const button = buttons.find((b) => b.text === label) ?? buttons.find((b) => b.shown_text === label);
  if (button) return { press: String(button.text) };
  const items = (last?.messageListPicker?.sections ?? []).flatMap((section) => section.items ?? []);
  const item = items.find((i) => i.identifier === label) ?? items.find((i) => i.title === label);
  if (item?.identifier !== undefined) return { pick: item.identifier };
  return { press: label };
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
    if (error instanceof StreamRefused) refused(error.answer, `conversation ${conversation.sessionId}`, options, ctx);
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
    if (sent.status !== 201 || !has(sent.json, 'seq')) refused(sent, 'the message', options, ctx);
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
      error: end === 'answered' ? null : { code: 'ENOANSWER', message: noAnswerMessage(end, result, waitMs, asked.noWebhook) },
    };
    if (options.json) ctx.out(`${stringifyJson(document)}\n`);
    else {
      const columns = (ctx.streams.stdout as { columns?: number }).columns ?? 80;
      const { out, err } = await renderExchange(result, { columns, color: ctx.color });
      if (out !== '') ctx.out(out);
      if (err !== '') ctx.err(err);
    }
    if (end !== 'answered')
      throw new NoAnswerError(noAnswerMessage(end, result, waitMs, asked.noWebhook), noAnswerHint(end, asked.sessionId));
    return ExitCode.ok;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    stream.close();
  }
}

function noAnswerMessage(end: string, result: WaitResult, waitMs: number, noWebhook: string | null): string {
  const refusedCount = result.answers.filter((a) => a.delivered !== true).length;
  const refusedNote = refusedCount > 0 ? ` (${refusedCount} answer${refusedCount === 1 ? ' was' : 's were'} not delivered; see above)` : '';
  switch (end) {
    case 'with-agents':
      return `no answer can come from the bot: ${noWebhook ?? 'the thread is with agents'}, so no webhook was sent`;
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
    return `give the thread back to the bot: curl -X POST -H 'Content-Type: application/json' $CORE_BASE_URL/_sandbox/conversations/${sessionId}/release`;
  if (end === 'webhook-failed')
    return "check the bot is running at the sandbox's --bot-url and verifies with CORE_WEBHOOK_SECRET; the attempts are in the sandbox's log";
  if (end === 'no-answer')
    return 'wait longer with --wait 30s, or check the bot answers POST /api/v1/chatbot (the sandbox logs each request)';
  return undefined;
}

/** Reports a refusal of the sandbox: the JSON document with --json, then the typed error. */
function refused(answer: SandboxAnswer, what: string, options: CommonOptions, ctx: Context): never {
  if (options.json) {
    ctx.out(`${stringifyJson({ ok: false, status: answer.status, error: answer.json ?? { message: answer.text.slice(0, 2048) } })}\n`);
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
