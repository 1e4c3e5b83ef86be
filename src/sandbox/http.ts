import type { IncomingMessage } from 'node:http';
import { listedProblems, type Problem } from '../errors.js';

/** Small HTTP helpers of the sandbox, kept apart from its routing so each reads on its own. */

/** The Error body every error answer carries (docs/api.md, "Error body"). */
export interface ErrorBody {
  timestamp: string;
  method: string;
  uri: string;
  message: string;
}

export function errorBody(method: string, uri: string, message: string): ErrorBody {
  return { timestamp: new Date().toISOString(), method, uri, message };
}

/** `path: message; path: message`: how a 400 answer lists the problems of a payload (the first ones, then a count). */
export function formatProblems(problems: readonly Problem[]): string {
  return listedProblems(problems)
    .map((p) => (p.path ? `${p.path}: ${p.message}` : p.message))
    .join('; ');
}

/**
 * The request path and query. req.url is the request target as sent; it is split by hand because
 * `new URL('//x', base)` would read a path starting with two slashes as a host name.
 */
export function splitTarget(target: string | undefined): { path: string; query: URLSearchParams } {
  const raw = target ?? '/';
  const mark = raw.indexOf('?');
  return mark === -1
    ? { path: raw, query: new URLSearchParams() }
    : { path: raw.slice(0, mark), query: new URLSearchParams(raw.slice(mark + 1)) };
}

/** The media type of a Content-Type header, lower case and without parameters such as charset. */
export function mediaType(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return header.split(';', 1)[0]?.trim().toLowerCase();
}

export type Credential = { kind: 'missing' } | { kind: 'malformed' } | { kind: 'bearer'; token: string };

/** Reads `Authorization: Bearer <token>` (docs/api.md, "Authentication"); the scheme name is case-insensitive (RFC 9110). */
export function readCredential(header: string | undefined): Credential {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1] === undefined ? { kind: 'malformed' } : { kind: 'bearer', token: match[1] };
}

export type BodyRead = { ok: true; bytes: Buffer } | { ok: false; reason: 'too-large' };

/**
 * Reads a request body of at most `limit` bytes. A declared Content-Length over the limit is
 * refused before any byte is read; a body that grows past it while streaming (chunked) stops
 * being read at that point. Either way the caller answers 413 and closes the connection.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false, reason: 'too-large' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        resolve({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ ok: true, bytes: Buffer.concat(chunks, size) });
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      // 'close' before 'end' means the client went away mid-body.
      cleanup();
      reject(new Error('the client closed the connection before the body ended'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** The base URL clients should use: a wildcard bind is reached through loopback, IPv6 goes in brackets. */
export function baseUrl(address: string, port: number): string {
  const host = address === '0.0.0.0' ? '127.0.0.1' : address === '::' ? '::1' : address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
