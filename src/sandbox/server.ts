import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import type { Problem } from '../errors.js';
import { loadSafeHtmlRenderer } from '../markdown/safe-html.js';
import type { Reason } from '../payload/index.js';
import { version } from '../version.js';
import { defaultAgentsFor, prepareAgents } from './agents-seed.js';
import { agentHandlers } from './agents.js';
import { apiRoutes } from './api.js';
import { customerHandlers, directCustomer, type DirectCustomer } from './customer.js';
import type { SandboxEvent } from './events.js';
import { allowedHosts } from './host.js';
import { baseUrl, formatProblems } from './http.js';
import type { AgentSeed } from './model.js';
import { inspectHandlers, unknownTenantMessage } from './inspect.js';
import { closeServer, listen, sandboxServer } from './listen.js';
import { isLoopbackHost, sandboxDefaults, sandboxOptionProblems, type DuplicateMode, type SandboxOptions } from './options.js';
import { pageHandlers } from './page.js';
import { probeHandlers } from './probe.js';
import { route, routeTable, type HostRule, type RouteTable } from './routes.js';
import { defaultReasons, prepareReasons } from './seed.js';
import { fixtureHandlers, restoredSnapshot, type RestoredSnapshot } from './fixtures.js';
import { validateSeedFile, type SeedFile } from '../payload/seed.js';
import { applySeed } from './seed-file.js';
import { openStateFile, type StateFile, type StateFileInfo } from './state-file.js';
import { isSnapshotName, SNAPSHOT_NAME_PROBLEM, summaryOf, type SnapshotSummary } from './snapshots.js';
import { newWebhookSecret } from './signature.js';
import { SandboxState, type AgentView, type ConversationView, type MessageRecord, type ReasonRecord } from './state.js';
import { eventStream } from './stream.js';
import { WebhookSender, type AttemptRecord } from './webhook.js';
import type { Answer, Exchange, Handler } from './exchange.js';
import type { Delivery } from './model.js';

/**
 * A local implementation of the API's three operations (docs/api.md, "Endpoints") on node:http,
 * stateful and inspectable. Where the API does not show a behaviour (statuses for bad
 * credentials or invalid input, the strict-duplicate status, tenant errors) the choice made here
 * is the sandbox's own and is listed in docs/sandbox.md.
 *
 * startSandbox checks the options, builds the state, the webhook sender and the routing table
 * (routes.ts: the API's side in api.ts, the sandbox's own endpoints beside it), starts the HTTP
 * server (listen.ts), and returns the handle.
 */

export type { DuplicateMode, SandboxOptions, FaultOptions } from './options.js';
export type { AgentView, MessageRecord, ReasonRecord, ConversationView } from './state.js';
export type { SandboxEvent } from './events.js';
export type { StateFileInfo } from './state-file.js';
export type { RestoredSnapshot } from './fixtures.js';
export type { SeededThread } from './seed-file.js';
export type { SnapshotSummary } from './snapshots.js';
export { StateFileError } from './state-file.js';

export interface Sandbox {
  /** The base URL to send requests to, such as http://127.0.0.1:43121 (no trailing slash). */
  readonly url: string;
  /** The address bound. */
  readonly host: string;
  readonly port: number;
  readonly tenants: readonly string[];
  readonly duplicates: DuplicateMode;
  /** The MESSAGE webhook's address (--bot-url), or null when no bot is connected. */
  readonly botUrl: string | null;
  /** The Standard Webhooks secret the webhooks are signed with (`whsec_...`). */
  readonly webhookSecret: string;
  /** The state file (`state`) and what the start read from it; null for a sandbox in memory. */
  readonly stateFile: StateFileInfo | null;
  /** Every kept bot answer and greeting, of one tenant or all (what GET /_sandbox/messages pages through). */
  messages(tenant?: string): MessageRecord[];
  /** The kept events after `after` (default 0), of one tenant ("": the sandbox-wide ones), or all (those too), or of one thread. */
  events(filter?: { tenant?: string; sessionId?: string; after?: number }): SandboxEvent[];
  /**
   * Tells `listener` of every event as it is recorded, and `onClose` once when the sandbox closes (at
   * once when it already has); returns the function that stops both.
   */
  subscribe(listener: (event: SandboxEvent) => void, onClose?: () => void): () => void;
  /** The thread of a sessionId, as GET /_sandbox/conversations/{sessionId} shows it; undefined when not kept. */
  conversation(sessionId: string): ConversationView | undefined;
  /** How much one tenant holds ("" for the sandbox-wide log): events, their bytes, clients, threads, questions, answerIds, deliveries. */
  sizes(tenant: string): Record<'events' | 'bytes' | 'clients' | 'threads' | 'questions' | 'answerIds' | 'deliveries', number>;
  /** What GET /_sandbox/reasons returns. */
  reasons(tenant?: string): ReasonRecord[];
  /** The agents, of one tenant or all, with what each holds (GET /_sandbox/agents). */
  agents(tenant?: string): AgentView[];
  /**
   * One agent of a tenant (the first tenant by default): change its status, write in a thread it
   * holds, give a thread back to the bot, as POST /_sandbox/agents/{id}/status, .../agent-messages
   * and .../release do. A refusal throws an AgentRefusedError with the sandbox's status and message.
   */
  agent(id: bigint | number, tenant?: string): SandboxAgent;
  /** What POST /_sandbox/reset does; returns the tenants reset. */
  reset(tenant?: string): string[];
  /**
   * The snapshots of each tenant (docs/sandbox.md, "Snapshots"): save one, go back to one, list them, as
   * POST /_sandbox/snapshots, POST /_sandbox/snapshots/{name}/restore and GET /_sandbox/snapshots do.
   */
  readonly snapshots: SandboxSnapshots;
  /** Stops listening, answers what is in flight at once (skipping any latency), and closes every connection. */
  close(): Promise<void>;
}

/** One agent of a sandbox, from code (`sandbox.agent(id)`). */
export interface SandboxAgent {
  readonly id: bigint;
  /** Online, or away with the code of one of the tenant's active reasons. */
  status(status: 'online' | 'away', reason?: string): AgentView;
  /** Writes in a thread the agent holds (the thread, or a question of it); returns the agent.message event. */
  say(sessionId: string, text: string): SandboxEvent;
  /** Gives a thread back to the bot; false when it was not with agents. */
  release(sessionId: string): boolean;
}

/**
 * The snapshots of a sandbox, from code (`sandbox.snapshots`). `tenant` is the first tenant served
 * when absent. With a state file, `save` and `restore` resolve once what they recorded is written
 * and synced, as the HTTP endpoints answer. A refusal rejects with SnapshotRefusedError, with the
 * status and message the HTTP endpoint answers.
 */
export interface SandboxSnapshots {
  /**
   * Takes a snapshot of the tenant's kept events under `name` (letters, digits, '.', '_' and '-',
   * starting with a letter or a digit, at most 64 characters), replacing the tenant's snapshot of that
   * name. Refused: 400 for a name not so, 404 for a tenant not served, 409 past 100 snapshots a tenant.
   */
  save(name: string, tenant?: string): Promise<SavedSnapshot>;
  /**
   * Returns the tenant to the snapshot `name`: a reset, then the snapshot's events recorded again.
   * Refused: 404 for a snapshot or tenant not there, 409 for a snapshot this sandbox cannot take.
   */
  restore(name: string, tenant?: string): Promise<RestoredSnapshot>;
  /** The snapshots of one tenant, or of all, in the order saved (what GET /_sandbox/snapshots lists). */
  list(tenant?: string): SnapshotSummary[];
}

/** A snapshot just saved: its summary, and whether it replaced one of the same name. */
export interface SavedSnapshot extends SnapshotSummary {
  replaced: boolean;
}

/** A snapshot request the sandbox refused: `status` and the message it answers over HTTP. */
export class SnapshotRefusedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotRefusedError';
  }
}

/** A request of an agent the sandbox refused: `status` and the message it answers over HTTP. */
export class AgentRefusedError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AgentRefusedError';
  }
}

/** Thrown by startSandbox for a seed it cannot apply; `problems` names each place in the seed. */
export class SeedError extends TypeError {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(`the seed cannot be applied: ${formatProblems(problems)}`);
    this.name = 'SeedError';
    this.problems = problems;
  }
}

/** A seed as read, checked with its schema; throws SeedError naming every problem. */
function checkedSeedFile(input: unknown): SeedFile {
  const { $schema: _editor, ...rest } = (
    typeof input === 'object' && input !== null && !Array.isArray(input) ? input : { input }
  ) as Record<string, unknown>;
  const validated = validateSeedFile(typeof input === 'object' && input !== null && !Array.isArray(input) ? rest : input);
  if (!validated.ok) throw new SeedError(validated.problems);
  return validated.value;
}

/** Thrown by startSandbox for options it cannot run with; `problems` names each option. */
export class SandboxOptionsError extends TypeError {
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super(`invalid sandbox options: ${formatProblems(problems)}`);
    this.name = 'SandboxOptionsError';
    this.problems = problems;
  }
}

/** The seed reasons and agents of valid options; throws SandboxOptionsError naming every problem of the options. */
function checkedSeed(options: SandboxOptions): { reasons: Reason[]; agents: AgentSeed[] } {
  const optionProblems = sandboxOptionProblems(options);
  const maxActiveReasons = options.maxActiveReasons ?? sandboxDefaults.maxActiveReasons;
  const seed = prepareReasons(options.reasons ?? defaultReasons, maxActiveReasons);
  if (!seed.ok) {
    for (const problem of seed.problems) optionProblems.push({ ...problem, path: `reasons${problem.path}` });
  }
  const agents = seed.ok ? prepareAgents(options.agents ?? defaultAgentsFor(seed.reasons), seed.reasons) : null;
  if (agents && !agents.ok) {
    for (const problem of agents.problems) optionProblems.push({ ...problem, path: `agents${problem.path}` });
  }
  if (optionProblems.length > 0 || !seed.ok || !agents?.ok) throw new SandboxOptionsError(optionProblems);
  return { reasons: seed.reasons, agents: agents.agents };
}

/**
 * What a sandbox in bridge mode adds (`core bridge`, src/bridge/): routes of its own, a say in each
 * API answer, and a look at each webhook attempt. Made once the state and the sender exist.
 */
export interface SandboxExtension {
  routes: [string, Record<string, Handler>][];
  forward?: (ex: Exchange, answer: Answer) => Promise<Answer>;
  attempted?: (delivery: Delivery, attempt: AttemptRecord) => void;
}

/** The parts of a sandbox an extension is made from. */
export interface ExtensionParts {
  state: SandboxState;
  /** The sender of webhooks to the bot (a bridge always has a bot). */
  sender: WebhookSender;
  log: (line: string) => void;
}

/** The MESSAGE webhook's sender (webhook.ts), each attempt recorded in the state. */
function webhookSender(
  options: SandboxOptions,
  state: SandboxState,
  bot: { url: string; secret: string; timeoutMs: number; retries: number },
  log: (line: string) => void,
  stateFile: StateFile | null,
  attempted: (delivery: Delivery, attempt: AttemptRecord) => void = () => {},
): WebhookSender {
  return new WebhookSender(
    {
      url: bot.url,
      secret: bot.secret,
      timeoutMs: bot.timeoutMs,
      retries: bot.retries,
      backoffMs: options.webhookBackoffMs ?? sandboxDefaults.webhookBackoffMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? sandboxDefaults.maxRetryAfterMs,
      userAgent: `core-sandbox/${version()}`,
      maxConcurrent: options.webhookConcurrency ?? sandboxDefaults.webhookConcurrency,
      maxQueued: options.webhookQueue ?? sandboxDefaults.webhookQueue,
      // A refusal that names nothing, made while an attempt is out, is that exchange's (rules/tying.ts).
      sending: (delivery) => state.attemptSent(delivery),
      // A webhook goes out once its customer message is on disk, and not at all when that write failed.
      ready:
        stateFile === null
          ? undefined
          : async (delivery) => {
              await stateFile.settled();
              return state.store.delivery(delivery.deliveryId) !== undefined;
            },
    },
    (delivery, attempt) => {
      state.webhookAttempt(delivery, attempt);
      attempted(delivery, attempt);
    },
    log,
  );
}

/** The longest the start waits for the connection to the bot that the first delivery will use. */
const WARM_LIMIT_MS = 1000;

/** What startSandbox has built, for its routes and its handle. */
interface Parts {
  options: SandboxOptions;
  state: SandboxState;
  sender: WebhookSender | null;
  botUrl: string | null;
  webhookSecret: string;
  tenants: string[];
  duplicates: DuplicateMode;
  log: (line: string) => void;
  /** The open event streams, ended by close(). */
  streams: Set<ServerResponse>;
  /** The state file, when the sandbox keeps its state on disk. */
  stateFile: StateFile | null;
  extension: SandboxExtension | undefined;
}

/** Every route of the sandbox: the API's operations, the inspection, the customer's side, the probes, the page, the events. */
async function routesOf(parts: Parts, bot: { timeoutMs: number; retries: number }): Promise<RouteTable> {
  const { options, state, sender, botUrl } = parts;
  const probes = probeHandlers({ state, sender, secret: parts.webhookSecret, url: botUrl });
  const renderMarkdown = await loadSafeHtmlRenderer();
  const api = apiRoutes({
    state,
    botToken: options.token ?? sandboxDefaults.token,
    integratorToken: options.integratorToken ?? options.token ?? sandboxDefaults.token,
    fail: options.fail,
    random: options.random ?? Math.random,
    limits: options.limits,
    // The page shows a reply's Markdown as safe HTML, written once as the answer is recorded: the
    // lexer is loaded here, so recording stays synchronous (src/sandbox/state.ts).
    renderMarkdown,
    intercept: probes.intercept,
    forward: parts.extension?.forward,
  });
  return routeTable({
    api,
    inspect: inspectHandlers({
      state,
      duplicates: parts.duplicates,
      maxEvents: options.maxEvents ?? sandboxDefaults.maxEvents,
      webhookSecret: parts.webhookSecret,
      bot: botUrl === null || sender === null ? null : { url: botUrl, ...bot, sender },
      stateFile: parts.stateFile?.info ?? null,
    }),
    customer: customerHandlers({
      state,
      sender,
      defaultTenant: parts.tenants[0] ?? 'sandbox',
      maskPersonalData: options.maskPersonalData === true,
    }),
    probes,
    page: pageHandlers(),
    agents: agentHandlers({ state, defaultTenant: parts.tenants[0] ?? 'sandbox' }),
    fixtures: fixtureHandlers({ state, defaultTenant: parts.tenants[0] ?? 'sandbox', renderMarkdown }),
    events: eventStream({
      state,
      open: parts.streams,
      maxTotalBufferedBytes: options.maxStreamBufferedBytes ?? sandboxDefaults.maxStreamBufferedBytes,
      log: parts.log,
    }),
    extra: parts.extension?.routes ?? [],
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  // The public handle: the direct customer is for a client in this same process only.
  const { customer: _direct, ...sandbox } = await startLocalSandbox(options);
  return sandbox;
}

/** A sandbox for a client in this same process: the handle, and the customer's side without HTTP (`core test`). */
export type LocalSandbox = Sandbox & { readonly customer: DirectCustomer };

export async function startLocalSandbox(
  options: SandboxOptions = {},
  extend?: (parts: ExtensionParts) => SandboxExtension,
): Promise<LocalSandbox> {
  const seed = options.seed === undefined ? undefined : checkedSeedFile(options.seed);
  if (seed?.agents !== undefined && options.agents === undefined) options = { ...options, agents: seed.agents };
  const { reasons: seedReasons, agents: seedAgents } = checkedSeed(options);
  const botUrl = options.botUrl ?? null;
  const webhookSecret = options.webhookSecret ?? newWebhookSecret();
  const log = options.log ?? (() => {});
  const duplicates = options.duplicates ?? sandboxDefaults.duplicates;
  const tenants = [...(options.tenants ?? sandboxDefaults.tenants)];
  // The seed's tenants are served too (a tenant without a name is the first one).
  for (const tenant of seed?.tenants ?? []) if (tenant.name !== undefined && !tenants.includes(tenant.name)) tenants.push(tenant.name);
  const state = new SandboxState({
    tenants,
    seedReasons,
    seedAgents,
    duplicates,
    maxActiveReasons: options.maxActiveReasons ?? sandboxDefaults.maxActiveReasons,
    maxEvents: options.maxEvents ?? sandboxDefaults.maxEvents,
    maxEventBytes: options.maxEventBytes ?? sandboxDefaults.maxEventBytes,
    botConnected: botUrl !== null,
    largeIds: options.largeIds === true,
  });
  const bot = {
    timeoutMs: options.webhookTimeoutMs ?? sandboxDefaults.webhookTimeoutMs,
    retries: options.webhookRetries ?? sandboxDefaults.webhookRetries,
  };
  const stateFile = options.state === undefined ? null : await openStateFile(resolvePath(options.state), state, options.warn ?? log);
  try {
    // A seed fills a sandbox that starts empty: a state file that gave it events keeps them as they are.
    if (seed !== undefined && !(stateFile?.info.restored ?? false)) {
      const applied = applySeed(state, seed, { defaultTenant: tenants[0] ?? 'sandbox', renderMarkdown: await loadSafeHtmlRenderer() });
      if (!applied.ok) throw new SeedError(applied.problems);
      await stateFile?.settled();
    }
    return await started(options, { state, stateFile, bot, botUrl, webhookSecret, log, duplicates, tenants, extend });
  } catch (error) {
    await stateFile?.close();
    throw error;
  }
}

/** The rest of the start, once the state is read: the routes, the server listening, the deliveries left in flight sent again. */
async function started(
  options: SandboxOptions,
  made: {
    state: SandboxState;
    stateFile: StateFile | null;
    bot: { timeoutMs: number; retries: number };
    botUrl: string | null;
    webhookSecret: string;
    log: (line: string) => void;
    duplicates: DuplicateMode;
    tenants: string[];
    extend: ((parts: ExtensionParts) => SandboxExtension) | undefined;
  },
): Promise<LocalSandbox> {
  const { state, stateFile, bot, botUrl, webhookSecret, log, duplicates, tenants, extend } = made;
  const host = options.host ?? sandboxDefaults.host;
  // The extension sees every attempt; it is made once the sender exists, so the sender asks for it late.
  let extension: SandboxExtension | undefined;
  const attempted = (delivery: Delivery, attempt: AttemptRecord) => extension?.attempted?.(delivery, attempt);
  const sender =
    botUrl === null ? null : webhookSender(options, state, { url: botUrl, secret: webhookSecret, ...bot }, log, stateFile, attempted);
  if (extend !== undefined) {
    if (sender === null) throw new SandboxOptionsError([{ path: 'botUrl', message: 'a bridge needs the URL of the bot' }]);
    extension = extend({ state, sender, log });
  }
  const parts: Parts = {
    options,
    state,
    sender,
    botUrl,
    webhookSecret,
    tenants,
    duplicates,
    log,
    streams: new Set(),
    extension,
    stateFile,
  };
  const table = await routesOf(parts, bot);
  // Filled in once the server listens: the Host values the sandbox answers, and whether the API's
  // paths are checked too (bound to loopback).
  const hostRule: HostRule = { hosts: { exact: new Set(), names: new Set() }, checkEveryPath: false };
  const closing = new AbortController();
  const server = sandboxServer(
    {
      headersTimeoutMs: options.headersTimeoutMs ?? sandboxDefaults.headersTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs ?? sandboxDefaults.requestTimeoutMs,
      maxConnections: options.maxConnections ?? sandboxDefaults.maxConnections,
    },
    stateFile === null
      ? (ex) => route(table, state, hostRule, ex)
      : durably(stateFile, (ex: Exchange) => route(table, state, hostRule, ex)),
    { latencyMs: options.latencyMs ?? sandboxDefaults.latencyMs, closing: closing.signal, log },
  );
  await listen(server, host, options.port ?? sandboxDefaults.port, log);
  const address = server.address() as AddressInfo;
  hostRule.hosts = allowedHosts(address.address, host, address.port, isLoopbackHost, options.allowHosts ?? [], interfaceAddresses());
  hostRule.checkEveryPath = isLoopbackHost(address.address);
  // The connection to the bot, opened now, so the first delivery's time holds no connect of the sandbox's making.
  await sender?.warm(Math.min(bot.timeoutMs, WARM_LIMIT_MS));
  const direct = directCustomer({
    state,
    sender,
    defaultTenant: tenants[0] ?? 'sandbox',
    maskPersonalData: options.maskPersonalData === true,
  });
  const customer: DirectCustomer =
    stateFile === null ? direct : { start: durably(stateFile, direct.start), message: durably(stateFile, direct.message) };
  // The deliveries whose attempts had not ended when the sandbox stopped: sent again, on their own schedule.
  if (sender !== null && stateFile?.info.restored) {
    for (const tenant of state.store.selected(undefined))
      for (const delivery of tenant.deliveries.values()) if (delivery.inFlight) sender.deliver(delivery);
  }
  return { ...handle(parts, server, address, closing), customer };
}

/**
 * A handler whose answer waits until the events recorded so far are on disk (group commit: one write
 * for the events of every request answered meanwhile). When a write failed while the request ran, its
 * events were taken back (src/sandbox/state-file.ts): it is answered 503, and nothing of it is kept.
 */
function durably<A extends unknown[]>(file: StateFile, handler: (...args: A) => Answer | Promise<Answer>): (...args: A) => Promise<Answer> {
  return async (...args) => {
    const failures = file.failures;
    const answer = await handler(...args);
    if (answer.streamed) return answer;
    const after = await file.settled();
    if (after === failures) return answer;
    return {
      status: 503,
      error: notWritten(file),
      headers: { 'Retry-After': '1' },
      what: 'state file not written: nothing kept',
    };
  };
}

/** Why a request whose events a failed write took back is refused (503). */
const notWritten = (file: StateFile): string =>
  `the sandbox could not write its state file (${file.lastFailure}): nothing of this request was kept; try again once the file can be written`;

/** `sandbox.snapshots`: what the snapshot endpoints do (fixtures.ts), refusals thrown, each change on disk before it resolves. */
function snapshotsHandle(parts: Parts): SandboxSnapshots {
  const { state, stateFile } = parts;
  const tenantOf = (tenant: string | undefined): string => {
    const name = tenant ?? parts.tenants[0] ?? 'sandbox';
    if (!state.hasTenant(name)) throw new SnapshotRefusedError(404, unknownTenantMessage(state, name));
    return name;
  };
  /** Runs `change`, then waits until what it recorded is on disk: a write that failed meanwhile took it back (503). */
  const durable = async <T>(change: () => T): Promise<T> => {
    const failures = stateFile?.failures ?? 0;
    const result = change();
    if (stateFile !== null && (await stateFile.settled()) !== failures) throw new SnapshotRefusedError(503, notWritten(stateFile));
    return result;
  };
  return {
    save: async (name, tenant) => {
      if (!isSnapshotName(name)) throw new SnapshotRefusedError(400, `name: ${SNAPSHOT_NAME_PROBLEM}`);
      const named = tenantOf(tenant);
      return durable(() => {
        const saved = state.saveSnapshot(named, name);
        if (!saved.ok) throw new SnapshotRefusedError(saved.status, saved.message);
        return { ...summaryOf(saved.snapshot), replaced: saved.replaced };
      });
    },
    restore: async (name, tenant) => {
      const named = tenantOf(tenant);
      return durable(() => {
        const restored = state.restoreSnapshot(named, name);
        if (!restored.ok) throw new SnapshotRefusedError(restored.status, restored.message);
        return restoredSnapshot(state, named, restored);
      });
    },
    list: (tenant) => state.snapshots.list(tenant === undefined ? undefined : tenantOf(tenant)).map(summaryOf),
  };
}

/** The handle startSandbox returns: the address, the state's views, and close(). */
function handle(parts: Parts, server: Server, address: AddressInfo, closing: AbortController): Sandbox {
  const { state, sender, streams } = parts;
  let closed: Promise<void> | undefined;
  /** Told once when the sandbox closes: the customer helpers of src/library/customer.ts end their waits. */
  const closeListeners = new Set<() => void>();
  return {
    url: baseUrl(address.address, address.port),
    host: address.address,
    port: address.port,
    tenants: parts.tenants,
    duplicates: parts.duplicates,
    botUrl: parts.botUrl,
    webhookSecret: parts.webhookSecret,
    stateFile: parts.stateFile?.info ?? null,
    messages: (tenant) => state.messages(tenant),
    events: (filter = {}) => [...state.events(filter)],
    subscribe: (listener, onClose) => {
      const stop = state.subscribe(listener);
      if (onClose === undefined) return stop;
      if (closed !== undefined) {
        queueMicrotask(onClose);
        return stop;
      }
      closeListeners.add(onClose);
      return () => {
        stop();
        closeListeners.delete(onClose);
      };
    },
    conversation: (sessionId) => {
      const thread = state.thread(sessionId);
      return thread ? state.view(thread) : undefined;
    },
    sizes: (tenant) => state.sizesOf(tenant),
    reasons: (tenant) => state.reasons(tenant),
    agents: (tenant) => state.agents(tenant),
    agent: (id, tenant) => agentHandle(state, BigInt(id), tenant ?? parts.tenants[0] ?? 'sandbox'),
    reset: (tenant) => state.reset(tenant),
    snapshots: snapshotsHandle(parts),
    close: () => {
      if (closed === undefined) {
        // Answers what is in flight at once (latency waits are cut short), stops the webhooks and the
        // event streams, then the server.
        closing.abort();
        sender?.close();
        for (const stream of streams) stream.end();
        closed = closeServer(server).then(() => parts.stateFile?.close());
        for (const onClose of closeListeners) onClose();
        closeListeners.clear();
      }
      return closed;
    },
  };
}

function agentHandle(state: SandboxState, id: bigint, tenant: string): SandboxAgent {
  const threadOf = (sessionId: string) => {
    const thread = state.thread(sessionId);
    if (thread === undefined || thread.tenant !== tenant) throw new AgentRefusedError(404, `no conversation with sessionId '${sessionId}'`);
    return thread;
  };
  return {
    id,
    status: (status, reason) => {
      const changed = state.agentStatus(tenant, id, status, reason ?? null);
      if (!changed.ok) throw new AgentRefusedError(changed.status, changed.message);
      return changed.agent;
    },
    say: (sessionId, text) => {
      const written = state.agentMessage(threadOf(sessionId), text, id);
      if (!written.ok) throw new AgentRefusedError(written.status, written.message);
      return written.event;
    },
    release: (sessionId) => state.release(threadOf(sessionId)) !== null,
  };
}

/** The addresses of the machine's network interfaces (IPv6 ones without a zone): what a sandbox bound to every address is reached at. */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
}
