import type { Token, Tokens } from 'marked';
import { deeper, lexBounded, MarkdownLimitError, TooDeep, tooDeepReason } from './bounds.js';
import { decodeEntities } from './entities.js';

/**
 * Markdown to the plain text a reply's `text` carries beside its `formattedText` (docs/api.md, answer
 * rule 1: the plain-text form is shown where Markdown is not). What a reader needs survives: the
 * targets of links (`text (https://...)`), the numbers of ordered lists, the nesting of lists, the
 * rows of tables, code as written. Only the markup goes.
 *
 * The Markdown is read by marked's lexer (CommonMark with GitHub's tables, strikethrough and
 * autolinks), loaded only when a reply has Markdown. Markdown past the bounds of src/markdown/bounds.ts
 * is not read: MarkdownLimitError says which bound it passes.
 */
export async function markdownToPlainText(markdown: string): Promise<string> {
  const { Lexer } = await import('marked');
  const lexed = lexBounded(Lexer, markdown);
  if (!lexed.ok) throw new MarkdownLimitError(lexed.reason);
  let text: string;
  try {
    text = blocks(lexed.tokens, '', 0);
  } catch (error) {
    if (error instanceof TooDeep) throw new MarkdownLimitError(tooDeepReason());
    throw error;
  }
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

/**
 * Block tokens, one after another, separated by a blank line; `indent` starts every line but the first.
 * `depth` is how deep the walk is in containers; `deeper` refuses past the bound.
 */
function blocks(tokens: Token[], indent: string, depth: number): string {
  const parts: string[] = [];
  for (const token of tokens) {
    const text = block(token, indent, depth);
    if (text !== '') parts.push(text);
  }
  return parts.join(`\n\n${indent}`);
}

function block(token: Token, indent: string, depth: number): string {
  switch (token.type) {
    case 'space':
      return '';
    case 'heading':
    case 'paragraph':
      return indented(inline((token as Tokens.Heading | Tokens.Paragraph).tokens, depth), indent);
    case 'text': {
      const text = token as Tokens.Text;
      return indented(text.tokens ? inline(text.tokens, depth) : decodeEntities(text.text), indent);
    }
    case 'code':
      return indented((token as Tokens.Code).text, indent);
    case 'blockquote':
      return `> ${blocks((token as Tokens.Blockquote).tokens, `${indent}> `, deeper(depth))}`;
    case 'list':
      return list(token as Tokens.List, indent, deeper(depth));
    case 'table':
      return table(token as Tokens.Table, indent, depth);
    case 'hr':
      return '---';
    case 'html':
      return indented(stripTags((token as Tokens.HTML).text).trim(), indent);
    case 'def':
      return '';
    default:
      return 'tokens' in token && Array.isArray(token.tokens)
        ? indented(inline(token.tokens as Token[], deeper(depth)), indent)
        : decodeEntities(token.raw);
  }
}

/** `1.` `2.` ... from the list's own start, or `-`; items' own lines indented under their marker. */
function list(token: Tokens.List, indent: string, depth: number): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  const lines = token.items.map((item, index) => {
    const marker = token.ordered ? `${start + index}. ` : '- ';
    const check = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    const inner = `${indent}${' '.repeat(marker.length)}`;
    // A tight item holds text tokens, a loose one paragraphs: either way, blocks of the item.
    const body = item.tokens.filter((t) => t.type !== 'checkbox');
    return `${marker}${check}${blocks(body, inner, depth).replace(/\n\n/g, token.loose ? '\n\n' : '\n')}`;
  });
  return lines.join(`\n${indent}`);
}

/** A table as rows of cells between ` | `, the header first. */
function table(token: Tokens.Table, indent: string, depth: number): string {
  const row = (cells: Tokens.TableCell[]) => cells.map((cell) => inline(cell.tokens, depth)).join(' | ');
  return [row(token.header), ...token.rows.map(row)].join(`\n${indent}`);
}

/** Inline tokens as text: emphasis and code lose their markers, links keep their targets. */
function inline(tokens: Token[], depth: number): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const text = token as Tokens.Text | Tokens.Escape;
        out += 'tokens' in text && text.tokens ? inline(text.tokens, depth) : decodeEntities(text.text);
        break;
      }
      case 'strong':
      case 'em':
      case 'del':
        out += inline((token as Tokens.Strong | Tokens.Em | Tokens.Del).tokens, deeper(depth));
        break;
      case 'codespan':
        out += decodeEntities((token as Tokens.Codespan).text);
        break;
      case 'br':
        out += '\n';
        break;
      case 'link': {
        const link = token as Tokens.Link;
        out += withTarget(inline(link.tokens, deeper(depth)), link.href);
        break;
      }
      case 'image': {
        const image = token as Tokens.Image;
        out += withTarget(decodeEntities(image.text), image.href);
        break;
      }
      case 'html':
        out += stripTags((token as Tokens.HTML).text);
        break;
      default:
        out +=
          'tokens' in token && Array.isArray(token.tokens) ? inline(token.tokens as Token[], deeper(depth)) : decodeEntities(token.raw);
    }
  }
  return out;
}

/** `text (target)`; just the target when the text says the same (an autolink, say). */
function withTarget(text: string, href: string): string {
  const target = href.replace(/^mailto:/i, '');
  if (text === '' || text === href || text === target) return target;
  return `${text} (${target})`;
}

function indented(text: string, indent: string): string {
  return text.replace(/\n/g, `\n${indent}`);
}

/**
 * Raw HTML in Markdown: its tags and comments go, its text stays. A scan rather than regular
 * expressions: `<!--` or `<` repeated with no end would make each of them search the rest of the text.
 */
export function stripTags(html: string): string {
  let out = '';
  let at = 0;
  // Once an end is known to be missing from some point on, it is missing from every later point.
  let commentEnds = true;
  let tagEnds = true;
  for (let open = html.indexOf('<'); open !== -1; open = html.indexOf('<', at)) {
    let end = -1;
    if (commentEnds && html.startsWith('<!--', open)) {
      const close = html.indexOf('-->', open + 4);
      if (close === -1) commentEnds = false;
      else end = close + 3;
    }
    if (end === -1 && tagEnds) {
      const close = html.indexOf('>', open + 1);
      if (close === -1) tagEnds = false;
      else end = close + 1;
    }
    if (end === -1) break;
    out += html.slice(at, open);
    at = end;
  }
  return decodeEntities(out + html.slice(at));
}
