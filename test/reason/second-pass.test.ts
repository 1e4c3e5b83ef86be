import { describe, expect, it } from 'vitest';
import { checkBatch, type ItemSpec } from '../../src/batch/check.js';
import { sendBatch } from '../../src/batch/send.js';
import type { BatchItem, BatchSource } from '../../src/batch/source.js';
import type { RequestResult } from '../../src/output/result.js';
import { parseJson, stringifyJson, validateReason } from '../../src/payload/index.js';

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
