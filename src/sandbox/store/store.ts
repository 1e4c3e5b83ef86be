import type { CustomerMessageEvent, NewEvent, SandboxEvent } from '../events.js';
import { EventLog, type Listener } from '../log.js';
import type { Delivery, KeptTenant, RandomIds, Thread } from '../model.js';
import { randomText } from '../random.js';
import { mergeBySeq } from '../seq.js';
import { applyEvent, newModel, type ModelConfig, type SandboxModel } from './apply.js';
import { checkpointOf, restoreModel, type CheckpointState } from './checkpoint.js';
import { deliveryProblem } from './delivery.js';
import { digestOf, type ModelDigest } from './digest.js';
import type { TenantState } from './tenant.js';

export type StoreConfig = ModelConfig;
export type { CheckpointState, TenantCheckpoint } from './checkpoint.js';
export { CheckpointError } from './checkpoint.js';

/**
 * The sandbox's memory: the model (src/sandbox/store/apply.ts: the tenants, the threads of all of them
 * by sessionId, the sandbox-wide log of requests that named no tenant it serves), and the record of
 * events into it. Bounded by the event log: each tenant keeps at most `maxEvents` events and
 * `maxEventBytes` of what they hold (src/sandbox/store/bytes.ts), the oldest dropped first, and with
 * them what no kept event mentions.
 *
 * The store changes the model only by applying events: `record` stamps each event the rules
 * returned (its seq and time), applies it, and tells the listeners. What it hands out is read-only.
 *
 * Every method is synchronous. Node runs one callback at a time, so a rule's decision and the
 * events that apply it (answerId seen? then claimed) cannot interleave with another request.
 */
export class Store {
  private model: SandboxModel;
  private readonly log = new EventLog();

  constructor(private readonly config: StoreConfig) {
    this.model = newModel(config);
  }

  get tenantNames(): string[] {
    return [...this.model.tenants.keys()];
  }

  /** The seq of the latest event (0 before the first). */
  get lastSeq(): number {
    return this.model.lastSeq;
  }

  has(name: string): boolean {
    return this.model.tenants.has(name);
  }

  tenant(name: string): KeptTenant {
    return this.state(name);
  }

  /** The tenant's memory, or the sandbox-wide one for a name not served here ("" included). */
  tenantOrSandbox(name: string | undefined): KeptTenant {
    return (name === undefined ? undefined : this.model.tenants.get(name)) ?? this.model.sandboxWide;
  }

  /** One tenant ("" is the sandbox-wide log), or all with the sandbox-wide log. */
  selected(name: string | undefined): KeptTenant[] {
    if (name === undefined) return [...this.model.tenants.values(), this.model.sandboxWide];
    return [name === '' ? this.model.sandboxWide : this.state(name)];
  }

  /** Kept events after `after` in seq order, of one tenant or all. */
  eventsOf(name: string | undefined, after: number): Iterable<SandboxEvent> {
    const logs = this.selected(name).map((tenant) => tenant.log.after(after));
    return logs.length === 1 ? logs[0]! : mergeBySeq(logs);
  }

  /** A kept thread, in any tenant. */
  thread(sessionId: string): Thread | undefined {
    return this.model.sessions.get(sessionId)?.threads.get(sessionId);
  }

  /** A delivery still kept, in any tenant. */
  delivery(deliveryId: string): Delivery | undefined {
    for (const tenant of this.model.tenants.values()) {
      const delivery = tenant.deliveries.get(deliveryId);
      if (delivery) return delivery;
    }
    return undefined;
  }

  /** The id of the kept delivery of a question of one tenant, if any. */
  deliveryOfQuestion(name: string, questionId: bigint): string | undefined {
    for (const delivery of this.model.tenants.get(name)?.deliveries.values() ?? []) {
      if (delivery.questionId === questionId) return delivery.deliveryId;
    }
    return undefined;
  }

  /**
   * What breaks the contract's schema in the delivery that recording `question` would make, or
   * undefined: recording such a question would throw half-way, so a caller with fields from outside
   * asks first.
   */
  deliveryProblem(question: CustomerMessageEvent): string | undefined {
    return deliveryProblem(question);
  }

  subscribe(listener: Listener): () => void {
    return this.log.subscribe(listener);
  }

  /**
   * Records the events a rule returned for one request, in order: each gets the next seq and the
   * time, is applied to the model (applyEvent) and goes to the listeners. `tenant` "" is the
   * sandbox-wide log.
   */
  record(tenant: string, events: readonly NewEvent[]): SandboxEvent[] {
    const recorded: SandboxEvent[] = [];
    for (const fields of events) {
      const event = { seq: this.model.lastSeq + 1, tenant, time: new Date().toISOString(), ...fields } as SandboxEvent;
      applyEvent(this.model, event);
      recorded.push(event);
      this.log.publish(event);
    }
    return recorded;
  }

  /**
   * Records events again (a snapshot restored, src/sandbox/snapshots.ts): each gets the next seq and
   * `tenant`, keeps its time and the rest, is applied and goes to the listeners, as `record` does.
   */
  recordAgain(tenant: string, events: readonly SandboxEvent[]): SandboxEvent[] {
    const recorded: SandboxEvent[] = [];
    for (const old of events) {
      const event = { ...old, seq: this.model.lastSeq + 1, tenant } as SandboxEvent;
      applyEvent(this.model, event);
      recorded.push(event);
      this.log.publish(event);
    }
    return recorded;
  }

  /**
   * Applies events recorded before (a log read back, in seq order): the model becomes what it was,
   * and the seq and the counted ids go on from where they stopped. No listener hears of them.
   */
  replay(events: Iterable<SandboxEvent>): void {
    for (const event of events) applyEvent(this.model, event);
  }

  /**
   * The model written down (src/sandbox/store/checkpoint.ts): its state besides its events, and its
   * kept events in seq order. `restore` makes the same model from them.
   */
  checkpoint(): { state: CheckpointState; events: SandboxEvent[] } {
    return checkpointOf(this.model);
  }

  /**
   * Starts again from a checkpoint and its kept events, or from nothing (null): the model as it was
   * when the checkpoint was taken, ready for the events after it (`replay`). No listener hears of it.
   */
  restore(checkpoint: { state: CheckpointState; events: readonly SandboxEvent[] } | null): void {
    this.model = checkpoint === null ? newModel(this.config) : restoreModel(this.config, checkpoint.state, checkpoint.events);
  }

  /**
   * Moves the seq on to `seq` when it is behind: the next event recorded has a higher one, so that a
   * seq once handed out (to an event whose write failed, taken back) is never handed out again.
   */
  skipTo(seq: number): void {
    if (seq > this.model.lastSeq) this.model.lastSeq = seq;
  }

  /** The whole model as plain data (src/sandbox/store/digest.ts): equal digests, equal states. */
  digest(): ModelDigest {
    return digestOf(this.model);
  }

  /** One event of a request. */
  recordOne(tenant: string, event: NewEvent): SandboxEvent {
    return this.record(tenant, [event])[0]!;
  }

  /**
   * The identifiers drawn at random for a rule of `tenant`: a sessionId no kept thread of the sandbox
   * has, a deliveryId no kept delivery of the tenant has (docs/sandbox.md, "State").
   */
  randomIds(name: string): RandomIds {
    const tenant = this.state(name);
    return {
      sessionId: () => {
        let sessionId: string;
        do sessionId = `s-${randomText(6, 'hex')}`;
        while (this.model.sessions.has(sessionId));
        return sessionId;
      },
      deliveryId: () => {
        let id: string;
        do id = `msg_${randomText(12, 'hex')}`;
        while (tenant.deliveries.has(id));
        return id;
      },
    };
  }

  /** Returns a tenant to the start state, or all of them and the sandbox-wide log: a sandbox.reset event each. */
  reset(name: string | undefined): string[] {
    const names = name === undefined ? this.tenantNames : [this.state(name).name];
    for (const each of names) this.recordOne(each, { type: 'sandbox.reset', sessionId: null });
    if (name === undefined) this.recordOne('', { type: 'sandbox.reset', sessionId: null });
    return names;
  }

  private state(name: string): TenantState {
    const tenant = this.model.tenants.get(name);
    if (tenant === undefined) throw new RangeError(`unknown tenant '${name}'`);
    return tenant;
  }
}
