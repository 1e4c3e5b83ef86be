/**
 * What the runner needs of the sandbox: the customer's side (start a conversation, write in it, read
 * the bot's last message for a press), the events of each conversation, and the choice a press
 * makes. The command hands in the implementation: on the handle of a sandbox it started itself (no
 * HTTP), or the small node:http client of `core customer` for one at --sandbox URL. Either way, the
 * events of all conversations come through one subscription (`EventHub`), not one stream each.
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

/** An event as the runner reads it: the sandbox's own object, or one parsed from its event stream. */
export type PlatformEvent = Record<string, unknown>;

export interface SandboxClient {
  /** POST /_sandbox/conversations: a new thread (and client). A network failure throws. */
  startConversation(body: Record<string, unknown>): Promise<SandboxAnswer>;
  /** POST /_sandbox/conversations/{sessionId}/messages: text, press or pick. */
  sendMessage(sessionId: string, message: Record<string, string>): Promise<SandboxAnswer>;
  /** GET /_sandbox/conversations/{sessionId}: `{conversation}` (its lastBotMessage), for a press. */
  showConversation(sessionId: string): Promise<SandboxAnswer>;
  /**
   * The events of one conversation of `tenant` from now on, and the refusals tied to no conversation
   * that its event stream would carry (docs/sandbox.md, "Events"), until close().
   */
  follow(sessionId: string, tenant: string, onEvent: (event: PlatformEvent) => void): EventStream;
  /** What pressing LABEL sends: `{press}` (a button) or `{pick}` (a list item), as `core customer press` decides. */
  choose(last: LastMessage, label: string): { press: string } | { pick: string };
  /** Ctrl-C: start nothing new. */
  signal: AbortSignal;
}
