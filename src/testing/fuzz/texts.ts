import { MAX_CUSTOMER_TEXT } from '../../payload/customer-text.js';
import type { FuzzAction, FuzzMessage, TextClass, TextSpec } from './model.js';

/**
 * The pieces of text that break software, by class, each list from the simplest piece up (a shrunk
 * failure names the first piece that still breaks the bot). Written with escapes, so that this file
 * shows what each piece is.
 */
export const TEXT_PIECES: Readonly<Record<TextClass, readonly string[]>> = {
  ascii: ['a', 'Where is my order?', '"quoted" \\ back\\slash /', '0', '-1', 'null', 'true', '1e400', '{}', '[]'],
  // Emoji outside the Basic Multilingual Plane (two UTF-16 units each), with skin tones and flags.
  emoji: ['\u{1F600}', '\u{1F44D}\u{1F3FD}', '\u{1F1EB}\u{1F1F7}', '\u2764\uFE0F', '\u{1F4A9}'],
  // Zero-width-joiner sequences: one picture, several code points.
  zwj: [
    '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}',
    '\u{1F3F3}\uFE0F\u200D\u{1F308}',
    '\u{1F9D1}\u200D\u{1F91D}\u200D\u{1F9D1}',
    '\u200D',
  ],
  // Right-to-left: the marks first, then Hebrew and Arabic text.
  rtl: ['\u200F', '\u061C', '\u05E9\u05DC\u05D5\u05DD', '\u0645\u0631\u062D\u0628\u0627', '\u200F\u05D0\u200E1'],
  // Bidirectional overrides, embeddings and isolates, some left open.
  bidi: ['\u202E', '\u202D', '\u202A', '\u202B', '\u202C', '\u2066', '\u2067', '\u2068', '\u2069', '\u202Eevil.exe\u202C'],
  // Combining marks: alone, stacked, and on a letter.
  combining: ['\u0301', 'e\u0301', 'Z\u0336\u0337\u0338\u0335\u0334\u0301\u0300\u0302\u0303', '\u0915\u094D\u0937', '\u1100\u1161\u11A8'],
  // Control and invisible characters, line and paragraph separators, a byte-order mark, terminal escapes.
  control: ['\u0007', '\t', '\r\n', '\u001B[31m', '\u007F', '\u0085', '\u2028', '\u2029', '\uFEFF', '\u200B', '\u0008'],
  nul: ['\u0000', 'a\u0000b'],
  // Lone surrogates: no character, but valid in a JSON string as an escape (the sandbox writes \ud800).
  surrogate: ['\uD800', '\uDFFF', '\uDC00\uD800', 'a\uD83D'],
  markup: ['<b>', '<script>alert(1)</script>', '**bold** _it_', '${7*7}', '{{7*7}}', "'; DROP TABLE q;--", '%s%n', '../../etc/passwd'],
  // Characters beyond the Basic Multilingual Plane and wide ones.
  wide: ['\u{20B9F}', '\uFF37\uFF45\uFF42', '\u3042', '\uFFFD', '\uFFFF', '\u{10FFFF}', '\u{1D54F}'],
};

const FILLER = 'a';

/** The text of a spec: the segments, then filler up to `length`, cut to the customer text's bound; '' when blank. */
export function textOf(spec: TextSpec): string {
  if (spec.blank) return '';
  const pieces = spec.segments.map((segment) => {
    const list = TEXT_PIECES[segment.cls];
    return list[segment.pick % list.length]!.repeat(segment.repeat);
  });
  const joined = pieces.join('');
  const padded = joined.length < spec.length ? joined + FILLER.repeat(spec.length - joined.length) : joined;
  const cut = padded.slice(0, MAX_CUSTOMER_TEXT);
  return cut === '' ? FILLER : cut;
}

/** The bounds of a button's text and a list item's title (docs/api.md, "Quick reply", "messageListPicker"). */
const BUTTON_TEXT_MAX = 4000;
const ITEM_TITLE_MAX = 24;

/** What the customer's message carries: its text, and the button pressed or the item picked. */
export interface MessageWords {
  text: string;
  quickReply: Record<string, unknown> | null;
  listItem: { identifier: string; title: string } | null;
}

/** The action a message takes on a channel: a list is shown on IM only, so a pick elsewhere is a press. */
export function actionOn(action: FuzzAction, channel: string): FuzzAction {
  return action === 'pick' && channel !== 'IM' ? 'press' : action;
}

/** The words of a message on `channel`, its `index`-th in the conversation (for a list item's identifier). */
export function wordsOf(message: FuzzMessage, channel: string, index: number): MessageWords {
  const text = textOf(message.text);
  const label = text === '' ? FILLER : text;
  switch (actionOn(message.action, channel)) {
    case 'press': {
      const shown = label.slice(0, BUTTON_TEXT_MAX);
      return { text: shown, quickReply: { type: 'TEXT', text: shown, payload: null }, listItem: null };
    }
    case 'pick': {
      const title = label.slice(0, ITEM_TITLE_MAX);
      return { text: title, quickReply: null, listItem: { identifier: `item-${index + 1}`, title } };
    }
    default:
      return { text, quickReply: null, listItem: null };
  }
}
