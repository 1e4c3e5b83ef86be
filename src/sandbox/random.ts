import { randomFillSync } from 'node:crypto';

/**
 * Random identifiers for the sandbox's records (session ids, delivery ids): bytes from the system's
 * cryptographic source, as `randomBytes` gives them, but drawn 4 KB at a time and handed out in
 * slices, each byte once. `randomBytes(n)` asks the source for every id: a few ids an exchange, which
 * a CPU profile of a loaded sandbox put at ~13 µs each on Node 20 (whole runs could not tell the
 * difference: docs/performance.md, "Driving a bot, fifth round"). Node's own `randomUUID` is buffered
 * the same way.
 */
export const POOL_BYTES = 4096;

/** `randomText` over another source of random bytes (`fill` fills the buffer it is given), for tests. */
export function randomTextFrom(fill: (pool: Buffer) => void): (bytes: number, encoding: 'hex' | 'base64url') => string {
  let pool: Buffer | undefined;
  let used = POOL_BYTES;
  return (bytes, encoding) => {
    if (!Number.isInteger(bytes) || bytes < 1 || bytes > POOL_BYTES)
      throw new RangeError(`randomText: ${bytes} bytes (1 to ${POOL_BYTES})`);
    if (used + bytes > POOL_BYTES) {
      pool ??= Buffer.allocUnsafe(POOL_BYTES);
      fill(pool);
      used = 0;
    }
    const text = pool!.toString(encoding, used, used + bytes);
    used += bytes;
    return text;
  };
}

/**
 * `bytes` random bytes (at most 4,096), written in `encoding`. node:crypto is reached on the first
 * call, not when this module loads (a dry run loads it and never draws an id).
 */
export const randomText = randomTextFrom((pool) => randomFillSync(pool));
