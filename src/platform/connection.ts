import type { SandboxEvent } from '../sandbox/events.js';

/**
 * A connection to a sandbox: the customer's side of it (start a conversation, write in it, read it
 * for a press), the events of each conversation, and the choice a press makes, as `core customer`,
 * `core test`, `core check-bot` and `core-cli/sandbox` use them. These are the sandbox's own
 * endpoints (docs/sandbox.md, "The customer's side"), not the API: no token, no proxy, no retries.
 *
 * Two transports make one, and give the same answers and the same events:
 * - in process (src/platform/in-process.ts), on the handle of a sandbox started in this process: its
 *   routes called directly where the handle offers them, its events from `subscribe`;
 * - HTTP (src/platform/over-http.ts), to a sandbox at a URL (`--sandbox URL`, `CORE_BASE_URL`): JSON
 *   requests and the event stream, read by src/platform/http.ts and src/platform/event-stream.ts.
 *
 * This file holds only types, so that bot testing (src/testing/) can name the connection it is handed
 * without importing anything that runs.
 */

export interface SandboxAnswer {
  status: number;
  /** The body as the sandbox gives it (read losslessly over HTTP: identifiers as bigint); undefined when empty or not JSON. */
  json: unknown;
  text: string;
}

export interface EventStream {
  /** Resolves once the stream is open; rejects otherwise. */
  opened: Promise<void>;
  /** Resolves when the stream ends. */
  ended: Promise<void>;
  close(): void;
}

/** The bot's last message as the sandbox shows it, for a press. */
export type LastMessage = unknown;

/**
 * An event as a connection hands it on: the sandbox's own object in process, or one read from its
 * event stream (src/sandbox/event-json.ts); one type either way (src/sandbox/events.ts).
 */
export type PlatformEvent = SandboxEvent;

export interface SandboxConnection {
  /** The sandbox's base URL, without a trailing slash. */
  readonly url: string;
  /** Ctrl-C: start nothing new. Every conversation followed ends when it aborts. */
  readonly signal: AbortSignal;
  /** POST /_sandbox/conversations: a new thread (and client). A network failure throws. */
  startConversation(body: Record<string, unknown>): Promise<SandboxAnswer>;
  /** POST /_sandbox/conversations/{sessionId}/messages: text, press or pick. */
  sendMessage(sessionId: string, message: Record<string, string>): Promise<SandboxAnswer>;
  /** POST /_sandbox/conversations/{sessionId}/agent-messages: an agent writes `{text, agentId?}` in a thread it holds. */
  agentMessage(sessionId: string, body: Record<string, unknown>): Promise<SandboxAnswer>;
  /** POST /_sandbox/conversations/{sessionId}/release `{}`: the thread given back to the bot. */
  release(sessionId: string): Promise<SandboxAnswer>;
  /** A POST to another of the sandbox's own endpoints (a seed, a snapshot's restore), over HTTP in either transport. */
  post(path: string, body: unknown): Promise<SandboxAnswer>;
  /** GET /_sandbox/conversations/{sessionId}: `{conversation}` (its lastBotMessage), for a press. */
  showConversation(sessionId: string): Promise<SandboxAnswer>;
  /**
   * The events of one conversation of `tenant` from now on, and the refusals tied to no conversation
   * that its event stream would carry (docs/sandbox.md, "Events"), until close(). Every conversation
   * of a connection is followed through one subscription (src/platform/hub.ts).
   */
  follow(sessionId: string, tenant: string, onEvent: (event: PlatformEvent) => void): EventStream;
  /** What pressing LABEL sends: `{press}` (a button) or `{pick}` (a list item), as `core customer press` decides. */
  choose(last: LastMessage, label: string): { press: string } | { pick: string };
  /** Ends every conversation followed and lets the connections go. */
  close(): void;
}

/** Over HTTP, the rest of the sandbox's own endpoints too: the probes and the event stream as the sandbox filters it. */
export interface HttpConnection extends SandboxConnection {
  /** One JSON request to a path of the sandbox's own; a network failure or a time-out is a NetworkError (exit 6). */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<SandboxAnswer>;
  /**
   * GET /_sandbox/events with `query` (`?session=ID`, `?after=SEQ`), each event read from its JSON form. A
   * status other than 200 rejects `opened` with `StreamRefused` (src/platform/event-stream.ts).
   */
  events(query: string, onEvent: (event: PlatformEvent) => void): EventStream;
}
