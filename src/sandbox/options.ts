import type { Problem } from '../errors.js';
import type { Limits } from '../payload/index.js';

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
}

export const sandboxDefaults = {
  host: '127.0.0.1',
  port: 0,
  tenants: ['sandbox'],
  token: 'sandbox-token',
  duplicates: 'soft',
  maxActiveReasons: 10,
  latencyMs: 0,
} as const satisfies SandboxOptions;

export const sandboxBounds = {
  port: { min: 0, max: 65_535 },
  failStatus: { min: 400, max: 599 },
  failRate: { min: 0, max: 1 },
  // Ten minutes: longer than any client timeout worth testing, short enough to catch a unit mix-up.
  latencyMs: { min: 0, max: 600_000 },
  maxActiveReasons: { min: 0, max: 1_000_000 },
} as const;

/** The largest request body accepted; larger ones get 413 (a sandbox choice, docs/sandbox.md). */
export const maxBodyBytes = 1024 * 1024;

const isIntegerIn = (value: number, bound: { min: number; max: number }) =>
  Number.isInteger(value) && value >= bound.min && value <= bound.max;

// A tenant name and a token travel in HTTP headers, so they must be visible ASCII without spaces.
const headerToken = /^[\x21-\x7e]+$/;

/**
 * Every problem with the scalar options, each with the option's name as its path. The seed
 * reasons are checked separately by `prepareReasons` (src/sandbox/seed.ts), with their schema.
 */
export function sandboxOptionProblems(options: SandboxOptions): Problem[] {
  const problems: Problem[] = [];
  const add = (path: string, message: string) => problems.push({ path, message });

  if (options.host !== undefined && options.host.trim() === '') add('host', 'must not be empty');
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
  for (const key of ['token', 'integratorToken'] as const) {
    const value = options[key];
    if (value !== undefined && !headerToken.test(value)) add(key, 'must be visible characters without spaces');
  }
  if (options.duplicates !== undefined && !duplicateModes.includes(options.duplicates)) {
    add('duplicates', `'${String(options.duplicates)}' is not a mode: use strict or soft`);
  }
  if (options.maxActiveReasons !== undefined && !isIntegerIn(options.maxActiveReasons, sandboxBounds.maxActiveReasons)) {
    add('maxActiveReasons', `${String(options.maxActiveReasons)} is not a count: use a whole number of 0 or more`);
  }
  if (options.latencyMs !== undefined && !isIntegerIn(options.latencyMs, sandboxBounds.latencyMs)) {
    add('latencyMs', `${String(options.latencyMs)} is not a delay: use whole milliseconds from 0 to 600000`);
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
  return problems;
}

/** The loopback names; any other bind address exposes the sandbox to other machines. */
export { isLoopbackHost } from '../http/proxy.js';

/** A rate as a percentage for messages: 0.25 → "25%", 0.07 → "7%" (no binary fraction noise). */
export function percent(rate: number): string {
  return `${Number((rate * 100).toFixed(2))}%`;
}
