import { Lexer } from 'marked';
import { describe, expect, it } from 'vitest';
import { lexBounded, MarkdownLimitError, markdownLimitProblem, markdownLimits } from '../../src/markdown/bounds.js';
import { markdownToPlainText, stripTags } from '../../src/markdown/plain-text.js';
import { asText, escapeHtml, markdownToSafeHtml } from '../../src/markdown/safe-html.js';

/**
 * The bounds of the Markdown that is read (src/markdown/bounds.ts, docs/security.md "Hostile input"):
 * hostile Markdown of any size up to the sandbox's 1 MB body is shown as written by the sandbox and
 * refused by the plain-text writer, at once; Markdown within the bounds is read as marked reads it.
 * "At once" is not timed here (bench/markdown.mjs measures it): before the bounds, the first rows
 * took from seconds to minutes or overflowed the stack, so a hang fails the test by its time limit.
 */

const { maxChars, maxDepth, maxLines, maxEmphasisWork } = markdownLimits;
const note = '<p><em>Shown as written, not as Markdown: ';

const hostile: { name: string; markdown: () => string; reason: RegExp }[] = [
  { name: '1 MB of *a', markdown: () => '*a'.repeat(500_000), reason: /1,000,000 characters, more than the 32,768 read/ },
  { name: '200 KB of *a', markdown: () => '*a'.repeat(100_000), reason: /more than the 32,768 read/ },
  { name: '* x 100k, a, * x 100k', markdown: () => `${'*'.repeat(100_000)}a${'*'.repeat(100_000)}`, reason: /characters/ },
  { name: '"> " x 100k', markdown: () => '> '.repeat(100_000), reason: /characters/ },
  { name: '"> " x 16k (within the size)', markdown: () => '> '.repeat(16_000), reason: /nested 16,000 levels deep at line 1/ },
  { name: '"- " x 10k', markdown: () => `${'- '.repeat(10_000)}a`, reason: /nested 10,000 levels deep/ },
  { name: '"1. " x 5k', markdown: () => `${'1. '.repeat(5_000)}a`, reason: /nested 5,000 levels deep/ },
  {
    name: 'a list nested 100 levels by indentation',
    markdown: () => Array.from({ length: 100 }, (_, i) => `${' '.repeat(2 * i)}- a`).join('\n'),
    reason: /nested/,
  },
  {
    name: '* x 5k, a, * x 5k (within the size)',
    markdown: () => `${'*'.repeat(5_000)}a${'*'.repeat(5_000)}`,
    reason: /inline delimiters|nested/,
  },
  {
    name: '_a x 8k in one paragraph',
    markdown: () => '_a'.repeat(8_000),
    reason: /8,000 inline delimiters \(such as \* _ `.*\) in 16,000 characters/,
  },
  { name: '8,000 list items', markdown: () => '- a\n'.repeat(8_000), reason: /more than 2,000 lines/ },
  { name: 'a list item continued over 8,000 lines', markdown: () => `- a\n${'  b\n'.repeat(8_000)}`, reason: /more than 2,000 lines/ },
];

describe('hostile Markdown', () => {
  it.each(hostile)('$name: the sandbox shows it as written, after a line saying why', async ({ markdown, reason }) => {
    const text = markdown();
    const html = await markdownToSafeHtml(text);
    expect(html.startsWith(note)).toBe(true);
    expect(html).toMatch(reason);
    // The text as written, escaped, cut to the characters read.
    const shown = escapeHtml(text.slice(0, maxChars)).replace(/\n/g, '<br>');
    expect(html).toContain(shown.slice(0, 1000));
  });

  it.each(hostile)('$name: the plain-text writer refuses it with the reason', async ({ markdown, reason }) => {
    const refused = await markdownToPlainText(markdown()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MarkdownLimitError);
    expect((refused as MarkdownLimitError).reason).toMatch(reason);
  });
});

describe('each bound, on both sides', () => {
  const prose = (n: number) => 'All good here. '.repeat(Math.ceil(n / 15)).slice(0, n);
  // k repetitions of `_a`: k delimiters in 2k characters, k * 2k of inline work.
  const underscores = Math.floor(Math.sqrt(maxEmphasisWork / 2));
  const cases = [
    { bound: 'maxChars', within: prose(maxChars), past: prose(maxChars + 1) },
    { bound: 'maxDepth (quotes)', within: `${'> '.repeat(maxDepth)}a`, past: `${'> '.repeat(maxDepth + 1)}a` },
    { bound: 'maxDepth (list markers)', within: `${'- '.repeat(maxDepth)}a`, past: `${'- '.repeat(maxDepth + 1)}a` },
    { bound: 'maxDepth (indentation)', within: `${' '.repeat(4 * (maxDepth - 1))}- a`, past: `${' '.repeat(4 * maxDepth)}- a` },
    { bound: 'maxLines (list items)', within: '- a\n'.repeat(maxLines), past: '- a\n'.repeat(maxLines + 1) },
    { bound: 'maxLines (no newline at the end)', within: `${'a\n'.repeat(maxLines - 1)}a`, past: `${'a\n'.repeat(maxLines)}a` },
    { bound: 'maxEmphasisWork', within: '_a'.repeat(underscores), past: '_a'.repeat(underscores + 1) },
  ];

  it('the emphasis rows sit on each side of the bound', () => {
    expect(underscores * 2 * underscores).toBeLessThanOrEqual(maxEmphasisWork);
    expect((underscores + 1) * 2 * (underscores + 1)).toBeGreaterThan(maxEmphasisWork);
  });

  it.each(cases)('$bound: at the bound it is read, one past it it is shown as written', async ({ within, past }) => {
    expect((await markdownToSafeHtml(within)).startsWith(note)).toBe(false);
    await expect(markdownToPlainText(within)).resolves.toBeTypeOf('string');
    expect((await markdownToSafeHtml(past)).startsWith(note)).toBe(true);
    await expect(markdownToPlainText(past)).rejects.toBeInstanceOf(MarkdownLimitError);
  });

  it('inline markup nested deeper than the bound is caught as the tokens are walked', async () => {
    // 40 levels of strong/em: few characters, so only the walk can see it.
    const deep = `${'*'.repeat(2 * (maxDepth + 8))}a${'*'.repeat(2 * (maxDepth + 8))}`;
    expect(markdownLimitProblem(deep)).toBeUndefined();
    const html = await markdownToSafeHtml(deep);
    expect(html).toContain(`nested more than ${maxDepth} levels deep`);
    await expect(markdownToPlainText(deep)).rejects.toThrow(`nested more than ${maxDepth} levels deep`);
  });

  it('a thematic break written "* * *" and code indented under 4 x 32 columns are read', async () => {
    expect(markdownLimitProblem('a\n\n* * *\n\nb')).toBeUndefined();
    expect(markdownLimitProblem(`\`\`\`\n${' '.repeat(4 * maxDepth)}x\n\`\`\``)).toBeUndefined();
  });
});

describe('Markdown within the bounds is read as marked reads it', () => {
  const documents = [
    '# Title\n\nSome *emphasis*, **strong**, ~~gone~~ and `code`.\n\n> quoted\n> > nested\n\n- one\n- two\n  1. three\n\n| a | b |\n|---|---|\n| *c* | d |\n',
    '- [x] done\n- [ ] to do\n\n```js\nlet x = 1;\n```\n\n<b>raw</b> &amp; [link](https://example.com "title") ![img](https://example.com/i.png)\n',
    'line one\r\nline two\r\n\r\n[ref]: https://example.com\n\nsee [ref]\n',
  ];
  it.each(documents)('the same tokens as Lexer.lex for %j', (markdown) => {
    const lexed = lexBounded(Lexer, markdown);
    expect(lexed.ok).toBe(true);
    expect(JSON.parse(JSON.stringify(lexed.ok && lexed.tokens))).toEqual(
      JSON.parse(JSON.stringify(new Lexer({ gfm: true }).lex(markdown))),
    );
  });
});

describe('Markdown shown as written', () => {
  it('is escaped, keeps its line breaks, and shows at most maxChars characters of a longer text', () => {
    const html = asText(`<b>x</b>\n"y"\n${'z'.repeat(maxChars)}`, 'a reason');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;<br>&quot;y&quot;<br>');
    expect(html).toContain(`The first ${maxChars.toLocaleString('en-US')} characters of ${(maxChars + 13).toLocaleString('en-US')}.`);
    expect(html.endsWith('<br>\u2026</p>')).toBe(true);
  });

  it('does not cut a character made of a surrogate pair in two', () => {
    const html = asText(`${'a'.repeat(maxChars - 1)}\u{1F600}tail`, 'a reason');
    expect(html).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(html).toContain(`The first ${(maxChars - 1).toLocaleString('en-US')} characters`);
  });
});

describe('tags stripped from raw HTML by the plain-text writer', () => {
  it.each([
    ['<b>bold</b> text', 'bold text'],
    ['a <!-- a comment > with a bracket --> b', 'a  b'],
    ['a <!-- no end <i>x</i>', 'a x'],
    ['1 < 2 and no end', '1 < 2 and no end'],
    ['&lt;kept&gt; <br/>', '<kept> '],
  ])('%j becomes %j', (html, text) => {
    expect(stripTags(html)).toBe(text);
  });

  it.each([['<!--'], ['<'], ['<a']])('%j repeated 200,000 times (no end anywhere) is read in one pass and kept', (unit) => {
    const html = unit.repeat(200_000);
    expect(stripTags(html) === html).toBe(true);
  });
});
