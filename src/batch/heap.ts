import { setFlagsFromString } from 'node:v8';

/**
 * The heap of a batch (docs/performance.md, "Batches"). A batch keeps little alive (about 10 MB: the
 * codes seen, the requests in flight), but each request allocates and drops tens of kilobytes
 * inside got and node:http. With V8's defaults the young generation grows to 2 x 16 MB and the old
 * one to four times what survived the last full collection before it collects again, so the
 * process would reach 130 to 150 MB for a file whose live data is 10 MB.
 *
 * Two of V8's settings are read each time the heap is resized, so unlike the young generation's
 * size (`--max-semi-space-size`, fixed when the process starts) they can be set here, before the
 * batch begins, for this process only:
 * - `--semi-space-growth-factor=1`: the young generation keeps its start-up size instead of doubling
 *   up to 16 MB; a small one is scavenged more often, each time as fast (what is alive in it is the
 *   few requests in flight).
 * - `--heap-growing-percent=100`: the old generation may grow to twice what is alive after a full
 *   collection before the next one, instead of up to four times; a full collection of a 10 MB heap
 *   takes about a millisecond. (50 gave 83 MB instead of 93 MB for 100,000 lines, with more
 *   collections.)
 * Measured with bench/batch.mjs: the figures are in docs/performance.md.
 */
export const BATCH_HEAP_FLAGS = ['--semi-space-growth-factor=1', '--heap-growing-percent=100'] as const;

let tuned = false;

/** Applies BATCH_HEAP_FLAGS once; a runtime without them (or refusing them) is left as it is. */
export function tuneHeapForBatch(flags: readonly string[] = BATCH_HEAP_FLAGS): void {
  if (tuned) return;
  tuned = true;
  for (const flag of flags) {
    try {
      setFlagsFromString(flag);
    } catch {
      // Only memory is at stake: the batch runs the same without it.
    }
  }
}
