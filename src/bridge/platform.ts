import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Agents } from '../http/agents.js';
import { toNetworkError } from '../http/client.js';
import type { Mask } from '../mask.js';
import { operations } from '../operations.js';
import type { PlatformAnswer, SendOn } from './outbound.js';

/**
 * How a bridge sends a checked request on to the real platform (docs/bridge.md, "Outbound"): one
 * request on node:http over the kept-alive agents it is given (the command's, with the profile's
 * proxy and CA; the library's own), with the platform's tenant, token and extra headers, and no retry
 * of its own. The answer comes back with every registered secret masked.
 *
 * It is a plain request rather than the got client of the sending commands: a bridged exchange waits
 * for it, and got's per-request work (its options merged, its streams) was a measurable part of that
 * wait (docs/bridge.md, "Performance"). The network rules are the same ones, held by the agents.
 */

export interface PlatformTarget {
  baseUrl: string;
  tenant: string;
  /** The token of the bot operations; null when `headers` carry Authorization themselves. */
  token: string | null;
  /** The token of PUT /api/v1/inactivity/reasons (the integrator's); null as for `token`. */
  integratorToken: string | null;
  /** Extra headers of every request (a profile's `headers`). */
  headers: Readonly<Record<string, string>>;
  timeoutMs: number;
  agents: Agents;
  /** Every secret the answer must not show (the tokens, the platform's webhook secret). */
  mask: Mask;
  /** The User-Agent sent when the bot's request had none. */
  userAgent: string;
  /** For the words of a failure: the proxy in use (printable), the CA file trusted besides the system's. */
  proxy?: string | null;
  caFile?: string | null;
  /** The most of the platform's answer body kept and passed back (default 1 MiB). */
  maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

/** The token each operation sends: the integrator's for the reasons operation, the bot's otherwise. */
const INTEGRATOR_PATHS = new Set(
  Object.values(operations)
    .filter((op) => op.credential === 'integrator')
    .map((op) => `${op.method} ${op.path}`),
);

export function platformSender(target: PlatformTarget): SendOn {
  const base = new URL(target.baseUrl.replace(/\/+$/, ''));
  const secure = base.protocol === 'https:';
  const agent = secure ? target.agents.https : target.agents.http;
  const request = secure ? https.request : http.request;
  const prefix = base.pathname === '/' ? '' : base.pathname;
  const maxBody = target.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const fixed: Record<string, string> = { ...target.headers, 'X-Tenant-Name': target.tenant };
  return ({ method, path, body, contentType, userAgent }) => {
    const token = INTEGRATOR_PATHS.has(`${method} ${path}`) ? target.integratorToken : target.token;
    const headers: Record<string, string | number> = {
      ...fixed,
      'Content-Type': contentType,
      'Content-Length': body.length,
      'User-Agent': userAgent ?? target.userAgent,
    };
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    const started = performance.now();
    const url = `${base.origin}${prefix}${path}`;
    return new Promise<PlatformAnswer>((resolve) => {
      let settled = false;
      const settle = (answer: PlatformAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      const fail = (error: unknown) => {
        const message = toNetworkError(error, {
          url,
          timeoutMs: target.timeoutMs,
          ...(target.proxy ? { proxy: target.proxy } : {}),
          ...(target.caFile ? { caFile: target.caFile } : {}),
        }).message;
        settle({ ok: false, error: target.mask.redact(message), durationMs: performance.now() - started });
      };
      const req = request(
        {
          protocol: base.protocol,
          hostname: base.hostname.replace(/^\[|\]$/g, ''),
          port: base.port === '' ? undefined : Number(base.port),
          method,
          path: `${prefix}${path}`,
          headers,
          agent,
        },
        (response) => {
          readAnswer(response, maxBody).then(({ text, truncated }) => {
            const masked: Record<string, string | string[] | undefined> = {};
            for (const [name, value] of Object.entries(response.headers)) {
              masked[name] = Array.isArray(value)
                ? value.map((v) => target.mask.redact(v))
                : value === undefined
                  ? undefined
                  : target.mask.redact(value);
            }
            settle({
              ok: true,
              status: response.statusCode ?? 0,
              headers: masked,
              body: truncated ? target.mask.redactCutEnd(text) : target.mask.redact(text),
              truncated,
              durationMs: performance.now() - started,
            });
          }, fail);
        },
      );
      const timer = setTimeout(() => {
        req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
      }, target.timeoutMs);
      req.on('error', fail);
      req.end(body);
    });
  };
}

/** The answer's body as text, decoded as its Content-Encoding says, cut at `maxBody` bytes. */
function readAnswer(response: IncomingMessage, maxBody: number): Promise<{ text: string; truncated: boolean }> {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  const source = decoder === null ? response : response.pipe(decoder);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let truncated = false;
    source.on('data', (chunk: Buffer) => {
      if (truncated) return;
      if (kept + chunk.length > maxBody) {
        chunks.push(chunk.subarray(0, maxBody - kept));
        kept = maxBody;
        truncated = true;
        // The rest is not read: the connection cannot be reused, and is closed.
        response.destroy();
        resolve({ text: Buffer.concat(chunks).toString('utf8'), truncated });
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    source.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), truncated }));
    source.on('error', reject);
    if (decoder !== null) response.on('error', reject);
  });
}
