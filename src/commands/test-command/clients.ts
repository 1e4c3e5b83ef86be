import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Answer } from '../../sandbox/exchange.js';
import { errorBody } from '../../sandbox/http.js';
import type { LocalSandbox } from '../../sandbox/server.js';
import { EventHub, type SandboxAnswer, type SandboxClient } from '../../testing/platform.js';
import { openEventStream, requestJson, type ClientInit } from '../customer/client.js';
import { choose } from '../../customer/choose.js';

/**
 * The two ways `core test` reaches the customer's side of a sandbox (src/testing/platform.ts). Both
 * give the runner the same answers and the same events; they differ only in transport. Either is
 * closed once the suite has run.
 */

export type TestClient = SandboxClient & { close(): void };

const pick = (last: unknown, label: string) => choose(last as Parameters<typeof choose>[0], label);

/**
 * On the handle of the sandbox `core test` started (--bot-url): the customer's requests are the
 * sandbox's own routes called directly, and the events come from `subscribe`, with no HTTP, no
 * serialising and no parsing. The bot still talks to the sandbox over HTTP, as it always does.
 */
export function inProcessClient(sandbox: LocalSandbox, signal: AbortSignal): TestClient {
  const hub = new EventHub((onEvent) => {
    const unsubscribe = sandbox.subscribe(onEvent);
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    return {
      opened: Promise.resolve(),
      ended,
      close: () => {
        unsubscribe();
        end();
      },
    };
  }, signal);
  // As over HTTP: an answer settles after the request was made, never inside it.
  const answer = async (method: string, path: string, made: () => Answer | Promise<Answer>): Promise<SandboxAnswer> => {
    await Promise.resolve();
    return asHttp(method, path, await made());
  };
  return {
    startConversation: (body) => answer('POST', '/_sandbox/conversations', () => sandbox.customer.start(body)),
    sendMessage: (sessionId, message) =>
      answer('POST', `/_sandbox/conversations/${sessionId}/messages`, () => sandbox.customer.message(sessionId, message)),
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
    choose: pick,
    signal,
    close: () => hub.close(),
  };
}

/** A route's answer as the client would read it over HTTP: the JSON body, or the error body. */
function asHttp(method: string, path: string, answer: Answer): SandboxAnswer {
  const json = answer.error !== undefined ? errorBody(method, path, answer.error) : answer.json;
  return { status: answer.status, json, text: '' };
}

/**
 * Over HTTP, to a sandbox at --sandbox URL: requests on keep-alive connections, enough for the
 * concurrency, and one event stream of the whole sandbox for every conversation. On Ctrl-C one
 * listener destroys every request in flight.
 */
export function httpClient(baseUrl: string, timeoutMs: number, signal: AbortSignal, concurrency: number): TestClient {
  // Each run has at most one request in flight; the event stream holds one more socket.
  const options = { keepAlive: true, maxSockets: concurrency + 2 };
  const agent = baseUrl.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
  const inFlight = new Set<ClientRequest>();
  const init: ClientInit = { baseUrl, timeoutMs, signal, agent, inFlight };
  const onAbort = () => {
    for (const req of inFlight) req.destroy();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  // The stream is never timed out once open; it lives until the suite ends.
  const hub = new EventHub((onEvent) => openEventStream(init, '', onEvent), signal);
  const session = (sessionId: string) => `/_sandbox/conversations/${encodeURIComponent(sessionId)}`;
  return {
    startConversation: (body) => requestJson(init, 'POST', '/_sandbox/conversations', body),
    sendMessage: (sessionId, message) => requestJson(init, 'POST', `${session(sessionId)}/messages`, message),
    showConversation: (sessionId) => requestJson(init, 'GET', `${session(sessionId)}?limit=0`),
    follow: (sessionId, tenant, onEvent) => hub.follow(sessionId, tenant, onEvent),
    choose: pick,
    signal,
    close: () => {
      hub.close();
      signal.removeEventListener('abort', onAbort);
      agent.destroy();
    },
  };
}
