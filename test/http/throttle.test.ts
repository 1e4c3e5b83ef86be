import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { getEventListeners } from 'node:events';
import { Throttle, type Slot } from '../../src/http/throttle.js';

/**
 * The pace of a run (src/http/throttle.ts) on a fake clock: vitest's fake timers move Date.now()
 * and fire the throttle's own timer, so no test waits for real time.
 */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const throttleOf = (max: number) => new Throttle(max, () => Date.now());

/** Lets the promises settled so far run their reactions. */
const settle = () => vi.advanceTimersByTimeAsync(0);

/** Asks for a slot and records when it is granted. */
function ask(throttle: Throttle, signal?: AbortSignal | AbortSignal[], rank?: number) {
  const asked = { slot: undefined as Slot | null | undefined };
  void throttle.acquire(signal, rank).then((slot) => (asked.slot = slot));
  return asked;
}

describe('Throttle: slots', () => {
  it('grants up to its concurrency at once, and the next only when one is given back', async () => {
    const throttle = throttleOf(2);
    const first = ask(throttle);
    const second = ask(throttle);
    const third = ask(throttle);
    await settle();
    expect([first.slot, second.slot].every((slot) => slot)).toBe(true);
    expect(third.slot).toBeUndefined();
    first.slot!.release('answered');
    await settle();
    expect(third.slot).toBeTruthy();
  });

  it('grants waiting slots in the order they were asked for', async () => {
    const throttle = throttleOf(1);
    const held = await throttle.acquire();
    const order: string[] = [];
    for (const name of ['a', 'b', 'c']) void throttle.acquire().then((slot) => (order.push(name), slot!.release('answered')));
    held!.release('answered');
    await settle();
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('grants the repeats of a request before every first attempt, the oldest request first', async () => {
    const throttle = throttleOf(1);
    const held = await throttle.acquire();
    const order: string[] = [];
    for (const [name, rank] of [
      ['first attempt a', undefined],
      ['repeat of request 5', 5],
      ['first attempt b', undefined],
      ['repeat of request 2', 2],
      ['another repeat of request 5', 5],
    ] as const) {
      void throttle.acquire(undefined, rank).then((slot) => (order.push(name), slot!.release('answered')));
    }
    held!.release('answered');
    await settle();
    expect(order).toEqual([
      'repeat of request 2',
      'repeat of request 5',
      'another repeat of request 5',
      'first attempt a',
      'first attempt b',
    ]);
  });

  it('numbers its slots in the order it gives them', async () => {
    const throttle = throttleOf(2);
    const tickets: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const slot = await throttle.acquire();
      tickets.push(slot!.ticket);
      slot!.release('answered');
    }
    expect(tickets).toEqual([0, 1, 2]);
  });

  it('counts only the first release of a slot', async () => {
    const throttle = throttleOf(1);
    const slot = await throttle.acquire();
    const waiting = [ask(throttle), ask(throttle)];
    slot!.release('answered');
    slot!.release('answered');
    await settle();
    expect(waiting.map((w) => Boolean(w.slot))).toEqual([true, false]);
  });

  it.each<[string, (a: AbortController, b: AbortController) => AbortSignal | AbortSignal[]]>([
    ['its signal', (a) => a.signal],
    ['the first of two signals', (a, b) => [a.signal, b.signal]],
    ['the second of two signals', (a, b) => [b.signal, a.signal]],
  ])('answers null when %s aborts while it waits, and the slot goes to the next', async (_name, signals) => {
    const throttle = throttleOf(1);
    const held = await throttle.acquire();
    const a = new AbortController();
    const b = new AbortController();
    const aborted = ask(throttle, signals(a, b));
    const next = ask(throttle);
    a.abort();
    await settle();
    expect(aborted.slot).toBeNull();
    held!.release('answered');
    await settle();
    expect(next.slot).toBeTruthy();
  });

  it('answers null at once for a signal already aborted, even with slots free', async () => {
    const throttle = throttleOf(4);
    expect(await throttle.acquire(AbortSignal.abort())).toBeNull();
  });
});

describe('Throttle: the pause a Retry-After asks for', () => {
  it('holds back every slot until the pause ends, then grants them in order', async () => {
    const throttle = throttleOf(4);
    throttle.pause(2_000);
    const waiting = [ask(throttle), ask(throttle)];
    await vi.advanceTimersByTimeAsync(1_999);
    expect(waiting.map((w) => w.slot)).toEqual([undefined, undefined]);
    expect(throttle.pausedFor).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.every((w) => w.slot)).toBe(true);
    expect(throttle.pausedFor).toBe(0);
  });

  it('keeps a longer pause already set when a shorter one is asked for', async () => {
    const throttle = throttleOf(2);
    throttle.pause(3_000);
    throttle.pause(1_000);
    const waiting = ask(throttle);
    await vi.advanceTimersByTimeAsync(2_999);
    expect(waiting.slot).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.slot).toBeTruthy();
  });

  it('lengthens the pause when a later answer asks for longer', async () => {
    const throttle = throttleOf(2);
    throttle.pause(1_000);
    const waiting = ask(throttle);
    await vi.advanceTimersByTimeAsync(500);
    throttle.pause(1_000);
    await vi.advanceTimersByTimeAsync(999);
    expect(waiting.slot).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.slot).toBeTruthy();
  });

  it('leaves no timer behind when every waiter gives up during a pause', async () => {
    const throttle = throttleOf(2);
    throttle.pause(60_000);
    const stop = new AbortController();
    const waiting = [ask(throttle, stop.signal), ask(throttle, stop.signal)];
    await settle();
    expect(vi.getTimerCount()).toBe(1);
    stop.abort();
    await settle();
    expect(waiting.map((w) => w.slot)).toEqual([null, null]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('Throttle: the window after a 429', () => {
  /** Takes `count` slots at once. */
  const take = async (throttle: Throttle, count: number) => Promise.all(Array.from({ length: count }, () => throttle.acquire()));

  it('halves once for the 429s of one burst, and again for a 429 to an attempt started after the cut', async () => {
    const throttle = throttleOf(64);
    const burst = await take(throttle, 8);
    await vi.advanceTimersByTimeAsync(10);
    for (const slot of burst) slot!.release('rate-limited');
    expect(throttle.window).toBe(32);
    await vi.advanceTimersByTimeAsync(10);
    const later = await throttle.acquire();
    later!.release('rate-limited');
    expect(throttle.window).toBe(16);
  });

  it('never goes below one', async () => {
    const throttle = throttleOf(2);
    for (let i = 0; i < 4; i += 1) {
      await vi.advanceTimersByTimeAsync(10);
      (await throttle.acquire())!.release('rate-limited');
    }
    expect(throttle.window).toBe(1);
  });

  it('grows back by one for each full window of answers, up to the concurrency asked for', async () => {
    const throttle = throttleOf(4);
    await vi.advanceTimersByTimeAsync(10);
    (await throttle.acquire())!.release('rate-limited');
    expect(throttle.window).toBe(2);
    const windows: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      (await throttle.acquire())!.release('answered');
      windows.push(throttle.window);
    }
    expect(windows).toEqual([2, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4]);
  });

  it('does not grow on answers that are not successes (5xx, network failures)', async () => {
    const throttle = throttleOf(4);
    await vi.advanceTimersByTimeAsync(10);
    (await throttle.acquire())!.release('rate-limited');
    for (let i = 0; i < 10; i += 1) (await throttle.acquire())!.release('other');
    expect(throttle.window).toBe(2);
  });

  it('counts the attempts of the run that got through, whatever the window', async () => {
    const throttle = throttleOf(2);
    for (const outcome of ['answered', 'rate-limited', 'other', 'answered'] as const) (await throttle.acquire())!.release(outcome);
    expect(throttle.progress).toBe(2);
  });

  it('remembers how far the run had got when it was last refused, also for a 429 that does not cut the window', async () => {
    const throttle = throttleOf(4);
    expect(throttle.progressAtRefusal).toBe(0);
    const seen: number[] = [];
    const burst = await take(throttle, 4);
    await vi.advanceTimersByTimeAsync(10);
    for (const [slot, outcome] of [
      [burst[0], 'answered'],
      [burst[1], 'rate-limited'],
      [burst[2], 'answered'],
      // Started before the cut: it does not halve the window again, but it is a refusal all the same.
      [burst[3], 'rate-limited'],
    ] as const) {
      slot!.release(outcome);
      seen.push(throttle.progressAtRefusal);
    }
    expect(seen).toEqual([0, 1, 1, 2]);
    expect(throttle.window).toBe(2);
  });

  describe('the step of the pause after a 429 without Retry-After', () => {
    /** One attempt, started after every earlier answer (a burst of its own), ending as told. */
    const attempt = async (throttle: Throttle, outcome: 'answered' | 'slow-down') => {
      await vi.advanceTimersByTimeAsync(10);
      (await throttle.acquire())!.release(outcome);
      return throttle.step;
    };

    it('is 1 at the first, and stays 1 while the service has let nothing through after a pause', async () => {
      const throttle = throttleOf(4);
      expect(throttle.step).toBe(0);
      const steps = [];
      for (let i = 0; i < 4; i += 1) steps.push(await attempt(throttle, 'slow-down'));
      expect(steps).toEqual([1, 1, 1, 1]);
    });

    it('grows by one after a pause that let nothing through, at most one above the longest that let one through, and does not come back down', async () => {
      const throttle = throttleOf(4);
      const steps = [];
      for (const outcome of [
        'answered',
        'slow-down', // 1: something got through before it
        'slow-down', // 2: the pause of step 1 let nothing through
        'slow-down', // still 2: nothing got through after a pause longer than step 1
        'answered',
        'slow-down', // 2: the pause of step 2 let one through
        'slow-down', // 3
        'answered',
        'answered',
        'answered',
        'slow-down', // 3: three got through, and it stays
      ] as const) {
        const step = await attempt(throttle, outcome);
        if (outcome === 'slow-down') steps.push(step);
      }
      expect(steps).toEqual([1, 2, 2, 2, 3, 3]);
    });

    it('grows once for the 429s of one burst', async () => {
      const throttle = throttleOf(8);
      await attempt(throttle, 'answered');
      await attempt(throttle, 'slow-down');
      await vi.advanceTimersByTimeAsync(10);
      const burst = await take(throttle, 4);
      for (const slot of burst) slot!.release('slow-down');
      expect(throttle.step).toBe(2);
    });

    it.each([0, 5])(
      'grows once for the 429s of one burst when an answer comes between them (%d ms after the burst started), and counts that answer at the next 429',
      async (gap) => {
        const throttle = throttleOf(8);
        await attempt(throttle, 'answered');
        await attempt(throttle, 'slow-down'); // 1, and the longest step that let one through is 1
        await vi.advanceTimersByTimeAsync(10);
        const [first, second, third] = await take(throttle, 3);
        await vi.advanceTimersByTimeAsync(gap);
        first!.release('slow-down'); // 2: the pause of step 1 let nothing through
        second!.release('answered');
        third!.release('slow-down'); // the same burst, sent before that adjustment: no news
        expect(throttle.step).toBe(2);
        // One got through since the adjustment to 2, so 2 is the longest that let one through: it stays.
        expect(await attempt(throttle, 'slow-down')).toBe(2);
        // Nothing since: one above it.
        expect(await attempt(throttle, 'slow-down')).toBe(3);
      },
    );

    it('is not moved by a 429 with Retry-After', async () => {
      const throttle = throttleOf(4);
      await attempt(throttle, 'answered');
      await vi.advanceTimersByTimeAsync(10);
      (await throttle.acquire())!.release('rate-limited');
      expect(throttle.step).toBe(0);
      expect(throttle.progressAtRefusal).toBe(1);
    });
  });

  it('lets no more than the window start while more are waiting', async () => {
    const throttle = throttleOf(4);
    const burst = await take(throttle, 4);
    await vi.advanceTimersByTimeAsync(10);
    burst[0]!.release('rate-limited');
    const waiting = [ask(throttle), ask(throttle)];
    await settle();
    expect(waiting.map((w) => w.slot)).toEqual([undefined, undefined]);
    burst[1]!.release('answered');
    await settle();
    // Three in flight still, against a window of two: nothing starts yet.
    expect(waiting.map((w) => w.slot)).toEqual([undefined, undefined]);
    burst[2]!.release('answered');
    burst[3]!.release('answered');
    await settle();
    expect(waiting.every((w) => w.slot)).toBe(true);
  });
});

describe('Throttle: nothing left behind, nothing polled', () => {
  const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

  it.each<[string, (throttle: Throttle, signal: AbortSignal) => Promise<unknown>]>([
    ['granted at once', (throttle, signal) => throttle.acquire(signal)],
    [
      'granted after waiting',
      async (throttle, signal) => {
        const held = await throttle.acquire();
        const waiting = throttle.acquire(signal);
        held!.release('answered');
        return waiting;
      },
    ],
  ])('leaves no abort listener on the signal of a slot %s', async (_name, acquire) => {
    const throttle = throttleOf(1);
    const run = new AbortController();
    await acquire(throttle, run.signal);
    expect(listeners(run.signal)).toBe(0);
  });

  it('leaves no abort listener on the other signal when one of two aborts', async () => {
    const throttle = throttleOf(1);
    await throttle.acquire();
    const run = new AbortController();
    const attempt = new AbortController();
    const waiting = ask(throttle, [run.signal, attempt.signal]);
    expect(listeners(run.signal)).toBe(1);
    attempt.abort();
    await settle();
    expect(waiting.slot).toBeNull();
    expect(listeners(run.signal)).toBe(0);
  });

  it('wakes the others at the end of a pause when one waiter gives up during it', async () => {
    const throttle = throttleOf(2);
    throttle.pause(2_000);
    const stop = new AbortController();
    const leaving = ask(throttle, stop.signal);
    const staying = ask(throttle);
    await vi.advanceTimersByTimeAsync(1_000);
    stop.abort();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(leaving.slot).toBeNull();
    expect(staying.slot).toBeTruthy();
  });

  it('sets no timer for a pause that nobody waits for', () => {
    const throttle = throttleOf(2);
    throttle.pause(2_000);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sets no timer while waiters wait for a full window (a slot given back wakes them, not a clock)', async () => {
    const throttle = throttleOf(1);
    const held = await throttle.acquire();
    const waiting = ask(throttle);
    await settle();
    expect(vi.getTimerCount()).toBe(0);
    held!.release('answered');
    await settle();
    expect(waiting.slot).toBeTruthy();
  });

  it('sets one timer for the whole pause, whatever the number of waiters', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const throttle = throttleOf(4);
    throttle.pause(2_000);
    const waiting = [ask(throttle), ask(throttle), ask(throttle)];
    await vi.advanceTimersByTimeAsync(1_999);
    expect(waiting.map((w) => w.slot)).toEqual([undefined, undefined, undefined]);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.every((w) => w.slot)).toBe(true);
    // One timer, set for the end of the pause: not one a millisecond.
    expect(timers.mock.calls.map(([, ms]) => ms)).toEqual([2_000]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('serves those who waited out a pause before one who asks just as it ends', async () => {
    const throttle = throttleOf(1);
    throttle.pause(1_000);
    const waited = ask(throttle);
    // The clock passes the end of the pause before the throttle's timer has run.
    vi.setSystemTime(Date.now() + 1_000);
    const late = ask(throttle);
    await settle();
    expect(waited.slot).toBeTruthy();
    expect(late.slot).toBeUndefined();
  });

  it('halves once for a burst answered 429 within the millisecond it started', async () => {
    const throttle = throttleOf(8);
    const burst = await Promise.all(Array.from({ length: 4 }, () => throttle.acquire()));
    for (const slot of burst) slot!.release('rate-limited');
    expect(throttle.window).toBe(4);
  });
});

describe('Throttle: the clock', () => {
  it('measures a pause on the process clock unless given one', () => {
    vi.useRealTimers();
    const throttle = new Throttle(1);
    throttle.pause(60_000);
    expect(throttle.pausedFor).toBeGreaterThan(0);
    expect(throttle.pausedFor).toBeLessThanOrEqual(60_000);
  });
});
