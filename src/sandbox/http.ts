import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Problem } from '../errors.js';

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

/** `path: message; path: message`: how a 400 answer lists every problem of a payload. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
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

/**
 * The Host values the sandbox answers (docs/sandbox.md, "The Host check"): its bound address with its
 * port, the host name it was started with (`--host localhost`), and, when it is bound to loopback or
 * to every address, the loopback names localhost, 127.0.0.1 and [::1] with its port. A page on
 * another site that reaches the port through a DNS name it controls (DNS rebinding) sends its own
 * name as Host, and is refused. Names given with `--allow-host` are accepted with any port or none
 * (a bot in a container reaches `host.docker.internal:PORT`, a tunnel sends its own name).
 */
export interface AllowedHosts {
  /** `name:port` (and `name` alone on port 80), lower case. */
  exact: Set<string>;
  /** Names accepted whatever the port, lower case, without a trailing dot. */
  names: Set<string>;
}

export function allowedHosts(
  bound: string,
  given: string,
  port: number,
  loopback: (host: string) => boolean,
  extra: readonly string[] = [],
): AllowedHosts {
  const names = new Set<string>([bound.toLowerCase(), given.toLowerCase()]);
  const wildcard = bound === '0.0.0.0' || bound === '::';
  if (wildcard || loopback(bound)) for (const name of ['localhost', '127.0.0.1', '::1']) names.add(name);
  const exact = new Set<string>();
  for (const name of names) {
    const host = bracketed(name);
    exact.add(`${host}:${port}`);
    if (port === 80) exact.add(host);
  }
  return { exact, names: new Set(extra.map((name) => bracketed(name.toLowerCase().replace(/\.$/, '')))) };
}

const bracketed = (name: string) => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name);

/** The name part of a Host header (`[::1]` keeps its brackets), lower case, without a trailing dot. */
export function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  const port = /:\d*$/.exec(host);
  const name = port && (!host.startsWith('[') || host.lastIndexOf(']') < port.index) ? host.slice(0, port.index) : host;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** Whether a Host header names one of `allowed` (compared without case, a trailing dot ignored). */
export function hostAllowed(header: string | undefined, allowed: AllowedHosts): boolean {
  if (header === undefined) return false;
  const host = header
    .trim()
    .toLowerCase()
    .replace(/\.(?=:\d+$)|\.$/, '');
  return allowed.exact.has(host) || allowed.names.has(hostName(header));
}

/** Why a name cannot be given to --allow-host: a DNS name, an IPv4 address or an IPv6 one in brackets. */
export function allowHostProblem(name: string): string | undefined {
  const text = name.trim();
  if (text === '') return 'must not be empty';
  if (/^\[[0-9a-f:.]+\]$/i.test(text)) return undefined;
  const labels = text.replace(/\.$/, '').split('.');
  if (text.length <= 253 && labels.every((label) => /^[a-z0-9_-]{1,63}$/i.test(label))) return undefined;
  return `'${name}' is not a host name: give a name such as host.docker.internal, without a port or scheme`;
}

/**
 * The connection cap (docs/sandbox.md, "Bounds"): at most `max` connections open at once. At the cap,
 * a new connection closes the oldest connection that is idle (kept alive between requests) or has not
 * yet sent a whole request's headers (a slow-header attack), so a client that sends its request at
 * once is served whatever such connections hold; when every connection is busy with a request (event
 * streams included), the new one is closed at once. Either is logged, at most once every 5 seconds.
 */
export function capConnections(server: Server, max: number, log: (line: string) => void): void {
  const open = new Set<Socket>();
  // The connections that may be closed to make room, longest idle first (a Set keeps insertion order).
  const idle = new Set<Socket>();
  let refused = 0;
  let evicted = 0;
  let lastReport = -Infinity;
  const report = () => {
    const now = performance.now();
    if (now - lastReport < 5000) return;
    lastReport = now;
    log(
      `connections: ${open.size} open, the most the sandbox serves (${max}); ` +
        `${evicted} idle or slow ones closed to make room, ${refused} new ones refused so far`,
    );
  };
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const oldest = idle.values().next();
      if (oldest.done === true) {
        refused++;
        report();
        socket.destroy();
        return;
      }
      evicted++;
      report();
      open.delete(oldest.value);
      idle.delete(oldest.value);
      oldest.value.destroy();
    }
    open.add(socket);
    idle.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      idle.delete(socket);
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const { socket } = req;
    idle.delete(socket);
    res.once('finish', () => {
      if (open.has(socket) && !socket.destroyed) idle.add(socket);
    });
  });
}
