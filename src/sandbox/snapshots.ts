import type { SandboxEvent } from './events.js';

/**
 * The snapshots of a sandbox (docs/sandbox.md, "Snapshots"): a tenant's kept events at one moment,
 * under a name, to go back to later (POST /_sandbox/snapshots, .../{name}/restore). A snapshot is not
 * an event: it is kept beside them, and in the state file as a line of its own when there is one
 * (src/sandbox/state-file.ts), so it survives a restart. Restoring one resets the tenant and records
 * the snapshot's events again, each with a new seq (src/sandbox/state.ts, `restoreSnapshot`): the
 * state is rebuilt by the code that applies every event, and every reader (the page, the event
 * stream, the state file) sees the restore as events.
 */

export interface Snapshot {
  readonly name: string;
  readonly tenant: string;
  /** When it was taken (ISO 8601 UTC). */
  readonly savedAt: string;
  /** The sandbox's last seq when it was taken. */
  readonly seq: number;
  /** The tenant's kept events then, in seq order. */
  readonly events: readonly SandboxEvent[];
}

/** The most snapshots a tenant keeps (saving one under a name it has replaces it). */
export const MAX_SNAPSHOTS = 100;

/** A snapshot's name: letters, digits, '.', '_' and '-', starting with a letter or digit, up to 64 characters (it goes in a URL path). */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const SNAPSHOT_NAME_RULE = "letters, digits, '.', '_' and '-', starting with a letter or a digit, at most 64 characters";

/** Whether `name` is a snapshot's name. */
export function isSnapshotName(name: unknown): name is string {
  return typeof name === 'string' && SNAPSHOT_NAME.test(name);
}

/** What a refusal (400) says of a name that is none, on its field `name`. */
export const SNAPSHOT_NAME_PROBLEM = `required: the snapshot's name, ${SNAPSHOT_NAME_RULE}`;

/** What a listing shows of a snapshot: everything but its events, which it counts. */
export interface SnapshotSummary {
  name: string;
  tenant: string;
  savedAt: string;
  seq: number;
  events: number;
  conversations: number;
}

export function summaryOf(snapshot: Snapshot): SnapshotSummary {
  const { name, tenant, savedAt, seq, events } = snapshot;
  return { name, tenant, savedAt, seq, events: events.length, conversations: events.filter(startsThread).length };
}

const startsThread = (event: SandboxEvent) => event.type === 'conversation.started';

/** The snapshots of every tenant, by tenant and name; told listeners hear of each one saved. */
export class Snapshots {
  private readonly byTenant = new Map<string, Map<string, Snapshot>>();
  private readonly listeners = new Set<(snapshot: Snapshot) => void>();

  get(tenant: string, name: string): Snapshot | undefined {
    return this.byTenant.get(tenant)?.get(name);
  }

  /** Every snapshot of one tenant, or of all, in the order saved. */
  list(tenant?: string): Snapshot[] {
    if (tenant !== undefined) return [...(this.byTenant.get(tenant)?.values() ?? [])];
    return [...this.byTenant.values()].flatMap((snapshots) => [...snapshots.values()]).sort((a, b) => a.seq - b.seq);
  }

  /** How many snapshots a tenant has. */
  count(tenant: string): number {
    return this.byTenant.get(tenant)?.size ?? 0;
  }

  /** Keeps a snapshot (replacing the tenant's one of the same name) and tells the listeners. */
  save(snapshot: Snapshot): void {
    this.put(snapshot);
    for (const listener of this.listeners) listener(snapshot);
  }

  /** Replaces every snapshot with these (a state file read back), telling no listener. */
  load(snapshots: Iterable<Snapshot>): void {
    this.byTenant.clear();
    for (const snapshot of snapshots) this.put(snapshot);
  }

  /** Tells `listener` of every snapshot saved; returns the function that stops it. */
  onSave(listener: (snapshot: Snapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private put(snapshot: Snapshot): void {
    let snapshots = this.byTenant.get(snapshot.tenant);
    if (snapshots === undefined) this.byTenant.set(snapshot.tenant, (snapshots = new Map()));
    snapshots.delete(snapshot.name);
    snapshots.set(snapshot.name, snapshot);
  }
}

/**
 * The events of a snapshot that a restore records again: those of the threads the snapshot starts,
 * and those of no thread, in order; not a reset (the restore begins with its own). A thread whose
 * start had already been dropped from the tenant's kept events when the snapshot was taken is not in
 * it (docs/sandbox.md, "Snapshots").
 */
export function eventsToRestore(snapshot: Snapshot): SandboxEvent[] {
  const threads = new Set<string>();
  const kept: SandboxEvent[] = [];
  for (const event of snapshot.events) {
    if (event.type === 'sandbox.reset') continue;
    if (event.type === 'conversation.started') threads.add(event.sessionId);
    if (event.sessionId !== null && !threads.has(event.sessionId)) continue;
    kept.push(event);
  }
  return kept;
}
