import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { PayloadError } from '../errors.js';
import { formatBytes } from '../input/bytes.js';

/**
 * Reading a file line by line with memory that does not grow with the file: the file stream is
 * pulled one chunk at a time by an async generator, so nothing is read ahead of the consumer. (The
 * async iterator of node:readline buffers lines while the consumer waits, which is what a batch
 * sender does between requests.)
 */

export interface Line {
  /** 1-based, as editors count. */
  number: number;
  /** The line without its end (`\n` or `\r\n`). */
  text: string;
}

/** One reason is a few hundred bytes; a line past this is not one, and holding it would cost memory. */
export const MAX_LINE_BYTES = 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/**
 * A file by its path, or by an open handle (the private copy of standard input, whose name is already
 * removed: src/batch/source.ts). A handle is read from its start each time, and left open.
 */
export type FileRef = string | { handle: FileHandle };

/** The file's bytes from the first, in chunks; `close()` stops reading (a handle stays open). */
export interface Chunks {
  chunks: AsyncIterable<Buffer>;
  close(): void;
}

export function openChunks(file: FileRef, chunkBytes = CHUNK_BYTES): Chunks {
  if (typeof file === 'string') {
    const stream = createReadStream(file, { highWaterMark: chunkBytes });
    return { chunks: stream as AsyncIterable<Buffer>, close: () => stream.destroy() };
  }
  // Positional reads, not a stream over the descriptor: destroying a file stream closes its
  // descriptor, and this one is read again.
  let stopped = false;
  async function* read(handle: FileHandle): AsyncGenerator<Buffer> {
    let position = 0;
    while (!stopped) {
      const buffer = Buffer.allocUnsafe(chunkBytes);
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  }
  return {
    chunks: read(file.handle),
    close: () => {
      stopped = true;
    },
  };
}

/**
 * Yields every line of a file, blank ones included, decoding UTF-8 strictly (a file with invalid
 * bytes is rejected, not silently mangled) and dropping a leading byte-order mark. Breaking out of
 * the loop closes the file.
 */
export async function* readLines(file: FileRef, name: string, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  const { chunks, close } = openChunks(file);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let pending = '';
  let number = 0;
  let first = true;
  const decode = (chunk?: Buffer): string => {
    try {
      return chunk === undefined ? decoder.decode() : decoder.decode(chunk, { stream: true });
    } catch {
      // Lines already read, the one in progress, and the complete lines of this chunk before the bad bytes.
      const line = number + 1 + (chunk === undefined ? 0 : validLinesBefore(chunk));
      throw new PayloadError(`${name} is not valid UTF-8 text (the bad bytes are on line ${line})`, [], {
        hint: 'save the file as UTF-8',
      });
    }
  };
  const tooLong = (line: number) =>
    new PayloadError(`${name}: line ${line} is longer than ${formatBytes(maxLineBytes)}; one reason is far smaller`, [], {
      hint: 'write one reason a line (NDJSON), or a JSON array of reasons',
    });
  try {
    for await (const chunk of chunks) {
      let text = decode(chunk);
      if (first) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = text === '';
      }
      pending += text;
      let start = 0;
      for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
        number += 1;
        // An empty line has the \n before it (or nothing) where a \r would be: it is never cut.
        const line = pending.charCodeAt(end - 1) === 13 ? pending.slice(start, end - 1) : pending.slice(start, end);
        start = end + 1;
        if (line.length > maxLineBytes) throw tooLong(number);
        yield { number, text: line };
      }
      pending = pending.slice(start);
      // A line's length in UTF-16 units never exceeds its size in UTF-8 bytes, so no line within the
      // limit is refused (one more unit: the \r of a \r\n end cut by the chunk's end); and memory
      // stays bounded whatever the file holds.
      if (pending.length > maxLineBytes + 1) throw tooLong(number + 1);
    }
    pending += decode();
    if (pending !== '') {
      number += 1;
      const line = pending.endsWith('\r') ? pending.slice(0, -1) : pending;
      if (line.length > maxLineBytes) throw tooLong(number);
      yield { number, text: line };
    }
  } finally {
    close();
  }
}

/**
 * How many newline-ended pieces of a chunk are valid UTF-8 before the first that is not. A newline
 * byte never occurs inside a multi-byte character, so the pieces can be checked one by one; the
 * first piece may begin with the continuation bytes of a character split across chunks, skipped here.
 */
function validLinesBefore(chunk: Buffer): number {
  let start = 0;
  // Past the end, chunk[start] is undefined, which is no continuation byte: the loop stops there.
  while (start < 3 && (chunk[start]! & 0xc0) === 0x80) start += 1;
  let count = 0;
  for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
    if (!isUtf8(chunk.subarray(start, end))) return count;
    count += 1;
    start = end + 1;
  }
  return count;
}
