import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSandboxFlags } from '../../src/platform/flags.js';
import { checkToken } from '../../src/config/token.js';
import { createContext } from '../../src/context.js';
import { UsageError } from '../../src/errors.js';
import { slug } from '../../src/prompts/parts.js';
import { readTextFile } from '../../src/input/files.js';
import { joinUrl } from '../../src/send/request.js';
import { trimEndOf, trimLineBreaks, trimOf, trimStartOf } from '../../src/text/trim.js';
import { memoryStreams } from '../helpers/streams.js';

/**
 * Trimming the user's own input is linear (src/text.ts): trailing slashes of the base URL, the
 * spaces around a token, the dashes of a slug, the line breaks at the end of a text file, the
 * `--fail` of the sandbox. Each was a regular expression such as /\/+$/ that V8 tries at every
 * position, quadratic on a long run followed by another character: 4.7 s for a base URL of 60,000
 * slashes and a letter. The inputs here are 100,000 characters long, which took minutes that way;
 * only results are asserted, never a time (bench/trim.mjs measures it).
 */

const LONG = 100_000;

/** A run of `char` with something before and after it, the shapes a quadratic pattern chokes on. */
const runs = (chars: string) =>
  fc.record({
    before: fc.string({ maxLength: 5 }),
    run: fc.integer({ min: 0, max: LONG }),
    char: fc.constantFrom(...chars),
    after: fc.oneof(fc.constant(''), fc.string({ maxLength: 5 })),
  });

describe('trimming runs of characters (src/text.ts)', () => {
  it.each([
    ['trimEndOf', trimEndOf, (text: string, chars: string) => text.replace(new RegExp(`[${chars}]*$`), '')],
    ['trimStartOf', trimStartOf, (text: string, chars: string) => text.replace(new RegExp(`^[${chars}]*`), '')],
    [
      'trimOf',
      trimOf,
      (text: string, chars: string) => text.replace(new RegExp(`^[${chars}]*`), '').replace(new RegExp(`[${chars}]*$`), ''),
    ],
  ])('%s gives what the regular expression gives, on short inputs of every shape', (_name, trim, reference) => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('/', '-', ' ', 'a', '\u00e9'), maxLength: 12 }), (text) => {
        expect(trim(text, '/-')).toBe(reference(text, '/\\-'));
      }),
      { numRuns: 500 },
    );
  });

  it('trimEndOf and trimOf leave no trimmed character at the end, and remove only those, on runs of 100,000', () => {
    fc.assert(
      fc.property(runs('/- '), ({ before, run, char, after }) => {
        const text = `${before}${char.repeat(run)}${after}`;
        const end = trimEndOf(text, char);
        expect(text.startsWith(end)).toBe(true);
        expect(end.endsWith(char)).toBe(false);
        expect([...text.slice(end.length)].every((c) => c === char)).toBe(true);
        const both = trimOf(text, char);
        expect(both.startsWith(char) || both.endsWith(char)).toBe(false);
        expect(text.includes(both)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it.each([
    ['\n', ''],
    ['a\n\n', 'a'],
    ['a\r\n\r\n', 'a'],
    ['a\r\n\n\r\n', 'a'],
    ['a\r', 'a\r'],
    ['a\r\r\n', 'a\r'],
    ['a\n\r', 'a\n\r'],
    ['\n\na', '\n\na'],
  ])('trimLineBreaks(%j) is %j, as /(\\r?\\n)+$/ gives', (text, expected) => {
    expect(trimLineBreaks(text)).toBe(expected);
    expect(text.replace(/(\r?\n)+$/, '')).toBe(expected);
  });
});

describe('the places that trim the user’s input, with runs of 100,000 characters', () => {
  it.each([
    ['slashes then a letter', `https://chat.example.com${'/'.repeat(LONG)}a`, `https://chat.example.com${'/'.repeat(LONG)}a/api`],
    ['slashes at the end', `https://chat.example.com${'/'.repeat(LONG)}`, 'https://chat.example.com/api'],
  ])('the base URL: %s', (_name, base, expected) => {
    expect(joinUrl(base, '/api')).toBe(expected);
  });

  it.each<[string, string, ReturnType<typeof checkToken>]>([
    ['spaces around it', `${' '.repeat(LONG)}tok_12345${' '.repeat(LONG)}`, { token: 'tok_12345' }],
    ['spaces inside it', `a${' '.repeat(LONG)}b`, { problem: 'holds white space' }],
    ['only spaces', ' '.repeat(LONG), { problem: 'is empty' }],
  ])('a token with %s', (_name, raw, expected) => {
    expect(checkToken(raw)).toEqual(expected);
  });

  it.each([
    [`Track${'-'.repeat(LONG)}an order`, 'track-an-order'],
    [`${'-'.repeat(LONG)}x${'-'.repeat(LONG)}`, 'x'],
    ['-'.repeat(LONG), 'item'],
  ])('a composer item slug of %#', (title, expected) => {
    expect(slug(title)).toBe(expected);
  });

  it('a text file whose line breaks come before its last line keeps them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-trim-'));
    const file = join(dir, 'text.md');
    writeFileSync(file, `a${'\n'.repeat(LONG)}b${'\r\n'.repeat(LONG)}`);
    const ctx = createContext({ streams: memoryStreams().streams, env: {}, cwd: dir });
    expect(await readTextFile(file, '--markdown-file', ctx)).toBe(`a${'\n'.repeat(LONG)}b`);
  });

  it.each([
    [`503:0.2${' '.repeat(LONG)}x`, null],
    [`503${' '.repeat(LONG)}:${' '.repeat(LONG)}25${' '.repeat(LONG)}%${' '.repeat(LONG)}`, { status: 503, rate: 0.25 }],
    [' 503:0.5 ', { status: 503, rate: 0.5 }],
  ])('the sandbox --fail %#', async (fail, expected) => {
    const parsed = parseSandboxFlags({ fail }, tmpdir());
    if (expected === null) await expect(parsed).rejects.toBeInstanceOf(UsageError);
    else expect((await parsed).fail).toEqual(expected);
  });
});
