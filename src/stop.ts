/**
 * Why a run was asked to stop, and how long it then has (docs/exit-codes.md, "Stopping"). src/bin.ts
 * aborts the invocation's signals with one of these reasons; commands read it to word their notes,
 * and src/main.ts to choose the exit code. A leaf: bin.ts loads it before anything else.
 */

/** Ctrl-C, a supervisor's SIGTERM, a closed terminal's SIGHUP, or standard output or error closed. */
export type StopReason = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'EPIPE';

/**
 * After SIGTERM, SIGHUP or a closed output, how long requests in flight may still finish before they
 * are abandoned. Ctrl-C has no such limit: whoever typed it can type it again.
 */
export const STOP_GRACE_MS = 1000;

/**
 * Once requests are abandoned, how long the run has to record them, write its report and remove its
 * temporary files before the process exits anyway. GRACE + WRAP_UP stays under 2 s.
 */
export const STOP_WRAP_UP_MS = 600;

/** The reason an aborted signal carries, when it is one of ours. */
export function stopReason(signal: AbortSignal): StopReason | undefined {
  const reason: unknown = signal.reason;
  return reason === 'SIGINT' || reason === 'SIGTERM' || reason === 'SIGHUP' || reason === 'EPIPE' ? reason : undefined;
}

/** Words for a note: `interrupted`, `SIGTERM received`, `the terminal closed`, `the output was closed`. */
export function describeStop(reason: StopReason | undefined): string {
  switch (reason) {
    case 'SIGTERM':
      return 'SIGTERM received';
    case 'SIGHUP':
      return 'the terminal closed (SIGHUP)';
    case 'EPIPE':
      return 'the output was closed';
    default:
      return 'interrupted';
  }
}
