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

export interface HeapSettings {
  /** Applies the batch settings to this process, once; a runtime refusing them is left as it is. */
  tuneForBatch(): void;
  /** Runs `fn` with V8's default settings in place, then puts back what was set before. */
  withDefaults<T>(fn: () => T): T;
}

/** node:v8, loaded only when a batch needs it (~1 ms a start otherwise, `--version` included). */
const setFlag = (flag: string): void => (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString(flag);

export function heapSettings(set: (flag: string) => void = setFlag): HeapSettings {
  let tuned = false;
  const apply = (value: 'batch' | 'standard') => {
    for (const flag of BATCH_HEAP_FLAGS) {
      try {
        set(`${flag.name}=${flag[value]}`);
      } catch {
        // Only memory is at stake: the batch runs the same without it.
      }
    }
  };
  return {
    tuneForBatch() {
      if (tuned) return;
      tuned = true;
      apply('batch');
    },
    withDefaults(fn) {
      if (!tuned) return fn();
      apply('standard');
      try {
        return fn();
      } finally {
        apply('batch');
      }
    },
  };
}
