/**
 * The pace of one run's requests (docs/security.md, "Rate limits"). Every attempt of the run, first
 * or repeat, takes a slot here before it is sent and gives it back with its outcome:
 *
 * - A 429 or 503 with Retry-After pauses the whole run until that time (`pause`): no attempt starts
 *   meanwhile, whichever request it belongs to, so a batch waits as one instead of each request
 *   spending its retries on its own. A 429 without Retry-After pauses it the same way, for a
 *   backoff (src/http/client.ts) at least as long as the step the run has learnt here (`step`).
 * - That step is the service's pace as the run has met it: 1 (300 ms) at the first 429 without
 *   Retry-After; one more when a pause let nothing of the run through before the next such 429, but
 *   never more than one above the longest step after which a request got through (so a service
 *   that stops taking requests at all does not stretch every later pause); once for the 429s of
 *   one burst, as the window is cut. It does not come back down: with a bucket that holds about a
 *   second of requests, the pause after which the bucket is full again is the one that looks too
 *   long, and shortening it brought back the pauses that let nothing through, each taking a retry
 *   from every request refused after it.
 * - After a 429 the number of attempts in flight at once (the window) is halved, once for the
 *   answers of one burst: a 429 to an attempt that started before the last cut does not cut again.
 *   It grows back by one for each full window of answers that are not 429 or 5xx, up to the
 *   concurrency asked for (additive increase, multiplicative decrease, as TCP paces itself).
 *
 * A repeat goes before every first attempt, and before the repeats of requests that started later
 * (`acquire`'s rank): the oldest request of the run first, so that the items a batch starts after
 * each success cannot keep a refused request at the back of every burst. First attempts go in the
 * order they were asked for.
 */

/**
 * How an attempt ended, for the pace: answered (not 429 or 5xx), rate-limited (a 429 with
 * Retry-After), slow-down (a 429 without it: slow down, not saying for how long), or anything else.
 */
export type AttemptOutcome = 'answered' | 'rate-limited' | 'slow-down' | 'other';

export interface Slot {
  /** The order in which the run's slots were given, from 0: a request's first slot ranks its repeats. */
  readonly ticket: number;
  /** Gives the slot back; only the first call counts. */
  release(outcome: AttemptOutcome): void;
}

interface Waiter {
  grant: (slot: Slot | null) => void;
  rank: number;
}

export class Throttle {
  private windowSize: number;
  private inFlight = 0;
  private pausedUntil = 0;
  private lastCut = -Infinity;
  private answered = 0;
  private answeredInRun = 0;
  private answeredAtRefusal = 0;
  private slowStep = 0;
  private longestStepThrough = 0;
  private lastSlowDown = -Infinity;
  private answeredAtSlowDown = 0;
  private readonly queue: Waiter[] = [];
  private tickets = 0;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param max the most attempts in flight at once (--concurrency; 1 for a single request)
   * @param now the clock, in milliseconds
   */
  constructor(
    readonly max: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.windowSize = Math.max(1, max);
  }

  /** The attempts allowed in flight at once now. */
  get window(): number {
    return this.windowSize;
  }

  /** How many attempts of the run were answered (not 429 or 5xx) so far: whether the run gets through. */
  get progress(): number {
    return this.answeredInRun;
  }

  /**
   * `progress` as it was when an attempt of the run was last answered 429 (0 before any): whether
   * the service has let a request through since it last refused one.
   */
  get progressAtRefusal(): number {
    return this.answeredAtRefusal;
  }

  /**
   * The step of the backoff after a 429 without Retry-After that the run has learnt (0 before the
   * first): see the top of this file.
   */
  get step(): number {
    return this.slowStep;
  }

  /** Milliseconds until the pause ends (0 when the run is not paused). */
  get pausedFor(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  /**
   * A slot as soon as the run is not paused and fewer than `window` attempts are in flight, by rank
   * then in the order asked; null when `signal` (or one of several) aborts first. A repeat gives the
   * ticket of its request's first slot as `rank`; a first attempt gives none, and goes after them.
   */
  acquire(signal?: AbortSignal | readonly AbortSignal[], rank = Infinity): Promise<Slot | null> {
    const signals = signal === undefined ? [] : Array.isArray(signal) ? (signal as readonly AbortSignal[]) : [signal as AbortSignal];
    if (signals.some((s) => s.aborted)) return Promise.resolve(null);
    if (this.queue.length === 0 && this.canStart()) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      const stopListening = () => {
        for (const s of signals) s.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        stopListening();
        // Still queued: a granted waiter stops listening before it resolves.
        this.queue.splice(this.queue.indexOf(waiter), 1);
        if (this.queue.length === 0) this.stopTimer();
        resolve(null);
      };
      const waiter: Waiter = {
        grant: (slot) => {
          stopListening();
          resolve(slot);
        },
        rank,
      };
      // Removed by stopListening as soon as the wait ends either way, so that a long-lived signal
      // (the run's) does not gather one listener per attempt.
      for (const s of signals) s.addEventListener('abort', onAbort);
      // After every waiter of the same rank or a lower one: the queue stays sorted, and in the
      // order asked within a rank.
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.rank > rank) at -= 1;
      this.queue.splice(at, 0, waiter);
      this.pump();
    });
  }

  /** Holds back every attempt not yet started for `ms` (a longer pause already set stands). */
  pause(ms: number): void {
    const until = this.now() + Math.max(0, ms);
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.stopTimer();
    this.pump();
  }

  private canStart(): boolean {
    return this.inFlight < this.windowSize && this.now() >= this.pausedUntil;
  }

  private take(): Slot {
    this.inFlight += 1;
    const startedAt = this.now();
    let released = false;
    return {
      ticket: this.tickets++,
      release: (outcome) => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        this.paced(outcome, startedAt);
        this.pump();
      },
    };
  }

  private paced(outcome: AttemptOutcome, startedAt: number): void {
    if (outcome === 'rate-limited' || outcome === 'slow-down') {
      this.answeredAtRefusal = this.answeredInRun;
      if (outcome === 'slow-down') this.learnStep(startedAt);
      if (startedAt <= this.lastCut) return;
      this.windowSize = Math.max(1, Math.floor(this.windowSize / 2));
      this.lastCut = this.now();
      this.answered = 0;
    } else if (outcome === 'answered') {
      this.answeredInRun += 1;
      if (this.windowSize < this.max) {
        this.answered += 1;
        if (this.answered >= this.windowSize) {
          this.windowSize += 1;
          this.answered = 0;
        }
      }
    }
  }

  /** Adjusts the step after a 429 without Retry-After (see the top of this file). */
  private learnStep(startedAt: number): void {
    // An attempt sent before the last adjustment was sent without knowing of it: its 429 is the
    // same news.
    if (startedAt <= this.lastSlowDown) return;
    const through = this.answeredInRun - this.answeredAtSlowDown;
    if (this.slowStep === 0) {
      this.slowStep = 1;
      // Requests answered before any pause say nothing of its length, only that the service takes
      // some: the step may grow to 2 then.
      if (through > 0) this.longestStepThrough = 1;
    } else if (through === 0) {
      this.slowStep = Math.min(this.slowStep + 1, this.longestStepThrough + 1);
    } else {
      this.longestStepThrough = Math.max(this.longestStepThrough, this.slowStep);
    }
    this.lastSlowDown = this.now();
    this.answeredAtSlowDown = this.answeredInRun;
  }

  /** Gives free slots to the waiters in order; while paused, wakes itself when the pause ends. */
  private pump(): void {
    while (this.queue.length > 0 && this.canStart()) this.queue.shift()!.grant(this.take());
    if (this.queue.length > 0 && this.timer === undefined && this.inFlight < this.windowSize) {
      // Referenced: while a request waits for the pause to end, the wait is what keeps the run alive.
      this.timer = setTimeout(
        () => {
          this.timer = undefined;
          this.pump();
        },
        Math.max(1, Math.ceil(this.pausedUntil - this.now())),
      );
    }
  }

  private stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
