import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { choose } from '../customer/choose.js';
import type { HttpConnection } from './connection.js';
import { openEventStream } from './event-stream.js';
import { requestJson, type ClientInit } from './http.js';
import { EventHub } from './hub.js';
import { trimEndOf } from '../text/trim.js';

/**
 * The HTTP transport (src/platform/connection.ts), to a sandbox at a URL: `--sandbox URL` of
 * `core test` and `core check-bot`, `CORE_BASE_URL` of `core customer`. Every conversation followed
 * shares one event stream of the whole sandbox.
 *
 * With `concurrency` (`core test`, many conversations at once), requests go on keep-alive connections,
 * enough for it, and on Ctrl-C one listener destroys every request in flight; without, each request
 * takes a connection of Node's global agent and listens to the signal itself.
 */
export function httpConnection(baseUrl: string, timeoutMs: number, signal: AbortSignal, concurrency?: number): HttpConnection {
  const init: ClientInit = { baseUrl, timeoutMs, signal };
  let release = () => {};
  if (concurrency !== undefined) {
    // Each run has at most one request in flight; the event stream holds one more socket.
    const options = { keepAlive: true, maxSockets: concurrency + 2 };
    const agent = baseUrl.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
    const inFlight = new Set<ClientRequest>();
    const onAbort = () => {
      for (const req of inFlight) req.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    Object.assign(init, { agent, inFlight });
    release = () => {
      signal.removeEventListener('abort', onAbort);
      agent.destroy();
    };
  }
  // The stream is never timed out once open; it lives until the connection is closed.
  const hub = new EventHub((onEvent) => openEventStream(init, '', onEvent), signal);
  const session = (sessionId: string) => `/_sandbox/conversations/${encodeURIComponent(sessionId)}`;
  return {
    url: trimEndOf(baseUrl, '/'),
    signal,
    request: (method, path, body) => requestJson(init, method, path, body),
    events: (query, onEvent) => openEventStream(init, query, onEvent),
    startConversation: (body) => requestJson(init, 'POST', '/_sandbox/conversations', body),
    post: (path, body) => requestJson(init, 'POST', path, body),
    sendMessage: (sessionId, message) => requestJson(init, 'POST', `${session(sessionId)}/messages`, message),
    agentMessage: (sessionId, body) => requestJson(init, 'POST', `${session(sessionId)}/agent-messages`, body),
    release: (sessionId) => requestJson(init, 'POST', `${session(sessionId)}/release`, {}),
    showConversation: (sessionId) => requestJson(init, 'GET', `${session(sessionId)}?limit=0`),
    follow: (sessionId, tenant, onEvent) => hub.follow(sessionId, tenant, onEvent),
    choose: (last, label) => choose(last as Parameters<typeof choose>[0], label),
    close: () => {
      hub.close();
      release();
    },
  };
}
