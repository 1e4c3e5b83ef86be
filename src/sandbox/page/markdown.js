// @ts-check
// The bot's Markdown, drawn from the safe HTML the sandbox writes when it records the answer
// (src/markdown/safe-html.ts). That HTML is already restricted; this module checks it again on the
// page's side, so a mistake in either place alone cannot put markup from the bot into the page:
// the string is parsed into an inert <template> (no script runs, nothing loads), then copied node
// by node, keeping only the allowed tags and attributes and only http, https and mailto links.
// It is the one place the page turns a string into HTML, through the one Trusted Types policy the
// page's Content-Security-Policy allows.

import { h, safeUrl } from './dom.js';

const TAGS = new Set([
  'P',
  'BR',
  'STRONG',
  'EM',
  'DEL',
  'CODE',
  'PRE',
  'BLOCKQUOTE',
  'UL',
  'OL',
  'LI',
  'A',
  'HR',
  'TABLE',
  'THEAD',
  'TBODY',
  'TR',
  'TH',
  'TD',
]);

/**
 * The one Trusted Types policy of the page, where the browser has them.
 *
 * @typedef {{ createHTML(html: string): string }} HtmlPolicy
 * @type {HtmlPolicy}
 */
const policy = /** @type {{ trustedTypes?: { createPolicy(name: string, rules: HtmlPolicy): HtmlPolicy } }} */ (
  globalThis
).trustedTypes?.createPolicy('core-markdown', { createHTML: (html) => html }) ?? { createHTML: (html) => html };

/**
 * A fragment of safe DOM for the sandbox's HTML of a reply's formattedText.
 *
 * @param {unknown} html
 * @returns {DocumentFragment}
 */
export function markdownFragment(html) {
  const template = document.createElement('template');
  template.innerHTML = policy.createHTML(String(html));
  const fragment = document.createDocumentFragment();
  copy(template.content, fragment);
  return fragment;
}

/**
 * @param {Node} from
 * @param {ParentNode} to
 */
function copy(from, to) {
  for (const node of from.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      to.append(document.createTextNode(/** @type {Text} */ (node).data));
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      const source = /** @type {Element} */ (node);
      if (!TAGS.has(source.tagName)) {
        // An element that is not allowed keeps only its text.
        to.append(document.createTextNode(source.textContent ?? ''));
        continue;
      }
      const element = cleanElement(source);
      copy(source, element);
      to.append(element);
    }
    // Comments, processing instructions and anything else are dropped.
  }
}

/**
 * @param {Element} node
 * @returns {HTMLElement}
 */
function cleanElement(node) {
  if (node.tagName === 'A') {
    const href = safeUrl(node.getAttribute('href'), ['http:', 'https:', 'mailto:']);
    if (href === null) return h('span', { className: 'inert-link' });
    return h('a', { href, rel: 'noopener noreferrer', target: '_blank', referrerPolicy: 'no-referrer' });
  }
  if (node.tagName === 'OL') {
    const start = Number.parseInt(node.getAttribute('start') ?? '', 10);
    return h('ol', Number.isSafeInteger(start) ? { start } : {});
  }
  return document.createElement(node.tagName.toLowerCase());
}
