import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * A random (version 4) UUID, such as the answerId `core reply` makes when none is given.
 *
 * Read from the system's random source, /dev/urandom, where there is one: the same source Node's
 * crypto draws from, without loading node:crypto, which costs a reply ~2 ms of start-up (its dry
 * run loads nothing else of it). Elsewhere (Windows), or if it cannot be read, node:crypto makes it.
 */
export function randomId(source = '/dev/urandom'): string {
  const bytes = randomBytes16(source);
  if (bytes === undefined) return randomUUID();
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant 10 (RFC 9562)
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function randomBytes16(source: string): Buffer | undefined {
  if (process.platform === 'win32') return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(source, 'r');
    const bytes = Buffer.alloc(16);
    let read = 0;
    while (read < 16) {
      const n = readSync(fd, bytes, read, 16 - read, null);
      if (n === 0) return undefined;
      read += n;
    }
    return bytes;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
