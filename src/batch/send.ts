import type { Problem } from '../errors.js';
import type { Slot } from '../http/throttle.js';
import { exitCodeOf, type RequestResult } from '../output/result.js';
import { checkItem, type Fingerprints, type ItemSpec } from './check.js';
import type { BatchSource } from './source.js';

/**
 * The second pass over a checked batch: reads the items again and sends up to `concurrency` at
 * once. Every item ends with exactly one result, sent or not, handed to `onResult` as soon as it
 * is known (the report file depends on that).
 *
 * Stopping (docs/exit-codes.md: "a batch first lets in-flight requests finish and reports every
 * item"; docs/reasons.md, "Stopping early"): after Ctrl-C, or the first failure with --fail-fast,
 * no new request starts; requests in flight finish; every item not sent is reported as skipped. The abort signal
 * is not passed to the requests themselves, so a request that reached the service is never cut
 * off with its outcome unknown.
 */

export interface SendSpec<T> extends ItemSpec<T> {
  concurrency: number;
  failFast: boolean;
  /**
   * The lines the first pass accepted (`CheckSummary.accepted`): such a line, unchanged at the same
   * place, is not checked again; every other item is, and one that no longer passes is not sent.
   */
  checkedLines?: Fingerprints;
  /** Ctrl-C: once aborted, no new item starts. */
  signal: AbortSignal;
  /**
   * Waits until the run may start another request (the pace of src/http/throttle.ts: a pause a
   * Retry-After asked for, the window after a 429) and takes the slot for its first attempt; null when
   * `signal` aborts first. Without it, `concurrency` alone decides.
   */
  admit?(signal: AbortSignal): Promise<Slot | null>;
  /** Sends one item; `slot`, when given, is what `admit` took for its first attempt. */
  send(value: T, key: string | undefined, slot?: Slot): Promise<RequestResult>;
  /**
   * A result made here rather than by the service: skipped (not sent), no longer valid (the input
   * changed after the check, not sent), or a failure inside the program.
   */
  localResult(key: string | undefined, why: LocalOutcome): RequestResult;
  onResult(result: RequestResult): void;
  /**
   * Whether the item with this key was applied by an earlier run (--resume): it is not sent again,
   * and its result says so.
   */
  alreadyApplied?(key: string | undefined): boolean;
  /** Told once, at the moment of Ctrl-C, with the number of requests still in flight. */
  onInterrupt?(inFlight: number): void;
  /** Told once, at the first failure with --fail-fast, with the number of requests still in flight. */
  onFailFast?(inFlight: number): void;
}

export type LocalOutcome = { skipped: true } | { resumed: true } | { problems: Problem[] } | { error: { code: string; message: string } };

export interface BatchTally {
  total: number;
  succeeded: number;
  /** Applied by an earlier run (--resume), so not sent again. */
  resumed: number;
  failed: number;
  skipped: number;
  /** The largest exit code among the failed items (docs/exit-codes.md); 0 when none failed. */
  exitCode: number;
  interrupted: boolean;
}

export async function sendBatch<T>(source: BatchSource, spec: SendSpec<T>): Promise<BatchTally> {
  const tally: BatchTally = { total: 0, succeeded: 0, resumed: 0, failed: 0, skipped: 0, exitCode: 0, interrupted: false };
  const running = new Set<Promise<void>>();
  let failedFast = false;
  let unexpected: { error: unknown } | undefined;

  // Aborted once no new item may start (Ctrl-C, the first failure with --fail-fast, a failure inside
  // the program), so that an item waiting for its turn stops waiting and is reported as skipped.
  const halt = new AbortController();
  const onAbort = () => {
    halt.abort();
    spec.onInterrupt?.(running.size);
  };
  if (!spec.signal.aborted) spec.signal.addEventListener('abort', onAbort, { once: true });
  else halt.abort();
  const stopped = () => spec.signal.aborted || failedFast || unexpected !== undefined;
  // Called once `stopped()` holds: Ctrl-C, the first failure with --fail-fast, a failure inside the program.
  const stopStarting = () => halt.abort();

  const record = (result: RequestResult) => {
    tally.total += 1;
    if (result.resumed) tally.resumed += 1;
    else if (result.ok) tally.succeeded += 1;
    else if (result.skipped) tally.skipped += 1;
    else {
      tally.failed += 1;
      tally.exitCode = Math.max(tally.exitCode, exitCodeOf(result));
    }
    // Printing or writing the report can fail (a full disk, a closed pipe). That must not cut off
    // the requests in flight: it stops new ones, and is reported once every request has settled.
    try {
      spec.onResult(result);
    } catch (error) {
      unexpected ??= { error };
      stopStarting();
    }
  };

  let readFailure: { error: unknown } | undefined;
  let index = 0;
  try {
    for await (const item of source.items()) {
      // A batch is sent only once the first pass has accepted every item, so an item kept from it is known.
      const known = item.kept === true || (spec.checkedLines?.has(index, item.text) ?? false);
      const checked = checkItem(item, spec, known);
      index += 1;
      if (checked.ok && spec.alreadyApplied?.(checked.key)) {
        // Applied by the run the --resume report records: recorded as such, and not sent again.
        record(spec.localResult(checked.key, { resumed: true }));
        continue;
      }
      if (!stopped()) {
        while (running.size >= spec.concurrency) await Promise.race(running);
      }
      if (!checked.ok) {
        if (stopped()) {
          record(spec.localResult(checked.key, { skipped: true }));
          continue;
        }
        // It passed the first check, so the input changed in between: refuse it rather than send
        // something that was never checked.
        record(spec.localResult(checked.key, { problems: checked.problems }));
        if (spec.failFast && !failedFast) {
          failedFast = true;
          stopStarting();
          spec.onFailFast?.(running.size);
        }
        continue;
      }
      // Its turn in the run's pace: not before a pause asked for with Retry-After ends.
      const slot = stopped() || !spec.admit ? undefined : ((await spec.admit(halt.signal)) ?? undefined);
      if (stopped()) {
        slot?.release('other');
        record(spec.localResult(checked.key, { skipped: true }));
        continue;
      }
      const task: Promise<void> = (async () => {
        let result: RequestResult;
        try {
          result = await spec.send(checked.value, checked.key, slot);
        } catch (error) {
          // A bug, not an HTTP or network failure (those come back as results). Record the item so
          // the report stays complete, stop starting others, and rethrow once the rest is settled.
          unexpected ??= { error };
          stopStarting();
          result = spec.localResult(checked.key, {
            error: { code: 'EINTERNAL', message: error instanceof Error ? error.message : String(error) },
          });
        } finally {
          // Given back by the request's first attempt; here only if it never got that far.
          slot?.release('other');
        }
        record(result);
        if (!result.ok && spec.failFast && !failedFast && !spec.signal.aborted) {
          failedFast = true;
          stopStarting();
          spec.onFailFast?.(running.size - 1);
        }
      })().finally(() => {
        running.delete(task);
      });
      running.add(task);
    }
  } catch (error) {
    // The input could not be read again (changed or removed since the check): what is in flight
    // still finishes and is recorded before the error is reported.
    readFailure = { error };
  }
  await Promise.allSettled(running);
  spec.signal.removeEventListener('abort', onAbort);
  if (readFailure) throw readFailure.error;
  tally.interrupted = spec.signal.aborted;
  if (unexpected) throw unexpected.error;
  return tally;
}
