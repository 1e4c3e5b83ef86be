/**
 * `core-cli/sandbox`: the sandbox for a bot's own test suite (vitest, jest, node:test), in-process,
 * with the customer's side beside it (docs/sandbox.md, "From code"). The package builds this module
 * into dist/sandbox.mjs with its declarations (dist/sandbox.d.mts) generated from these sources, as
 * a bundle of its own: the command line (dist/bin.js) never loads it.
 *
 * It wraps the public handle of src/sandbox/server.ts and nothing below it, so the types a consumer
 * sees are the ones `core sandbox` itself runs with: `duplicates: 'sometimes'` does not compile.
 */
import type { Reason } from '../payload/reason.js';
import {
  startSandbox as startServer,
  type ConversationView,
  type DuplicateMode,
  type MessageRecord,
  type AgentView,
  type Sandbox as ServerSandbox,
  type SandboxAgent,
  type SandboxEvent,
  type SandboxOptions,
  type SandboxSnapshots,
  type StateFileInfo,
} from '../sandbox/server.js';

export { AgentRefusedError, SandboxOptionsError, SnapshotRefusedError, StateFileError } from '../sandbox/server.js';
export type { AgentView, SandboxAgent } from '../sandbox/server.js';
export type { Channel, ChannelName } from '../payload/channels.js';
export type {
  ConversationView,
  DuplicateMode,
  FaultOptions,
  MessageRecord,
  SandboxEvent,
  SandboxOptions,
  SandboxSnapshots,
  RestoredSnapshot,
  SavedSnapshot,
  SeededThread,
  SnapshotSummary,
  StateFileInfo,
} from '../sandbox/server.js';
export {
  startConversation,
  SandboxCustomerError,
  type ConversationStart,
  type CustomerConversation,
  type CustomerExchange,
  type CustomerSandbox,
  type ExchangeAnswer,
  type ExchangeEnd,
  type WaitOptions,
} from './customer.js';
export type { AddressedBy, ReplyAttachment, ReplyBody, ReplyQuickReply } from './reply-body.js';
import { startBridge as startBridgeServer, type BridgeOptions } from './bridge.js';
export type { BridgeOptions, BridgePlatform, WebhookMapField } from './bridge.js';

/**
 * An inactivity reason as the sandbox keeps it (docs/api.md, "Inactivity reason"). Written out here
 * rather than taken from the zod schema that checks it, so the declarations need no zod; the check
 * below fails to compile when the two differ.
 */
export interface InactivityReason {
  code: string;
  reasons: { locale: string; name: string }[];
  color?: string;
  active?: boolean;
  system?: boolean;
}

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const reasonTypesAgree: Same<InactivityReason, Reason> = true;
void reasonTypesAgree;

/** A tenant's reason, as `sandbox.reasons()` and GET /_sandbox/reasons list it. */
export interface ReasonRecord {
  tenant: string;
  code: string;
  reason: InactivityReason;
  /** null while the reason is as seeded. */
  updatedAt: string | null;
  /** The X-Request-Id of the last update; null while the reason is as seeded. */
  requestId: string | null;
}

/**
 * The running sandbox: what `startSandbox` resolves to. The handle of src/sandbox/server.ts, written
 * out for the same reason as `InactivityReason`; `handleTypesAgree` below keeps the two the same.
 */
export interface Sandbox {
  /** The base URL to send requests to, such as http://127.0.0.1:43121 (no trailing slash). */
  readonly url: string;
  /** The address bound. */
  readonly host: string;
  readonly port: number;
  readonly tenants: readonly string[];
  readonly duplicates: DuplicateMode;
  /** The MESSAGE webhook's address (`botUrl`), or null when no bot is connected. */
  readonly botUrl: string | null;
  /** The Standard Webhooks secret the webhooks are signed with (`whsec_...`). */
  readonly webhookSecret: string;
  /** The state file (`state`) and what the start read from it: the events read, whether it restored any; null for a sandbox in memory. */
  readonly stateFile: StateFileInfo | null;
  /** Every kept bot answer and greeting, of one tenant or all (what GET /_sandbox/messages pages through). */
  messages(tenant?: string): MessageRecord[];
  /** The kept events after `after` (default 0), of one tenant or all, or of one thread. */
  events(filter?: { tenant?: string; sessionId?: string; after?: number }): SandboxEvent[];
  /**
   * Tells `listener` of every event as it is recorded, and `onClose` once when the sandbox closes (at
   * once when it already has); returns the function that stops both.
   */
  subscribe(listener: (event: SandboxEvent) => void, onClose?: () => void): () => void;
  /** The thread of a sessionId, as GET /_sandbox/conversations/{sessionId} shows it; undefined when not kept. */
  conversation(sessionId: string): ConversationView | undefined;
  /** How much one tenant holds: events, their bytes, clients, threads, questions, answerIds, deliveries. */
  sizes(tenant: string): Record<'events' | 'bytes' | 'clients' | 'threads' | 'questions' | 'answerIds' | 'deliveries', number>;
  /** What GET /_sandbox/reasons returns: the reasons of one tenant, or of all. */
  reasons(tenant?: string): ReasonRecord[];
  /** The agents, of one tenant or all, with what each holds (GET /_sandbox/agents). */
  agents(tenant?: string): AgentView[];
  /**
   * One agent of a tenant (the first by default): its status, its messages, a thread given back to the
   * bot. A refusal throws AgentRefusedError with the status and message the HTTP endpoint answers.
   */
  agent(id: bigint | number, tenant?: string): SandboxAgent;
  /** What POST /_sandbox/reset does; returns the tenants reset. */
  reset(tenant?: string): string[];
  /**
   * The snapshots of each tenant: `save(name, tenant?)`, `restore(name, tenant?)` (each resolving once
   * written, with a state file) and `list(tenant?)`; a refusal rejects with SnapshotRefusedError.
   */
  readonly snapshots: SandboxSnapshots;
  /** Stops listening, answers what is in flight at once (skipping any latency), and closes every connection. */
  close(): Promise<void>;
}

const handleTypesAgree: Same<Sandbox, ServerSandbox> = true;
void handleTypesAgree;

/** A running bridge (`startBridge`): the sandbox's handle, with the platform it sends on to. */
export interface Bridge extends Sandbox {
  /** The platform's base URL, as given. */
  readonly platformUrl: string;
}

/**
 * Starts `core bridge` from code (docs/bridge.md, "From code"): a sandbox in bridge mode between the
 * bot at `botUrl` and the real platform of `platform`, on loopback (a free port unless `port` is
 * given); resolves once it listens. Throws `SandboxOptionsError`, naming each option, for options it
 * cannot run with. Close it with `await bridge.close()`.
 */
export function startBridge(options: BridgeOptions): Promise<Bridge> {
  return startBridgeServer(options);
}

/**
 * Starts a sandbox on loopback (a free port unless `port` is given) and resolves once it listens.
 * Throws `SandboxOptionsError`, naming each option, for options it cannot run with. Close it with
 * `await sandbox.close()` (in `afterAll`, say), or the test runner waits for its server.
 */
export function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  return startServer(options);
}
