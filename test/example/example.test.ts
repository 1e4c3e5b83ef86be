import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runInProcess } from '../helpers/run.js';

/**
 * `core example bot [--lang node|python|typescript]`: the example bot of docs/examples/bot/, printed
 * exactly as the package ships it, and nothing else on stdout. test/package/pack.test.ts runs each,
 * as printed by the installed core, against `core check-bot`.
 */

describe('core example bot', () => {
  it.each([
    [[], 'bot.mjs'],
    [['--lang', 'node'], 'bot.mjs'],
    [['--lang', 'python'], 'bot.py'],
    [['--lang', 'typescript'], 'bot.ts'],
  ])('%j prints docs/examples/bot/%s exactly', async (args, file) => {
    const result = await runInProcess(['example', 'bot', ...args]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(readFileSync(join(repoRoot, 'docs', 'examples', 'bot', file), 'utf8'));
  });

  it('refuses a language it has no bot in, naming the ones it has (exit 2)', async () => {
    const result = await runInProcess(['example', 'bot', '--lang', 'ruby']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/argument 'ruby' is invalid\. Allowed choices are node, python, typescript/);
    expect(result.stdout).toBe('');
  });

  it('asks which example when none is named', async () => {
    const result = await runInProcess(['example']);
    expect(result.stdout + result.stderr).toMatch(/bot/);
  });
});
