import type { NewEvent, SandboxEvent } from './events.js';

export type Listener = (event: SandboxEvent) => void;

/**
 * The order of events across the sandbox and who hears of them: every event gets the next seq
 * (increasing across all tenants, never reused) and its time, and once recorded goes to every
 * listener (the event streams, `Sandbox.subscribe`). Where events are kept, and for how long, is
 * the store's (src/sandbox/store/store.ts).
 */
export class EventLog {
  private seq = 0;
  private readonly listeners = new Set<Listener>();

  /** The seq of the latest event (0 before the first). */
  get lastSeq(): number {
    return this.seq;
  }

  /** The next event: its seq, tenant and time added to its fields. */
  stamp(tenant: string, fields: NewEvent): SandboxEvent {
    this.seq += 1;
    return { seq: this.seq, tenant, time: new Date().toISOString(), ...fields } as SandboxEvent;
  }

  /** Tells `listener` of every event as it is recorded; returns the function that stops it. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: SandboxEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener (an event stream whose client went away, say) must not break the request that recorded the event.
      }
    }
  }
}
