import type { Context, MaskedText } from '../context.js';
import { MASK } from '../context.js';
import { isSensitiveResponseHeader, isShownRequestHeader, maskedHeaderValue } from '../secrets.js';
import { printable } from '../output/terminal.js';
import { stringifyJson } from '../payload/json.js';
import type { Operation } from '../operations.js';
import { version } from '../version.js';
import { trimEndOf } from '../text/trim.js';

export interface PreparedRequest {
  method: Operation['method'];
  url: string;
  headers: Record<string, string>;
  /** The exact bytes sent: compact JSON with every integer digit kept. */
  body: string;
  payload: unknown;
  /** The environment variable a curl command should read the token from. */
  tokenVariable: 'CORE_TOKEN' | 'CORE_INTEGRATOR_TOKEN';
  /** True when the Authorization header carries the resolved token (not a header from the profile). */
  bearerFromToken: boolean;
}

export interface RequestSettings {
  baseUrl: string;
  tenant: string;
  /** null: no Authorization header (a credential may come from the profile's headers). */
  token: string | null;
  headers: Record<string, string>;
}

/** Joins the base URL and an API path, keeping any path prefix of the base URL. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${trimEndOf(baseUrl, '/')}${path}`;
}

export function userAgent(): string {
  return `core-cli/${version()} node/${process.versions.node}`;
}

/** What every request of one operation with one set of settings shares. */
type Frame = Pick<PreparedRequest, 'method' | 'url' | 'headers' | 'bearerFromToken'>;

/**
 * Frames made so far, per settings object (a session's lives as long as the session): a batch
 * builds the method, URL and headers once, not once per item. Their headers are frozen, since
 * every request of the session shares them.
 */
const frames = new WeakMap<RequestSettings, Map<string, Frame>>();

/**
 * Builds the request exactly as it will go on the wire. The headers are those docs/api.md lists for
 * each operation; the profile's own headers come last so they can replace any of them (for example
 * another credential for the reason update, whose format the API does not show: docs/api.md, gap 6).
 */
export function prepareRequest(
  operation: Pick<Operation, 'method' | 'path'>,
  settings: RequestSettings,
  payload: unknown,
  tokenVariable: PreparedRequest['tokenVariable'] = 'CORE_TOKEN',
): PreparedRequest {
  // A request without a payload (a GET of `core api`, say) has no body and so no Content-Type.
  const hasBody = payload !== undefined;
  let known = frames.get(settings);
  if (known === undefined) frames.set(settings, (known = new Map()));
  const key = `${operation.method} ${operation.path} ${hasBody}`;
  let frame = known.get(key);
  if (frame === undefined) known.set(key, (frame = frameOf(operation, settings, hasBody)));
  // Written out rather than `{ ...frame, body, ... }`: on Node 20 each property a literal adds after
  // a leading spread takes V8's slow path (~0.6 µs each; docs/performance.md, "Batches, fifth round").
  return {
    method: frame.method,
    url: frame.url,
    headers: frame.headers,
    bearerFromToken: frame.bearerFromToken,
    body: hasBody ? stringifyJson(payload) : '',
    payload,
    tokenVariable,
  };
}

function frameOf(operation: Pick<Operation, 'method' | 'path'>, settings: RequestSettings, hasBody: boolean): Frame {
  const headers: Record<string, string> = {
    ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
    Accept: 'application/json',
    'User-Agent': userAgent(),
    'X-Tenant-Name': settings.tenant,
  };
  if (settings.token !== null) headers.Authorization = `Bearer ${settings.token}`;
  let bearerFromToken = settings.token !== null;
  for (const [name, value] of Object.entries(settings.headers)) {
    for (const existing of Object.keys(headers)) {
      if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    }
    headers[name] = value;
    if (name.toLowerCase() === 'authorization') bearerFromToken = false;
  }
  return { method: operation.method, url: joinUrl(settings.baseUrl, operation.path), headers: Object.freeze(headers), bearerFromToken };
}

/**
 * Request headers safe to print (src/secrets.ts): a value is shown only for a header on the short
 * list of those that never carry a credential; every other is masked, keeping a scheme word
 * (`Bearer ********`).
 */
export function maskHeaders(headers: Record<string, string>, ctx: Context): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    masked[name] = isShownRequestHeader(name) ? ctx.redact(value) : maskedHeaderValue(value);
  return masked;
}

/**
 * The `--dry-run` view: the request line, masked headers and the pretty-printed body. As JSON it is
 * one document, which with `--curl` also holds the curl command (`curl`), so that `--json` keeps
 * stdout to JSON documents alone.
 */
export function renderDryRun(request: PreparedRequest, ctx: Context, json: boolean, curl?: string): string | MaskedText {
  const headers = maskHeaders(request.headers, ctx);
  if (json)
    return ctx.json({
      dryRun: true,
      method: request.method,
      url: request.url,
      headers,
      body: request.payload ?? null,
      ...(curl !== undefined ? { curl } : {}),
    });
  const lines = [`${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push('', request.payload === undefined ? '(no body)' : stringifyJson(request.payload, 2), '');
  return lines.join('\n');
}

/** Quotes a word for a POSIX shell. */
export function shellQuote(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The `--curl` view: an equivalent curl command. The token is written as a variable reference
 * ($CORE_TOKEN), never its value, so the command can be shared and pasted safely.
 */
export function renderCurl(request: PreparedRequest, ctx: Context, connection: string[] = []): string {
  const lines = [`curl --fail-with-body -sS -X ${request.method} ${shellQuote(request.url)}`, ...connection];
  for (const [name, value] of Object.entries(request.headers)) {
    if (name === 'Authorization' && request.bearerFromToken) {
      lines.push(`-H "Authorization: Bearer \$${request.tokenVariable}"`);
    } else if (!isShownRequestHeader(name)) {
      lines.push(`-H ${shellQuote(`${name}: ${maskedHeaderValue(value)}`)}`);
    } else {
      lines.push(`-H ${shellQuote(`${name}: ${ctx.redact(value)}`)}`);
    }
  }
  if (request.payload !== undefined) lines.push(`--data-binary ${shellQuote(ctx.redact(request.body))}`);
  return `${lines.join(' \\\n  ')}\n`;
}

/** The `--verbose` view of a request, for stderr. */
export function renderVerboseRequest(request: PreparedRequest, ctx: Context): string {
  const lines = [`> ${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(maskHeaders(request.headers, ctx))) lines.push(`> ${name}: ${value}`);
  lines.push(`> (body: ${Buffer.byteLength(request.body)} bytes)`);
  return `${lines.join('\n')}\n`;
}

export function renderVerboseResponse(
  response: { status: number; statusText: string; httpVersion: string; headers: Record<string, string | string[] | undefined> },
  ctx: Context,
): string {
  // Everything after the status code is the service's text: made printable (src/output/terminal.ts).
  const lines = [`< HTTP/${response.httpVersion} ${response.status} ${printable(response.statusText)}`.trimEnd()];
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) lines.push(`< ${printable(name)}: ${isSensitiveResponseHeader(name) ? MASK : printable(ctx.redact(v))}`);
  }
  return `${lines.join('\n')}\n`;
}
