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
 * - `neutralize`, applied by the context to everything written for people, as a last guard: the
 *   same, except for the line breaks and tabs of core's own layout and the colour sequences core
 *   itself writes.
 */

// C0 controls, DEL, C1 controls (0x9b is an 8-bit CSI), the bidi embeddings, overrides and isolates,
// the marks that change direction, and the line and paragraph separators.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_LAYOUT =
  /\u001b\[(?:(?:0|1|2|22|3[0-79]|9[0-7])(?:;(?:0|1|2|22|3[0-79]|9[0-7]))*)?m|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

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
