import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Problem } from '../errors.js';
import { flatten, parseJson } from '../payload/json.js';
import { formatProblems, readBody } from './http.js';

/**
 * One request and what it is answered with, shared by the sandbox's routes: the API's operations
 * (api.ts), the customer's side (customer.ts) and the event stream (stream.ts).
 */

/** What one request is answered with, decided before anything is written. */
export interface Answer {
  status: number;
  /** The message of the Error body; every error answer has one. */
  error?: string;
  /** A JSON body of a successful answer of the sandbox's own endpoints (API successes have no body). */
  json?: unknown;
  /** A body of another type, written as given (the page's files; a conversation saved as a test file is YAML). */
  raw?: { contentType: string; text: string };
  headers?: Record<string, string>;
  /** What happened, for the log line. */
  what: string;
  /** Close the connection after answering, without reading the rest of the request. */
  close?: boolean;
  /** The handler wrote the answer itself (an event stream): only the log line remains to write. */
  streamed?: boolean;
  /** An API request whose handler recorded its own event; the others are recorded as api.request. */
  recorded?: boolean;
  /** The tenant for the log line, when the request named it another way than ?tenant= (a session, say). */
  tenant?: string;
}

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  method: string;
  path: string;
  query: URLSearchParams;
  /** The X-Tenant-Name header, or the ?tenant= of a request to the sandbox's own endpoints. */
  tenant: string | undefined;
  /** The parts of the path a pattern route captured, such as the sessionId. */
  params: string[];
  /** The request body once read and parsed, for the record of a refused API request. */
  body?: unknown;
  /** How many bytes of body were read. */
  bodyBytes: number;
  /** An API request's body as read, byte for byte (a bridge sends it on as it came). */
  rawBody?: Buffer;
  /** An API request that passed the checks made before its body (token, tenant, Content-Type) and whose body was read. */
  passedChecks?: boolean;
}

export type Handler = (ex: Exchange) => Answer | Promise<Answer>;

/** The most of a request's User-Agent an event keeps. */
const userAgentKept = 200;

/**
 * Who sent a request, as its User-Agent says (core's own commands send `core-cli/<version>`), kept
 * with its event so the page can name the sender of a refusal it cannot tie to a conversation;
 * null when the request has none.
 */
export function userAgentOf(ex: Exchange): string | null {
  const value = ex.req.headers['user-agent'];
  return typeof value === 'string' && value !== '' ? flatten(value.slice(0, userAgentKept)) : null;
}

export const invalid = (problems: Problem[]): Answer => {
  const message = formatProblems(problems);
  return { status: 400, error: message, what: `invalid: ${message}` };
};

export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The largest body of a request to the sandbox's own endpoints: they take a few small fields. */
export const maxControlBodyBytes = 64 * 1024;

export type JsonRead = { ok: true; value: Record<string, unknown> } | { ok: false; answer: Answer };

/**
 * Reads the JSON object body of a request to the sandbox's own endpoints. An empty body is `{}`:
 * release, redeliver and reset need none, though they must be sent as application/json.
 */
export async function readJsonObject(ex: Exchange): Promise<JsonRead> {
  const read = await readBody(ex.req, maxControlBodyBytes);
  if (!read.ok) {
    return {
      ok: false,
      answer: {
        status: 413,
        error: `request body larger than ${maxControlBodyBytes} bytes`,
        what: 'body too large, connection closed',
        close: true,
      },
    };
  }
  ex.bodyBytes = read.bytes.length;
  if (read.bytes.length === 0) return { ok: true, value: {} };
  let value: unknown;
  try {
    value = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(read.bytes));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, answer: { status: 400, error: `the request body is not valid JSON: ${reason}`, what: 'invalid: not JSON' } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, answer: { status: 400, error: 'the request body must be a JSON object', what: 'invalid: not an object' } };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Paging of listings (docs/sandbox.md, "Paging"): ?after=SEQ (default 0) and ?limit=N (default 100, at most 1000). */
export const paging = { defaultLimit: 100, maxLimit: 1000 } as const;

export type PagingRead = { ok: true; after: number; limit: number } | { ok: false; answer: Answer };

export function readPaging(query: URLSearchParams, defaults: { after?: number } = {}): PagingRead {
  const problems: Problem[] = [];
  const after = query.get('after');
  const limit = query.get('limit');
  const whole = (text: string) => (/^\d{1,15}$/.test(text) ? Number(text) : undefined);
  const afterValue = after === null ? (defaults.after ?? 0) : whole(after);
  const limitValue = limit === null ? paging.defaultLimit : whole(limit);
  if (afterValue === undefined) problems.push({ path: 'after', message: `'${after}' is not a seq: use a whole number of 0 or more` });
  if (limitValue === undefined || limitValue > paging.maxLimit) {
    problems.push({ path: 'limit', message: `'${limit}' is not a page size: use a whole number from 0 to ${paging.maxLimit}` });
  }
  if (problems.length > 0) return { ok: false, answer: invalid(problems) };
  return { ok: true, after: afterValue as number, limit: limitValue as number };
}
