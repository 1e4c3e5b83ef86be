/**
 * Text held back and written in larger pieces (a batch's result lines: one write each cost a batch
 * of 1,000 updates ~20 ms, most of it in the stream's own handling of each write; docs/performance.md,
 * "Batches"). What is held is written when HOLD_BYTES have gathered, HOLD_MS after the first of it,
 * whenever `flush` is called (before anything goes to the other stream, so that the two keep their
 * order where they share a terminal or a file), and at `release`, after which every write goes
 * straight through again.
 */
export const HOLD_BYTES = 32 * 1024;
export const HOLD_MS = 50;

export interface Hold {
  /** Whether text is being held now. */
  readonly active: boolean;
  /** Holds `text`, or writes it at once when not holding. */
  write(text: string): void;
  /** Writes what is held. */
  flush(): void;
  /** Starts holding. */
  start(): void;
  /** Writes what is held and stops holding. */
  release(): void;
}

export function createHold(
  write: (text: string) => void,
  timers: { set: (fn: () => void, ms: number) => unknown; clear: (timer: unknown) => void } = {
    set: (fn, ms) => setTimeout(fn, ms).unref(),
    clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
  },
): Hold {
  let active = false;
  let held = '';
  let timer: unknown;
  const flush = () => {
    if (timer !== undefined) {
      timers.clear(timer);
      timer = undefined;
    }
    if (held === '') return;
    const text = held;
    held = '';
    write(text);
  };
  return {
    get active() {
      return active;
    },
    write(text) {
      if (!active) {
        write(text);
        return;
      }
      held += text;
      if (held.length >= HOLD_BYTES) flush();
      else timer ??= timers.set(flush, HOLD_MS);
    },
    flush,
    start() {
      active = true;
    },
    release() {
      active = false;
      flush();
    },
  };
}
