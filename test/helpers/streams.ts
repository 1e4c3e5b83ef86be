import { PassThrough, Writable } from 'node:stream';

/** Standard streams in memory, for main() or a context: stdin to write to, stdout and stderr recorded. */
export interface MemoryStreams {
  streams: { stdin: PassThrough & { isTTY?: boolean }; stdout: Writable; stderr: Writable };
  stdout(): string;
  stderr(): string;
}

export interface MemoryStreamsInit {
  /** Pretend standard input is a terminal. */
  stdinIsTTY?: boolean;
  /** Told of standard output as it grows (all of it so far). */
  onStdout?: (text: string) => void;
  /** Told of standard error as it grows (all of it so far). */
  onStderr?: (text: string) => void;
}

/**
 * Streams whose output is recorded synchronously, so it is all there as soon as the run returns.
 * Standard input is left open: end it (`streams.stdin.end(text)`) or leave it an idle pipe.
 */
export function memoryStreams(init: MemoryStreamsInit = {}): MemoryStreams {
  let out = '';
  let err = '';
  const recorder = (record: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        record(chunk.toString());
        done();
      },
    });
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (init.stdinIsTTY) stdin.isTTY = true;
  return {
    streams: {
      stdin,
      stdout: recorder((text) => {
        out += text;
        init.onStdout?.(out);
      }),
      stderr: recorder((text) => {
        err += text;
        init.onStderr?.(err);
      }),
    },
    stdout: () => out,
    stderr: () => err,
  };
}
