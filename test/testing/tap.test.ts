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
