/**
 * The pace of one run's requests (docs/security.md, "Rate limits"). Every attempt of the run, first
 * or repeat, takes a slot here before it is sent and gives it back with its outcome:
 *
 * - A 429 or 503 with Retry-After pauses the whole run until that time (`pause`): no attempt starts
 *   meanwhile, whichever request it belongs to, so a batch waits as one instead of each request
 *   spending its retries on its own.
 * - After a 429 the number of attempts in flight at once (the window) is halved, once for the
 *   answers of one burst: a 429 to an attempt that started before the last cut does not cut again.
 *   It grows back by one for each full window of answers that are not 429 or 5xx, up to the
 *   concurrency asked for (additive increase, multiplicative decrease, as TCP paces itself).
 *
 * Slots are given in the order they were asked for, so a request that waits to be repeated goes
 * before the items of a batch not yet started.
 */

/** How an attempt ended, for the pace: answered (not 429 or 5xx), rate-limited (429), or anything else. */
export type AttemptOutcome = 'answered' | 'rate-limited' | 'other';

export interface Slot {
  /** Gives the slot back; only the first call counts. */
  release(outcome: AttemptOutcome): void;
}

interface Waiter {
  grant: (slot: Slot | null) => void;
}

export class Throttle {
  private windowSize: number;
  private inFlight = 0;
  private pausedUntil = 0;
  private lastCut = -Infinity;
  private answered = 0;
  private answeredInRun = 0;
  private readonly queue: Waiter[] = [];
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

  /** Milliseconds until the pause ends (0 when the run is not paused). */
  get pausedFor(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }

  /**
   * A slot as soon as the run is not paused and fewer than `window` attempts are in flight, in the
   * order asked; null when `signal` (or one of several) aborts first.
   */
  acquire(signal?: AbortSignal | readonly AbortSignal[]): Promise<Slot | null> {
    const signals = signal === undefined ? [] : Array.isArray(signal) ? (signal as readonly AbortSignal[]) : [signal as AbortSignal];
    if (signals.some((s) => s.aborted)) return Promise.resolve(null);
    if (this.queue.length === 0 && this.canStart()) return Promise.resolve(this.take());
    return new Promise((resolve) => {
      const stopListening = () => {
        for (const s of signals) s.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        stopListening();
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        if (this.queue.length === 0) this.stopTimer();
        resolve(null);
      };
      const waiter: Waiter = {
        grant: (slot) => {
          stopListening();
          resolve(slot);
        },
      };
      // Removed by stopListening as soon as the wait ends either way, so that a long-lived signal
      // (the run's) does not gather one listener per attempt.
      for (const s of signals) s.addEventListener('abort', onAbort);
      this.queue.push(waiter);
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
    if (outcome === 'rate-limited') {
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
