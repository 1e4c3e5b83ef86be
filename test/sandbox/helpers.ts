import { randomUUID } from 'node:crypto';
import { onTestFinished, type TestContext } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { startSandbox, type Sandbox, type SandboxEvent, type SandboxOptions } from '../../src/sandbox/server.js';
import { happens } from '../helpers/wait.js';

export interface TestSandbox extends Sandbox {
  /** Every log line, in order. */
  logs: string[];
  /** The last log line of an API request (inspection requests log lines too). */
  lastApiLog(): string | undefined;
}

/**
 * A sandbox on a free loopback port, closed when the test ends, with its log lines collected.
 * `whenFinished` registers the closing: vitest's onTestFinished by default, which knows the test only
 * while one runs at a time; a concurrent test passes its context's own.
 */
export async function sandbox(
  options: SandboxOptions = {},
  whenFinished: TestContext['onTestFinished'] = onTestFinished,
): Promise<TestSandbox> {
  const logs: string[] = [];
  const started = await startSandbox({ ...options, log: (line) => logs.push(line) });
  whenFinished(() => started.close());
  const lastApiLog = () => logs.filter((line) => / \/api\//.test(line)).at(-1);
  return Object.assign(started, { logs, lastApiLog });
}

export interface CallInit {
  method?: string;
  /** An object is written with stringifyJson (bigints exact); a string is sent as is. */
  body?: unknown;
  /** The bearer token; null sends no Authorization header. Default sandbox-token. */
  token?: string | null;
  /** X-Tenant-Name; null sends none. Default sandbox. */
  tenant?: string | null;
  /** Content-Type; null sends none. Default application/json. */
  contentType?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The body read with parseJson (integers as bigint); undefined when empty. */
  json: unknown;
}

/** One real HTTP request to the sandbox, with fetch. */
export async function call(sb: { url: string }, path: string, init: CallInit = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...init.headers };
  const token = init.token === undefined ? 'sandbox-token' : init.token;
  const tenant = init.tenant === undefined ? 'sandbox' : init.tenant;
  const contentType = init.contentType === undefined ? 'application/json' : init.contentType;
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (tenant !== null) headers['X-Tenant-Name'] = tenant;
  if (contentType !== null && init.body !== undefined) headers['Content-Type'] = contentType;
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : stringifyJson(init.body);
  const response = await fetch(`${sb.url}${path}`, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text === '' ? undefined : parseJson(text) };
}

export const paths = {
  reply: '/api/v1/chatbot',
  greet: '/api/v1/chatbot/greet',
  reasons: '/api/v1/inactivity/reasons',
  messages: '/_sandbox/messages',
  seededReasons: '/_sandbox/reasons',
  reset: '/_sandbox/reset',
} as const;

/** A valid bot answer addressed by coreClientId, with a fresh answerId. */
export function replyBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { text: 'Your order has shipped.', answerId: randomUUID(), coreClientId: 1234567n, code: 'SUCCESS', ...extra };
}

export const sendReply = (sb: { url: string }, body: unknown, init: CallInit = {}) => call(sb, paths.reply, { body, ...init });
export const sendGreeting = (sb: { url: string }, body: unknown, init: CallInit = {}) => call(sb, paths.greet, { body, ...init });
export const updateReason = (sb: { url: string }, body: unknown, init: CallInit = {}) =>
  call(sb, paths.reasons, { method: 'PUT', body, ...init });

export interface MessageView {
  /** A JSON integer, so a bigint when read with parseJson. */
  seq: bigint;
  type: string;
  sessionId: string | null;
  status: bigint;
  tenant: string;
  kind: string;
  requestId: string;
  time: string;
  answerId: string | null;
  addressedBy: string[];
  delivered: boolean;
  notDelivered: string | null;
  questionAlreadyAnswered: boolean;
  body: Record<string, unknown>;
}

/** GET /_sandbox/messages, optionally for one tenant: every page, following `next`. */
export async function messages(sb: { url: string }, tenant?: string): Promise<MessageView[]> {
  const all: MessageView[] = [];
  let after: bigint | null = 0n;
  while (after !== null) {
    const query = new URLSearchParams({ after: String(after), limit: '1000', ...(tenant ? { tenant } : {}) });
    const result = await call(sb, `${paths.messages}?${query}`, { token: null, tenant: null });
    const page = result.json as { messages: MessageView[]; next: bigint | null };
    all.push(...page.messages);
    after = page.next;
  }
  return all;
}

export interface ReasonView {
  tenant: string;
  code: string;
  reason: { code: string; reasons: { locale: string; name: string }[]; color?: string; active: boolean; system?: boolean };
  updatedAt: string | null;
  requestId: string | null;
}

/** GET /_sandbox/reasons, optionally for one tenant. */
export async function reasons(sb: { url: string }, tenant?: string): Promise<ReasonView[]> {
  const result = await call(sb, `${paths.seededReasons}${tenant ? `?tenant=${encodeURIComponent(tenant)}` : ''}`, {
    token: null,
    tenant: null,
  });
  return (result.json as { reasons: ReasonView[] }).reasons;
}

export const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Asserts the Error body shape (docs/api.md, "Error body") and returns its message. */
export function errorMessage(result: CallResult): string {
  const body = JSON.parse(result.text) as Record<string, unknown>;
  if (Object.keys(body).sort().join() !== 'message,method,timestamp,uri') throw new Error(`not an Error body: ${result.text}`);
  return body.message as string;
}

/** What POST /_sandbox/conversations answers. */
export interface StartedConversation {
  tenant: string;
  sessionId: string;
  coreClientId: bigint;
  clientId: string | null;
  channel: string;
}

/** What POST /_sandbox/conversations/{sessionId}/messages answers. */
export interface AskedQuestion {
  tenant: string;
  sessionId: string;
  seq: bigint;
  questionId: bigint;
  questionIndex: bigint;
  type: string;
  deliveryId: string | null;
  noWebhook: string | null;
}

/** Starts a conversation as the customer (POST /_sandbox/conversations); fails the test unless 201. */
export async function startConversation(sb: { url: string }, body: Record<string, unknown> = {}): Promise<StartedConversation> {
  const result = await call(sb, '/_sandbox/conversations', { body, token: null, tenant: null });
  if (result.status !== 201) throw new Error(`POST /_sandbox/conversations answered ${result.status}: ${result.text}`);
  return result.json as StartedConversation;
}

/** A customer message (text, press or pick) in a conversation; fails the test unless 201. */
export async function customerSays(sb: { url: string }, sessionId: string, body: Record<string, unknown> | string): Promise<AskedQuestion> {
  const result = await call(sb, `/_sandbox/conversations/${sessionId}/messages`, {
    body: typeof body === 'string' ? { text: body } : body,
    token: null,
    tenant: null,
  });
  if (result.status !== 201) throw new Error(`POST .../messages answered ${result.status}: ${result.text}`);
  return result.json as AskedQuestion;
}

/** A conversation with one customer question in it: its thread and the question. */
export async function askedQuestion(
  sb: { url: string },
  conversation: Record<string, unknown> = {},
  text = 'Where is my order?',
): Promise<AskedQuestion & { coreClientId: bigint }> {
  const started = await startConversation(sb, conversation);
  const asked = await customerSays(sb, started.sessionId, text);
  return { ...asked, coreClientId: started.coreClientId };
}

/** An event of the sandbox's log as the tests read it (the fields they look at). */
export type EventView = SandboxEvent;

/**
 * Resolves with the first event (already recorded or still to come) that `match` accepts, failing
 * the test, naming `what`, if none comes within the bound (happens() in test/helpers/wait.ts).
 */
export function eventOf<T extends SandboxEvent = SandboxEvent>(
  sb: Sandbox,
  match: (event: SandboxEvent) => boolean,
  what: string,
): Promise<T> {
  return happens(
    new Promise<T>((resolve) => {
      const seen = sb.events().find(match);
      if (seen) {
        resolve(seen as T);
        return;
      }
      const stop = sb.subscribe((event) => {
        if (!match(event)) return;
        stop();
        resolve(event as T);
      });
    }),
    what,
  );
}

/** Resolves once `count` events that `match` accepts have been recorded, with them in order. */
export function eventsOf<T extends SandboxEvent = SandboxEvent>(
  sb: Sandbox,
  match: (event: SandboxEvent) => boolean,
  count: number,
  what: string,
): Promise<T[]> {
  return happens(
    new Promise<T[]>((resolve) => {
      const check = () => {
        const found = sb.events().filter(match) as T[];
        if (found.length < count) return false;
        resolve(found.slice(0, count));
        return true;
      };
      if (check()) return;
      const stop = sb.subscribe((event) => {
        if (match(event) && check()) stop();
      });
    }),
    `${count} × ${what}`,
  );
}

/** An open GET /_sandbox/events: the events read so far, a wait for the next ones, and close. */
export interface OpenStream {
  status: number;
  headers: Headers;
  /** Every event received, parsed losslessly, with the id line of each. */
  received: { id: string; event: Record<string, unknown> }[];
  /** Resolves once `count` events have been received. */
  until(count: number): Promise<void>;
  close(): void;
}

export async function openStream(sb: { url: string }, query = '', headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(`${sb.url}/_sandbox/events${query}`, { headers, signal: controller.signal });
  const received: OpenStream['received'] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const notify = () => {
    for (const waiter of waiters.filter((w) => received.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  if (response.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          buffer += decoder.decode(chunk, { stream: true });
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (id !== undefined && data !== undefined) {
              received.push({ id, event: parseJson(data) as Record<string, unknown> });
              notify();
            }
          }
        }
      } catch {
        // Closed by the test or by the sandbox.
      }
    })();
  }
  onTestFinished(() => controller.abort());
  return {
    status: response.status,
    headers: response.headers,
    received,
    until: (count) =>
      happens(
        received.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
        `${count} events on the stream`,
      ),
    close: () => controller.abort(),
  };
}
