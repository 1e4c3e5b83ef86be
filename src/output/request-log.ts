import type { Context } from '../context.js';
import { createHold } from './hold.js';
import { printable } from './terminal.js';

/**
 * The request log of `core sandbox` and `core bridge` on stderr: a line for each request and each
 * webhook attempt. The lines are held and written together (within HOLD_MS of the first, or once
 * HOLD_BYTES have gathered: src/output/hold.ts), not one write each: stderr on a pipe or a file is
 * written synchronously, and a write a line was a measurable part of a busy server's time, and of
 * its reader's (docs/sandbox.md, "The log"). A warning writes the held lines first, so the order
 * is kept; `close` writes what is left, and so does the process's exit.
 */
export interface RequestLog {
  /** One log line (without its line break), made safe for a terminal. */
  line(text: string): void;
  /** A warning line, after the lines held before it. */
  warn(message: string): void;
  /** Writes what is held and writes every later line at once. */
  close(): void;
}

export function requestLog(ctx: Pick<Context, 'err' | 'warn'>, redact: (text: string) => string = (text) => text): RequestLog {
  const held = createHold((text) => ctx.err(text));
  held.start();
  const atExit = () => held.flush();
  process.once('exit', atExit);
  return {
    line: (text) => held.write(`${printable(redact(text))}\n`),
    warn: (message) => {
      held.flush();
      ctx.warn(message);
    },
    close: () => {
      process.off('exit', atExit);
      held.release();
    },
  };
}
