import { untiedRefusalFor } from '../customer/wait.js';
import type { EventStream, PlatformEvent } from './connection.js';

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
