import fc from 'fast-check';
import { Parser as TapParser } from 'tap-parser';
import { describe, expect, it } from 'vitest';
import { tapDocument } from '../../src/testing/tap.js';

/** The TAP 14 document both `core test` and `core check-bot` write (src/testing/tap.ts). */
describe('tapDocument', () => {
  it('writes the plan, a point per case, and a YAML block only where there is something in it', async () => {
    const text = await tapDocument(
      [
        { ok: true, description: 'a' },
        { ok: false, description: 'b', block: { message: 'it differs', expected: [1], received: [1] } },
        { ok: true, description: 'c', block: {} },
      ],
      null,
    );
    expect(text).toBe(
      'TAP version 14\n1..3\nok 1 - a\nnot ok 2 - b\n  ---\n  message: it differs\n  expected:\n    - 1\n  received:\n    - 1\n  ...\nok 3 - c\n',
    );
  });

  it.each([
    ['a # b', 'a \\# b'],
    ['a \\ b', 'a \\\\ b'],
    ['a\nb', 'a b'],
  ])('writes the description %j as %j, so that it is not read as a directive or cut', async (description, written) => {
    expect(await tapDocument([{ ok: true, description }], null)).toContain(`ok 1 - ${written}\n`);
  });

  it('bails out, in one line, instead of any point', async () => {
    expect(await tapDocument([{ ok: true, description: 'a' }], 'the bot could not\nbe reached')).toBe(
      'TAP version 14\nBail out! the bot could not be reached\n',
    );
  });
});

/** The document tap-parser reads back: the points it counts, and each point's name and diagnostic. */
async function parsed(text: string) {
  const points: Array<{ ok: boolean; name: string; diag: unknown }> = [];
  const parser = new TapParser();
  parser.on('assert', (point: { ok: boolean; name: string; diag: unknown }) => points.push(point));
  const summary = await new Promise<{ count: number; pass: number; fail: number; ok: boolean }>((resolve) => {
    parser.on('complete', resolve);
    parser.end(text);
  });
  return { summary, points };
}

// Every character a reader may take for the end of a line: TAP's own (\n, and \r before it), those
// JavaScript's `.` does not match (tap-parser reads lines with /^.*\r?\n/: \r, U+2028, U+2029), and
// the rest Unicode names as line breaks (U+000B, U+000C, U+0085).
const LINE_BREAKERS = ['\n', '\r', '\r\n', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029'];

describe('a TAP document with line breaks in what a bot or a test file wrote', () => {
  it.each(LINE_BREAKERS.map((breaker) => [JSON.stringify(breaker), breaker]))(
    'keeps one line for each point and its block whole with %s in a name, a message and a value',
    async (_name, breaker) => {
      const block = { message: `it${breaker}differs`, expected: { text: `a${breaker}b` }, [`key${breaker}`]: [`x${breaker}`] };
      const text = await tapDocument(
        [
          { ok: false, description: `order${breaker}status`, block },
          { ok: true, description: 'second' },
        ],
        null,
      );
      const { summary, points } = await parsed(text);
      expect(summary).toMatchObject({ count: 2, pass: 1, fail: 1 });
      expect(points.map((point) => point.name)).toEqual(['order status', 'second']);
      expect(points[0]!.diag).toEqual(block);
    },
  );

  it('is read back whole by tap-parser whatever the names and values hold', async () => {
    const anyText = fc.string({
      unit: fc.oneof(
        fc.constantFrom(...LINE_BREAKERS, '#', '\\', ' ', '-', ':', '"'),
        fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
      ),
      maxLength: 40,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ok: fc.boolean(), description: anyText, message: anyText }), { minLength: 1, maxLength: 8 }),
        async (cases) => {
          const text = await tapDocument(
            cases.map(({ ok, description, message }) => ({ ok, description, block: { message } })),
            null,
          );
          const { summary, points } = await parsed(text);
          expect(summary.count).toBe(cases.length);
          expect(summary.pass).toBe(cases.filter((c) => c.ok).length);
          expect(points.map((point) => point.diag)).toEqual(cases.map(({ message }) => ({ message })));
        },
      ),
      { numRuns: 100 },
    );
  });
});
