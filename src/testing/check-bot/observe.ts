import { isRefusal } from '../../customer/wait.js';
import type { SandboxEvent } from '../../sandbox/events.js';

/**
 * What the battery sees of the sandbox: its event stream, sorted by conversation, and the waits of
 * the checks on it. Every wait is for an event, bounded by a time limit that only ends it: nothing
 * sleeps.
 */

export type { SandboxEvent };

/** The bot's answer to a question, or something of the conversation that ends a wait. */
export type Seen =
  /** A bot answer the sandbox delivered to the customer. */
  | { kind: 'answer'; event: SandboxEvent }
  /** A bot answer the sandbox took and did not deliver: its answerId was delivered before (chatbot rule 6). */
  | { kind: 'dropped'; event: SandboxEvent }
  /** A bot answer the sandbox refused (a broken rule), or another API request of the bot it refused. */
  | { kind: 'refused'; event: SandboxEvent }
  /** The webhook of the question failed for good (every attempt of its series). */
  | { kind: 'undelivered'; event: SandboxEvent }
  | { kind: 'timeout' };

/** A number of a JSON answer of the sandbox (read losslessly: integers as bigint). */
export function num(value: unknown): number | null {
  return typeof value === 'bigint' ? Number(value) : typeof value === 'number' ? value : null;
}

/** The status of an event that has one (a bot answer, a greeting, an API request, a webhook attempt), else null. */
export const statusOf = (event: SandboxEvent): number | null => ('status' in event ? event.status : null);

/** The error message of an event that has one, else null. */
export const errorOf = (event: SandboxEvent): string | null => ('error' in event ? event.error : null);

/** The answerId of a bot answer, else null. */
export const answerIdOf = (event: SandboxEvent): string | null => ('answerId' in event ? event.answerId : null);

/**
 * An API request of the bot that the sandbox refused before it got as far as an answer: an
 * `api.request` event with a status of 400 or more (docs/sandbox.md, "Events": a wrong token, an
 * unknown tenant, a body that is not JSON). A refused answer is a `bot.answer` event, which
 * `answerTo` reads by the question it names.
 */
export function isRefusedRequest(event: SandboxEvent): boolean {
  return event.type === 'api.request' && event.status >= 400;
}

/** A request of the bot that reached the sandbox's API, accepted or not. */
function isBotRequest(event: SandboxEvent): boolean {
  return event.type === 'bot.answer' || event.type === 'api.request';
}

interface Waiter {
  sessionId: string;
  test: (event: SandboxEvent) => Seen | undefined;
  /** Also told of each refused request that names no conversation (one that lost its identifiers, say). */
  untied?: ((event: SandboxEvent) => Seen | undefined) | undefined;
  done: (seen: Seen) => void;
}

export class Observer {
  private readonly bySession = new Map<string, SandboxEvent[]>();
  private readonly waiters = new Set<Waiter>();
  /** What keepOnly keeps of a conversation's events to come. */
  private readonly kept = new Map<string, (event: SandboxEvent) => SandboxEvent | undefined>();
  /** Refused requests of the bot that named no conversation of the battery, newest last. */
  readonly untied: SandboxEvent[] = [];
  /** Whether any request of the bot reached the sandbox's API during the battery. */
  botSpoke = false;

  /**
   * `tenant`: the battery's tenant; events of other tenants are passed over, and those of no tenant
   * (requests the sandbox refused for naming none it serves) kept as untied. Undefined takes every event.
   */
  constructor(
    private readonly sessions: Set<string>,
    private readonly tenant?: string,
  ) {}

  /** Takes one event of the stream. */
  take(event: SandboxEvent): void {
    if (this.tenant !== undefined && event.tenant !== this.tenant && event.tenant !== '') return;
    const { sessionId } = event;
    const ours = sessionId !== null && this.sessions.has(sessionId);
    if (isBotRequest(event) && (ours || sessionId === null)) this.botSpoke = true;
    if (!ours) {
      if (sessionId === null && isRefusal(event)) {
        this.untied.push(event);
        for (const waiter of [...this.waiters]) {
          const seen = waiter.untied?.(event);
          if (seen !== undefined) waiter.done(seen);
        }
      }
      return;
    }
    const list = this.bySession.get(sessionId) ?? [];
    const keep = this.kept.get(sessionId);
    const kept = keep === undefined ? event : keep(event);
    if (kept !== undefined) list.push(kept);
    this.bySession.set(sessionId, list);
    for (const waiter of [...this.waiters]) {
      if (waiter.sessionId !== sessionId) continue;
      const seen = waiter.test(event);
      if (seen !== undefined) waiter.done(seen);
    }
  }

  /**
   * Of a conversation's events, those so far and those to come, keeps what `keep` returns of each (the
   * event, or a lighter copy of it), and none of those it returns undefined for.
   */
  keepOnly(sessionId: string, keep: (event: SandboxEvent) => SandboxEvent | undefined): void {
    const list = this.bySession.get(sessionId);
    if (list !== undefined) {
      const kept: SandboxEvent[] = [];
      for (const event of list) {
        const light = keep(event);
        if (light !== undefined) kept.push(light);
      }
      this.bySession.set(sessionId, kept);
    }
    this.kept.set(sessionId, keep);
  }

  /** The events of a conversation so far. */
  events(sessionId: string): readonly SandboxEvent[] {
    return this.bySession.get(sessionId) ?? [];
  }

  /**
   * The first event of the conversation, from the `from`-th on, that `test` makes something of (or,
   * with `untied`, the first refusal naming no conversation that it makes something of),
   * or a timeout after `timeoutMs`; `signal` ends the wait as a timeout too.
   */
  wait(
    sessionId: string,
    test: Waiter['test'],
    timeoutMs: number,
    signal: AbortSignal,
    from = 0,
    untied?: Waiter['untied'],
  ): Promise<Seen> {
    for (const event of this.events(sessionId).slice(from)) {
      const seen = test(event);
      if (seen !== undefined) return Promise.resolve(seen);
    }
    for (const event of untied === undefined ? [] : this.untied) {
      const seen = untied!(event);
      if (seen !== undefined) return Promise.resolve(seen);
    }
    return new Promise((resolve) => {
      const finish = (seen: Seen) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
        resolve(seen);
      };
      const waiter: Waiter = { sessionId, test, untied, done: finish };
      const onAbort = () => finish({ kind: 'timeout' });
      const timer = setTimeout(onAbort, timeoutMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }
}

/**
 * What the battery waits for after a question: the bot's answer to it (or an answer addressed by
 * client into its thread), a refused request of the bot in the thread, and, when `undelivered`, a
 * webhook of the question that failed for good or could not connect.
 */
export function answerTo(questionId: bigint, options: { undelivered?: boolean; ignore?: (event: SandboxEvent) => boolean } = {}) {
  const failedToConnect = (event: SandboxEvent & { type: 'webhook.attempt' }) =>
    event.status === null && !/^timeout/.test(event.error ?? '');
  return (event: SandboxEvent): Seen | undefined => {
    if (options.ignore?.(event)) return undefined;
    if (event.type === 'bot.answer') {
      const question = event.questionId;
      if (question !== null && question !== questionId) return undefined;
      if (event.status >= 400) return { kind: 'refused', event };
      return event.delivered ? { kind: 'answer', event } : { kind: 'dropped', event };
    }
    if (isRefusedRequest(event)) return { kind: 'refused', event };
    // A delivery that failed for good, or that could not connect at all: no answer can be waited for.
    if (
      options.undelivered &&
      event.type === 'webhook.attempt' &&
      event.questionId === questionId &&
      (event.outcome === 'failed' || failedToConnect(event))
    ) {
      return { kind: 'undelivered', event };
    }
    return undefined;
  };
}
