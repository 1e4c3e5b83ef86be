#!/usr/bin/env -S node --
// The `--` ends Node's own options: Node 20 and 24 read `--env-file FILE` anywhere on the command line,
// after the script's name too, so `core sandbox --env-file .env` would otherwise stop in Node with
// `node: .env: not found` (exit 9) before core starts. npm's cmd-shim reads `env -S` and keeps the
// `--` in the Windows shims it makes.
import { writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLoader, runPath, type Application } from './compile-cache.js';
import { heapSettings } from './heap.js';
import { STOP_GRACE_MS, STOP_WRAP_UP_MS, type StopReason } from './stop.js';
import { version, versionRequest, versionText } from './version.js';

/**
 * How the process stops (docs/exit-codes.md, "Stopping"):
 *
 * - Ctrl-C (SIGINT), typed by someone who can type it again: the first starts nothing new and lets
 *   what is in flight finish (each request still bounded by --timeout); the second abandons what is
 *   in flight (a batch reports it with its outcome unknown) and the run gets STOP_WRAP_UP_MS to say so;
 *   a third stops at once.
 * - SIGTERM and SIGHUP, which a supervisor or a closed terminal sends once, and a closed stdout or
 *   stderr (`core ... | head -1`), after which nobody reads what is printed: nothing new starts,
 *   requests in flight get STOP_GRACE_MS to finish, then are abandoned, and the run gets
 *   STOP_WRAP_UP_MS more to write its report and remove its temporary files. Past that the process
 *   exits anyway: under 2 s in all (src/stop.ts).
 *
 * The reason given to the controllers (`SIGINT`, `SIGTERM`, `SIGHUP`, `EPIPE`) lets main() choose
 * the exit code and the commands word their notes.
 */

const argv = process.argv.slice(2);

/**
 * Work in Node's thread pool that may never return: opening a FIFO nobody writes, a call to a dead
 * network mount. No signal reaches it, and process.exit() waits for it for ever (Node joins its
 * threads on the way out).
 */
function threadPoolBusy(): boolean {
  return process.getActiveResourcesInfo().some((name) => /^FSReq|^GetAddrInfoReqWrap$|^GetNameInfoReqWrap$/.test(name));
}

/**
 * Ends the process with `code`; or, when the run was stopped by `signal` and the thread pool is
 * busy, by that signal itself, which nothing can hold up: a shell then reports 128 + its number
 * (143 for SIGTERM; docs/exit-codes.md).
 */
function end(code: number, signal: NodeJS.Signals | undefined): void {
  if (signal === undefined || !threadPoolBusy()) {
    process.exit(code);
    return;
  }
  process.removeAllListeners(signal);
  if (signal === 'SIGPIPE') {
    // Node ignores SIGPIPE; a listener added and removed puts back its default action, the end.
    const restore = () => {};
    process.on('SIGPIPE', restore);
    process.off('SIGPIPE', restore);
  }
  process.kill(process.pid, signal);
}
let finished = false;
let onOutputClosed: (() => void) | undefined;

// A reader that stops early (`core reply --help | head -1`) closes the pipe. Once the command has
// finished that is no error and its own exit code stands; while it runs, it stops as for SIGTERM
// (above) and exits 141, as a process ended by SIGPIPE would. Any other failure to write (a full
// disk) ends with one line, not a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      if (finished || onOutputClosed === undefined) process.exit(process.exitCode ?? 141);
      onOutputClosed();
      return;
    }
    try {
      writeSync(2, `error: cannot write the output (${error.code ?? error.message})\n`);
    } catch {
      // stderr is gone too: the exit code is all that is left.
    }
    process.exit(1);
  });
}

const versionAsked = versionRequest(argv);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The fast path: no commander, no config, nothing else loaded.
  process.stdout.write(`${version()}\n`);
} else if (versionAsked !== undefined) {
  // `core version`, `core --version --json`: as fast.
  process.stdout.write(versionText(versionAsked.json));
} else {
  void run();
}

/** Runs the command line through main() and ends the process as docs/exit-codes.md says. */
async function run(): Promise<void> {
  // The application, with its compiled code kept between runs (src/compile-cache.ts).
  // V8's heap settings belong to the process: a batch changes them (src/heap.ts), and the loader
  // compiles with the defaults in place.
  const heap = heapSettings();
  const path = runPath(argv);
  const loader = createLoader(process.env, version(), heap, path);
  const { main, ExitCode } = loader.load(fileURLToPath(new URL('./main.cjs', import.meta.url))) as Application;
  // A sandbox server runs for hours under any load a test sends: its heap collects sooner (src/heap.ts).
  if (path === 'sandbox') heap.tuneForSandbox();
  const controller = new AbortController();
  const abandon = new AbortController();
  const codeFor = (reason: StopReason): number =>
    reason === 'SIGHUP' ? ExitCode.hangup : reason === 'EPIPE' ? ExitCode.brokenPipe : ExitCode.interrupted;
  const signalOf = (reason: unknown): NodeJS.Signals | undefined =>
    reason === 'EPIPE' ? 'SIGPIPE' : reason === 'SIGINT' || reason === 'SIGTERM' || reason === 'SIGHUP' ? reason : undefined;
  /** Exits with `code` after `ms` unless the process has ended by then; the timer holds nothing open. */
  const exitAfter = (ms: number, code: number, signal: NodeJS.Signals) => setTimeout(() => end(code, signal), ms).unref();

  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts === 1) controller.abort('SIGINT');
    else if (interrupts === 2) {
      abandon.abort('SIGINT');
      exitAfter(STOP_WRAP_UP_MS, ExitCode.interrupted, 'SIGINT');
    } else end(ExitCode.interrupted, 'SIGINT');
  };
  let terminating = false;
  const terminate = (reason: Exclude<StopReason, 'SIGINT'>) => {
    if (!controller.signal.aborted) controller.abort(reason);
    if (terminating) {
      // A second signal: abandon now rather than at the end of the grace period.
      if (!abandon.signal.aborted) abandon.abort(reason);
      return;
    }
    terminating = true;
    setTimeout(() => abandon.abort(reason), STOP_GRACE_MS).unref();
    exitAfter(STOP_GRACE_MS + STOP_WRAP_UP_MS, codeFor(reason), signalOf(reason)!);
  };
  const onTerm = () => terminate('SIGTERM');
  const onHup = () => terminate('SIGHUP');
  let outputClosed = false;
  // Each write to the closed pipe may report it; the first one counts.
  onOutputClosed = () => {
    if (outputClosed) return;
    outputClosed = true;
    terminate('EPIPE');
  };
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerm);
  process.on('SIGHUP', onHup);
  // The event loop emptied while the command still waits: nothing can ever wake it (a promise that
  // nothing settles). Node would exit 13 in silence; this says so and exits 1 (docs/exit-codes.md).
  // A part of the program that knows what it waits for listens too and ends the wait itself (a
  // JavaScript config file: src/config/locate.ts): then this one leaves it to that one.
  const onStalled = () => {
    if (finished || process.listenerCount('beforeExit') > 1) return;
    writeSync(2, 'error: unexpected failure: core was left waiting for something that can never happen\n');
    writeSync(2, 'hint: run again with CORE_DEBUG=1 for details, and report it if it persists\n');
    process.exit(ExitCode.internal);
  };
  process.on('beforeExit', onStalled);
  const code = await main({
    argv,
    // process.stdin is made on first use: building it (a file or pipe stream, and the modules behind
    // it) is work that a run reading nothing from standard input never needs.
    streams: {
      stdout: process.stdout,
      stderr: process.stderr,
      get stdin() {
        return process.stdin;
      },
    },
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    abandonSignal: abandon.signal,
    tuneHeapForBatch: () => heap.tuneForBatch(),
  });
  finished = true;
  process.exitCode = code;
  loader.save();
  process.off('SIGINT', onInterrupt);
  process.off('SIGTERM', onTerm);
  process.off('SIGHUP', onHup);
  process.off('beforeExit', onStalled);
  // The command is done. Whatever still holds the event loop open (a socket a library did not
  // close, a timer or an unsettled operation of a JavaScript config file, a file system call that
  // never returns) must not keep the process alive: once the output is written, it exits.
  let flushed = 0;
  const stoppedBy = controller.signal.aborted ? signalOf(controller.signal.reason) : undefined;
  const done = () => {
    flushed += 1;
    if (flushed === 2) setTimeout(() => end(code, stoppedBy), 100).unref();
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}
