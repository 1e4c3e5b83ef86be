import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readLines } from '../../src/batch/lines.js';
import { itemPath } from '../../src/batch/source.js';
import { tempFile } from './helpers.js';

/** The streaming line reader under NDJSON batches, and how item positions prefix field paths. */

async function linesOf(path: string, maxLineBytes?: number): Promise<Array<[number, string]>> {
  const out: Array<[number, string]> = [];
  for await (const line of readLines(path, 'input', maxLineBytes)) out.push([line.number, line.text]);
  return out;
}

describe('readLines', () => {
  it.each<[string, string | Buffer, Array<[number, string]>]>([
    [
      'lines ending in \\n',
      'a\nb\n',
      [
        [1, 'a'],
        [2, 'b'],
      ],
    ],
    [
      'a last line without an end',
      'a\nb',
      [
        [1, 'a'],
        [2, 'b'],
      ],
    ],
    [
      '\\r\\n ends',
      'a\r\nb\r\n',
      [
        [1, 'a'],
        [2, 'b'],
      ],
    ],
    [
      'blank lines, counted',
      'a\n\n\nb\n',
      [
        [1, 'a'],
        [2, ''],
        [3, ''],
        [4, 'b'],
      ],
    ],
    [
      'a byte-order mark, dropped',
      '\uFEFFa\nb\n',
      [
        [1, 'a'],
        [2, 'b'],
      ],
    ],
    ['an empty file', '', []],
    [
      'multi-byte characters',
      'Обед\n昼食\n',
      [
        [1, 'Обед'],
        [2, '昼食'],
      ],
    ],
  ])('reads %s', async (_name, content, expected) => {
    expect(await linesOf(tempFile('in.txt', typeof content === 'string' ? content : content.toString()))).toEqual(expected);
  });

  it('keeps lines and characters whole across its 64 KB chunks', async () => {
    // Lines of 1,000 bytes with a two-byte character and a \r\n end straddling every chunk boundary somewhere.
    const lines = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(5, '0')}${'é'.repeat(497)}`);
    const path = tempFile('big.txt', `${lines.join('\r\n')}\r\n`);
    const read = await linesOf(path);
    expect(read).toHaveLength(300);
    expect(read.map(([, text]) => text)).toEqual(lines);
  });

  it('refuses a file that is not UTF-8, naming the line', async () => {
    const path = tempFile('latin1.txt', '');
    writeFileSync(path, Buffer.from([0x61, 0x0a, 0x62, 0xe9, 0x0a]));
    await expect(linesOf(path)).rejects.toThrow('input is not valid UTF-8 text (the bad bytes are on line 2)');
  });

  it('refuses a line longer than the limit, naming it', async () => {
    const path = tempFile('long.txt', `short\n${'x'.repeat(200)}\n`);
    await expect(linesOf(path, 100)).rejects.toThrow(/input: line 2 is longer than 100 bytes/);
  });
});

describe('itemPath', () => {
  it.each<[Parameters<typeof itemPath>[0], string, string]>([
    [{ kind: 'line', line: 12 }, 'reasons[0].name', 'line 12: reasons[0].name'],
    [{ kind: 'line', line: 3 }, '', 'line 3'],
    [{ kind: 'index', index: 3 }, 'color', '[3].color'],
    [{ kind: 'index', index: 3 }, '', '[3]'],
    [{ kind: 'whole' }, 'code', 'code'],
  ])('prefixes %j to "%s"', (position, path, expected) => {
    expect(itemPath(position, path)).toBe(expected);
  });
});
