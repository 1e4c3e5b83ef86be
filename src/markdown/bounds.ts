import type { Lexer as MarkedLexer, Token } from 'marked';

/**
 * The bounds of the Markdown this folder reads (docs/security.md, "Hostile input"). marked's lexer is
 * quadratic on some inputs (a paragraph of `_a` repeated: each `_` that cannot close scans the rest of
 * the paragraph) and recursive on nesting (`> ` or `- ` repeated, `*` x 100k around a word: the stack
 * overflows). So a Markdown text is read only when it is within these bounds: a linear scan, made
 * first, checks its size, lines and nesting, and the inline work is counted between marked's two
 * steps (lexBounded). Otherwise nothing reads it: the sandbox shows it as written, and `core reply`
 * refuses to turn it into plain text. The bounds are counts, not times, so what is rendered does not depend on
 * how busy the machine is; bench/markdown.mjs measures the time the worst inputs within them take.
 */
export const markdownLimits = {
  /** The longest Markdown read, in UTF-16 code units: marked is linear on most inputs, ~1-2 ms per KB at worst. */
  maxChars: 32_768,
  /** The deepest nesting of block quotes, list items and inline markup. */
  maxDepth: 32,
  /**
   * The most lines: marked's reading of a list is quadratic in its lines (8,000 items, or one item of
   * 8,000 continued lines, took half a second), and so, more mildly, is a block quote's.
   */
  maxLines: 2_000,
  /**
   * Inline delimiters (`inlineDelimiters`) times characters, summed over the texts the inline step reads
   * (each paragraph, heading, table cell, list item's text): the quadratic part of marked's work. A
   * paragraph of 1,000 characters with 100 delimiters counts 100,000; `_a` repeated over 8,000
   * characters counts 32,000,000.
   */
  maxEmphasisWork: 4_000_000,
} as const;

export type MarkdownLimits = { readonly [K in keyof typeof markdownLimits]: number };

/** Why a Markdown text is not read: `reason` says which bound it passes, for a message. */
export class MarkdownLimitError extends Error {
  constructor(readonly reason: string) {
    super(`the Markdown is not read: ${reason}`);
    this.name = 'MarkdownLimitError';
  }
}

const group = (n: number) => n.toLocaleString('en-US');

/**
 * Why `markdown` passes the bound of size, of lines or of nesting, or undefined. One pass over the text, no
 * regular expression: the check must not be the slow part.
 *
 * The nesting of a line is estimated from its start: each `>` and list marker (`-`, `+`, `*`, `1.`,
 * `1)` followed by a space) counts one level, and so does every four columns of indentation before
 * them (a list nested by indentation alone). The estimate may count a level that is not there (a
 * thematic break written `* * *`) but does not miss one marked so; the writers count the real nesting
 * again as they walk the tokens, and a stack overflow in the lexer is caught (lexBounded).
 */
export function markdownLimitProblem(markdown: string, limits: MarkdownLimits = markdownLimits): string | undefined {
  if (markdown.length > limits.maxChars) {
    return `${group(markdown.length)} characters, more than the ${group(limits.maxChars)} read`;
  }
  const n = markdown.length;
  let line = 1;
  let i = 0;
  while (i < n) {
    if (line > limits.maxLines) return `more than ${group(limits.maxLines)} lines`;
    let columns = 0;
    let depth = 0;
    let j = i;
    for (; j < n; j++) {
      const c = markdown.charCodeAt(j);
      if (c === 0x20 || c === 0x09) {
        if (depth === 0) columns += c === 0x09 ? 4 - (columns % 4) : 1;
        continue;
      }
      if (c === 0x3e /* > */) {
        depth++;
        continue;
      }
      const next = j + 1 < n ? markdown.charCodeAt(j + 1) : 0x0a;
      if ((c === 0x2d || c === 0x2b || c === 0x2a) /* - + * */ && isBreak(next)) {
        depth++;
        continue;
      }
      if (c >= 0x30 && c <= 0x39) {
        let k = j;
        while (k < n && k - j < 9 && isDigit(markdown.charCodeAt(k))) k++;
        const mark = k < n ? markdown.charCodeAt(k) : 0;
        if ((mark === 0x2e || mark === 0x29) /* . ) */ && isBreak(k + 1 < n ? markdown.charCodeAt(k + 1) : 0x0a)) {
          depth++;
          j = k;
          continue;
        }
      }
      break;
    }
    const nesting = depth + Math.floor(columns / 4);
    if (nesting > limits.maxDepth) {
      return `nested ${group(nesting)} levels deep at line ${group(line)}, more than ${limits.maxDepth}`;
    }
    // On to the next line, without looking at the rest of this one again.
    const end = markdown.indexOf('\n', j);
    if (end === -1) break;
    i = end + 1;
    line++;
  }
  return undefined;
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
// What may follow a list marker: a space, a tab or the end of the line.
const isBreak = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/**
 * The inline delimiters of a text, weighted: every place where marked's inline reader stops its plain
 * text to try a rule that may scan the rest of the paragraph (emphasis, strikethrough, code, links,
 * images, tags, autolinks, escapes, hard breaks). Each such place costs up to the length of the
 * paragraph, so delimiters times characters bounds the inline step's work, whatever the delimiter
 * (test/markdown/inline-work.test.ts checks this of marked's reader, fuzzed over every delimiter).
 * Counted: `*`, `_`, `` ` ``, `[`, `!`, `<`, `\`, `:` (`http://`, `mailto:`), each `www.`, and a
 * line break after a space (a hard break); `@` counts 2 (the text before a mail address stops, then
 * the address is read), and `~` counts 3, as marked's strikethrough scan of the rest costs about three
 * times an emphasis one (bench/markdown.mjs). One pass, no regular
 * expression.
 */
export function inlineDelimiters(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    switch (text.charCodeAt(i)) {
      case 0x2a: // *
      case 0x5f: // _
      case 0x60: // `
      case 0x5b: // [
      case 0x21: // !
      case 0x3c: // <
      case 0x5c: // \
      case 0x3a: // :
        count += 1;
        break;
      case 0x40: // @: the run before it and the address are two steps
        count += 2;
        break;
      case 0x7e: // ~
        count += 3;
        break;
      case 0x0a: // a line break after a space: a hard break
        if (i > 0 && text.charCodeAt(i - 1) === 0x20) count += 1;
        break;
      case 0x77: // www.
        if (text.startsWith('ww.', i + 1)) count += 1;
        break;
    }
  }
  return count;
}

/** Thrown by a writer that meets nesting deeper than the bound as it walks the tokens. */
export class TooDeep extends Error {}

/** A writer's guard: the depth it is at, refused past the bound. */
export function deeper(depth: number, limits: MarkdownLimits = markdownLimits): number {
  if (depth + 1 > limits.maxDepth) throw new TooDeep();
  return depth + 1;
}

export type LexResult = { ok: true; tokens: Token[] } | { ok: false; reason: string };

/**
 * The tokens of `markdown` when it is within the bounds, else why not. It does what marked's
 * `Lexer.lex` does, in its two steps: the blocks first (linear once the nesting is bounded), which
 * queue the text of every paragraph, heading, table cell and list item for the inline step; then,
 * once the inline work of that queue is known to be within `maxEmphasisWork`, the inline step. A
 * stack overflow inside the lexer (nesting the line scan could not see, such as `*` x 5,000 around a
 * word) is a reason too, not an exception.
 */
export function lexBounded(Lexer: typeof MarkedLexer, markdown: string, limits: MarkdownLimits = markdownLimits): LexResult {
  const problem = markdownLimitProblem(markdown, limits);
  if (problem !== undefined) return { ok: false, reason: problem };
  const tooDeep = { ok: false, reason: `nested too deeply to read (more than ${limits.maxDepth} levels)` } as const;
  const lexer = new Lexer({ gfm: true });
  try {
    lexer.blockTokens(markdown.replace(/\r\n|\r/g, '\n'), lexer.tokens);
  } catch (error) {
    if (error instanceof RangeError) return tooDeep;
    throw error;
  }
  let work = 0;
  for (const { src } of lexer.inlineQueue) {
    const delimiters = inlineDelimiters(src);
    work += delimiters * src.length;
    if (work > limits.maxEmphasisWork) {
      return {
        ok: false,
        reason: `${group(delimiters)} inline delimiters (such as * _ \` [ < !; each ~ counts 3) in ${group(src.length)} characters of one paragraph: more than are read`,
      };
    }
  }
  try {
    for (const { src, tokens } of lexer.inlineQueue) {
      lexer.state.inRawBlock = false;
      lexer.inlineTokens(src, tokens);
    }
  } catch (error) {
    if (error instanceof RangeError) return tooDeep;
    throw error;
  }
  lexer.inlineQueue = [];
  return { ok: true, tokens: lexer.tokens };
}

/** The reason a writer gives when its walk meets nesting past the bound. */
export const tooDeepReason = (limits: MarkdownLimits = markdownLimits) => `nested more than ${limits.maxDepth} levels deep`;
