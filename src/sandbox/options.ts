import { checkToken } from '../config/token.js';
import type { Problem } from '../errors.js';
import type { Limits } from '../payload/index.js';
import { allowHostProblem } from './host.js';
import { webhookSecretProblem } from './signature.js';

/**
 * The sandbox's settings and their bounds. The bounds live here once: `startSandbox` checks its
 * options with `sandboxOptionProblems`, and `core sandbox` reports the same problems against the
 * flag that set each value.
 */

/**
 * How a second answer to an already answered question is treated (docs/api.md, chatbot
 * rule 7): `strict` rejects it and does not deliver it, `soft` delivers it.
 */
export type DuplicateMode = 'strict' | 'soft';
export const duplicateModes: readonly DuplicateMode[] = ['strict', 'soft'];

/** Answer `status` instead of handling the request, for a `rate` share (0..1) of API requests. */
export interface FaultOptions {
  status: number;
  rate: number;
}

export interface SandboxOptions {
  /** The address to bind. Default 127.0.0.1, so nothing outside this machine can reach it. */
  host?: string;
  /** The port; 0 (the default) picks a free one. */
  port?: number;
  /** The tenants served, sent by clients as X-Tenant-Name. Default ['sandbox']. */
  tenants?: readonly string[];
  /** The bearer token of the bot operations. Default 'sandbox-token'. */
  token?: string;
  /** The bearer token of PUT /api/v1/inactivity/reasons. Default: the same as `token`. */
  integratorToken?: string;
  /** Default 'soft'. */
  duplicates?: DuplicateMode;
  /**
   * The inactivity reasons every tenant starts with (and returns to on reset), each checked with
   * the reason schema. Default: `defaultReasons` from src/sandbox/seed.ts.
   */
  reasons?: readonly unknown[];
  /**
   * The agents every tenant starts with (and returns to on reset), as the entries of an agents file
   * (`core schema agents`). Default: `defaultAgents` from src/sandbox/agents-seed.ts.
   */
  agents?: readonly unknown[];
  /** The most reasons that may be active at once in one tenant. Default 10. */
  maxActiveReasons?: number;
  /** The service's message.max-quick-replies and message.max-quick-reply-length, when a test wants them enforced. */
  limits?: Limits;
  /** Delays every answer by this many milliseconds (after the request has been handled). Default 0. */
  latencyMs?: number;
  /** Injected failures of API requests. */
  fail?: FaultOptions;
  /** Receives one line per request. */
  log?: (line: string) => void;
  /** A source of numbers in [0, 1) that decides injected failures; Math.random by default. */
  random?: () => number;
  /** The most events kept per tenant, the oldest dropped first (docs/sandbox.md, "Memory"). Default 10000. */
  maxEvents?: number;
  /**
   * The most bytes of recorded request bodies and answer bodies kept per tenant, on top of
   * `maxEvents`: a bot that sends 1 MB answers cannot make 10,000 events weigh 10 GB. Default 64 MiB.
   */
  maxEventBytes?: number;
  /** Where the MESSAGE webhook of each customer message goes; without it messages are only recorded. */
  botUrl?: string;
  /**
   * "Save as test" (GET /_sandbox/conversations/{sessionId}/test) replaces e-mail addresses, phone
   * numbers and card-like numbers in the saved texts with placeholders, unless the request asks to
   * keep them (`?personal-data=keep`). Default false; a bridge's is true.
   */
  maskPersonalData?: boolean;
  /**
   * Every coreClientId and questionId the sandbox makes above 2^53 (from 9007199254741993 and
   * 9007199254745993), so a bot that reads them with `JSON.parse` (which rounds them) fails. Default false.
   */
  largeIds?: boolean;
  /** The Standard Webhooks secret, `whsec_` + base64 of 24 to 64 bytes. Default: a new one for each start. */
  webhookSecret?: string;
  /** The time limit of one webhook attempt, in milliseconds. Default 10000. */
  webhookTimeoutMs?: number;
  /** How many times a failed webhook attempt is repeated. Default 3. */
  webhookRetries?: number;
  /** The first backoff between webhook attempts, doubled on each: 1000, 2000, 4000 ms by default. */
  webhookBackoffMs?: number;
  /** The longest Retry-After of a bot that is honoured; a longer one waits this long. Default 60000. */
  maxRetryAfterMs?: number;
  /** Webhook attempts in flight to the bot at once; the next ones wait in a queue. Default 64. */
  webhookConcurrency?: number;
  /**
   * Webhook attempts that may wait for one in flight to end; one more is recorded as a failed
   * attempt, with the reason, and not sent (docs/sandbox.md, "Bounds"). Default 10000.
   */
  webhookQueue?: number;
  /**
   * Host names accepted besides the sandbox's own address (`--allow-host`), with any port: the name a
   * bot in a container (host.docker.internal) or a tunnel reaches the sandbox by. When the sandbox is
   * bound to loopback, the API's paths are Host-checked too (docs/sandbox.md, "The Host check").
   */
  allowHosts?: readonly string[];
  /**
   * The most connections open at once (docs/sandbox.md, "Bounds"). At the cap, a new connection
   * closes the oldest one that is idle or has not finished sending its request's headers; when every
   * one is busy, the new one is answered 503 and closed at once. Default 1000.
   */
  maxConnections?: number;
  /**
   * The most unsent bytes all event streams together may hold (docs/sandbox.md, "Bounds"); each
   * stream's share is this over the streams open, at most 8 MiB. Default 64 MiB.
   */
  maxStreamBufferedBytes?: number;
  /** The time a client has to send a request's headers, in milliseconds. Default 10000. */
  headersTimeoutMs?: number;
  /** The time a client has to send a whole request, body included, in milliseconds. Default 30000. */
  requestTimeoutMs?: number;
  /**
   * The state file (docs/sandbox.md, "State on disk"): the event log is appended to it and replayed
   * from it at start, so a restart keeps every conversation. A request is answered only once its
   * events are on disk. Without it the sandbox lives in memory.
   */
  state?: string;
  /** Receives the warnings of the start (a state file's torn last line, say); by default `log`. */
  warn?: (line: string) => void;
  /**
   * A seed (docs/sandbox.md, "Fixtures"; `core schema seed`), as read from its YAML or JSON file:
   * applied as events once the sandbox has started, unless a state file gave it events already. Its
   * tenants are served besides `tenants`; its agents, when `agents` names none, are the sandbox's.
   */
  seed?: unknown;
}

export const sandboxDefaults = {
  host: '127.0.0.1',
  port: 0,
  tenants: ['sandbox'],
  token: 'sandbox-token',
  duplicates: 'soft',
  maxActiveReasons: 10,
  latencyMs: 0,
  maxEvents: 10_000,
  maxEventBytes: 64 * 1024 * 1024,
  webhookTimeoutMs: 10_000,
  webhookRetries: 3,
  webhookBackoffMs: 1000,
  maxRetryAfterMs: 60_000,
  webhookConcurrency: 64,
  webhookQueue: 10_000,
  maxConnections: 1000,
  maxStreamBufferedBytes: 64 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
} as const satisfies SandboxOptions;

export const sandboxBounds = {
  port: { min: 0, max: 65_535 },
  failStatus: { min: 400, max: 599 },
  failRate: { min: 0, max: 1 },
  // Ten minutes: longer than any client timeout worth testing, short enough to catch a unit mix-up.
  latencyMs: { min: 0, max: 600_000 },
  maxActiveReasons: { min: 0, max: 1_000_000 },
  // At least one event, so the conversation that is going on is always there to read.
  maxEvents: { min: 1, max: 10_000_000 },
  maxEventBytes: { min: 1024, max: 2 ** 40 },
  webhookTimeoutMs: { min: 1, max: 600_000 },
  webhookRetries: { min: 0, max: 100 },
  webhookBackoffMs: { min: 0, max: 600_000 },
  maxRetryAfterMs: { min: 0, max: 3_600_000 },
  webhookConcurrency: { min: 1, max: 10_000 },
  webhookQueue: { min: 0, max: 10_000_000 },
  maxConnections: { min: 1, max: 1_000_000 },
  maxStreamBufferedBytes: { min: 1024, max: 2 ** 40 },
  headersTimeoutMs: { min: 1, max: 600_000 },
  requestTimeoutMs: { min: 1, max: 3_600_000 },
} as const;

/** The largest request body accepted; larger ones get 413 (a sandbox choice, docs/sandbox.md). */
export const maxBodyBytes = 1024 * 1024;

const isIntegerIn = (value: number, bound: { min: number; max: number }) =>
  Number.isInteger(value) && value >= bound.min && value <= bound.max;

// A tenant name and a token travel in HTTP headers, so they must be visible ASCII without spaces.
const headerToken = /^[\x21-\x7e]+$/;

type Add = (path: string, message: string) => void;

/**
 * Every problem with the scalar options, each with the option's name as its path. The seed
 * reasons are checked separately by `prepareReasons` (src/sandbox/seed.ts), with their schema.
 */
export function sandboxOptionProblems(options: SandboxOptions): Problem[] {
  const problems: Problem[] = [];
  const add: Add = (path, message) => problems.push({ path, message });
  addressProblems(options, add);
  countProblems(options, add);
  connectionProblems(options, add);
  return problems;
}

/** The address, the tenants, the tokens and the duplicate mode. */
function addressProblems(options: SandboxOptions, add: Add): void {
  if (options.host !== undefined && options.host.trim() === '') add('host', 'must not be empty');
  if (options.state !== undefined && options.state.trim() === '') add('state', 'must not be empty: name the state file');
  if (options.port !== undefined && !isIntegerIn(options.port, sandboxBounds.port)) {
    add('port', `${String(options.port)} is not a port: use a whole number from 0 to 65535 (0 picks a free port)`);
  }
  if (options.tenants !== undefined) {
    if (options.tenants.length === 0) add('tenants', 'name at least one tenant');
    const seen = new Set<string>();
    for (const tenant of options.tenants) {
      if (!headerToken.test(tenant)) add('tenants', `'${tenant}' is not a tenant name: use visible characters without spaces`);
      else if (seen.has(tenant)) add('tenants', `'${tenant}' is named twice`);
      seen.add(tenant);
    }
  }
  // The sandbox's tokens are sent by core, so they follow core's rule for a token (src/config/token.ts):
  // a token core would refuse is refused here, not printed in an export line core then rejects.
  for (const key of ['token', 'integratorToken'] as const) {
    const value = options[key];
    if (value === undefined) continue;
    const checked = checkToken(value);
    if ('problem' in checked) add(key, `${checked.problem}; core refuses such a token`);
    else if (checked.token !== value) add(key, 'must not start or end with spaces');
  }
  if (options.duplicates !== undefined && !duplicateModes.includes(options.duplicates)) {
    add('duplicates', `'${String(options.duplicates)}' is not a mode: use strict or soft`);
  }
}

/** The counts, sizes and time limits, each within its bound of sandboxBounds. */
function countProblems(options: SandboxOptions, add: Add): void {
  if (options.maxActiveReasons !== undefined && !isIntegerIn(options.maxActiveReasons, sandboxBounds.maxActiveReasons)) {
    add('maxActiveReasons', `${String(options.maxActiveReasons)} is not a count: use a whole number of 0 or more`);
  }
  if (options.latencyMs !== undefined && !isIntegerIn(options.latencyMs, sandboxBounds.latencyMs)) {
    add('latencyMs', `${String(options.latencyMs)} is not a delay: use whole milliseconds from 0 to 600000`);
  }
  const counts = [
    ['maxEvents', 'a count of events: use a whole number from 1 to 10000000'],
    ['maxEventBytes', 'a size: use a whole number of bytes of 1024 or more'],
    ['webhookTimeoutMs', 'a time limit: use whole milliseconds from 1 to 600000'],
    ['webhookRetries', 'a count of retries: use a whole number from 0 to 100'],
    ['webhookBackoffMs', 'a backoff: use whole milliseconds from 0 to 600000'],
    ['maxRetryAfterMs', 'a bound of Retry-After: use whole milliseconds from 0 to 3600000'],
    ['webhookConcurrency', 'a count of attempts: use a whole number from 1 to 10000'],
    ['webhookQueue', 'a count of attempts: use a whole number from 0 to 10000000'],
    ['maxConnections', 'a count of connections: use a whole number from 1 to 1000000'],
    ['maxStreamBufferedBytes', 'a size: use a whole number of bytes of 1024 or more'],
    ['headersTimeoutMs', 'a time limit: use whole milliseconds from 1 to 600000'],
    ['requestTimeoutMs', 'a time limit: use whole milliseconds from 1 to 3600000'],
  ] as const;
  for (const [key, what] of counts) {
    const value = options[key];
    if (value !== undefined && !isIntegerIn(value, sandboxBounds[key])) add(key, `${String(value)} is not ${what}`);
  }
}

/** The bot's URL and secret, the time limits of a request, the names of --allow-host, injected failures. */
function connectionProblems(options: SandboxOptions, add: Add): void {
  if (options.botUrl !== undefined) {
    const problem = botUrlProblem(options.botUrl);
    if (problem !== undefined) add('botUrl', problem);
  }
  if (options.webhookSecret !== undefined) {
    const problem = webhookSecretProblem(options.webhookSecret);
    if (problem !== undefined) add('webhookSecret', problem);
  }
  // Node refuses a server whose headers may take longer than the whole request.
  const headersMs = options.headersTimeoutMs ?? sandboxDefaults.headersTimeoutMs;
  const requestMs = options.requestTimeoutMs ?? sandboxDefaults.requestTimeoutMs;
  if (headersMs > requestMs) add('headersTimeoutMs', `${headersMs} is longer than the request's time limit (${requestMs} ms)`);
  for (const name of options.allowHosts ?? []) {
    const problem = allowHostProblem(name);
    if (problem !== undefined) add('allowHosts', problem);
  }
  if (options.fail !== undefined) {
    const { status, rate } = options.fail;
    if (!isIntegerIn(status, sandboxBounds.failStatus)) {
      add('fail.status', `${String(status)} is not an error status: use 400 to 599`);
    }
    if (!(Number.isFinite(rate) && rate >= sandboxBounds.failRate.min && rate <= sandboxBounds.failRate.max)) {
      add('fail.rate', `${String(rate)} is not a rate: use a share from 0 to 1, such as 0.25`);
    }
  }
}

/** Why a bot URL cannot be used: it must be an absolute http or https URL without credentials. */
export function botUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `'${text}' is not a URL: use an absolute http or https URL such as http://127.0.0.1:3000/webhook`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `'${text}' is not an http or https URL`;
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password: the webhook is signed instead';
  if (url.hash !== '') return `'${text}' has a #fragment, which is never sent: leave it out`;
  return undefined;
}

/** The loopback names; any other bind address exposes the sandbox to other machines. */
export { isLoopbackHost } from '../http/proxy.js';

/** A rate as a percentage for messages: 0.25 → "25%", 0.07 → "7%" (no binary fraction noise). */
export function percent(rate: number): string {
  return `${Number((rate * 100).toFixed(2))}%`;
}
