import { createRequire } from 'node:module';

/**
 * The heap of a batch (docs/performance.md, "Batches"). A batch keeps little alive (about 10 MB: the
 * codes seen, the requests in flight), but each request allocates and drops tens of kilobytes
 * inside got and node:http. With V8's defaults the young generation grows to 2 x 16 MB and the old
 * one to four times what survived the last full collection before it collects again, so the
 * process would reach 130 to 150 MB for a file whose live data is 10 MB.
 *
 * Two of V8's settings are read each time the heap is resized, so unlike the young generation's
 * size (`--max-semi-space-size`, fixed when the process starts) they can be set before the batch
 * begins, for this process only:
 * - `--semi-space-growth-factor=1`: the young generation keeps its start-up size instead of doubling
 *   up to 16 MB; a small one is scavenged more often, each time as fast (what is alive in it is the
 *   few requests in flight).
 * - `--heap-growing-percent=100`: the old generation may grow to twice what is alive after a full
 *   collection before the next one, instead of up to four times; a full collection of a 10 MB heap
 *   takes about a millisecond. (50 gave 83 MB instead of 93 MB for 100,000 lines, with more
 *   collections.)
 *
 * V8 stamps compiled code it caches with a hash of all its settings, and refuses code stamped with
 * another: code compiled or cached while these are changed would be refused by the next run, which
 * starts with the defaults, and rewritten by every batch. So src/compile-cache.ts compiles and
 * caches with the defaults back in place for the moment (`withDefaults`). Set from src/bin.ts,
 * which owns the process; a command asks for it through its context.
 */
export const BATCH_HEAP_FLAGS: ReadonlyArray<{ name: string; batch: number; standard: number }> = [
  { name: '--semi-space-growth-factor', batch: 1, standard: 2 },
  { name: '--heap-growing-percent', batch: 100, standard: 0 },
];

/**
 * The heap of `core sandbox` (docs/sandbox.md, "Memory"). What the sandbox keeps is bounded (each
 * tenant's event log, at most 64 MB of real bytes) but its garbage is not small: a 1 MB answer is a
 * 1 MB body, a 1 MB string and the JSON around it, all dropped once stored. With V8's default the old
 * generation may grow to up to four times what survived the last full collection before it collects
 * again, so three tenants of 1 MB answers (about 200 MB kept) reached 295 to 438 MB of RSS, depending
 * on how busy the machine was.
 *
 * `--heap-growing-percent=25`: the old generation grows to 1.25 times what is alive after a full
 * collection before the next one. It limits nothing: a heap whose live data is larger still grows
 * to the same maximum as without it (no out-of-memory crash that the defaults would not have had),
 * it only collects sooner. Read each time V8 sizes the heap, so it takes effect when set at run time,
 * as the batch's do; the compile cache puts the default back around compiling, as for a batch.
 */
export const SANDBOX_HEAP_FLAGS: ReadonlyArray<{ name: string; sandbox: number; standard: number }> = [
  { name: '--heap-growing-percent', sandbox: 25, standard: 0 },
];

export interface HeapSettings {
  /** Applies the batch settings to this process, once; a runtime refusing them is left as it is. */
  tuneForBatch(): void;
  /** Applies the sandbox's settings to this process, once; a runtime refusing them is left as it is. */
  tuneForSandbox(): void;
  /** Runs `fn` with V8's default settings in place, then puts back what was set before. */
  withDefaults<T>(fn: () => T): T;
}

/** node:v8, loaded only when a batch needs it (~1 ms a start otherwise, `--version` included). */
const setFlag = (flag: string): void => (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(flag);

interface Setting {
  name: string;
  value: number;
  standard: number;
}

export function heapSettings(set: (flag: string) => void = setFlag): HeapSettings {
  /** What was set, in order; a process is tuned once, for one use. */
  let tuned: Setting[] | undefined;
  const apply = (settings: readonly Setting[], value: 'value' | 'standard') => {
    for (const setting of settings) {
      try {
        set(`${setting.name}=${setting[value]}`);
      } catch {
        // Only memory is at stake: the run is the same without it.
      }
    }
  };
  const tune = (settings: Setting[]) => {
    if (tuned !== undefined) return;
    tuned = settings;
    apply(settings, 'value');
  };
  return {
    tuneForBatch() {
      tune(BATCH_HEAP_FLAGS.map(({ name, batch, standard }) => ({ name, value: batch, standard })));
    },
    tuneForSandbox() {
      tune(SANDBOX_HEAP_FLAGS.map(({ name, sandbox, standard }) => ({ name, value: sandbox, standard })));
    },
    withDefaults(fn) {
      const settings = tuned;
      if (settings === undefined) return fn();
      apply(settings, 'standard');
      try {
        return fn();
      } finally {
        apply(settings, 'value');
      }
    },
  };
}
