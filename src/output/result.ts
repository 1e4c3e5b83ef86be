import { ExitCode, exitCodeForStatus, type Problem } from '../errors.js';
import { parseRetryAfter, type HttpResponse } from '../http/client.js';
import type { PRINTED_KEYS } from '../mask.js';

/**
 * The result of one request as data (docs/json-output.md). The human view and `--json`
 * both render this object, so they cannot disagree.
 */
export interface ServiceErrorBody {
  timestamp?: unknown;
  method?: unknown;
  uri?: unknown;
  message?: unknown;
  [key: string]: unknown;
}

export interface RequestResult {
  ok: boolean;
  status: number | null;
  method: string;
  url: string;
  requestId: string | null;
  durationMs: number | null;
  /** Replies only: the answerId sent; null for a refused reply whose answerId is not a string. */
  answerId?: string | null;
  /** For reason updates: the reason's code. */
  code?: string;
  error: ServiceErrorBody | { message: string } | { code: string; message: string } | null;
  validationErrors?: Problem[];
  /** How many attempts were made (only when more than one). */
  attempts?: number;
  /**
   * The wait the last answer asked for with Retry-After (429 or 503), in milliseconds: such waits
   * are not retries, so raising `retries` would not have helped.
   */
  retryAfterMs?: number;
  /**
   * Said of a success whose body did not arrive whole (the connection closed, or the rest did not
   * come in time): the status came first, so the request was delivered; it is not repeated.
   */
  warning?: string;
  /** For batches: not sent because the batch stopped early. */
  skipped?: boolean;
  /** For batches: not sent because the --resume report shows it applied by an earlier run (ok is true). */
  resumed?: boolean;
  /**
   * `core api` only: the response body, a JSON value when it is JSON (identifiers exact), else its text
   * (cut to 1 MB, marked). The API's own operations answer with no body.
   */
  body?: unknown;
}

/** Every key of a result is on the list of keys no secret may equal (src/mask.ts): a new key must be added there. */
type UnlistedKey = Exclude<keyof RequestResult, (typeof PRINTED_KEYS)[number]>;
export const RESULT_KEYS_LISTED: UnlistedKey extends never ? true : UnlistedKey = true;

/** The most of a non-JSON error body that is shown (the 2 KB of docs/json-output.md). */
export const RAW_BODY_LIMIT = 2048;

/** The longest summary of an HTML page kept: a title, not the page. */
const HTML_SUMMARY_LIMIT = 200;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** The text of a bit of HTML: tags dropped, the common entities read, white space made single. */
function htmlText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x?[0-9a-f]+|[a-z]+);/gi, (entity, name: string) => {
      const key = name.toLowerCase();
      if (ENTITIES[key] !== undefined) return ENTITIES[key];
      const code = key.startsWith('#x') ? parseInt(key.slice(2), 16) : key.startsWith('#') ? parseInt(key.slice(1), 10) : NaN;
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * An error body that is an HTML page (a proxy's or a load balancer's 502 page, a login page), said in
 * one line rather than printed raw: "an HTML page from the server: 502 Bad Gateway", from its title,
 * else its first heading. Undefined when the body is not HTML.
 */
export function htmlSummary(text: string, contentType?: string | string[]): string | undefined {
  const type = (Array.isArray(contentType) ? contentType[0] : contentType)?.toLowerCase() ?? '';
  const looksHtml = /^\s*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text);
  if (!type.includes('html') && !looksHtml) return undefined;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1];
  const heading = /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1];
  const name = [title, heading].map((part) => (part === undefined ? '' : htmlText(part))).find((part) => part !== '');
  if (name === undefined) return 'an HTML page from the server (no title)';
  const cut = name.length > HTML_SUMMARY_LIMIT ? `${name.slice(0, HTML_SUMMARY_LIMIT)}…` : name;
  return `an HTML page from the server: ${cut}`;
}

/** How a body is masked before it is cut (src/mask.ts): the context's. */
export interface BodyMasking {
  redact(text: string): string;
  redactCutEnd(text: string): string;
}

const NO_MASKING: BodyMasking = { redact: (text) => text, redactCutEnd: (text) => text };

/**
 * Reads the service's error body: the Error record when it is JSON, else the raw text cut to 2 KB
 * (the JSON result carries it as the contract says; the human view says an HTML page in one line:
 * src/output/render.ts). Raw text is masked whole before it is cut (docs/security.md, "The masking
 * rule"), so a secret across the cut is masked, not printed up to the cut; a body that arrived cut
 * short also has its end masked when that is the start of a secret.
 */
export function errorBodyOf(
  response: Pick<HttpResponse, 'body' | 'truncated' | 'incomplete'> & { headers?: HttpResponse['headers'] },
  masking: BodyMasking = NO_MASKING,
): RequestResult['error'] {
  const text = response.body;
  if (response.incomplete !== undefined) {
    const head = cutText(masking.redactCutEnd(text), RAW_BODY_LIMIT).replace(/\u2026 \[cut\]$/, '');
    return { message: `${head}… [cut: ${response.incomplete}]` };
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as ServiceErrorBody;
  } catch {
    // Not JSON: shown raw below.
  }
  const masked = response.truncated ? masking.redactCutEnd(text) : masking.redact(text);
  return { message: cutText(masked, RAW_BODY_LIMIT, response.truncated) };
}

/** The warning of a success whose body did not arrive whole: what happened, and that it was delivered. */
export function cutBodyWarning(incomplete: string): string {
  return `the body of the answer was cut short (${incomplete}); its status came first, so the request was delivered: do not send it again`;
}

/**
 * Cuts text to at most `limit` bytes of UTF-8 without splitting a character or a mask (`********`:
 * the cut goes before it), marking the cut.
 */
export function cutText(text: string, limit: number, alreadyCut = false): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit && !alreadyCut) return text;
  let end = Math.min(limit, bytes.length);
  // Step back over UTF-8 continuation bytes so no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  // Step back to the start of a mask the cut would split (a run of asterisks: its first one).
  if (end < bytes.length && bytes[end] === ASTERISK) while (end > 0 && bytes[end - 1] === ASTERISK) end -= 1;
  return `${bytes.subarray(0, end).toString('utf8')}… [cut]`;
}

const ASTERISK = 0x2a;

/**
 * A redirect is not followed: following it would carry the token to another address. The message
 * says where the service pointed, so the base URL can be corrected.
 */
function redirectError(response: Pick<HttpResponse, 'headers'>): { message: string } {
  const location = response.headers.location;
  const target = Array.isArray(location) ? location[0] : location;
  return {
    message: `the service redirected ${target ? `to ${target}` : 'elsewhere'}; core does not follow redirects (they would carry the token): set the base URL to the final address`,
  };
}

export function resultFromResponse(
  request: { method: string; url: string; answerId?: string; code?: string },
  response: HttpResponse,
  masking: BodyMasking = NO_MASKING,
): RequestResult {
  const ok = response.status >= 200 && response.status < 300;
  return {
    ok,
    status: response.status,
    method: request.method,
    url: request.url,
    requestId: response.requestId,
    durationMs: response.durationMs,
    ...(request.code !== undefined ? { code: request.code } : {}),
    ...(request.answerId !== undefined ? { answerId: request.answerId } : {}),
    error: ok ? null : response.status >= 300 && response.status < 400 ? redirectError(response) : errorBodyOf(response, masking),
    ...(ok && response.incomplete !== undefined ? { warning: cutBodyWarning(response.incomplete) } : {}),
    ...(response.attempts > 1 ? { attempts: response.attempts } : {}),
    ...retryAfterOf(response),
  };
}

/** The wait a 429 or 503 asked for with Retry-After, as the client reads it (src/http/client.ts). */
function retryAfterOf(response: HttpResponse): { retryAfterMs?: number } {
  if (response.status !== 429 && response.status !== 503) return {};
  const ms = parseRetryAfter(response.headers['retry-after']);
  return ms === null ? {} : { retryAfterMs: ms };
}

/**
 * Reason phrases of the statuses an API answer can carry. Kept here rather than read from node:http,
 * whose loading costs every invocation, sending or not, several milliseconds.
 */
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  425: 'Too Early',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  507: 'Insufficient Storage',
  511: 'Network Authentication Required',
};

export function statusText(status: number): string {
  return STATUS_TEXT[status] ?? '';
}

/** The exit code of one request's result (docs/exit-codes.md): from its status, or from why it was not sent. */
export function exitCodeOf(result: RequestResult): number {
  if (result.status === null) {
    if (result.validationErrors) return ExitCode.usage;
    if (result.skipped || result.resumed) return ExitCode.ok;
    const code = (result.error as { code?: string } | null)?.code;
    return code === 'EABORTED' ? ExitCode.interrupted : ExitCode.network;
  }
  return exitCodeForStatus(result.status);
}
