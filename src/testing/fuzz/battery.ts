import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BatteryReport, CheckResult, SandboxPort } from '../check-bot/battery.js';
import { SandboxRefused } from '../check-bot/battery.js';
import { num, Observer, type SandboxEvent } from '../check-bot/observe.js';
import { playAlone, runFuzz, type FuzzCase, type FuzzInit } from './fuzz.js';
import { FUZZ_FIXES, judgedPart, type FuzzRule } from './judge.js';
import type { FuzzConversation } from './model.js';
import type { FuzzKit } from './play.js';

/**
 * The fuzzer as `core check-bot` runs and reports it: over the same port onto the sandbox's endpoints
 * as the battery, each failure a check of the report (`fuzz.<rule>`), with the command that replays
 * exactly it and the body of the delivery that broke the bot; a run without failure is one passing
 * check, `fuzz`.
 */

export interface FuzzRun {
  port: SandboxPort;
  timeoutMs: number;
  signal: AbortSignal;
  /** A run of `runs` conversations of `seed`, or one conversation replayed (`spec` names it in the report). */
  plan: { kind: 'run'; seed: number; runs: number } | { kind: 'replay'; spec: string; conversation: FuzzConversation };
  /** The rules judged (--only); undefined: every rule. */
  rules?: ReadonlySet<FuzzRule>;
  /** The command line that replays a spec (`--fuzz-replay '<spec>'` and the run's target). */
  replayCommand(spec: string): string;
  /** Told of each conversation played (FuzzInit's onPlayed). */
  onPlayed?: (failed: boolean, durationMs: number) => void;
}

/** A fuzz failure as a check of the report, with what replays it. */
export interface FuzzCheckResult extends CheckResult {
  replay: string | null;
  command: string | null;
  /** The exact body of the delivery that broke the bot. */
  delivery: string | null;
  conversation: FuzzConversation | null;
}

export async function runFuzzBattery(
  run: FuzzRun,
): Promise<BatteryReport & { checks: FuzzCheckResult[]; seed: number | null; runs: number }> {
  const startedAt = new Date();
  const started = performance.now();
  const info = (await run.port.request('GET', '/_sandbox/info')).json as
    { tenants?: unknown; lastSeq?: unknown; duplicates?: unknown } | undefined;
  const tenant = Array.isArray(info?.tenants) && typeof info.tenants[0] === 'string' ? info.tenants[0] : 'sandbox';
  const sessions = new Set<string>();
  const observer = new Observer(sessions, tenant);
  const stream = run.port.events(`?after=${num(info?.lastSeq) ?? 0}`, (event) => observer.take(event as SandboxEvent));
  try {
    await stream.opened;
    const init: FuzzInit = {
      kit: fuzzKit(run, tenant, sessions, observer, info?.duplicates === 'strict'),
      settle: (ms) => sleep(ms, undefined, { signal: run.signal }).catch(() => undefined),
      signal: run.signal,
      ...(run.rules === undefined ? {} : { rules: run.rules }),
      ...(run.onPlayed === undefined ? {} : { onPlayed: run.onPlayed }),
    };
    const cases =
      run.plan.kind === 'run'
        ? (await runFuzz(init, run.plan.seed, run.plan.runs)).cases
        : await replayCase(init, run.plan.spec, run.plan.conversation);
    const checks = cases.length === 0 ? [passing(run)] : cases.map((found) => failing(run, found));
    const failed = checks.filter((check) => check.status === 'fail').length;
    const unreachable = cases.length > 0 && cases.every((found) => found.rule === 'unreachable') && !observer.botSpoke;
    return {
      startedAt: startedAt.toISOString(),
      durationMs: Math.round(performance.now() - started),
      tenant,
      duplicates: typeof info?.duplicates === 'string' ? info.duplicates : null,
      timeoutMs: run.timeoutMs,
      diagnosis: null,
      checks,
      passed: checks.length - failed,
      failed,
      unreachable: unreachable ? { kind: 'bot', message: `the bot could not be reached: ${cases[0]!.message}` } : null,
      seed: run.plan.kind === 'run' ? run.plan.seed : null,
      runs: run.plan.kind === 'run' ? run.plan.runs : 1,
    };
  } finally {
    stream.close();
  }
}

async function replayCase(init: FuzzInit, spec: string, conversation: FuzzConversation): Promise<FuzzCase[]> {
  const { played, failure } = await playAlone(init, conversation);
  if (failure === null) return [];
  return [{ rule: failure.rule, message: failure.text, replay: spec, conversation, played, shrinks: 0, first: 1, count: 1 }];
}

function fuzzKit(run: FuzzRun, tenant: string, sessions: Set<string>, observer: Observer, strict: boolean): FuzzKit {
  const call = async (method: 'POST', path: string, body: unknown, expected: number) => {
    const answer = await run.port.request(method, path, body);
    if (answer.status !== expected) {
      const message = (answer.json as { message?: unknown } | undefined)?.message;
      throw new SandboxRefused(
        `the sandbox answered ${answer.status} to ${method} ${path}${typeof message === 'string' ? `: ${message}` : ''}`,
      );
    }
    return (answer.json ?? {}) as Record<string, unknown>;
  };
  return {
    async start(channel, coreClientId) {
      const json = await call(
        'POST',
        '/_sandbox/conversations',
        { tenant, channel, ...(coreClientId === null ? {} : { coreClientId }) },
        201,
      );
      sessions.add(String(json.sessionId));
      return { sessionId: String(json.sessionId), coreClientId: json.coreClientId as bigint };
    },
    probe: (body) => call('POST', '/_sandbox/probes', body, 200),
    wait: (sessionId, test, untied) => observer.wait(sessionId, test, run.timeoutMs, run.signal, 0, untied),
    events: (sessionId) => observer.events(sessionId),
    untied: () => observer.untied,
    done: (sessionId) => observer.keepOnly(sessionId, judgedPart),
    strict,
  };
}

function passing(run: FuzzRun): FuzzCheckResult {
  const what =
    run.plan.kind === 'run'
      ? `${run.plan.runs} conversation${run.plan.runs === 1 ? '' : 's'} of seed ${run.plan.seed}`
      : `the conversation ${run.plan.spec}`;
  return {
    id: 'fuzz' as CheckResult['id'],
    status: 'pass',
    message: `${what}: every delivery answered 2xx, every question answered in time and as the rules say`,
    fix: null,
    sends: 'fuzzed MESSAGE deliveries (docs/check-bot.md, "Fuzzing")',
    passes: 'no rule is broken',
    sessionId: null,
    durationMs: 0,
    replay: null,
    command: null,
    delivery: null,
    conversation: null,
  };
}

function failing(run: FuzzRun, found: FuzzCase): FuzzCheckResult {
  const played = found.played.messages;
  const culprit = played.find((message) => message.attempt.status === null || message.attempt.status >= 300) ?? played[played.length - 1];
  const shrunk = found.shrinks > 0 ? `, shrunk in ${found.shrinks} tries` : '';
  const counted = run.plan.kind === 'run' ? ` (${found.count} of ${run.plan.runs} conversations; first #${found.first}${shrunk})` : '';
  return {
    id: `fuzz.${found.rule}` as CheckResult['id'],
    status: 'fail',
    message: `${found.message}${counted}`,
    fix: FUZZ_FIXES[found.rule],
    sends: describeConversation(found.conversation),
    passes: 'no rule is broken',
    sessionId: found.played.sessionId,
    durationMs: 0,
    replay: found.replay,
    command: run.replayCommand(found.replay),
    delivery: culprit?.attempt.delivery ?? null,
    conversation: found.conversation,
  };
}

/** `2 messages on EMAIL: a text of 1001 characters; a press` (what the shrunk conversation sends). */
export function describeConversation(conversation: FuzzConversation): string {
  const count = conversation.messages.length;
  return `${count} message${count === 1 ? '' : 's'} on ${conversation.channel}${conversation.coreClientId === null ? '' : `, client ${conversation.coreClientId}`}`;
}
