import { writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBatch, type ItemSpec } from '../../src/batch/check.js';
import { sendBatch } from '../../src/batch/send.js';
import { KEPT_NDJSON_BYTES, openSource, type BatchItem, type BatchSource } from '../../src/batch/source.js';
import { createContext } from '../../src/context.js';
import type { RequestResult } from '../../src/output/result.js';
import { parseJson, stringifyJson, validateReason } from '../../src/payload/index.js';
import { memoryStreams } from '../helpers/streams.js';
import { tempFile } from './helpers.js';

/**
 * The second pass of a batch runs the checks again only on a line that is not, byte for byte and at
 * the same place, one the first pass accepted; a line changed in between is checked in full, and
 * not sent when it no longer passes (docs/reasons.md; docs/performance.md, "Batches").
 */

const line = (code: string, name = `Reason ${code}`) => JSON.stringify({ code, reasons: [{ locale: 'en', name }] });

/** NDJSON lines read as the source reads them; each reading gives the next list of lines. */
function changingSource(...readings: string[][]): BatchSource {
  let reading = 0;
  return {
    name: 'reasons.ndjson',
    kind: 'ndjson',
    async *items() {
      const lines = readings[Math.min(reading, readings.length - 1)]!;
      reading += 1;
      for (const [index, text] of lines.entries()) {
        const item: BatchItem = { position: { kind: 'line', line: index + 1 }, value: parseJson(text), text };
        yield item;
      }
    },
    close: async () => {},
  };
}

async function runBoth(source: BatchSource) {
  const validated: string[] = [];
  const spec: ItemSpec<unknown> = {
    prepare: (value) => value,
    validate: (payload) => {
      validated.push(stringifyJson(payload));
      return validateReason(payload);
    },
    accepted: (payload) => payload,
    keyOf: (payload) => (payload as { code?: string }).code,
  };
  const summary = await checkBatch(source, spec, { signal: new AbortController().signal, keyName: 'code' });
  expect(summary.problemCount).toBe(0);
  const checkedFirst = validated.length;
  const sent: string[] = [];
  const results: RequestResult[] = [];
  const base = { method: 'PUT', url: 'http://127.0.0.1/api/v1/inactivity/reasons', requestId: null, durationMs: null, error: null };
  await sendBatch(source, {
    ...spec,
    concurrency: 2,
    failFast: false,
    signal: new AbortController().signal,
    checkedLines: summary.accepted,
    send: async (value, code) => {
      sent.push(stringifyJson(value));
      return { ...base, ok: true, status: 200, ...(code !== undefined ? { code } : {}) };
    },
    localResult: (code, why) => ({
      ...base,
      ok: false,
      status: null,
      ...(code !== undefined ? { code } : {}),
      ...('problems' in why ? { validationErrors: why.problems } : {}),
    }),
    onResult: (result) => results.push(result),
  });
  return { sent, results, checkedAgain: validated.slice(checkedFirst) };
}

describe('the second pass of a batch', () => {
  it('sends unchanged lines without running the checks on them again', async () => {
    const lines = [line('A'), line('B'), line('C')];
    const { sent, checkedAgain } = await runBoth(changingSource(lines));
    expect(sent).toEqual(lines);
    expect(checkedAgain).toEqual([]);
  });

  it.each<[string, string[], string[], string[], string[]]>([
    [
      'a line changed to one that no longer passes is refused, not sent',
      [line('A'), line('B'), line('C')],
      [line('A'), line('B', 'x'.repeat(51)), line('C')],
      [line('A'), line('C')],
      ['B'],
    ],
    [
      'a line changed to another valid reason is checked again, then sent as it now is',
      [line('A'), line('B'), line('C')],
      [line('A'), line('B', 'Renamed'), line('C')],
      [line('A'), line('B', 'Renamed'), line('C')],
      [],
    ],
    [
      'a line removed before others: every line after it is checked again',
      [line('A'), line('B'), line('C')],
      [line('B'), line('C')],
      [line('B'), line('C')],
      [],
    ],
    ['a line added at the end is checked, and refused when invalid', [line('A')], [line('A'), line('', 'Empty code')], [line('A')], ['']],
  ])('%s', async (_, first, second, expectSent, expectRefused) => {
    const { sent, results, checkedAgain } = await runBoth(changingSource(first, second));
    expect(sent).toEqual(expectSent);
    expect(results.filter((result) => result.validationErrors !== undefined).map((result) => result.code)).toEqual(expectRefused);
    // Exactly the lines not accepted at their place by the first pass were checked again.
    expect(checkedAgain).toEqual(second.filter((text, index) => first[index] !== text));
  });
});

/** A source whose second reading gives the first reading's items as a kept source does (no text, `kept`). */
function keptSource(lines: string[]): BatchSource {
  let read = false;
  return {
    name: 'reasons.ndjson',
    kind: 'ndjson',
    async *items() {
      for (const [index, text] of lines.entries()) {
        const position = { kind: 'line', line: index + 1 } as const;
        yield read ? { position, value: parseJson(text), kept: true } : { position, value: parseJson(text), text };
      }
      read = true;
    },
    close: async () => {},
  };
}

/** Lines of NDJSON whose lengths (ends left out) add up to exactly `total` characters. */
function linesOf(total: number): string[] {
  const lines: string[] = [];
  let left = total;
  for (let i = 0; left > 0; i += 1) {
    const bare = JSON.stringify({ code: `C${i}`, pad: '' });
    const length = Math.min(left, 4096);
    // A line shorter than a bare object takes the rest of the last one.
    if (length < bare.length + 16) {
      const last = lines.pop()!;
      const object = JSON.parse(last) as { code: string; pad: string };
      object.pad += 'x'.repeat(length);
      lines.push(JSON.stringify(object));
      break;
    }
    lines.push(JSON.stringify({ code: `C${i}`, pad: 'x'.repeat(length - bare.length) }));
    left -= length;
  }
  expect(lines.reduce((sum, text) => sum + text.length, 0)).toBe(total);
  return lines;
}

async function readAll(source: BatchSource, stopAfter = Infinity): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  for await (const item of source.items()) {
    items.push(item);
    if (items.length >= stopAfter) break;
  }
  return items;
}

describe('a small NDJSON file, read from the file once; a larger file, from a copy made at the start (src/batch/source.ts, KEPT_NDJSON_BYTES)', () => {
  const ctx = createContext({ streams: memoryStreams().streams, env: {}, cwd: '/' });
  /** Opens a file of `lines`, reads it once (or `stopAfter` items of it), rewrites it, reads again. */
  async function twice(lines: string[], stopAfter = Infinity) {
    const path = tempFile('reasons.ndjson', `${lines.join('\n')}\n`);
    const source = await openSource(path, { ...ctx, cwd: dirname(path) });
    const first = await readAll(source, stopAfter);
    writeFileSync(path, `${line('CHANGED')}\n`);
    const second = await readAll(source);
    await source.close();
    return { first, second };
  }

  it.each([
    [KEPT_NDJSON_BYTES, true],
    [KEPT_NDJSON_BYTES + 1, false],
  ])("lines adding up to %d characters: the second pass takes the first pass's items: %s", async (total, kept) => {
    const lines = linesOf(total);
    const { first, second } = await twice(lines);
    expect(first.map((item) => item.text)).toEqual(lines);
    if (kept) {
      expect(second.map((item) => item.value)).toEqual(first.map((item) => item.value));
      expect(second.every((item) => item.kept === true && item.text === undefined)).toBe(true);
    } else {
      // Read again, from the copy made at the start: the file as the first pass read it, not as changed since.
      expect(second.map((item) => item.text)).toEqual(lines);
      expect(second.some((item) => item.kept === true)).toBe(false);
    }
  });

  it('reads a JSON array larger than that from the copy made at the start too, not the file as changed since', async () => {
    const items = linesOf(KEPT_NDJSON_BYTES + 1);
    const path = tempFile('reasons.json', `[${items.join(',\n')}]\n`);
    const source = await openSource(path, { ...ctx, cwd: dirname(path) });
    const first = await readAll(source);
    writeFileSync(path, `[${line('CHANGED')}]\n`);
    const second = await readAll(source);
    await source.close();
    expect(first).toHaveLength(items.length);
    expect(second.map((item) => item.value)).toEqual(first.map((item) => item.value));
  });

  it('keeps nothing from a pass that stopped before the end: the next reads the file', async () => {
    const { first, second } = await twice([line('A'), line('B'), line('C')], 1);
    expect(first).toHaveLength(1);
    expect(second.map((item) => item.text)).toEqual([line('CHANGED')]);
  });

  it('sends the kept items without running the checks on them again', async () => {
    const lines = [line('A'), line('B'), line('C')];
    const { sent, checkedAgain } = await runBoth(keptSource(lines));
    expect(sent).toEqual(lines);
    expect(checkedAgain).toEqual([]);
  });
});
