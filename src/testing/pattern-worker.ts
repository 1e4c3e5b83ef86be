import type { Worker } from 'node:worker_threads';

/**
 * Where a test file's /patterns/ run (docs/testing-bots.md, "Matching"): off the main thread, in one
 * worker thread of the run, each match bounded by the time the step has.
 *
 * JavaScript's regular expressions backtrack: `/^(\w+\s?)*$/` against 40 letters and a `!` takes
 * longer than the age of the universe, and on the main thread nothing else runs meanwhile, no
 * timer (--timeout), no signal handler (Ctrl-C, SIGTERM), no event of another conversation. In a
 * worker, the main thread keeps running: when a match outlives its bound the worker is terminated
 * (V8 interrupts a running expression) and the next match gets a new one, and a signal stops the
 * run as it stops any other (the worker never holds the process: it is unref'd, and process.exit()
 * ends it).
 *
 * Matches are run one at a time, in the order asked; a match's bound counts from the moment the
 * worker starts it, so one conversation's runaway pattern delays the others' matches (by at most its
 * bound) but never fails them. The worker starts on the first pattern matched: a suite without
 * patterns never starts one.
 */

/** What a match found: its groups (null: no match), or that it ran out of time, or the engine's error. */
export type PatternOutcome = { found: (string | null)[] | null } | { slow: true } | { error: string };

interface Job {
  source: string;
  flags: string;
  text: string;
  limitMs: number;
  resolve: (outcome: PatternOutcome) => void;
}

/** The worker's code: compiles (and keeps) each pattern and answers with its groups. CommonJS, run by `eval`. */
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const compiled = new Map();
parentPort.on('message', ({ source, flags, text }) => {
  try {
    const key = flags + '/' + source;
    let regex = compiled.get(key);
    if (regex === undefined) {
      if (compiled.size >= 256) compiled.clear();
      regex = new RegExp(source, flags);
      compiled.set(key, regex);
    }
    const found = regex.exec(text);
    parentPort.postMessage({ found: found === null ? null : Array.from(found, (group) => group ?? null) });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

/** Why a match ends when the run is asked to stop. */
const STOPPED = 'the run was asked to stop while it matched';

export class PatternWorker {
  private readonly queue: Job[] = [];
  private worker: Worker | undefined;
  private running: { job: Job; timer: NodeJS.Timeout | undefined } | undefined;
  private closed = false;
  private reason = '';

  /** `signal`: the run's; once it is aborted (Ctrl-C, SIGTERM), a match in progress is abandoned and none starts. */
  constructor(signal?: AbortSignal) {
    const stop = () => void this.close(STOPPED);
    if (signal?.aborted) stop();
    else if (signal !== undefined) {
      signal.addEventListener('abort', stop, { once: true });
      this.unlisten = () => signal.removeEventListener('abort', stop);
    }
  }

  private unlisten = () => {};

  /** Runs `source` with `flags` on `text`; `slow` when it has not ended within `limitMs` of starting. */
  exec(source: string, flags: string, text: string, limitMs: number): Promise<PatternOutcome> {
    if (this.closed) return Promise.resolve({ error: this.reason });
    return new Promise((resolve) => {
      this.queue.push({ source, flags, text, limitMs, resolve });
      void this.next();
    });
  }

  /** Ends the worker; a match in progress or waiting ends as `error`, with `reason`. */
  async close(reason = 'the run is over'): Promise<void> {
    if (!this.closed) this.reason = reason;
    this.closed = true;
    this.unlisten();
    for (const job of this.queue.splice(0)) job.resolve({ error: this.reason });
    if (this.running) this.settle({ error: this.reason });
    await this.stopWorker();
  }

  private async next(): Promise<void> {
    if (this.running !== undefined || this.closed) return;
    const job = this.queue.shift();
    if (job === undefined) return;
    const running: { job: Job; timer: NodeJS.Timeout | undefined } = { job, timer: undefined };
    this.running = running;
    const worker = this.worker ?? (this.worker = await this.startWorker());
    if (this.running !== running) return;
    // A match that outlives its bound: the worker is ended (V8 interrupts the expression) and the next starts a new one.
    running.timer = setTimeout(() => {
      this.settle({ slow: true });
      void this.stopWorker().then(() => this.next());
    }, job.limitMs);
    worker.postMessage({ source: job.source, flags: job.flags, text: job.text });
  }

  private settle(outcome: PatternOutcome): void {
    const running = this.running;
    if (running === undefined) return;
    this.running = undefined;
    clearTimeout(running.timer);
    running.job.resolve(outcome);
  }

  private async startWorker(): Promise<Worker> {
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker(WORKER_CODE, { eval: true, stdout: true, stderr: true });
    worker.unref();
    // The bound of a match counts from when the worker runs code: a thread's start (tens of milliseconds, more on
    // a busy machine) is not the pattern's time.
    await new Promise<void>((resolve) => {
      worker.once('online', resolve);
      worker.once('error', () => resolve());
      worker.once('exit', () => resolve());
    });
    worker.on('message', (outcome: PatternOutcome) => {
      // A worker being ended after its match ran out of time may still answer: that answer is no one's.
      if (this.worker !== worker) return;
      this.settle(outcome);
      void this.next();
    });
    worker.on('error', (error: Error) => {
      if (this.worker !== worker) return;
      this.settle({ error: error.message });
      this.worker = undefined;
      void this.next();
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    return worker;
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }
}
