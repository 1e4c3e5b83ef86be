import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { mayRetry, OPERATIONS, type Operation } from '../../operations.js';
import { printResult } from '../../output/render.js';
import { isRecord, stringifyJson } from '../../payload/json.js';
import { finishSend } from '../../send/deliver.js';
import { withoutEditorKeys } from '../../input/fields.js';
import { readPayloadFile } from '../../input/files.js';
import { openSession } from '../../send/session.js';
import { loadSendSettings } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import type { SendOptions } from '../send-options.js';
import { API_METHODS, type ApiMethod } from './methods.js';

export interface ApiOptions extends SendOptions {
  global: GlobalOptions;
  /** As typed: get, POST, ... */
  method: string;
  /** The path below the base URL, with any query: /api/v1/chatbot?x=1. */
  path: string;
  /** --retry: repeat a POST or PATCH after a failure too (it may then apply twice). */
  retry: boolean;
}

/** Methods whose repeat changes nothing more than the first request did (RFC 9110, "Idempotent Methods"). */
const IDEMPOTENT = new Set<ApiMethod>(['GET', 'PUT', 'DELETE']);

/**
 * `core api METHOD PATH`: a request core does not know yet (a new field, a new endpoint), sent with
 * everything core knows: the profile's base URL, tenant and credential, the network rules, --dry-run,
 * --curl, -v and masking, through the one sending session. The body (-f) is sent as given: no payload
 * rule is checked (docs/commands/api.md).
 */
export async function runApi(options: ApiOptions, ctx: Context): Promise<number> {
  if (options.dryRun && options.curl) throw new UsageError('--dry-run and --curl cannot be used together');
  const method = parseMethod(options.method);
  const path = parsePath(options.path);
  if (method === 'GET' && options.file !== undefined) {
    throw new UsageError('a GET request carries no body, so -f does not go with it', { hint: 'send the body with POST, PUT or PATCH' });
  }
  const settings = await loadSendSettings(options, ctx);
  const loaded = options.file === undefined ? undefined : (await readPayloadFile(options.file, ctx)).value;
  const payload = isRecord(loaded) ? withoutEditorKeys(loaded) : loaded;
  const operation = operationFor(method, path);
  const retryable = mayRetry(operation, { answerId: isRecord(payload) ? payload.answerId : undefined, optIn: options.retry });

  const session = await openSession(operation, settings, options, ctx);
  try {
    if (session.showOnly) {
      ctx.out(session.show(payload));
      return ExitCode.ok;
    }
    const result = await session.send(payload, { retryable, announceRetries: true, keepBody: true });
    if (options.json || !result.ok) printResult(result, ctx, options.json);
    else if (result.body === null || result.body === undefined) printResult(result, ctx, false);
    else
      ctx.out(
        typeof result.body === 'string'
          ? result.body.endsWith('\n')
            ? result.body
            : `${result.body}\n`
          : `${stringifyJson(result.body, 2)}\n`,
      );
    return finishSend(result, { operation, retryable, settings }, ctx);
  } finally {
    session.close();
  }
}

function parseMethod(text: string): ApiMethod {
  const method = text.toUpperCase();
  if (!(API_METHODS as readonly string[]).includes(method)) {
    throw new UsageError(`unknown method ${JSON.stringify(text)}`, { hint: `use one of ${API_METHODS.join(', ')}` });
  }
  return method as ApiMethod;
}

/**
 * The path below the base URL. An absolute URL is refused: the profile's credential would go to
 * whatever host it names.
 */
function parsePath(text: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(text) || text.startsWith('//')) {
    throw new UsageError(`core api takes a path below the base URL, not ${JSON.stringify(text)}`, {
      hint: 'for example: core api GET /api/v1/chatbot (set the host with --base-url or the profile)',
    });
  }
  if (!text.startsWith('/'))
    throw new UsageError(`the path must start with /, got ${JSON.stringify(text)}`, { hint: `did you mean /${text}?` });
  if (/[\s\u0000-\u001f\u007f]/.test(text))
    throw new UsageError('the path holds spaces or control characters', { hint: 'percent-encode them (%20)' });
  return normalizedPath(text);
}

/**
 * The path as it is sent: its dot segments resolved (`/a/../b` is `/b`, `%2e%2e` too) as URL parsing
 * resolves them, so that the credential is chosen, and the URL printed, for the path the request
 * goes to, and the path stays below the base URL's own path. Its query is kept; a fragment is never sent.
 */
export function normalizedPath(text: string): string {
  const url = new URL(text, 'http://base.invalid');
  return `${url.pathname}${url.search}`;
}

/**
 * The descriptor a request goes with: the API's own when method and path name one of its operations
 * (its credential and retry rule), else one made for it: the integrator credential below
 * /api/v1/inactivity, the bot's elsewhere; repeated after a failure only for GET, PUT and DELETE, or
 * with --retry.
 */
export function operationFor(method: ApiMethod, path: string): Operation {
  const bare = path.split('?', 1)[0]!;
  const known = OPERATIONS.find((operation) => operation.method === method && operation.path === bare);
  // The API's own rules for it, and the path as given (a query string included).
  if (known) return { ...known, path };
  return {
    id: 'api',
    name: 'request',
    method,
    path,
    credential: bare === '/api/v1/inactivity' || bare.startsWith('/api/v1/inactivity/') ? 'integrator' : 'bot',
    retry: IDEMPOTENT.has(method) ? 'always' : 'opt-in',
    payload: null,
  };
}
