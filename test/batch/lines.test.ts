import { mkdtempSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, openChunks, readLines, type FileRef } from '../../src/batch/lines.js';
import { PayloadError } from '../../src/errors.js';

/**
 * The line reader under NDJSON batches and --resume (src/batch/lines.ts): the limit on a line's
 * length on both of its sides, the line named for bytes that are not UTF-8 wherever they fall in
 * the file's 64 KB chunks, and a file read through an open handle as well as by its path.
 */

const CHUNK = 64 * 1024;

function fileOf(content: string | Buffer): string {
  const path = join(mkdtempSync(join(tmpdir(), 'core-lines-')), 'input.ndjson');
  writeFileSync(path, content);
  return path;
}

async function linesOf(file: FileRef, maxLineBytes?: number): Promise<Array<[number, string]>> {
  const out: Array<[number, string]> = [];
  for await (const line of readLines(file, 'input', maxLineBytes)) out.push([line.number, line.text]);
  return out;
}

async function refusalOf(file: FileRef, maxLineBytes?: number): Promise<PayloadError> {
  const error = await linesOf(file, maxLineBytes).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PayloadError);
  return error as PayloadError;
}

describe('readLines: the longest line', () => {
  it('is 1 MB by default', () => {
    expect(MAX_LINE_BYTES).toBe(1024 * 1024);
  });

  it.each<[string, string, Array<[number, string]> | number]>([
    [
      'a line of exactly the limit, with its end',
      `${'x'.repeat(10)}\nok\n`,
      [
        [1, 'x'.repeat(10)],
        [2, 'ok'],
      ],
    ],
    [
      'a line of exactly the limit with a \\r\\n end',
      `${'x'.repeat(10)}\r\nok\n`,
      [
        [1, 'x'.repeat(10)],
        [2, 'ok'],
      ],
    ],
    [
      'a last line of exactly the limit, without its end',
      `ok\n${'x'.repeat(10)}`,
      [
        [1, 'ok'],
        [2, 'x'.repeat(10)],
      ],
    ],
    [
      'a last line of exactly the limit with a lone \\r',
      `ok\n${'x'.repeat(10)}\r`,
      [
        [1, 'ok'],
        [2, 'x'.repeat(10)],
      ],
    ],
    ['a line one past the limit, with its end', `ok\n${'x'.repeat(11)}\nok\n`, 2],
    ['a last line one past the limit, without its end', `ok\n${'x'.repeat(11)}`, 2],
  ])('%s', async (_name, content, expected) => {
    if (typeof expected === 'number') {
      const error = await refusalOf(fileOf(content), 10);
      expect(error.message).toBe(`input: line ${expected} is longer than 10 bytes; one reason is far smaller`);
      expect(error.hint).toBe('write one reason a line (NDJSON), or a JSON array of reasons');
      expect(error.problems).toEqual([]);
    } else {
      expect(await linesOf(fileOf(content), 10)).toEqual(expected);
    }
  });

  it.each<[string, string, 'read' | 'not UTF-8' | 'too long']>([
    ['a line of the limit whose \\r\\n end is split across two chunks is read', `${'x'.repeat(10)}\r`, 'read'],
    ['a line one past the limit at the end of a chunk is not refused before it is whole', 'x'.repeat(11), 'not UTF-8'],
    ['a line two past the limit at the end of a chunk is refused at once', 'x'.repeat(12), 'too long'],
  ])('%s', async (_name, end, outcome) => {
    // Short lines fill the first chunk up to `end`; the second chunk starts with a line end, or with a byte that is not UTF-8.
    const fill = CHUNK - end.length;
    const filler = fill % 2 === 1 ? `aa\n${'a\n'.repeat((fill - 3) / 2)}` : 'a\n'.repeat(fill / 2);
    const line = filler.split('\n').length;
    const next = outcome === 'read' ? Buffer.from('\nok\n') : Buffer.from([0xff, 0x0a]);
    const path = fileOf(Buffer.concat([Buffer.from(`${filler}${end}`), next]));
    if (outcome === 'read') {
      expect((await linesOf(path, 10)).slice(line - 1)).toEqual([
        [line, 'x'.repeat(10)],
        [line + 1, 'ok'],
      ]);
      return;
    }
    const error = await refusalOf(path, 10);
    expect(error.message).toBe(
      outcome === 'not UTF-8'
        ? `input is not valid UTF-8 text (the bad bytes are on line ${line})`
        : `input: line ${line} is longer than 10 bytes; one reason is far smaller`,
    );
  });

  it('refuses a line past the limit as soon as a chunk shows it, without reading the rest of the file', async () => {
    // Bytes that are not UTF-8 after the first chunk: read, they would be the error.
    const error = await refusalOf(fileOf(Buffer.concat([Buffer.from('x'.repeat(CHUNK + 10)), Buffer.from([0xff, 0x0a])])), 100);
    expect(error.message).toBe('input: line 1 is longer than 100 bytes; one reason is far smaller');
  });

  it('names the line that grows past the limit after lines that did not', async () => {
    const error = await refusalOf(fileOf(Buffer.concat([Buffer.from(`a\nb\n${'x'.repeat(CHUNK)}`), Buffer.from([0xff])])), 100);
    expect(error.message).toBe('input: line 3 is longer than 100 bytes; one reason is far smaller');
  });
});

describe('readLines: bytes that are not UTF-8', () => {
  const bytes = (...parts: Array<string | number[]>) =>
    Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

  it.each<[string, Buffer, number]>([
    ['on the first line', bytes([0xff], '\nb\n'), 1],
    ['on a line after complete ones in the same chunk', bytes('a\nb\nc', [0xff], '\n'), 3],
    ['at the very end, a character cut short', bytes('a\nb', [0xc3]), 2],
    ['at the end, after a complete last line', bytes('a\n', [0xc3]), 2],
    ['in the second chunk, after a character split across the two', bytes('a'.repeat(CHUNK - 1), [0xc3, 0xa9], '\nok\n', [0xff], '\n'), 3],
    [
      'in the second chunk, on the line a four-byte character split across the two began',
      bytes('a'.repeat(CHUNK - 1), [0xf0, 0x9f, 0x98, 0x80, 0x80], '\nok\n'),
      1,
    ],
    ['in the second chunk, on a line that began in it', bytes('a\n', 'b'.repeat(CHUNK), '\nc\n', [0xff]), 4],
  ])('names the line of bad bytes %s', async (_name, content, line) => {
    const error = await refusalOf(fileOf(content));
    expect(error.message).toBe(`input is not valid UTF-8 text (the bad bytes are on line ${line})`);
    expect(error.hint).toBe('save the file as UTF-8');
    expect(error.problems).toEqual([]);
  });

  it('drops the byte-order mark at the start of the file, even written twice, and keeps one elsewhere', async () => {
    expect(await linesOf(fileOf('\uFEFF\uFEFFa\n\uFEFFb\uFEFF\n'))).toEqual([
      [1, 'a'],
      [2, '\uFEFFb\uFEFF'],
    ]);
  });

  it('keeps a byte-order mark that starts the second chunk, in the middle of a line', async () => {
    const text = `${'a'.repeat(CHUNK)}\uFEFFb`;
    expect(await linesOf(fileOf(`${text}\n`))).toEqual([[1, text]]);
  });

  it('reads a file that is a byte-order mark alone as empty', async () => {
    expect(await linesOf(fileOf('\uFEFF'))).toEqual([]);
  });
});

describe('readLines and openChunks through an open handle', () => {
  it('reads every line from the start, each time, however far the handle was read before', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `${i}:${'é'.repeat(200)}`);
    const handle = await open(fileOf(`${lines.join('\n')}\n`), 'r');
    try {
      const expected = lines.map((text, i): [number, string] => [i + 1, text]);
      expect(await linesOf({ handle })).toEqual(expected);
      await handle.read(Buffer.alloc(100), 0, 100, null);
      expect(await linesOf({ handle })).toEqual(expected);
    } finally {
      await handle.close();
    }
  });

  it('gives the bytes in chunks of the size asked for, and stops at close', async () => {
    const handle = await open(fileOf('abcdefghij'), 'r');
    try {
      const read = openChunks({ handle }, 4);
      const chunks: string[] = [];
      for await (const chunk of read.chunks) {
        chunks.push(chunk.toString());
        if (chunks.length === 2) read.close();
      }
      expect(chunks).toEqual(['abcd', 'efgh']);
      const all: string[] = [];
      for await (const chunk of openChunks({ handle }, 4).chunks) all.push(chunk.toString());
      expect(all).toEqual(['abcd', 'efgh', 'ij']);
    } finally {
      await handle.close();
    }
  });

  it('reads a file by its path in chunks of the size asked for', async () => {
    const chunks: string[] = [];
    for await (const chunk of openChunks(fileOf('abcdefghij'), 4).chunks) chunks.push(chunk.toString());
    expect(chunks).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('reads a file by its path in chunks of 64 KB by default', async () => {
    const sizes: number[] = [];
    for await (const chunk of openChunks(fileOf('x'.repeat(CHUNK + 1))).chunks) sizes.push(chunk.length);
    expect(sizes).toEqual([CHUNK, 1]);
  });

  it('leaves the handle open when a reading stops early', async () => {
    const handle = await open(fileOf('a\nb\nc\n'), 'r');
    try {
      for await (const line of readLines({ handle }, 'input')) if (line.number === 1) break;
      expect(await linesOf({ handle })).toEqual([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]);
    } finally {
      await handle.close();
    }
  });
});
