import type { Token, Tokens } from 'marked';
import { decodeEntities } from './entities.js';

/**
 * Markdown (a reply's `formattedText`) to HTML that is safe to put into a page: the sandbox's page
 * draws the bot's Markdown with it (docs/sandbox.md, "The page"). The Markdown is read by the same
 * lexer as the plain-text form (src/markdown/plain-text.ts: marked, CommonMark with GitHub's
 * tables, strikethrough and autolinks), so the two views of one reply cannot disagree on what it says.
 *
 * Everything the Markdown holds is data. The writer escapes every character of text and emits only:
 * - the tags of SAFE_TAGS, with no attribute but those of SAFE_ATTRIBUTES;
 * - links whose target is an absolute http, https or mailto URL (SAFE_SCHEMES), always with
 *   rel="noopener noreferrer" and target="_blank"; any other target (javascript:, data:, vbscript:,
 *   a relative path) leaves the link's text as plain text;
 * - raw HTML in the Markdown as the text it is (shown, never interpreted);
 * - images as links to the image (a bubble shows the bot's Markdown, not what it points at);
 * - headings as a bold paragraph (a bubble is not a section of the page).
 * No attribute value comes from the Markdown except a checked href, and no class, style, id or
 * event-handler attribute is ever written.
 */

export const SAFE_TAGS = [
  'p',
  'br',
  'strong',
  'em',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'a',
  'hr',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
] as const;

/** The only attributes written, by tag. */
export const SAFE_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = { a: ['href', 'rel', 'target'], ol: ['start'] };

/** The URL schemes a link may have; any other leaves the link as text. */
export const SAFE_SCHEMES: readonly string[] = ['http:', 'https:', 'mailto:'];

export type MarkdownRenderer = (markdown: string) => string;

/** Loads the lexer (once, on the path that needs it) and returns a synchronous renderer. */
export async function loadSafeHtmlRenderer(): Promise<MarkdownRenderer> {
  const { Lexer } = await import('marked');
  return (markdown) => blocks(new Lexer({ gfm: true }).lex(markdown));
}

export async function markdownToSafeHtml(markdown: string): Promise<string> {
  return (await loadSafeHtmlRenderer())(markdown);
}

/**
 * The link target as written out, or undefined when it may not be a link: an absolute URL of a safe
 * scheme, normalised by the URL parser (which percent-encodes quotes, spaces and control characters).
 */
export function safeHref(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return undefined;
  }
  return SAFE_SCHEMES.includes(url.protocol) ? url.href : undefined;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value: every character that could start markup escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** Text written by the Markdown: its character references read once, then everything escaped. */
const text = (written: string) => escapeHtml(decodeEntities(written));

function blocks(tokens: Token[]): string {
  return tokens.map(block).join('');
}

function block(token: Token): string {
  switch (token.type) {
    case 'space':
    case 'def':
      return '';
    case 'paragraph':
      return `<p>${inline((token as Tokens.Paragraph).tokens)}</p>`;
    case 'heading':
      return `<p><strong>${inline((token as Tokens.Heading).tokens)}</strong></p>`;
    case 'text': {
      const t = token as Tokens.Text;
      return t.tokens ? inline(t.tokens) : text(t.text);
    }
    case 'code':
      // Code is shown as written: CommonMark reads no character references in it.
      return `<pre><code>${escapeHtml((token as Tokens.Code).text)}</code></pre>`;
    case 'blockquote':
      return `<blockquote>${blocks((token as Tokens.Blockquote).tokens)}</blockquote>`;
    case 'list':
      return list(token as Tokens.List);
    case 'table':
      return table(token as Tokens.Table);
    case 'hr':
      return '<hr>';
    case 'html':
      // Raw HTML is shown as the text it is.
      return `<p>${escapeHtml((token as Tokens.HTML).text.trim())}</p>`;
    default:
      return 'tokens' in token && Array.isArray(token.tokens) ? `<p>${inline(token.tokens as Token[])}</p>` : `<p>${text(token.raw)}</p>`;
  }
}

function list(token: Tokens.List): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  const open = token.ordered ? (start === 1 ? '<ol>' : `<ol start="${start}">`) : '<ul>';
  const items = token.items.map((item) => {
    const box = item.task ? (item.checked ? '\u2611 ' : '\u2610 ') : '';
    return `<li>${box}${blocks(item.tokens.filter((t) => t.type !== 'checkbox'))}</li>`;
  });
  return `${open}${items.join('')}${token.ordered ? '</ol>' : '</ul>'}`;
}

function table(token: Tokens.Table): string {
  const row = (cells: Tokens.TableCell[], tag: 'th' | 'td') =>
    `<tr>${cells.map((cell) => `<${tag}>${inline(cell.tokens)}</${tag}>`).join('')}</tr>`;
  return `<table><thead>${row(token.header, 'th')}</thead><tbody>${token.rows.map((r) => row(r, 'td')).join('')}</tbody></table>`;
}

function link(href: string, label: string): string {
  const safe = safeHref(href);
  return safe === undefined ? label : `<a href="${escapeHtml(safe)}" rel="noopener noreferrer" target="_blank">${label}</a>`;
}

function inline(tokens: Token[]): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const t = token as Tokens.Text | Tokens.Escape;
        out += 'tokens' in t && t.tokens ? inline(t.tokens) : text(t.text);
        break;
      }
      case 'strong':
        out += `<strong>${inline((token as Tokens.Strong).tokens)}</strong>`;
        break;
      case 'em':
        out += `<em>${inline((token as Tokens.Em).tokens)}</em>`;
        break;
      case 'del':
        out += `<del>${inline((token as Tokens.Del).tokens)}</del>`;
        break;
      case 'codespan':
        out += `<code>${escapeHtml((token as Tokens.Codespan).text)}</code>`;
        break;
      case 'br':
        out += '<br>';
        break;
      case 'link': {
        const l = token as Tokens.Link;
        out += link(l.href, inline(l.tokens));
        break;
      }
      case 'image': {
        const image = token as Tokens.Image;
        const alt = decodeEntities(image.text);
        out += link(image.href, escapeHtml(alt === '' ? image.href : alt));
        break;
      }
      case 'html':
        out += escapeHtml((token as Tokens.HTML).text);
        break;
      default:
        out += 'tokens' in token && Array.isArray(token.tokens) ? inline(token.tokens as Token[]) : text(token.raw);
    }
  }
  return out;
}
