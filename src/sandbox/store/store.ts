import type { Reason } from '../../payload/index.js';
import { flatten } from '../../payload/json.js';
import { mergeBySeq, SeqQueue, type Channel, type NewEvent, type SandboxEvent } from '../events.js';
import { EventLog } from '../log.js';
import type { Client, Thread } from '../model.js';
import { retainedBytes } from './bytes.js';
import { randomText } from '../random.js';
import { forgetClient, forgetWith, freshTenant, LARGE_QUESTION_IDS, type TenantStore } from './tenant.js';

export interface StoreConfig {
  tenants: readonly string[];
  seedReasons: readonly Reason[];
  maxEvents: number;
  maxEventBytes: number;
}

/**
 * The sandbox's memory: the tenants (src/sandbox/store/tenant.ts), the threads of all of them by
 * sessionId, and the sandbox-wide log of requests that named no tenant it serves. Bounded by the
 * event log: each tenant keeps at most `maxEvents` events and `maxEventBytes` of what they hold
 * (src/sandbox/store/bytes.ts), the oldest dropped first, and with them what no kept event mentions.
 *
 * Every method is synchronous. Node runs one callback at a time, so a rule's decision and the
 * change that applies it (answerId seen? then remember it) cannot interleave with another request.
 */
export class Store {
  readonly log = new EventLog();
  private readonly tenants = new Map<string, TenantStore>();
  /** Every kept thread by sessionId, across tenants: session ids are unique in the sandbox. */
  private readonly sessions = new Map<string, TenantStore>();
  private readonly sizes = new WeakMap<SandboxEvent, number>();
  /** Requests that named no tenant served here (tenant ""), kept within the same bounds. */
  private sandboxWide: TenantStore;

  constructor(private readonly config: StoreConfig) {
    for (const name of config.tenants) this.tenants.set(name, freshTenant(name, config.seedReasons));
    this.sandboxWide = freshTenant('', []);
  }

  get tenantNames(): string[] {
    return [...this.tenants.keys()];
  }

  has(name: string): boolean {
    return this.tenants.has(name);
  }

  tenant(name: string): TenantStore {
    const tenant = this.tenants.get(name);
    if (tenant === undefined) throw new RangeError(`unknown tenant '${name}'`);
    return tenant;
  }

  /** The tenant's memory, or the sandbox-wide one for a name not served here ("" included). */
  tenantOrSandbox(name: string | undefined): TenantStore {
    return (name === undefined ? undefined : this.tenants.get(name)) ?? this.sandboxWide;
  }

  /** One tenant ("" is the sandbox-wide log), or all with the sandbox-wide log. */
  selected(name: string | undefined): TenantStore[] {
    if (name === undefined) return [...this.tenants.values(), this.sandboxWide];
    return [name === '' ? this.sandboxWide : this.tenant(name)];
  }

  /** Kept events after `after` in seq order, of one tenant or all. */
  eventsOf(name: string | undefined, after: number): Iterable<SandboxEvent> {
    const logs = this.selected(name).map((tenant) => tenant.log.after(after));
    return logs.length === 1 ? logs[0]! : mergeBySeq(logs);
  }

  /** A kept thread, in any tenant. */
  thread(sessionId: string): Thread | undefined {
    return this.sessions.get(sessionId)?.threads.get(sessionId);
  }

  /**
   * Records an event: stamps it, adds it to its tenant's and thread's logs, keeps its thread and
   * client alive, runs `apply` (the change that goes with it, which returns the bytes it keeps alive
   * outside the event, such as a delivery's body), counts the bytes, tells the listeners, then drops
   * the oldest events past the bounds.
   */
  record(tenant: TenantStore, fields: NewEvent, apply?: (event: SandboxEvent) => number | void): SandboxEvent {
    const event = this.log.stamp(tenant.name, fields);
    tenant.log.push(event);
    const thread = event.sessionId === null ? undefined : tenant.threads.get(event.sessionId);
    if (thread) {
      thread.log.push(event);
      thread.lastSeq = event.seq;
      thread.client.lastSeq = event.seq;
    }
    if ('coreClientId' in event && event.coreClientId !== null) {
      const client = tenant.clients.get(event.coreClientId);
      if (client) client.lastSeq = event.seq;
    }
    const size = retainedBytes(event) + (apply?.(event) ?? 0);
    this.sizes.set(event, size);
    tenant.bytes += size;
    this.log.publish(event);
    while (tenant.log.length > this.config.maxEvents || (tenant.bytes > this.config.maxEventBytes && tenant.log.length > 1)) {
      this.drop(tenant);
    }
    return event;
  }

  newClient(tenant: TenantStore, coreClientId: bigint | undefined, clientId: string | undefined): Client {
    let id = coreClientId;
    if (id === undefined) {
      while (tenant.clients.has(tenant.nextClientId)) tenant.nextClientId += 1n;
      id = tenant.nextClientId;
      tenant.nextClientId += 1n;
    }
    const client: Client = {
      coreClientId: id,
      clientId: clientId === undefined ? null : flatten(clientId),
      lastSeq: this.log.lastSeq,
      latest: null,
    };
    tenant.clients.set(id, client);
    if (clientId !== undefined) tenant.clientsByExternalId.set(clientId, client);
    return client;
  }

  /** Gives a client without clientId the one a request named. */
  adoptClientId(tenant: TenantStore, client: Client, clientId: string): void {
    client.clientId = flatten(clientId);
    tenant.clientsByExternalId.set(clientId, client);
  }

  newThread(tenant: TenantStore, client: Client, channel: Channel, by: 'customer' | 'reply' | 'greeting'): Thread {
    let sessionId: string;
    do sessionId = `s-${randomText(6, 'hex')}`;
    while (this.sessions.has(sessionId));
    const next = this.log.lastSeq + 1;
    const thread: Thread = {
      tenant: tenant.name,
      sessionId,
      channel,
      client,
      owner: 'bot',
      handover: null,
      questions: new SeqQueue(),
      nextIndex: 1n,
      startedSeq: next,
      startedAt: new Date().toISOString(),
      lastSeq: next,
      log: new SeqQueue(),
      lastBotMessage: null,
    };
    tenant.threads.set(sessionId, thread);
    this.sessions.set(sessionId, tenant);
    client.latest = thread;
    const { coreClientId, clientId } = client;
    this.record(tenant, { type: 'conversation.started', sessionId, channel, coreClientId, clientId, by });
    return thread;
  }

  nextQuestionId(tenant: TenantStore): bigint {
    while (tenant.questions.has(tenant.nextQuestionId)) tenant.nextQuestionId += 1n;
    const id = tenant.nextQuestionId;
    tenant.nextQuestionId += 1n;
    return id;
  }

  /** A questionId above 2^53 that a double cannot hold (LARGE_QUESTION_IDS), for a probe's `largeIds`. */
  nextLargeQuestionId(tenant: TenantStore): bigint {
    while (tenant.questions.has(tenant.nextLargeQuestionId)) tenant.nextLargeQuestionId += LARGE_QUESTION_IDS.step;
    const id = tenant.nextLargeQuestionId;
    tenant.nextLargeQuestionId += LARGE_QUESTION_IDS.step;
    return id;
  }

  newDeliveryId(tenant: TenantStore): string {
    let id: string;
    do id = `msg_${randomText(12, 'hex')}`;
    while (tenant.deliveries.has(id));
    return id;
  }

  /** Returns a tenant to the start state (and the sandbox-wide log, with a reset of all). */
  reset(name: string | undefined): string[] {
    const names = name === undefined ? this.tenantNames : [name];
    for (const each of names) {
      const old = this.tenant(each);
      for (const sessionId of old.threads.keys()) this.sessions.delete(sessionId);
      const tenant = freshTenant(each, this.config.seedReasons);
      this.tenants.set(each, tenant);
      this.record(tenant, { type: 'sandbox.reset', sessionId: null });
    }
    if (name === undefined) this.sandboxWide = freshTenant('', []);
    return names;
  }

  /** Drops the oldest event of a tenant, and whatever no kept event refers to any more. */
  private drop(tenant: TenantStore): void {
    const event = tenant.log.shift();
    if (event === undefined) return;
    tenant.bytes -= this.sizes.get(event) ?? 0;
    forgetWith(tenant, event, (thread) => this.forgetThread(tenant, thread));
  }

  private forgetThread(tenant: TenantStore, thread: Thread): void {
    tenant.threads.delete(thread.sessionId);
    this.sessions.delete(thread.sessionId);
    for (const question of thread.questions.after(0)) tenant.questions.delete(question.questionId);
    if (thread.client.latest === thread) thread.client.latest = null;
    if (thread.client.lastSeq <= thread.lastSeq) forgetClient(tenant, thread.client);
  }
}
