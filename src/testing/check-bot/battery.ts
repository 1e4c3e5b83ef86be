import { performance } from 'node:perf_hooks';
import {
  CHECKS,
  CHECK_IDS,
  refusal,
  type CheckDefinition,
  type CheckId,
  type CheckKit,
  type Craft,
  type DeliveryAnswer,
  type FaultView,
} from './checks.js';
import type { Unreachable } from '../unreachable.js';
import { errorOf, num, Observer, statusOf, type SandboxEvent } from './observe.js';

/**
 * The battery of `core check-bot` (docs/check-bot.md): each check in its own conversation, all at
 * once, over the sandbox's own HTTP endpoints (the customer's side, the crafted deliveries and the
 * one-shot faults of /_sandbox/probes) and its event stream. It needs nothing of the sandbox's code,
 * so it runs the same against a sandbox started for it and against one already running: the
 * command hands it a `SandboxPort`.
 */

/** The sandbox's own endpoints, as the battery uses them. */
export interface SandboxPort {
  /** One JSON request; a network failure rejects (the caller's typed error). */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }>;
  /** GET /_sandbox/events with `query`, each event read from its JSON form (src/sandbox/event-json.ts). */
  events(query: string, onEvent: (event: SandboxEvent) => void): { opened: Promise<void>; close(): void };
}

export interface BatteryInit {
  port: SandboxPort;
  /** How long an answer may take (--timeout); the checks that expect none wait this long. */
  timeoutMs: number;
  /** The checks to run (--only), in any order; all when absent. */
  only?: readonly CheckId[];
  signal: AbortSignal;
  /** Told of each check as it ends (the live progress line of core check-bot). */
  onCheck?: (check: CheckResult) => void;
}

export interface CheckResult {
  id: CheckId;
  status: 'pass' | 'fail';
  message: string;
  /** The fix in one line; null when the check passed. */
  fix: string | null;
  /** What the sandbox sent, and when the bot passes. */
  sends: string;
  passes: string;
  /** The check's conversation in the sandbox (the page shows it), null when none was started. */
  sessionId: string | null;
  durationMs: number;
}

export interface BatteryReport {
  startedAt: string;
  durationMs: number;
  /** The tenant the checks used; null when the sandbox could not be reached to say it. */
  tenant: string | null;
  duplicates: string | null;
  timeoutMs: number;
  checks: CheckResult[];
  passed: number;
  failed: number;
  /**
   * Set when the bot refused every correctly signed delivery with 401 or 403: one cause (nearly always
   * the secret it verifies with) said once, in place of each failed check's fix.
   */
  diagnosis: Diagnosis | null;
  /**
   * Set when the bot could not be reached at all (every delivery failed to connect and no request of the
   * bot came), or the sandbox at --sandbox (no answer to its first request, so no check ran).
   */
  unreachable: Unreachable | null;
}

export interface Diagnosis {
  message: string;
  fix: string;
}

/** The crafts a bot that verifies correctly accepts: signed with the sandbox's secret, fresh, of any shape. */
const ACCEPTABLE: readonly Craft[] = ['signed', 'rotation', 'raw-body', 'unknown-fields', 'large-ids'];

/**
 * One diagnosis when every correctly signed delivery was refused with 401 or 403: the checks that need
 * an answer then all fail for that one reason, and their own fixes (rotation, replay, retries, email,
 * unknown fields) would send the developer the wrong way.
 */
export function signatureDiagnosis(statuses: readonly (number | null)[]): Diagnosis | null {
  if (statuses.length === 0 || !statuses.every((status) => status === 401 || status === 403)) return null;
  const shown = [...new Set(statuses)].join(' or ');
  return {
    message: `the bot refuses the sandbox's signature: it answered every correctly signed delivery (${statuses.length}) ${shown}`,
    fix:
      "does the bot verify with the secret the sandbox signs with? Give it CORE_WEBHOOK_SECRET equal to the sandbox's " +
      '(CORE_SANDBOX_WEBHOOK_SECRET, else the one kept for you, which core sandbox prints); then check it signs the raw body as received',
  };
}

/** A request to the sandbox's own endpoints was not answered as expected: the check that made it fails with this. */
export class SandboxRefused extends Error {}

export async function runBattery(init: BatteryInit): Promise<BatteryReport> {
  const { port, timeoutMs } = init;
  const startedAt = new Date();
  const started = performance.now();
  const info = await port.request('GET', '/_sandbox/info');
  const facts = (info.json ?? {}) as { tenants?: unknown; lastSeq?: unknown; duplicates?: unknown };
  const tenant = Array.isArray(facts.tenants) && typeof facts.tenants[0] === 'string' ? facts.tenants[0] : 'sandbox';
  const lastSeq = num(facts.lastSeq) ?? 0;

  const sessions = new Set<string>();
  const observer = new Observer(sessions, tenant);
  // Every tenant's events, not only the battery's: a request refused for naming a tenant the sandbox does not serve
  // is recorded sandbox-wide (tenant ""), and is the bot's mistake to report. The observer passes over other tenants'.
  const stream = port.events(`?after=${lastSeq}`, (event) => observer.take(event));
  const attempts: DeliveryAnswer[] = [];
  /** How the bot answered each crafted delivery it should accept. */
  const acceptable: (number | null)[] = [];
  try {
    await stream.opened;
    const kit = checkKit(init, tenant, sessions, observer, attempts, acceptable);
    const selected = CHECKS.filter((check) => init.only === undefined || init.only.includes(check.id));
    const checks = await Promise.all(
      selected.map(async (check) => {
        const result = await runCheck(check, kit, checkLabeller(init));
        init.onCheck?.(result);
        return result;
      }),
    );
    checks.sort((a, b) => CHECK_IDS.indexOf(a.id) - CHECK_IDS.indexOf(b.id));
    const diagnosis = signatureDiagnosis(acceptable);
    // The one cause said once: no failed check's own fix points elsewhere.
    if (diagnosis !== null) for (const check of checks) check.fix = null;
    return {
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      tenant,
      duplicates: typeof facts.duplicates === 'string' ? facts.duplicates : null,
      timeoutMs,
      checks,
      passed: checks.filter((check) => check.status === 'pass').length,
      failed: checks.filter((check) => check.status === 'fail').length,
      diagnosis,
      unreachable: observer.botSpoke ? null : unreachable([...attempts, ...webhookAttempts(sessions, observer)]),
    };
  } finally {
    stream.close();
  }
}

/**
 * A request to the sandbox's own endpoints that must be answered with `expected`; any other answer
 * fails the check that made it (`SandboxRefused`), naming what the sandbox said.
 */
function sandboxCall(port: SandboxPort) {
  return async (method: 'GET' | 'POST', path: string, body: unknown, expected: number): Promise<Record<string, unknown>> => {
    const answer = await port.request(method, path, body);
    if (answer.status !== expected) {
      const message = (answer.json as { message?: unknown } | undefined)?.message;
      const missing = answer.status === 404 && typeof message === 'string' && message.startsWith('no such path');
      throw new SandboxRefused(
        missing
          ? `the sandbox does not offer ${path}: it is older than this core; start it with this version`
          : `the sandbox answered ${answer.status} to ${method} ${path}${typeof message === 'string' ? `: ${message}` : ''}`,
      );
    }
    return (answer.json ?? {}) as Record<string, unknown>;
  };
}

/** How the bot answered a delivery the sandbox made for a check, kept in `attempts` too. */
function deliveryOf(json: Record<string, unknown>, attempts: DeliveryAnswer[]): DeliveryAnswer {
  const attempt = (json.attempt ?? {}) as Record<string, unknown>;
  const result = {
    status: num(attempt.status),
    error: typeof attempt.error === 'string' ? attempt.error : null,
    latencyMs: num(attempt.latencyMs) ?? 0,
    body: typeof attempt.body === 'string' ? attempt.body : '',
  };
  attempts.push(result);
  return result;
}

/** The checks' hands on the sandbox: conversations started in `tenant` and noted in `sessions`, probes, faults and waits. */
function checkKit(
  init: BatteryInit,
  tenant: string,
  sessions: Set<string>,
  observer: Observer,
  attempts: DeliveryAnswer[],
  acceptable: (number | null)[],
): CheckKit {
  const { timeoutMs, signal } = init;
  const call = sandboxCall(init.port);
  return {
    timeoutMs,
    signal,
    async start(channel, coreClientId) {
      const json = await call(
        'POST',
        '/_sandbox/conversations',
        { tenant, channel, ...(coreClientId === undefined ? {} : { coreClientId }) },
        201,
      );
      const sessionId = String(json.sessionId);
      sessions.add(sessionId);
      return sessionId;
    },
    async probe(sessionId, craft: Craft, text) {
      const json = await call('POST', '/_sandbox/probes', { sessionId, craft, text }, 200);
      const attempt = deliveryOf(json, attempts);
      if (ACCEPTABLE.includes(craft)) acceptable.push(attempt.status);
      return { sessionId, questionId: json.questionId as bigint, deliveryId: String(json.deliveryId), attempt };
    },
    async replay(deliveryId) {
      return deliveryOf(await call('POST', '/_sandbox/probes', { craft: 'replay', deliveryId }, 200), attempts);
    },
    async say(sessionId, text) {
      const json = await call('POST', `/_sandbox/conversations/${encodeURIComponent(sessionId)}/messages`, { text }, 201);
      return { questionId: json.questionId as bigint, deliveryId: typeof json.deliveryId === 'string' ? json.deliveryId : null };
    },
    async armFault(sessionId) {
      return String((await call('POST', '/_sandbox/probes/faults', { sessionId }, 201)).faultId);
    },
    async fault(faultId) {
      const json = await call('GET', `/_sandbox/probes/faults/${encodeURIComponent(faultId)}`, undefined, 200);
      return {
        triggered: json.triggered === true,
        answerId: typeof json.answerId === 'string' ? json.answerId : null,
        triggeredAt: typeof json.triggeredAt === 'string' ? json.triggeredAt : null,
      } satisfies FaultView;
    },
    wait: (sessionId, test, from = 0) => observer.wait(sessionId, test, timeoutMs, signal, from),
    seen: (sessionId) => observer.events(sessionId).length,
    untiedNote: () => untiedNote(observer.untied),
    untied: () => observer.untied,
  };
}

/** Says which check a conversation plays, and its verdict once known; never fails the check. */
type Labeller = (sessionId: string, check: CheckId, verdict: { status: 'pass' | 'fail'; message: string } | null) => Promise<void>;

/**
 * Labels each check's conversation in the sandbox (POST /_sandbox/probes/checks), so that its page shows
 * the check's id in the list and the conversation's header, then the verdict. A sandbox that cannot
 * take the label (one older than this core) only goes without it: the checks are judged all the same.
 */
function checkLabeller(init: BatteryInit): Labeller {
  return async (sessionId, check, verdict) => {
    if (init.signal.aborted) return;
    const body = { sessionId, check, verdict: verdict?.status ?? null, message: verdict?.message ?? null };
    await init.port.request('POST', '/_sandbox/probes/checks', body).catch(() => undefined);
  };
}

/** One check in its own conversation, labelled as the check's; a request the sandbox did not answer as expected fails it. */
async function runCheck(check: CheckDefinition, kit: CheckKit, label: Labeller): Promise<CheckResult> {
  const began = performance.now();
  let sessionId: string | null = null;
  let labelled: Promise<void> = Promise.resolve();
  let verdict: { status: 'pass' | 'fail'; message: string };
  try {
    verdict = await check.run(kit, (id) => {
      sessionId = id;
      labelled = label(id, check.id, null);
    });
  } catch (error) {
    if (!(error instanceof SandboxRefused)) throw error;
    verdict = { status: 'fail', message: error.message };
  }
  const labelledSession: string | null = sessionId;
  if (labelledSession !== null) await labelled.then(() => label(labelledSession, check.id, verdict));
  return {
    id: check.id,
    status: verdict.status,
    message: verdict.message,
    fix: verdict.status === 'fail' ? check.fix : null,
    sends: check.sends,
    passes: check.passes,
    sessionId,
    durationMs: Math.round(performance.now() - began),
  };
}

/** The webhook attempts of the checks' conversations, as the event stream told of them. */
function webhookAttempts(sessions: ReadonlySet<string>, observer: Observer): { status: number | null; error: string | null }[] {
  return [...sessions].flatMap((id) =>
    observer
      .events(id)
      .filter((event) => event.type === 'webhook.attempt')
      .map((event) => ({ status: statusOf(event), error: errorOf(event) })),
  );
}

/** Whether no delivery connected at all: some were attempted, each failed to connect (no status, and not a time-out, which means it connected). */
function unreachable(attempts: readonly { status: number | null; error: string | null }[]): BatteryReport['unreachable'] {
  if (attempts.length === 0 || !attempts.every((attempt) => attempt.status === null && !/^timeout/.test(attempt.error ?? ''))) return null;
  const errors = [...new Set(attempts.map((attempt) => attempt.error ?? 'no answer'))].join(', ');
  return { kind: 'bot', message: `the bot could not be reached: every delivery failed to connect (${errors})` };
}

/**
 * The report of a battery that could not run, because the sandbox at --sandbox gave no answer at all:
 * each check selected, failed with that message, nothing sent and no conversation started.
 */
export function unplayedBattery(
  init: Pick<BatteryInit, 'timeoutMs' | 'only'>,
  unreachable: Unreachable,
  startedAt: Date,
  durationMs: number,
): BatteryReport {
  const checks = CHECKS.filter((check) => init.only === undefined || init.only.includes(check.id))
    .map((check): CheckResult => ({
      id: check.id,
      status: 'fail',
      message: unreachable.message,
      fix: null,
      sends: check.sends,
      passes: check.passes,
      sessionId: null,
      durationMs: 0,
    }))
    .sort((a, b) => CHECK_IDS.indexOf(a.id) - CHECK_IDS.indexOf(b.id));
  return {
    startedAt: startedAt.toISOString(),
    durationMs,
    tenant: null,
    duplicates: null,
    timeoutMs: init.timeoutMs,
    checks,
    passed: 0,
    failed: checks.length,
    diagnosis: null,
    unreachable,
  };
}

/** `; meanwhile the sandbox refused 2 requests of the bot that named no conversation: 401 invalid bearer token`. */
function untiedNote(untied: readonly SandboxEvent[]): string {
  if (untied.length === 0) return '';
  const lines = [...new Set(untied.map(refusal))];
  const shown = lines.slice(-3).reverse().join('; ');
  return `; meanwhile the sandbox refused ${untied.length} request${untied.length === 1 ? '' : 's'} of the bot that named no conversation: ${shown}`;
}
