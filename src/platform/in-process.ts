import { Agent } from 'node:http';
import { choose } from '../customer/choose.js';
import type { DirectCustomer } from '../sandbox/customer.js';
import type { Answer } from '../sandbox/exchange.js';
import { errorBody } from '../sandbox/http.js';
import type { ConversationView, SandboxEvent } from '../sandbox/server.js';
import type { SandboxAnswer, SandboxConnection } from './connection.js';
import { requestJson, type ClientInit } from './http.js';
import { EventHub } from './hub.js';

/**
 * The in-process transport (src/platform/connection.ts): on the handle of a sandbox started in this
 * process, its events come from `subscribe`, with no HTTP, no serialising and no parsing, and a press
 * reads the conversation from the handle. The customer's start and messages are the sandbox's own
 * routes called directly when the handle offers them (`customer`, on the handle of
 * `startLocalSandbox`: `core test` with the sandbox it starts); the public handle of `core-cli/sandbox`
 * does not, so there they go over loopback HTTP to its URL, as the page's do (docs/sandbox.md, "From
 * code"). The bot talks to the sandbox over HTTP either way, as it always does.
 */

/** What the transport needs of a sandbox's handle: `startSandbox`'s has all of it but `customer`. */
export interface InProcessSandbox {
  readonly url: string;
  subscribe(listener: (event: SandboxEvent) => void, onClose?: () => void): () => void;
  conversation(sessionId: string): ConversationView | undefined;
  /** The customer's routes without HTTP; absent, the customer's requests go to `url`. */
  readonly customer?: DirectCustomer;
}

/**
 * The time limit of a request over loopback to a sandbox of this process: as long as fetch's (undici's
 * five minutes), which the library's customer used before; a sandbox in the same process answers at
 * once unless told to wait (`latencyMs`).
 */
const LOOPBACK_TIMEOUT_MS = 300_000;

type Requests = Pick<SandboxConnection, 'startConversation' | 'sendMessage'> & { release?: () => void };

export function inProcessConnection(sandbox: InProcessSandbox, signal: AbortSignal = new AbortController().signal): SandboxConnection {
  // Every conversation through one subscription; a sandbox that closes ends each conversation followed.
  const hub = new EventHub((onEvent) => {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const unsubscribe = sandbox.subscribe(onEvent, end);
    return {
      opened: Promise.resolve(),
      ended,
      close: () => {
        unsubscribe();
        end();
      },
    };
  }, signal);
  const { release: releasePool, ...requests } =
    sandbox.customer === undefined ? overLoopback(sandbox.url, signal) : direct(sandbox.customer);
  // The agent's side goes over loopback HTTP either way, as the page's and core agent's requests do.
  const loopback: ClientInit = { baseUrl: sandbox.url, timeoutMs: LOOPBACK_TIMEOUT_MS, signal };
  const session = (sessionId: string) => `/_sandbox/conversations/${encodeURIComponent(sessionId)}`;
  return {
    url: sandbox.url,
    signal,
    ...requests,
    agentMessage: (sessionId, body) => requestJson(loopback, 'POST', `${session(sessionId)}/agent-messages`, body),
    release: (sessionId) => requestJson(loopback, 'POST', `${session(sessionId)}/release`, {}),
    post: (path, body) => requestJson({ baseUrl: sandbox.url, timeoutMs: LOOPBACK_TIMEOUT_MS, signal }, 'POST', path, body),
    showConversation: async (sessionId) => {
      await Promise.resolve();
      const conversation = sandbox.conversation(sessionId);
      return conversation === undefined
        ? asHttp('GET', `/_sandbox/conversations/${sessionId}`, {
            status: 404,
            error: `no conversation with sessionId '${sessionId}'`,
            what: '',
          })
        : { status: 200, json: { conversation }, text: '' };
    },
    follow: (sessionId, tenant, onEvent) => hub.follow(sessionId, tenant, onEvent),
    choose: (last, label) => choose(last as Parameters<typeof choose>[0], label),
    close: () => {
      hub.close();
      releasePool?.();
    },
  };
}

/** The customer's routes called directly; as over HTTP, an answer settles after the request was made, never inside it. */
function direct(customer: DirectCustomer): Requests {
  const answer = async (method: string, path: string, made: () => Answer | Promise<Answer>): Promise<SandboxAnswer> => {
    await Promise.resolve();
    return asHttp(method, path, await made());
  };
  return {
    startConversation: (body) => answer('POST', '/_sandbox/conversations', () => customer.start(body)),
    sendMessage: (sessionId, message) =>
      answer('POST', `/_sandbox/conversations/${sessionId}/messages`, () => customer.message(sessionId, message)),
  };
}

/** The customer's requests over loopback HTTP to the sandbox's URL. */
function overLoopback(url: string, signal: AbortSignal): Requests {
  // Connections of its own, ended with the connection: Node's global agent would keep an idle socket (and its
  // buffers, some 26 KB) per sandbox a process started and closed, until the socket's keep-alive ran out.
  const agent = new Agent({ keepAlive: true });
  const init: ClientInit = { baseUrl: url, timeoutMs: LOOPBACK_TIMEOUT_MS, signal, agent };
  return {
    release: () => agent.destroy(),
    startConversation: (body) => requestJson(init, 'POST', '/_sandbox/conversations', body),
    sendMessage: (sessionId, message) =>
      requestJson(init, 'POST', `/_sandbox/conversations/${encodeURIComponent(sessionId)}/messages`, message),
  };
}

/** A route's answer as the client would read it over HTTP: the JSON body, or the error body. */
function asHttp(method: string, path: string, answer: Answer): SandboxAnswer {
  const json = answer.error !== undefined ? errorBody(method, path, answer.error) : answer.json;
  return { status: answer.status, json, text: '' };
}
