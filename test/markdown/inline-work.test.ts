import fc from 'fast-check';
import { Lexer, type MarkedOptions } from 'marked';
import { describe, expect, it } from 'vitest';
import { inlineDelimiters, lexBounded, markdownLimits } from '../../src/markdown/bounds.js';
import { markdownToPlainText } from '../../src/markdown/plain-text.js';
import { markdownToSafeHtml } from '../../src/markdown/safe-html.js';

/**
 * The bound on the work of marked's inline reader (src/markdown/bounds.ts, `maxEmphasisWork`). The
 * reader walks a paragraph token by token; at each step it tries its rules on the rest of the
 * paragraph, and some (emphasis, strikethrough, code, links, tags) may scan all of it. So the work of a
 * paragraph is at most the sum, over its steps, of what is left of it when the step begins: that sum
 * is counted here, step by step, from marked's own reader (its first rule, `escape`, is tried at every
 * step). The bound counts delimiters times characters; it holds only if every place a step can begin
 * is a delimiter it counts. A delimiter it forgot (`~` was) lets a paragraph of many steps through
 * with no work counted: 1,999 lines of `~~a~` took 773 ms to read.
 *
 * The inputs are fuzzed over every ASCII punctuation character and the sequences marked reads as
 * markup (`www.`, `http://`, `mailto:`, a hard break, `<!--`, `](`), in runs repeated into the shapes
 * that make a reader quadratic; the property is checked for a fixed number of runs, not for a time.
 * bench/markdown.mjs measures the time at the bound.
 */

/** The steps marked's inline reader takes over `markdown`, and the sum of what each had left to read. */
function inlineSteps(markdown: string): { steps: number; scanned: number; counted: number; read: boolean } {
  const seen = { steps: 0, scanned: 0, counted: 0, depth: 0 };
  class Counting extends Lexer {
    constructor(options?: MarkedOptions) {
      super(options);
      // The tokenizer is private in marked's types; its escape rule is tried first at every step.
      const tokenizer = (this as unknown as { tokenizer: { escape: (src: string) => unknown } }).tokenizer;
      const escape = tokenizer.escape.bind(tokenizer);
      tokenizer.escape = (src: string) => {
        seen.steps++;
        seen.scanned += src.length;
        return escape(src);
      };
    }
    override inlineTokens(src: string, tokens?: Parameters<Lexer['inlineTokens']>[1]) {
      // A text of the inline queue (nested calls read part of one, already counted).
      if (seen.depth === 0) seen.counted += (inlineDelimiters(src) + 1) * src.length;
      seen.depth++;
      try {
        return super.inlineTokens(src, tokens);
      } finally {
        seen.depth--;
      }
    }
  }
  // Read whatever the work, to compare it with the count: the other bounds stay.
  const lexed = lexBounded(Counting as typeof Lexer, markdown, { ...markdownLimits, maxEmphasisWork: Number.POSITIVE_INFINITY });
  return { steps: seen.steps, scanned: seen.scanned, counted: seen.counted, read: lexed.ok };
}

const punctuation = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];
const sequences = ['www.', 'http://', 'https://', 'ftp://', 'mailto:', 'xmpp:', '  \n', '\n', ' ', '<!--', '-->', '](', '\\\n', 'a@b.co'];
const plain = ['a', 'b', 'Z', '1', 'é', '«', '“'];
const piece = fc.tuple(fc.constantFrom(...punctuation, ...sequences, ...plain), fc.integer({ min: 1, max: 4 }));
/** A unit of a few runs, repeated: `~~a~` 500 times, `[a](` 300 times, `*_\`a` 40 times... */
const hostile = fc
  .record({ unit: fc.array(piece, { minLength: 1, maxLength: 6 }), times: fc.integer({ min: 1, max: 600 }) })
  .map(({ unit, times }) =>
    unit
      .map(([text, n]) => text.repeat(n))
      .join('')
      .repeat(times)
      .slice(0, 3_000),
  );

/** Steps times what they had left is at most this many times delimiters (plus one) times characters. */
const FACTOR = 4;

describe('the inline work marked does is the work the bound counts', () => {
  it('for any text over every delimiter, what the steps scan is within a constant of the count (fuzzed)', () => {
    fc.assert(
      fc.property(hostile, (markdown) => {
        const { scanned, counted, read } = inlineSteps(markdown);
        if (!read) return; // past another bound (lines, nesting): never read
        expect(scanned).toBeLessThanOrEqual(FACTOR * counted);
      }),
      { numRuns: 400 },
    );
  });

  it.each([
    ['~~a~ lines', '~~a~\n'],
    ['~~a~', '~~a~'],
    ['`a', '`a'],
    ['[a', '[a'],
    ['<a', '<a'],
    ['!a', '!a'],
    ['\\a', '\\a'],
    ['a@a ', 'a@a '],
    ['http://a ', 'http://a '],
    ['hard breaks', 'a  \n'],
    ['_a', '_a'],
  ])('%s repeated: the steps are counted', (_, unit) => {
    const { steps, scanned, counted } = inlineSteps(unit.repeat(400));
    expect(steps).toBeGreaterThan(300);
    expect(scanned).toBeLessThanOrEqual(FACTOR * counted);
  });
});

describe('a paragraph of many delimiters of any kind is past the bound', () => {
  it('1,999 lines of ~~a~ (within every other bound) is shown as written and refused as plain text', async () => {
    const markdown = '~~a~\n'.repeat(1_999);
    const lexed = lexBounded(Lexer, markdown);
    expect(lexed).toMatchObject({ ok: false, reason: expect.stringMatching(/inline delimiters .* in 9,994 characters of one paragraph/) });
    expect(await markdownToSafeHtml(markdown)).toMatch(/^<p><em>Shown as written, not as Markdown: /);
    await expect(markdownToPlainText(markdown)).rejects.toThrow(/inline delimiters/);
  });

  it.each([['~~a~\n'], ['`a'], ['[a'], ['!a'], ['<a'], ['_a']])('%j: at the bound it is read, one past it it is not', (unit) => {
    const per = inlineDelimiters(unit);
    // n units: n * per delimiters in n * length characters.
    const work = (n: number) => n * per * n * unit.length;
    let n = Math.floor(Math.sqrt(markdownLimits.maxEmphasisWork / (per * unit.length)));
    while (work(n + 1) <= markdownLimits.maxEmphasisWork) n++;
    expect(work(n)).toBeLessThanOrEqual(markdownLimits.maxEmphasisWork);
    expect(work(n + 1)).toBeGreaterThan(markdownLimits.maxEmphasisWork);
    // A trailing line break is no part of the paragraph's text.
    const text = (k: number) => unit.repeat(k).replace(/\n$/, '\nend');
    expect(lexBounded(Lexer, text(n - 1)).ok).toBe(true);
    expect(lexBounded(Lexer, text(n + 1)).ok).toBe(false);
  });
});
