// @ts-check
// Building the page's DOM from data. Everything the bot or a customer sends is data: it goes into the
// page as text nodes (textContent), as checked URLs in href and src, or through markdown.js. Nothing
// here writes HTML from a string.

/**
 * What `h` and `append` take as children: nodes, text, and nothing (left out), nested in arrays.
 *
 * @typedef {Node | string | number | bigint | null | undefined | false | unknown[]} Child
 */

/**
 * An element: `h('p', { className: 'x' }, 'text', child)`. Strings and numbers become text nodes;
 * null, undefined and false are left out; arrays are flattened. Properties are set as properties,
 * never as on* handlers (use `on` for listeners).
 *
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'on') {
      for (const [event, listener] of Object.entries(/** @type {Record<string, EventListener>} */ (value)))
        element.addEventListener(event, listener);
    } else if (key === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (key.startsWith('aria-') || key === 'role' || key === 'for') {
      element.setAttribute(key, String(value));
    } else if (/^on/i.test(key)) {
      throw new TypeError(`event handler attribute ${key}: use { on: { event: listener } }`);
    } else {
      /** @type {any} */ (element)[key] = value;
    }
  }
  append(element, children);
  return element;
}

/**
 * @template {ParentNode} P
 * @param {P} parent
 * @param {Child[]} children
 * @returns {P}
 */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/**
 * Removes every child of `element`.
 *
 * @template {Element} E
 * @param {E} element
 * @returns {E}
 */
export function clear(element) {
  element.replaceChildren();
  return element;
}

/**
 * A URL the page may put into href or src: absolute, with one of `schemes` (http and https by
 * default), normalised by the URL parser; null for anything else (javascript:, data:, relative).
 */
/**
 * @param {unknown} value
 * @param {string[]} [schemes]
 * @returns {string | null}
 */
export function safeUrl(value, schemes = ['http:', 'https:']) {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const url = new URL(value.trim());
    return schemes.includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/** A link to a URL the bot sent, opened in a new tab without the opener or a referrer; its text when unsafe. */
/**
 * @param {unknown} url
 * @param {Child} label
 * @param {Record<string, unknown>} [props]
 */
export function externalLink(url, label, props = {}) {
  const href = safeUrl(url, ['http:', 'https:', 'mailto:']);
  if (href === null) return h('span', { className: 'inert-link', title: 'not a link: only http, https and mailto addresses are' }, label);
  return h('a', { href, rel: 'noopener noreferrer', target: '_blank', referrerPolicy: 'no-referrer', ...props }, label);
}

/** Text for any value the page shows: strings as they are, BigInts with every digit, null as a dash. */
/** @param {unknown} value */
export function show(value) {
  if (value === null || value === undefined) return '\u2014';
  return String(value);
}

const FOCUSABLE = 'a[href], button, summary, input, select, textarea, [tabindex]';

/**
 * Replaces `old` with `replacement`, keeping the keyboard focus where it was: an entry or a bubble
 * redrawn while the user is on one of its controls must not throw the focus back to the page.
 */
/**
 * @param {Element} old
 * @param {HTMLElement} replacement
 */
export function replaceKeepingFocus(old, replacement) {
  const active = document.activeElement;
  const inside = active !== null && old.contains(active);
  const index = inside ? (active === old ? -1 : [...old.querySelectorAll(FOCUSABLE)].indexOf(active)) : -2;
  old.replaceWith(replacement);
  if (index === -1) replacement.focus();
  else if (index >= 0) /** @type {NodeListOf<HTMLElement>} */ (replacement.querySelectorAll(FOCUSABLE))[index]?.focus();
}
