import type { Context } from '../context.js';
import { formatDuration } from '../text/duration.js';
import { Latencies } from '../testing/suite.js';

/**
 * The live line of long work (`core test`, above all with --repeat, and `core check-bot`), on
 * standard error: `core test: 120/1000 runs, 3 failed, p95 412 ms, about 1m 20s left`, redrawn in
 * place as work ends and every quarter second (docs/testing-bots.md, "Progress").
 *
 * Shown only where someone watches it redrawn: both standard output and standard error are a
 * terminal that can move its cursor (not TERM=dumb), and no report goes to standard output but the
 * human view (a JSON, JUnit or TAP report there is for a program). Anywhere else nothing is drawn at
 * all, so a pipe, a file or a CI log never holds a control sequence of it. The line has no colour,
 * so NO_COLOR, FORCE_COLOR and --no-color change nothing in it; it is cut to the terminal's width
 * so that it never wraps (a wrapped line cannot be redrawn in place).
 */

export interface LiveProgress {
  /** The work begins: the line is drawn from now on. */
  start(): void;
  /** One unit ended (a run, a check, a fuzzed conversation), with the latencies it measured (the bot's answers'). */
  done(failed: boolean, latenciesMs?: readonly number[]): void;
  /**
   * `write` wrapped so that what it writes to the terminal the line is on comes out above the line:
   * the line is taken away, the text written, the line drawn again.
   */
  around(write: (text: string) => void): (text: string) => void;
  /** Takes the line away for good. */
  stop(): void;
}

/** Whether a live line may be drawn: both streams a terminal that redraws, and nothing for a program on stdout. */
export function showsLiveProgress(ctx: Pick<Context, 'streams' | 'env'>, reportOnStdout: boolean): boolean {
  return ctx.streams.stderr.isTTY === true && ctx.streams.stdout.isTTY === true && ctx.env.TERM !== 'dumb' && !reportOnStdout;
}

/** How often the line is redrawn when nothing ends (its time left moves on). */
const REDRAW_MS = 250;

/** What does nothing: the work where no line is drawn. */
export const NO_PROGRESS: LiveProgress = { start: () => {}, done: () => {}, around: (write) => write, stop: () => {} };

export interface ProgressLabel {
  /** The command, first on the line: `core test`. */
  command: string;
  /** The unit counted, plural: `runs`, `checks`, `conversations`. */
  unit: string;
  total: number;
}

/** The line's text: what is done of what, what failed, the p95 so far, and the time left once something ended. */
export function progressText(label: ProgressLabel, state: { done: number; failed: number; p95: number | null; elapsedMs: number }): string {
  const parts = [`${label.command}: ${state.done}/${label.total} ${label.unit}`, `${state.failed} failed`];
  if (state.p95 !== null) parts.push(`p95 ${formatDuration(state.p95)}`);
  if (state.done > 0 && state.done < label.total) {
    const leftMs = (state.elapsedMs / state.done) * (label.total - state.done);
    parts.push(`about ${formatDuration(Math.max(1000, Math.round(leftMs / 1000) * 1000))} left`);
  }
  return parts.join(', ');
}

export function liveProgress(ctx: Pick<Context, 'streams' | 'env'>, label: ProgressLabel, show: boolean): LiveProgress {
  if (!show) return NO_PROGRESS;
  const stderr = ctx.streams.stderr;
  const latencies = new Latencies();
  let done = 0;
  let failed = 0;
  let began = 0;
  let drawn = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const text = () => {
    const line = progressText(label, { done, failed, p95: latencies.percentile(0.95), elapsedMs: performance.now() - began });
    // One column short of the width: a line that fills it leaves some terminals' cursor past the edge.
    const width = Math.max(20, (stderr.columns ?? 80) - 1);
    return line.length > width ? line.slice(0, width) : line;
  };
  const draw = () => {
    if (stopped || began === 0) return;
    stderr.write(`\r${text()}\x1b[K`);
    drawn = true;
  };
  const erase = () => {
    if (drawn) stderr.write('\r\x1b[K');
    drawn = false;
  };
  return {
    start() {
      if (began !== 0 || stopped) return;
      began = performance.now();
      draw();
      timer = setInterval(draw, REDRAW_MS);
      // The line never keeps a finished run alive.
      timer.unref();
    },
    done(unitFailed, latenciesMs = []) {
      done += 1;
      if (unitFailed) failed += 1;
      for (const ms of latenciesMs) latencies.add(ms);
    },
    around(write) {
      return (written) => {
        const shown = drawn;
        erase();
        write(written);
        if (shown) draw();
      };
    },
    stop() {
      if (stopped) return;
      clearInterval(timer);
      erase();
      stopped = true;
    },
  };
}
