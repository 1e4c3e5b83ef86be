import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseEnv } from '../helpers/run.js';

/** Helpers shared by the `core reason update` tests. */

export const SANDBOX_TOKEN = 'sandbox-token';

/** The environment alone (no config file), as CI runs it, pointed at `url`. */
export function envFor(url: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'sandbox', CORE_TOKEN: SANDBOX_TOKEN, ...extra });
}

/** A valid reason with the given code. */
export function reason(code: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { code, reasons: [{ locale: 'en', name: `Name of ${code}` }], ...extra };
}

export function ndjson(items: unknown[]): string {
  return items.map((item) => JSON.stringify(item)).join('\n') + '\n';
}

/** Writes a file in a fresh temporary folder and returns its path. */
export function tempFile(name: string, content: string): string {
  const folder = mkdtempSync(join(tmpdir(), 'core-reason-test-'));
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}

/** Every non-empty line of NDJSON text, parsed. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

export function readJsonLines(path: string): Record<string, unknown>[] {
  return jsonLines(readFileSync(path, 'utf8'));
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body's code, when it has one. */
  code: string | undefined;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface CountingServer {
  url: string;
  requests: SeenRequest[];
  /** The most requests the server was answering at one moment. */
  maxInFlight(): number;
  close(): Promise<void>;
}

/**
 * A loopback server that answers each request from a function of the request (and how many times
 * its code was seen before), and records how many requests it holds at once: a request counts from
 * its arrival until its answer is written.
 */
export async function startCountingServer(answer: (request: SeenRequest, attempt: number) => Answer = () => ({ status: 200 })): Promise<CountingServer> {
  const requests: SeenRequest[] = [];
  const attempts = new Map<string, number>();
  let inFlight = 0;
  let max = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    max = Math.max(max, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let code: string | undefined;
      try {
        const parsed = JSON.parse(body) as { code?: unknown };
        if (typeof parsed.code === 'string') code = parsed.code;
      } catch {
        // Not JSON: no code.
      }
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, code };
      requests.push(seen);
      const key = code ?? '';
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      const planned = answer(seen, attempt);
      const respond = () => {
        inFlight -= 1;
        res.statusCode = planned.status;
        res.setHeader('X-Request-Id', randomUUID());
        for (const [name, value] of Object.entries(planned.headers ?? {})) res.setHeader(name, value);
        if (planned.body !== undefined) res.setHeader('Content-Type', 'application/json');
        res.end(planned.body ?? '');
      };
      if (planned.delayMs) setTimeout(respond, planned.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    maxInFlight: () => max,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The service's Error body (docs/api.md, "Error body"). */
export function errorBody(status: number, message: string): string {
  return JSON.stringify({ timestamp: '2026-11-22T10:00:00.000Z', method: 'PUT', uri: '/api/v1/inactivity/reasons', message });
}
