import type { Context } from '../../context.js';
import { ConfigError, NetworkError, UsageError } from '../../errors.js';
import { requireSettings } from '../../config/index.js';
import { parseDuration } from '../../config/duration.js';
import type { LastMessage } from '../../customer/choose.js';
import { channelNamed, notAChannel, type Channel } from '../../payload/channels.js';
import { stringifyJson } from '../../payload/json.js';
import { loadCommandSettings } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import type { HttpConnection } from '../../platform/connection.js';
import { httpConnection } from '../../platform/over-http.js';
import { LAST, lastSession, rememberSession } from '../../customer/last-session.js';
import { converse, has, refused, type Conversation, type Exchange } from './exchange.js';

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

export async function runCustomerSay(options: CustomerSayOptions, ctx: Context): Promise<number> {
  const { channel, coreClientId } = checkSay(options);
  return exchanging(options, ctx, (exchange) => say(options, ctx, exchange, channel, coreClientId));
}

/** The flags of `say`, checked before anything is sent: the channel by its name (in any case) and the coreClientId as an identifier. */
function checkSay(options: CustomerSayOptions): { channel: Channel | undefined; coreClientId: bigint | undefined } {
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
  return { channel, coreClientId };
}

async function say(
  options: CustomerSayOptions,
  ctx: Context,
  exchange: Exchange,
  channel: Channel | undefined,
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

/** What `core customer` says when it has no base URL: the sandbox gives one. */
export const NO_SANDBOX_HINT =
  'start a sandbox in another shell with core sandbox (or core sandbox --bot-url URL of your bot) and run the export lines it prints, ' +
  'which set CORE_BASE_URL; or pass --base-url with the address of a running one';

async function prepare(options: CommonOptions, ctx: Context): Promise<Exchange> {
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
    connection: httpConnection(settings.baseUrl!.value, settings.timeoutMs.value, ctx.signal),
    waitMs,
    tenant: settings.tenant?.value,
  };
}
