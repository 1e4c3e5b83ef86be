import type { Token, Tokens } from 'marked';
import { deeper, lexBounded, markdownLimits, TooDeep, tooDeepReason } from './bounds.js';
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
 *
 * Markdown past the bounds of src/markdown/bounds.ts (too long, too deeply nested, too much emphasis
 * to match in bounded time) is not read at all: it is shown as written, as text, after a line that
 * says why. So no answer holds the sandbox's event loop for longer than reading 32 KB takes.
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
  return (markdown) => {
    const lexed = lexBounded(Lexer, markdown);
    if (!lexed.ok) return asText(markdown, lexed.reason);
    try {
      return blocks(lexed.tokens, 0);
    } catch (error) {
      if (error instanceof TooDeep) return asText(markdown, tooDeepReason());
      throw error;
    }
  };
}

/**
 * Markdown that is not read, as HTML: a line saying why, then the text as written (its first
 * `maxChars` characters, so the HTML of a 1 MB answer stays small), every character escaped, its line
 * breaks kept. Linear in what it shows, whatever the text holds.
 */
export function asText(markdown: string, reason: string): string {
  const { maxChars, maxDepth } = markdownLimits;
  let shown = markdown.length > maxChars ? markdown.slice(0, maxChars) : markdown;
  // A cut between the two halves of a surrogate pair would leave half a character.
  if (shown.length < markdown.length && /[\ud800-\udbff]$/.test(shown)) shown = shown.slice(0, -1);
  const more = markdown.length - shown.length;
  const group = (n: number) => n.toLocaleString('en-US');
  const note =
    `Shown as written, not as Markdown: ${reason} (the sandbox reads at most ${group(maxChars)} characters, ` +
    `nested at most ${maxDepth} levels).` +
    (more > 0 ? ` The first ${group(shown.length)} characters of ${group(markdown.length)}.` : '');
  const body = escapeHtml(shown).replace(/\r\n|\r|\n/g, '<br>');
  return `<p><em>${escapeHtml(note)}</em></p><p>${body}${more > 0 ? '<br>\u2026' : ''}</p>`;
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

/**
 * Text as HTML text or attribute value: every character that could start markup escaped. Five
 * native passes, `&` first; a replacement function called per character is several times slower on
 * a text made of nothing else.
 */
export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

/** Text written by the Markdown: its character references read once, then everything escaped. */
const text = (written: string) => escapeHtml(decodeEntities(written));

// `depth` is how deep the walk is in containers (quotes, lists, inline markup); `deeper` refuses past the bound.
function blocks(tokens: Token[], depth: number): string {
  return tokens.map((token) => block(token, depth)).join('');
}

function block(token: Token, depth: number): string {
  switch (token.type) {
    case 'space':
    case 'def':
      return '';
    case 'paragraph':
      return `<p>${inline((token as Tokens.Paragraph).tokens, depth)}</p>`;
    case 'heading':
      return `<p><strong>${inline((token as Tokens.Heading).tokens, depth)}</strong></p>`;
    case 'text': {
      const t = token as Tokens.Text;
      return t.tokens ? inline(t.tokens, depth) : text(t.text);
    }
    case 'code':
      // Code is shown as written: CommonMark reads no character references in it.
      return `<pre><code>${escapeHtml((token as Tokens.Code).text)}</code></pre>`;
    case 'blockquote':
      return `<blockquote>${blocks((token as Tokens.Blockquote).tokens, deeper(depth))}</blockquote>`;
    case 'list':
      return list(token as Tokens.List, deeper(depth));
    case 'table':
      return table(token as Tokens.Table, depth);
    case 'hr':
      return '<hr>';
    case 'html':
      // Raw HTML is shown as the text it is.
      return `<p>${escapeHtml((token as Tokens.HTML).text.trim())}</p>`;
    default:
      return 'tokens' in token && Array.isArray(token.tokens)
        ? `<p>${inline(token.tokens as Token[], deeper(depth))}</p>`
        : `<p>${text(token.raw)}</p>`;
  }
}

function list(token: Tokens.List, depth: number): string {
  const start = typeof token.start === 'number' ? token.start : 1;
  const open = token.ordered ? (start === 1 ? '<ol>' : `<ol start="${start}">`) : '<ul>';
  const items = token.items.map((item) => {
    const box = item.task ? (item.checked ? '\u2611 ' : '\u2610 ') : '';
    return `<li>${box}${blocks(
      item.tokens.filter((t) => t.type !== 'checkbox'),
      depth,
    )}</li>`;
  });
  return `${open}${items.join('')}${token.ordered ? '</ol>' : '</ul>'}`;
}

function table(token: Tokens.Table, depth: number): string {
  const row = (cells: Tokens.TableCell[], tag: 'th' | 'td') =>
    `<tr>${cells.map((cell) => `<${tag}>${inline(cell.tokens, depth)}</${tag}>`).join('')}</tr>`;
  return `<table><thead>${row(token.header, 'th')}</thead><tbody>${token.rows.map((r) => row(r, 'td')).join('')}</tbody></table>`;
}

function link(href: string, label: string): string {
  const safe = safeHref(href);
  return safe === undefined ? label : `<a href="${escapeHtml(safe)}" rel="noopener noreferrer" target="_blank">${label}</a>`;
}

function inline(tokens: Token[], depth: number): string {
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
      case 'escape': {
        const t = token as Tokens.Text | Tokens.Escape;
        out += 'tokens' in t && t.tokens ? inline(t.tokens, depth) : text(t.text);
        break;
      }
      case 'strong':
        out += `<strong>${inline((token as Tokens.Strong).tokens, deeper(depth))}</strong>`;
        break;
      case 'em':
        out += `<em>${inline((token as Tokens.Em).tokens, deeper(depth))}</em>`;
        break;
      case 'del':
        out += `<del>${inline((token as Tokens.Del).tokens, deeper(depth))}</del>`;
        break;
      case 'codespan':
        out += `<code>${escapeHtml((token as Tokens.Codespan).text)}</code>`;
        break;
      case 'br':
        out += '<br>';
        break;
      case 'link': {
        const l = token as Tokens.Link;
        out += link(l.href, inline(l.tokens, deeper(depth)));
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
        out += 'tokens' in token && Array.isArray(token.tokens) ? inline(token.tokens as Token[], deeper(depth)) : text(token.raw);
    }
  }
  return out;
}
