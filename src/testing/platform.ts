/**
 * What the runner needs of the sandbox: its own endpoints (JSON requests and the event stream) and
 * the choice a press makes. The command hands in the implementation (the small node:http client
 * `core customer` uses), so bot testing imports no command.
 */

export interface SandboxAnswer {
  status: number;
  /** The body read losslessly (identifiers as bigint); undefined when empty or not JSON. */
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

export interface SandboxClient {
  /** One JSON request to the sandbox's own endpoints; a network failure throws. */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<SandboxAnswer>;
  /** GET /_sandbox/events with `query`, each event parsed losslessly. */
  events(query: string, onEvent: (event: Record<string, unknown>) => void): EventStream;
  /** What pressing LABEL sends: `{press}` (a button) or `{pick}` (a list item), as `core customer press` decides. */
  choose(last: LastMessage, label: string): { press: string } | { pick: string };
  /** Ctrl-C: start nothing new. */
  signal: AbortSignal;
}
