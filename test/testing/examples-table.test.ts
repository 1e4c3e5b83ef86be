import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTests } from '../../src/testing/load.js';

/**
 * A large examples table (docs/testing-bots.md, "Examples") loads in time linear in its rows: each
 * row's name was compared with every other row's to tell whether it is unique, so 40,000 rows took
 * 10.6 s and 200,000 about 270 s (and a signal waited until loading ended). Here 200,000 rows load
 * within the suite's hang limit, which the quadratic loading passed; bench/examples-load.mjs measures
 * the cost per row against a small table's.
 */

describe('an examples table of 200,000 rows', () => {
  it('loads every row, each name told apart by its values only where rows share it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-examples-'));
    const rows = 200_000;
    // Every row's word is unique but for the last two, which share one.
    const words = Array.from({ length: rows }, (_, i) => (i === rows - 1 ? `w${rows - 2}` : `w${i}`));
    writeFileSync(
      join(folder, 'big.yaml'),
      // Short rows: 200,000 of them fit in a test file's 5 MB.
      `name: echo \${w}\nexamples:\n${words.map((word) => `  - {w: ${word}}`).join('\n')}\nsteps:\n  - customer: \${w}\n  - bot: {text: "You said: \${w}"}\n`,
    );
    const [file] = await loadTests(['big.yaml'], folder).catch((error: { problems?: unknown }) => {
      throw new Error(JSON.stringify(error.problems) ?? String(error), { cause: error });
    });
    expect(file!.conversations).toHaveLength(rows);
    expect(file!.conversations[0]!.name).toBe('echo w0');
    expect(file!.conversations[rows - 3]!.name).toBe(`echo w${rows - 3}`);
    expect(file!.conversations[rows - 2]!.name).toBe(`echo w${rows - 2} (w=w${rows - 2})`);
    expect(file!.conversations[rows - 1]!.name).toBe(`echo w${rows - 2} (w=w${rows - 2})`);
  });
});
