import type { Token, Tokens } from 'marked';
import { decodeEntities } from './entities.js';

/**
 * Markdown to the plain text a reply's `text` carries beside its `formattedText` (docs/api.md, answer
 * rule 1: the plain-text form is shown where Markdown is not). What a reader needs survives: the
 * targets of links (`text (https://...)`), the numbers of ordered lists, the nesting of lists, the
 * rows of tables, code as written. Only the markup goes.
 *
 * The Markdown is read by marked's lexer (CommonMark with GitHub's tables, strikethrough and
 * autolinks), loaded only when a reply has Markdown.
 */
export async function markdownToPlainText(markdown: string): Promise<string> {
  const { Lexer } = await import('marked');
  const tokens = new Lexer({ gfm: true }).lex(markdown);
  return blocks(tokens, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Block tokens, one after another, separated by a blank line; `indent` starts every line but the first. */
function blocks(tokens: Token[], indent: string): string {
  const parts: string[] = [];
  for (const token of tokens) {
    const text = block(token, indent);
    if (text !== '') parts.push(text);
  }
  return parts.join(`\n\n${indent}`);
}

function block(token: Token, indent: string): string {
  switch (token.type) {
    case 'space':
      return '';
    case 'heading':
    case 'paragraph':
      return indented(inline((token as Tokens.Heading | Tokens.Paragraph).tokens), indent);
    case 'text': {
      const text = token as Tokens.Text;
      return indented(text.tokens ? inline(text.tokens) : decodeEntities(text.text), indent);
    }
    case 'code':
      return indented((token as Tokens.Code).text, indent);
    case 'blockquote':
      return `> ${blocks((token as Tokens.Blockquote).tokens, `${indent}> `)}`;
    case 'list':
      return list(token as Tokens.List, indent);
    case 'table':
      return table(token as Tokens.Table, indent);
    case 'hr':
      return '---';
    case 'html':
      return indented(stripTags((token as Tokens.HTML).text).trim(), indent);
    case 'def':
      return '';
    default:
      return 'tokens' in token && Array.isArray(token.tokens)
        ? indented(inline(token.tokens as Token[]), indent)
        : decodeEntities(token.raw);
  }
}

/** `1.` `2.` ... from the list's own start, or `-`; items' own lines indented under their marker. */
function list(token: Tokens.List, indent: string): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  const lines = token.items.map((item, index) => {
    const marker = token.ordered ? `${start + index}. ` : '- ';
    const check = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    const inner = `${indent}${' '.repeat(marker.length)}`;
    // A tight item holds text tokens, a loose one paragraphs: either way, blocks of the item.
    const body = item.tokens.filter((t) => t.type !== 'checkbox');
    return `${marker}${check}${blocks(body, inner).replace(/\n\n/g, token.loose ? '\n\n' : '\n')}`;
  });
  return lines.join(`\n${indent}`);
}

/** A table as rows of cells between ` | `, the header first. */
function table(token: Tokens.Table, indent: string): string {
  const row = (cells: Tokens.TableCell[]) => cells.map((cell) => inline(cell.tokens)).join(' | ');
  return [row(token.header), ...token.rows.map(row)].join(`\n${indent}`);
}

/** Inline tokens as text: emphasis and code lose their markers, links keep their targets. */
function inline(tokens: Token[]): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const text = token as Tokens.Text | Tokens.Escape;
        out += 'tokens' in text && text.tokens ? inline(text.tokens) : decodeEntities(text.text);
        break;
      }
      case 'strong':
      case 'em':
      case 'del':
        out += inline((token as Tokens.Strong | Tokens.Em | Tokens.Del).tokens);
        break;
      case 'codespan':
        out += decodeEntities((token as Tokens.Codespan).text);
        break;
      case 'br':
        out += '\n';
        break;
      case 'link': {
        const link = token as Tokens.Link;
        out += withTarget(inline(link.tokens), link.href);
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
        out += 'tokens' in token && Array.isArray(token.tokens) ? inline(token.tokens as Token[]) : decodeEntities(token.raw);
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

/** Raw HTML in Markdown: its tags go, its text stays. */
function stripTags(html: string): string {
  return decodeEntities(html.replace(/<!--[\s\S]*?-->/g, '').replace(/<[^>]*>/g, ''));
}
