import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { PayloadError } from '../errors.js';
import { formatBytes } from '../send/input.js';

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
 * Yields every line of a file, blank ones included, decoding UTF-8 strictly (a file with invalid
 * bytes is rejected, not silently mangled) and dropping a leading byte-order mark. Breaking out of
 * the loop closes the file.
 */
export async function* readLines(path: string, name: string, maxLineBytes = MAX_LINE_BYTES): AsyncGenerator<Line> {
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
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
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let text = decode(chunk);
      if (first) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        first = text === '';
      }
      pending += text;
      let start = 0;
      for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
        number += 1;
        const line = pending.charCodeAt(end - 1) === 13 && end > start ? pending.slice(start, end - 1) : pending.slice(start, end);
        start = end + 1;
        if (line.length > maxLineBytes) throw tooLong(number);
        yield { number, text: line };
      }
      pending = pending.slice(start);
      // A line's length in UTF-16 units never exceeds its size in UTF-8 bytes, so no line within the
      // limit is refused; and memory stays bounded whatever the file holds.
      if (pending.length > maxLineBytes) throw tooLong(number + 1);
    }
    pending += decode();
    if (pending !== '') {
      number += 1;
      if (pending.length > maxLineBytes) throw tooLong(number);
      yield { number, text: pending.endsWith('\r') ? pending.slice(0, -1) : pending };
    }
  } finally {
    stream.destroy();
  }
}

/**
 * How many newline-ended pieces of a chunk are valid UTF-8 before the first that is not. A newline
 * byte never occurs inside a multi-byte character, so the pieces can be checked one by one; the
 * first piece may begin with the continuation bytes of a character split across chunks, skipped here.
 */
function validLinesBefore(chunk: Buffer): number {
  let start = 0;
  while (start < 3 && start < chunk.length && (chunk[start]! & 0xc0) === 0x80) start += 1;
  let count = 0;
  for (let end = chunk.indexOf(10, start); end !== -1; end = chunk.indexOf(10, start)) {
    if (!isUtf8(chunk.subarray(start, end))) return count;
    count += 1;
    start = end + 1;
  }
  return count;
}
