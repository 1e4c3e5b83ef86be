/**
 * The bytes a kept value holds in V8's heap, as the event budget counts them (docs/sandbox.md,
 * "Memory"): a flat string holds one byte a character when every character is Latin-1, two
 * otherwise, plus its header; objects and arrays their slots; a Buffer its bytes. An estimate on the
 * high side, so the budget (`maxEventBytes`) bounds what is really held. Strings must be flat for
 * this to hold: parseJson makes them so (src/payload/json.ts).
 */

const STRING_HEADER = 16;
const OBJECT_HEADER = 24;
const PROPERTY = 16;
const SLOT = 8;
const BUFFER_HEADER = 96;

const beyondLatin1 = /[^\u0000-\u00ff]/;

export function stringBytes(value: string): number {
  return STRING_HEADER + value.length * (beyondLatin1.test(value) ? 2 : 1);
}

export function retainedBytes(root: unknown): number {
  let total = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') total += SLOT + stringBytes(value);
    else if (typeof value === 'bigint') total += SLOT + OBJECT_HEADER;
    else if (Buffer.isBuffer(value)) total += SLOT + BUFFER_HEADER + value.byteLength;
    else if (Array.isArray(value)) {
      total += OBJECT_HEADER;
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      total += OBJECT_HEADER;
      for (const item of Object.values(value)) {
        total += PROPERTY - SLOT;
        pending.push(item);
      }
    } else total += SLOT;
  }
  return total;
}
