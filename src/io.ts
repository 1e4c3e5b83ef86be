import type { Readable, Writable } from 'node:stream';

/** The streams and environment an invocation runs with: the process's, or a test's in-memory ones. */

export type OutStream = Writable & { isTTY?: boolean; columns?: number };
export type InStream = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

export interface Streams {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
}

export type Env = Record<string, string | undefined>;
