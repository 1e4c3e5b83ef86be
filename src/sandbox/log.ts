import type { SandboxEvent } from './events.js';

export type Listener = (event: SandboxEvent) => void;

/**
 * Who hears of the events: once recorded (its seq given and applied by the store,
 * src/sandbox/store/store.ts), an event goes to every listener (the event streams, `Sandbox.subscribe`).
 */
export class EventLog {
  private readonly listeners = new Set<Listener>();

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
