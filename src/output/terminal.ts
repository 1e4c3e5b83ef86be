/**
 * Text from outside (the service's answers, files, other programs' messages) made harmless for a
 * terminal (docs/security.md, "Hostile input"). A terminal obeys what it is sent: an escape
 * sequence sets the window title, clears the screen or moves the cursor, a carriage return lets the
 * next characters overwrite a line already printed, a bidi override shows text in an order it does
 * not have. --json escapes all of these already; the human views use the two functions below.
 *
 * - `printable` for one value shown inside a line (a field of an error body, a header, a message):
 *   every control character is written as an escape (`\r`, `\n`, `\u001b`), so a value can neither
 *   act on the terminal nor start a line that looks like core's own.
 * - `plainText` for a value from outside that spans lines (a bot's text): the same, except line
 *   breaks and tabs; `outsideValue` applies it to every string of a value (a bot answer) before a
 *   view is drawn from it, so no colour of the bot's reaches the terminal as colour.
 * - `neutralize`, applied by the context to everything written for people, as a last guard: the
 *   same, except for the line breaks and tabs of core's own layout and the colour sequences core
 *   itself writes. It cannot tell core's colours from a value's: a value from outside must have
 *   been through one of the functions above before it is laid out, or its own colours (black text,
 *   dim) would pass as core's.
 */

// C0 controls, DEL, C1 controls (0x9b is an 8-bit CSI), the bidi embeddings, overrides and isolates,
// the marks that change direction, and the line and paragraph separators.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// The colours core writes: bold, dim, red to cyan, gray and the bright ones up to bright cyan, and
// their resets. Black and white are not among them: on a terminal of that background they hide text.
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_LAYOUT =
  /\u001b\[(?:(?:0|1|2|22|3[1-69]|9[0-6])(?:;(?:0|1|2|22|3[1-69]|9[0-6]))*)?m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escape(character: string): string {
  if (character === '\r') return '\\r';
  if (character === '\n') return '\\n';
  if (character === '\t') return '\\t';
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** One value from outside, safe inside a line: every control character escaped. */
export function printable(text: string): string {
  return text.replace(UNSAFE, escape);
}

/** A value from outside that spans lines, safe for a terminal: every control but line breaks and tabs escaped. */
export function plainText(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, escape);
}

/**
 * A value from outside (a bot answer, a sandbox event) with every string in it through `plainText`,
 * keys included; numbers, booleans, null and bigints as they are. A new value: the original is kept.
 */
export function outsideValue<T>(value: T): T {
  if (typeof value === 'string') return plainText(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => outsideValue(item)) as T;
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) copy[plainText(key)] = outsideValue(item);
    return copy as T;
  }
  return value;
}

/**
 * Text for people, safe for a terminal: control characters escaped, except line breaks, tabs and
 * the colour sequences core writes (bold, dim and the 16 foreground colours; nothing that hides
 * text or moves the cursor).
 */
export function neutralize(text: string): string {
  return text.replace(UNSAFE_IN_LAYOUT, (match) => (match.length > 1 ? match : escape(match)));
}

// eslint-disable-next-line no-control-regex
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text with the characters a JSON writer leaves raw but a terminal obeys (DEL, C1 controls,
 * bidi controls, line separators) written as \u escapes: the same document, safe on a terminal.
 * They can only stand inside strings, where an escape means the same character.
 */
export function jsonEscaped(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
