import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Fingerprints, type Validation } from '../../src/batch/check.js';
import { sendBatch, type BatchTally, type LocalOutcome, type SendSpec } from '../../src/batch/send.js';
import type { BatchItem, BatchSource } from '../../src/batch/source.js';
import type { Slot } from '../../src/http/throttle.js';
import type { RequestResult } from '../../src/output/result.js';

/**
 * The second pass of a batch (src/batch/send.ts): up to `concurrency` requests at once, exactly
 * one result an item, and the ways a batch stops early (Ctrl-C, --fail-fast, a failure inside the
 * program, an input that cannot be read again) without cutting off what is in flight.
 */

/** An item of these tests: its code, and how the service answers it (a status; 200 when not said). */
type Item = { code: string; status?: number; problems?: string[]; throws?: unknown };

/** What reading the input again throws when it changed since the check. */
const CHANGED = new Error('the file changed');

const BASE = { method: 'PUT', url: 'http://127.0.0.1/api/v1/inactivity/reasons', requestId: null, durationMs: null, error: null };

function lineSource(values: Item[], options: { failAfter?: number; kept?: boolean } = {}): BatchSource {
  return {
    name: 'reasons.ndjson',
    kind: 'ndjson',
    async *items() {
      for (const [index, value] of values.entries()) {
        if (index === options.failAfter) throw CHANGED;
        const item: BatchItem = { position: { kind: 'line', line: index + 1 }, value };
        if (options.kept) item.kept = true;
        else item.text = JSON.stringify(value);
        yield item;
      }
    },
    close: async () => {},
  };
}

function localResult(code: string | undefined, why: LocalOutcome): RequestResult {
  return {
    ...BASE,
    ok: 'resumed' in why,
    status: null,
    ...(code !== undefined ? { code } : {}),
    ...('skipped' in why ? { skipped: true } : {}),
    ...('resumed' in why ? { resumed: true } : {}),
    ...('problems' in why ? { validationErrors: why.problems } : {}),
    ...('error' in why ? { error: why.error } : {}),
  };
}

interface Run {
  tally: BatchTally;
  /** What happened, in order: `send A`, `A 200`, `A skipped`, `A resumed`, `A refused`, `A EINTERNAL`. */
  events: string[];
  results: RequestResult[];
  sent: string[];
  validated: string[];
  maxInFlight: number;
}

type Spec = SendSpec<Item>;

/**
 * Runs a batch of `values`; each send waits for the next turn of the event loop (or for `waitFor`
 * of its code) before its answer.
 */
async function run(
  values: Item[],
  overrides: Partial<Spec> & { waitFor?: Record<string, Promise<void>>; source?: BatchSource } = {},
): Promise<Run> {
  const events: string[] = [];
  const results: RequestResult[] = [];
  const sent: string[] = [];
  const validated: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const spec: Spec = {
    concurrency: 1,
    failFast: false,
    signal: new AbortController().signal,
    prepare: (value) => value,
    validate: (payload): Validation<Item> => {
      const item = payload as Item;
      validated.push(item.code);
      return item.problems
        ? { ok: false, problems: item.problems.map((message) => ({ path: 'p', message })), warnings: [] }
        : { ok: true, value: item, warnings: [] };
    },
    keyOf: (payload) => (payload as Item).code,
    accepted: (payload) => payload as Item,
    send: async (value, code) => {
      sent.push(value.code);
      events.push(`send ${value.code}`);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await (overrides.waitFor?.[value.code] ?? nextTurn());
        if (value.throws !== undefined) throw value.throws;
        const status = value.status ?? 200;
        return { ...BASE, ok: status < 300, status, ...(code !== undefined ? { code } : {}) };
      } finally {
        inFlight -= 1;
      }
    },
    localResult,
    onResult: (result) => {
      results.push(result);
      events.push(outcomeOf(result));
    },
    ...overrides,
  };
  const tally = await sendBatch(overrides.source ?? lineSource(values), spec);
  return { tally, events, results, sent, validated, maxInFlight };
}

/** A result as one word after its code: `A 200`, `A skipped`, `A resumed`, `A refused`, `A EINTERNAL`. */
function outcomeOf(result: RequestResult): string {
  const what = result.resumed
    ? 'resumed'
    : result.skipped
      ? 'skipped'
      : result.validationErrors
        ? 'refused'
        : result.status !== null
          ? String(result.status)
          : (result.error as { code: string }).code;
  return `${result.code} ${what}`;
}

/** A promise and the function that settles it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const items = (...codes: string[]): Item[] => codes.map((code) => ({ code }));

describe('sendBatch: every item ends with one result', () => {
  it('sends every item and counts the successes', async () => {
    const { tally, sent, results } = await run(items('A', 'B', 'C'));
    expect(sent).toEqual(['A', 'B', 'C']);
    expect(results.map((result) => result.code)).toEqual(['A', 'B', 'C']);
    expect(tally).toEqual({ total: 3, succeeded: 3, resumed: 0, failed: 0, skipped: 0, exitCode: 0, interrupted: false });
  });

  it('sends nothing for an empty batch', async () => {
    const { tally, sent } = await run([]);
    expect(sent).toEqual([]);
    expect(tally).toEqual({ total: 0, succeeded: 0, resumed: 0, failed: 0, skipped: 0, exitCode: 0, interrupted: false });
  });

  it.each<[string, number[], number]>([
    ['a 404', [404], 4],
    ['a 500', [500], 5],
    ['a 500 before a 404', [500, 404], 5],
    ['a 404 before a 500', [404, 500], 5],
    ['a 404 among successes', [200, 404, 200], 4],
  ])('counts the failures and exits with the largest of their codes: %s', async (_name, statuses, exitCode) => {
    const values = statuses.map((status, i): Item => ({ code: `C${i}`, status }));
    const { tally } = await run(values);
    const failed = statuses.filter((status) => status >= 300).length;
    expect(tally).toEqual({
      total: statuses.length,
      succeeded: statuses.length - failed,
      resumed: 0,
      failed,
      skipped: 0,
      exitCode,
      interrupted: false,
    });
  });

  it.each([1, 2, 3])('keeps at most %d requests in flight', async (concurrency) => {
    const { maxInFlight, sent } = await run(items('A', 'B', 'C', 'D', 'E', 'F'), { concurrency });
    expect(maxInFlight).toBe(concurrency);
    expect(sent).toHaveLength(6);
  });

  it('starts the next request as soon as one of those in flight ends, not when all have', async () => {
    const slow = gate();
    const { events } = await run(items('SLOW', 'A', 'B'), {
      concurrency: 2,
      waitFor: { SLOW: slow.promise },
      onResult: (result) => {
        if (result.code === 'B') slow.open();
      },
    });
    expect(events.slice(0, 3)).toEqual(['send SLOW', 'send A', 'send B']);
  });
});

describe('sendBatch: items the first pass accepted, and items changed since', () => {
  it('does not check again a line the first pass accepted at the same place', async () => {
    const values = items('A', 'B', 'C');
    const accepted = new Fingerprints();
    accepted.accept(0, JSON.stringify(values[0]));
    accepted.accept(1, JSON.stringify({ code: 'B', changed: true }));
    accepted.accept(2, JSON.stringify(values[2]));
    const { validated, sent } = await run(values, { checkedLines: accepted });
    expect(validated).toEqual(['B']);
    expect(sent).toEqual(['A', 'B', 'C']);
  });

  it('counts the places of items applied earlier too (--resume)', async () => {
    const values = items('A', 'B');
    const accepted = new Fingerprints();
    accepted.accept(0, JSON.stringify(values[0]));
    accepted.accept(1, JSON.stringify(values[1]));
    const { validated } = await run(values, { checkedLines: accepted, alreadyApplied: (code) => code === 'A' });
    // A known item's key still comes from keyOf; only the rules are not run again.
    expect(validated).toEqual([]);
  });

  it('does not check again an item kept in memory from the first pass', async () => {
    const { validated, sent } = await run([], { source: lineSource(items('A', 'B'), { kept: true }) });
    expect(validated).toEqual([]);
    expect(sent).toEqual(['A', 'B']);
  });

  it('checks every item when the first pass left no fingerprints', async () => {
    const { validated } = await run(items('A', 'B'));
    expect(validated).toEqual(['A', 'B']);
  });

  it('refuses an item that no longer passes, and goes on with the others', async () => {
    const { tally, events, results, sent } = await run([{ code: 'A' }, { code: 'B', problems: ['too long'] }, { code: 'C' }]);
    expect(sent).toEqual(['A', 'C']);
    expect(events).toContain('B refused');
    expect(results.find((result) => result.code === 'B')?.validationErrors).toEqual([{ path: 'p', message: 'too long' }]);
    expect(tally).toMatchObject({ total: 3, succeeded: 2, failed: 1, skipped: 0, exitCode: 2 });
  });

  it('with --fail-fast, stops at an item that no longer passes: the rest are skipped', async () => {
    const told: number[] = [];
    const { tally, events } = await run(
      [{ code: 'A' }, { code: 'B', problems: ['bad'] }, { code: 'C', problems: ['bad'] }, { code: 'D' }],
      {
        failFast: true,
        onFailFast: (inFlight) => told.push(inFlight),
      },
    );
    expect(events).toEqual(['send A', 'A 200', 'B refused', 'C skipped', 'D skipped']);
    expect(told).toEqual([0]);
    expect(tally).toMatchObject({ total: 4, succeeded: 1, failed: 1, skipped: 2, exitCode: 2 });
  });

  it('with --fail-fast, tells how many requests are still in flight when an item no longer passes', async () => {
    const slow = gate();
    const told: number[] = [];
    await run([{ code: 'SLOW' }, { code: 'B', problems: ['bad'] }], {
      concurrency: 2,
      failFast: true,
      waitFor: { SLOW: slow.promise },
      onFailFast: (inFlight) => {
        told.push(inFlight);
        slow.open();
      },
    });
    expect(told).toEqual([1]);
  });
});

describe('sendBatch: --fail-fast', () => {
  it('starts nothing after the first failure; the rest are skipped', async () => {
    const told: number[] = [];
    const { tally, events } = await run([{ code: 'A' }, { code: 'B', status: 500 }, { code: 'C' }, { code: 'D', status: 404 }], {
      failFast: true,
      onFailFast: (inFlight) => told.push(inFlight),
    });
    expect(events).toEqual(['send A', 'A 200', 'send B', 'B 500', 'C skipped', 'D skipped']);
    expect(told).toEqual([0]);
    expect(tally).toEqual({ total: 4, succeeded: 1, resumed: 0, failed: 1, skipped: 2, exitCode: 5, interrupted: false });
  });

  it('lets the requests in flight finish, tells how many there are, and tells of the first failure only', async () => {
    const slow = gate();
    const told: number[] = [];
    const { events, tally } = await run([{ code: 'SLOW' }, { code: 'B', status: 500 }, { code: 'C', status: 500 }], {
      concurrency: 2,
      failFast: true,
      waitFor: { SLOW: slow.promise },
      onFailFast: (inFlight) => {
        told.push(inFlight);
        slow.open();
      },
    });
    expect(told).toEqual([1]);
    expect(events).toContain('SLOW 200');
    expect(events).toContain('C skipped');
    expect(tally).toMatchObject({ succeeded: 1, failed: 1, skipped: 1 });
  });

  it('tells of the first failure only when two requests in flight fail', async () => {
    const told: number[] = [];
    const later = new Promise<void>((resolve) => setImmediate(resolve));
    const { tally, events } = await run([{ code: 'A', status: 500 }, { code: 'B', status: 503 }, { code: 'C' }], {
      concurrency: 2,
      failFast: true,
      waitFor: { A: later, B: later },
      onFailFast: (inFlight) => told.push(inFlight),
    });
    expect(told).toEqual([1]);
    expect(events).toEqual(['send A', 'send B', 'A 500', 'B 503', 'C skipped']);
    expect(tally).toEqual({ total: 3, succeeded: 0, resumed: 0, failed: 2, skipped: 1, exitCode: 5, interrupted: false });
  });

  it.each<[string, Item]>([
    ['a failed request', { code: 'B', status: 500 }],
    ['an item that no longer passes', { code: 'B', problems: ['bad'] }],
  ])('stops at %s without anyone to tell', async (_name, failing) => {
    const { events } = await run([{ code: 'A' }, failing, { code: 'C' }], { failFast: true });
    expect(events.at(-1)).toBe('C skipped');
  });

  it('stops the wait of an item for its turn at the first failure', async () => {
    const signals: AbortSignal[] = [];
    const { events } = await run([{ code: 'A', status: 500 }, { code: 'B' }], {
      concurrency: 2,
      failFast: true,
      admit: (signal) => {
        signals.push(signal);
        if (signals.length === 1) return Promise.resolve(null);
        // B's turn would come two turns of the event loop later; the failure of A comes first.
        return new Promise<Slot | null>((resolve) => {
          signal.addEventListener('abort', () => resolve(null), { once: true });
          setImmediate(() => setImmediate(() => resolve({ ticket: 1, release: () => {} })));
        });
      },
    });
    expect(events).toEqual(['send A', 'A 500', 'B skipped']);
    expect(signals[1]?.aborted).toBe(true);
  });

  it('without --fail-fast, sends every item whatever fails', async () => {
    const { sent, tally } = await run([{ code: 'A', status: 500 }, { code: 'B' }]);
    expect(sent).toEqual(['A', 'B']);
    expect(tally).toMatchObject({ succeeded: 1, failed: 1, skipped: 0, exitCode: 5 });
  });

  it('does not count a failure that follows a Ctrl-C as the first failure', async () => {
    const controller = new AbortController();
    const told: number[] = [];
    const { tally } = await run([{ code: 'A', status: 500 }, { code: 'B' }], {
      failFast: true,
      signal: controller.signal,
      onFailFast: (inFlight) => told.push(inFlight),
      send: async (value) => {
        controller.abort();
        await nextTurn();
        return { ...BASE, ok: false, status: 500, code: value.code };
      },
    });
    expect(told).toEqual([]);
    expect(tally).toMatchObject({ failed: 1, skipped: 1, interrupted: true });
  });
});

describe('sendBatch: Ctrl-C', () => {
  it('starts nothing new, lets the requests in flight finish, and skips the rest', async () => {
    const controller = new AbortController();
    const told: number[] = [];
    // Ctrl-C while A and B are in flight.
    const ctrlC = new Promise<void>((resolve) =>
      setImmediate(() => {
        controller.abort();
        resolve();
      }),
    );
    const { events, tally } = await run(items('A', 'B', 'C', 'D'), {
      concurrency: 2,
      signal: controller.signal,
      waitFor: { A: ctrlC, B: ctrlC },
      onInterrupt: (inFlight) => told.push(inFlight),
    });
    expect(told).toEqual([2]);
    expect(events.slice(0, 2)).toEqual(['send A', 'send B']);
    expect([...events.slice(2)].sort()).toEqual(['A 200', 'B 200', 'C skipped', 'D skipped']);
    expect(tally).toEqual({ total: 4, succeeded: 2, resumed: 0, failed: 0, skipped: 2, exitCode: 0, interrupted: true });
  });

  it('does not wait for a free place to skip an item read after the Ctrl-C', async () => {
    const controller = new AbortController();
    // Each item is read a turn of the event loop after the one before.
    const slowSource: BatchSource = {
      name: 'reasons.ndjson',
      kind: 'ndjson',
      async *items() {
        for (const [index, code] of ['A', 'B'].entries()) {
          await nextTurn();
          yield { position: { kind: 'line', line: index + 1 }, value: { code } };
        }
      },
      close: async () => {},
    };
    const events: string[] = [];
    await run([], {
      source: slowSource,
      signal: controller.signal,
      // A's request is in flight when the Ctrl-C comes, and is answered two turns later, after B is read.
      send: async (value, code) => {
        events.push(`send ${value.code}`);
        await nextTurn();
        controller.abort();
        await nextTurn();
        await nextTurn();
        return { ...BASE, ok: true, status: 200, ...(code !== undefined ? { code } : {}) };
      },
      onResult: (result) => events.push(outcomeOf(result)),
    });
    expect(events).toEqual(['send A', 'B skipped', 'A 200']);
  });

  it('sends nothing when the signal was aborted before the batch', async () => {
    const controller = new AbortController();
    controller.abort();
    const told: number[] = [];
    const { sent, tally } = await run(items('A', 'B'), { signal: controller.signal, onInterrupt: (n) => told.push(n) });
    expect(sent).toEqual([]);
    expect(told).toEqual([]);
    expect(tally).toEqual({ total: 2, succeeded: 0, resumed: 0, failed: 0, skipped: 2, exitCode: 0, interrupted: true });
  });

  it('skips an item that no longer passes once stopped, rather than refusing it', async () => {
    const controller = new AbortController();
    controller.abort();
    const { events } = await run([{ code: 'A', problems: ['bad'] }], { signal: controller.signal });
    expect(events).toEqual(['A skipped']);
  });

  it('stops listening for Ctrl-C once the batch is over', async () => {
    const controller = new AbortController();
    const told: number[] = [];
    await run(items('A'), { signal: controller.signal, onInterrupt: (n) => told.push(n) });
    controller.abort();
    expect(told).toEqual([]);
  });
});

describe('sendBatch: --resume', () => {
  it('records an item applied earlier as resumed, and does not send it', async () => {
    const asked: Array<string | undefined> = [];
    const { sent, events, tally } = await run(items('A', 'B', 'C'), {
      alreadyApplied: (code) => {
        asked.push(code);
        return code === 'B';
      },
    });
    expect(sent).toEqual(['A', 'C']);
    expect(events).toContain('B resumed');
    expect(asked).toEqual(['A', 'B', 'C']);
    expect(tally).toEqual({ total: 3, succeeded: 2, resumed: 1, failed: 0, skipped: 0, exitCode: 0, interrupted: false });
  });

  it('does not ask about an item that no longer passes: it is refused', async () => {
    const asked: Array<string | undefined> = [];
    const { events } = await run([{ code: 'A', problems: ['bad'] }], {
      alreadyApplied: (code) => {
        asked.push(code);
        return true;
      },
    });
    expect(asked).toEqual([]);
    expect(events).toEqual(['A refused']);
  });

  it('records items applied earlier as resumed even after a Ctrl-C', async () => {
    const controller = new AbortController();
    controller.abort();
    const { events } = await run(items('A', 'B'), { signal: controller.signal, alreadyApplied: (code) => code === 'A' });
    expect(events).toEqual(['A resumed', 'B skipped']);
  });
});

describe("sendBatch: the run's pace (admit)", () => {
  /** A slot that records its releases. */
  function slots(log: string[]) {
    let n = 0;
    return (): Slot => {
      n += 1;
      const name = `slot${n}`;
      return { ticket: n - 1, release: (outcome) => log.push(`${name} ${outcome}`) };
    };
  }

  it('takes a slot for each item before sending it, hands it to the request, and gives it back after', async () => {
    const log: string[] = [];
    const next = slots(log);
    const signals: AbortSignal[] = [];
    const given: Array<Slot | undefined> = [];
    const { sent } = await run(items('A', 'B'), {
      admit: async (signal) => {
        signals.push(signal);
        log.push('admit');
        return next();
      },
      send: async (value, code, slot) => {
        given.push(slot);
        log.push(`send ${value.code}`);
        return { ...BASE, ok: true, status: 200, ...(code !== undefined ? { code } : {}) };
      },
    });
    expect(sent).toEqual([]);
    expect(log).toEqual(['admit', 'send A', 'slot1 other', 'admit', 'send B', 'slot2 other']);
    expect(given.every((slot) => slot !== undefined)).toBe(true);
    expect(signals.every((signal) => !signal.aborted)).toBe(true);
  });

  it('skips an item whose turn never came (admit gave no slot after a Ctrl-C)', async () => {
    const controller = new AbortController();
    const told: number[] = [];
    const { sent, events, tally } = await run(items('A', 'B'), {
      signal: controller.signal,
      onInterrupt: (n) => told.push(n),
      admit: (signal) =>
        new Promise<Slot | null>((resolve) => {
          signal.addEventListener('abort', () => resolve(null), { once: true });
          controller.abort();
        }),
    });
    expect(sent).toEqual([]);
    expect(events).toEqual(['A skipped', 'B skipped']);
    expect(told).toEqual([0]);
    expect(tally).toMatchObject({ skipped: 2, interrupted: true });
  });

  it('gives back a slot taken just as the batch stopped, and skips its item', async () => {
    const controller = new AbortController();
    const log: string[] = [];
    const { sent, events } = await run(items('A'), {
      signal: controller.signal,
      admit: async () => {
        controller.abort();
        return { ticket: 0, release: (outcome) => log.push(`released ${outcome}`) };
      },
    });
    expect(sent).toEqual([]);
    expect(events).toEqual(['A skipped']);
    expect(log).toEqual(['released other']);
  });

  it('asks for no slot once the batch has stopped', async () => {
    const controller = new AbortController();
    controller.abort();
    let asked = 0;
    await run(items('A'), {
      signal: controller.signal,
      admit: async () => {
        asked += 1;
        return null;
      },
    });
    expect(asked).toBe(0);
  });

  it('sends without a slot when admit gives none and the batch goes on', async () => {
    const given: Array<Slot | undefined> = [];
    await run(items('A'), {
      admit: async () => null,
      send: async (value, code, slot) => {
        given.push(slot);
        return { ...BASE, ok: true, status: 200, code: value.code };
      },
    });
    expect(given).toEqual([undefined]);
  });
});

describe('sendBatch: a failure inside the program', () => {
  it('records the item that hit it, lets the others in flight finish, starts no more, and then throws it', async () => {
    const slow = gate();
    const bug = new Error('a bug');
    const events: string[] = [];
    const promise = run([{ code: 'SLOW' }, { code: 'BUG', throws: bug }, { code: 'C' }], {
      concurrency: 2,
      waitFor: { SLOW: slow.promise },
      onResult: (result) => {
        events.push(outcomeOf(result));
        if (result.code === 'BUG') slow.open();
      },
    });
    await expect(promise).rejects.toBe(bug);
    expect(events.sort()).toEqual(['BUG EINTERNAL', 'C skipped', 'SLOW 200']);
  });

  it.each<[string, unknown, string]>([
    ['an Error', new Error('a bug'), 'a bug'],
    ['anything else', 'not an error', 'not an error'],
  ])('words the result of %s thrown by a send', async (_name, thrown, message) => {
    const results: RequestResult[] = [];
    await expect(run([{ code: 'A', throws: thrown }], { onResult: (result) => results.push(result) })).rejects.toBe(thrown);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ code: 'A', ok: false, error: { code: 'EINTERNAL', message } });
  });

  it('keeps the first of two failures', async () => {
    const first = new Error('first');
    await expect(
      run(
        [
          { code: 'A', throws: first },
          { code: 'B', throws: new Error('second') },
        ],
        { concurrency: 2 },
      ),
    ).rejects.toBe(first);
  });

  it('stops starting requests when recording a result fails, and throws that once the rest have settled', async () => {
    const slow = gate();
    const full = new Error('no space left');
    const seen: string[] = [];
    const sent: string[] = [];
    const promise = run(items('A', 'SLOW', 'C', 'D'), {
      concurrency: 2,
      waitFor: { SLOW: slow.promise },
      send: async (value) => {
        sent.push(value.code);
        if (value.code === 'SLOW') await slow.promise;
        else await nextTurn();
        return { ...BASE, ok: true, status: 200, code: value.code };
      },
      onResult: (result) => {
        seen.push(`${result.code}${result.skipped ? ' skipped' : ''}`);
        if (result.code === 'A') {
          slow.open();
          throw full;
        }
        if (result.code === 'C') throw new Error('later');
      },
    });
    await expect(promise).rejects.toBe(full);
    expect(sent).toEqual(['A', 'SLOW']);
    expect(seen.sort()).toEqual(['A', 'C skipped', 'D skipped', 'SLOW']);
  });

  it('lets what is in flight finish when the input cannot be read again, then throws', async () => {
    const seen: string[] = [];
    const promise = run([], {
      source: lineSource(items('A', 'B', 'C'), { failAfter: 2 }),
      concurrency: 2,
      onResult: (result) => seen.push(result.code!),
    });
    await expect(promise).rejects.toBe(CHANGED);
    expect(seen.sort()).toEqual(['A', 'B']);
  });
});
