#!/usr/bin/env node
import { writeSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ caches compiled code between runs; older releases lack the call, and that is fine.
(module as { enableCompileCache?: () => void }).enableCompileCache?.();

// A reader that stops early (`core reply --help | head -1`) closes the pipe. Once the command has
// finished that is no error and its own exit code stands; while it still runs, what it would have
// printed is lost, so the exit code says so (141, as for a process ended by SIGPIPE), never 0.
// Any other failure to write (a full disk) ends with one line, not a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 141);
    try {
      writeSync(2, `error: cannot write the output (${error.code ?? error.message})\n`);
    } catch {
      // stderr is gone too: the exit code is all that is left.
    }
    process.exit(1);
  });
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  // The fast path: no commander, no config, nothing else loaded.
  const { version } = await import('./version.js');
  process.stdout.write(`${version()}\n`);
} else {
  const { main } = await import('./main.js');
  const controller = new AbortController();
  const abandon = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    // The first Ctrl-C starts nothing new and lets what is in flight finish; the second abandons
    // what is in flight (a batch still reports every item); a third stops at once.
    if (interrupts === 1) controller.abort(signal);
    else if (interrupts === 2) abandon.abort(signal);
    else process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.exitCode = await main({
    argv,
    streams: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
    abandonSignal: abandon.signal,
  });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
}
