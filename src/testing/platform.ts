import { untiedRefusalFor } from '../customer/wait.js';
import type { SandboxEvent } from '../sandbox/events.js';

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

/** An event as the runner reads it: the sandbox's own object, or one read from its event stream (src/sandbox/event-json.ts). */
export type PlatformEvent = SandboxEvent;

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

interface Follower {
  tenant: string;
  onEvent: (event: PlatformEvent) => void;
  end: () => void;
}

/**
 * One subscription to the sandbox's events for every conversation in flight, each event handed to
 * the conversation it belongs to (by its sessionId), and a refusal tied to none to every
 * conversation of its tenant followed when it came. A stream of each conversation's own cost the
 * sandbox a connection, a filter and a write per event and stream, and the runner a request and a
 * parser each; this costs one of each, and a map look-up per event.
 *
 * The subscription opens with the first follower and stays open until close(); Ctrl-C ends it, and
 * with it every follower, through one listener on the signal (not one per conversation).
 */
export class EventHub {
  private readonly followers = new Map<string, Follower>();
  private source: EventStream | undefined;
  private ended = false;

  constructor(
    private readonly open: (onEvent: (event: PlatformEvent) => void) => EventStream,
    private readonly signal: AbortSignal,
  ) {}

  /** How many conversations are followed now (for tests: none once their runs have ended). */
  get size(): number {
    return this.followers.size;
  }

  follow(sessionId: string, tenant: string, onEvent: (event: PlatformEvent) => void): EventStream {
    if (this.source === undefined) this.start();
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    if (this.ended) end();
    else this.followers.set(sessionId, { tenant, onEvent, end });
    return {
      opened: this.source!.opened,
      ended,
      close: () => {
        if (this.followers.get(sessionId)?.end === end) this.followers.delete(sessionId);
        end();
      },
    };
  }

  /** Stops the subscription; every follower's stream ends. */
  close(): void {
    this.finish();
    this.source?.close();
  }

  private start(): void {
    const source = this.open((event) => this.dispatch(event));
    this.source = source;
    source.opened.catch(() => {});
    void source.ended.then(() => this.finish());
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    if (this.signal.aborted) this.finish();
  }

  private readonly onAbort = (): void => this.finish();

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.signal.removeEventListener('abort', this.onAbort);
    for (const follower of this.followers.values()) follower.end();
    this.followers.clear();
  }

  private dispatch(event: PlatformEvent): void {
    const sessionId = event.sessionId;
    if (sessionId !== null) {
      this.followers.get(sessionId)?.onEvent(event);
      return;
    }
    if (this.followers.size === 0) return;
    // Rare: a refusal that named nothing the sandbox could tie goes to every conversation it may concern.
    for (const follower of [...this.followers.values()]) {
      if (untiedRefusalFor(event, follower.tenant)) follower.onEvent(event);
    }
  }
}
