import type { Env } from '../io.js';

/**
 * The characters core draws in its human output, and their ASCII stand-ins for a terminal whose
 * locale is not UTF-8 (docs/json-output.md, "Human output"). The choice is made once per invocation,
 * from the environment (`decideUnicode`), and carried by the context and by each Style.
 *
 * Only what core adds is chosen here: a bot's text, a customer's message or a service's answer is
 * data and is shown as it came.
 */

export interface Glyphs {
  /** Whether these are the Unicode glyphs (false: ASCII only). */
  readonly unicode: boolean;
  /** A check or request that passed: `✓`. */
  readonly ok: string;
  /** One that failed: `✗`. */
  readonly fail: string;
  /** A consequence, such as a hand-over: `→`. */
  readonly arrow: string;
  /** Text cut short: `…`. */
  readonly ellipsis: string;
  /** Between the parts of a title: ` · `. */
  readonly separator: string;
  /** Between the parts of a list of keys: ` • `. */
  readonly bullet: string;
  /** A box's corners and sides. */
  readonly box: {
    readonly topLeft: string;
    readonly topRight: string;
    readonly bottomLeft: string;
    readonly bottomRight: string;
    readonly horizontal: string;
    readonly vertical: string;
  };
  /** The marks of a message's parts in a preview. */
  readonly image: string;
  readonly video: string;
  readonly document: string;
  readonly listItem: string;
  readonly listButton: string;
  readonly contact: string;
  /** The prompts: an answered question, and the boxes of a checkbox list. */
  readonly answered: string;
  readonly checked: string;
  readonly unchecked: string;
  readonly disabledChecked: string;
}

export const UNICODE_GLYPHS: Glyphs = {
  unicode: true,
  ok: '✓',
  fail: '✗',
  arrow: '→',
  ellipsis: '…',
  separator: ' · ',
  bullet: ' • ',
  box: { topLeft: '╭', topRight: '╮', bottomLeft: '╰', bottomRight: '╯', horizontal: '─', vertical: '│' },
  image: '▣',
  video: '▶',
  document: '▤',
  listItem: '○',
  listButton: '☰',
  contact: '☎',
  answered: '✔',
  checked: '◉',
  unchecked: '◯',
  disabledChecked: '◎',
};

/** The same marks in ASCII: what a terminal under LC_ALL=C shows as written. */
export const ASCII_GLYPHS: Glyphs = {
  unicode: false,
  ok: 'ok',
  fail: 'x',
  arrow: '->',
  ellipsis: '...',
  separator: ' - ',
  bullet: ', ',
  box: { topLeft: '+', topRight: '+', bottomLeft: '+', bottomRight: '+', horizontal: '-', vertical: '|' },
  image: '[image]',
  video: '[video]',
  document: '[file]',
  listItem: '-',
  listButton: '[list]',
  contact: '[contact]',
  answered: 'ok',
  checked: '(*)',
  unchecked: '( )',
  disabledChecked: '(-)',
};

/**
 * The locale that decides how characters are encoded, as the C library reads it: LC_ALL, else
 * LC_CTYPE, else LANG (an empty value counts as unset). Undefined when none is set.
 */
export function characterLocale(env: Env): string | undefined {
  for (const name of ['LC_ALL', 'LC_CTYPE', 'LANG'] as const) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/**
 * Whether core may draw non-ASCII glyphs: yes unless the locale names an encoding other than UTF-8
 * (`C`, `POSIX`, `en_US.ISO-8859-1`, `C.ASCII`). With no locale set at all, as in many containers,
 * CI runners and on Windows, whose terminals show UTF-8, the glyphs are drawn.
 */
export function decideUnicode(env: Env): boolean {
  const locale = characterLocale(env);
  if (locale === undefined) return true;
  return /\.utf-?8(?:@|$)/i.test(locale) || /^utf-?8$/i.test(locale);
}

/** The glyphs for an environment. */
export function glyphsFor(env: Env): Glyphs {
  return decideUnicode(env) ? UNICODE_GLYPHS : ASCII_GLYPHS;
}

/**
 * core's own punctuation in a message written for people (an error, a warning, a hint) in ASCII,
 * when the glyphs are: the ellipsis that marks a value cut short, a typographic apostrophe or dash.
 * The message may quote a value from outside; such a quote is shown as core cut it.
 */
export function plainText(text: string, glyphs: Glyphs): string {
  if (glyphs.unicode || !/[^\x00-\x7f]/.test(text)) return text;
  return text
    .replace(/\u2026/g, '...')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\u00B7/g, '-')
    .replace(/\u2192/g, '->');
}
