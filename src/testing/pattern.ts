/**
 * The strings of a `bot:` step: a string is matched exactly, or, written as `/source/flags`, as a
 * regular expression (docs/testing-bots.md, "Matching"). Pure, so the file schema, the matcher and
 * the recorder of "save as test" read one definition.
 */

/** The flags a pattern may carry. `g` and `y` make a RegExp remember where it stopped, so they are left out. */
export const PATTERN_FLAGS = 'imsuv';

/** `/source/flags`: a slash, something, a slash, then letters only. */
const PATTERN = /^\/(.+)\/([a-z]*)$/s;

export type Pattern = { kind: 'exact'; text: string } | { kind: 'regex'; regex: RegExp; source: string };

/** The source and flags of a string written as `/source/flags`; undefined for plain text. */
export function patternParts(text: string): { source: string; flags: string } | undefined {
  const match = PATTERN.exec(text);
  return match === null ? undefined : { source: match[1]!, flags: match[2]! };
}

/** Whether a string is written as a regular expression (it may still be an invalid one: see patternProblem). */
export function looksLikePattern(text: string): boolean {
  return PATTERN.test(text);
}

/** Why a string written as `/.../flags` is not a usable regular expression; undefined when it is, or when it is plain text. */
export function patternProblem(text: string): string | undefined {
  const match = PATTERN.exec(text);
  if (match === null) return undefined;
  const [, source, flags] = match as unknown as [string, string, string];
  const unknown = [...flags].filter((flag) => !PATTERN_FLAGS.includes(flag));
  if (unknown.length > 0) {
    return (
      `${quoted(text)} is written as a /regular expression/ but ends with the flag${unknown.length === 1 ? '' : 's'} ` +
      `${unknown.join('')}; the flags are ${[...PATTERN_FLAGS].join(', ')}. To match this text exactly, write ${JSON.stringify(exactPattern(text))}`
    );
  }
  if (new Set(flags).size !== flags.length) return `${quoted(text)}: a flag is repeated`;
  const depth = groupDepth(source);
  if (depth > MAX_GROUP_DEPTH) {
    return (
      `${quoted(text)} is not a valid regular expression: its groups are nested ${depth.toLocaleString('en-US')} deep, ` +
      `more than ${MAX_GROUP_DEPTH.toLocaleString('en-US')} (it is too long or too deeply nested to compile)`
    );
  }
  try {
    // V8 compiles a pattern when it is first used, not when it is made: a pattern too large to compile
    // (a source of 40,000 letters: "Regular expression too large", or "Stack overflow") is valid until
    // then. Using it once on the empty string compiles it here, where the file is checked.
    new RegExp(source, flags).exec('');
    return undefined;
  } catch (error) {
    // The engine's message repeats the whole source: for a long one, only its reason is kept.
    const message = (error as Error).message;
    const reason = text.length <= MAX_QUOTED ? message : message.slice(message.lastIndexOf(': ') + 2);
    return `${quoted(text)} is not a valid regular expression: ${reason}${/too large|overflow/i.test(reason) ? ' (it is too long or too deeply nested to compile)' : ''}`;
  }
}

/**
 * The deepest nesting of groups a pattern may have. V8 compiles groups nested some 8,000 deep, each
 * after a letter (`(?:a(?:a...`), by running out of memory, which ends the process with no error to
 * catch; shallower than that it compiles or refuses with "Stack overflow". No pattern a test needs
 * comes near 1,000.
 */
export const MAX_GROUP_DEPTH = 1_000;

/**
 * How deep the groups of a pattern's source are nested: a `(` not escaped and not inside a character
 * class opens one. (With the v flag a class may hold classes, but a bracket in one must then be
 * escaped, so no group opens inside a class either way.)
 */
export function groupDepth(source: string): number {
  let depth = 0;
  let deepest = 0;
  let escaped = false;
  let inClass = false;
  for (const char of source) {
    if (escaped) escaped = false;
    else if (char === '\\') escaped = true;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') deepest = Math.max(deepest, (depth += 1));
    // A `)` with no group open makes the pattern invalid: the engine refuses it before compiling.
    else if (char === ')') depth -= 1;
  }
  return deepest;
}

/** The longest text a message quotes whole; a longer one is quoted by its start and its length. */
const MAX_QUOTED = 80;

/** A text as a message quotes it: JSON-quoted, cut past MAX_QUOTED characters with its length. */
export function quoted(text: string): string {
  if (text.length <= MAX_QUOTED) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, MAX_QUOTED - 3)).slice(0, -1)}…" (${text.length.toLocaleString('en-US')} characters)`;
}

/** A string as a matcher; a pattern is compiled. Call only on strings that passed patternProblem. */
export function toPattern(text: string): Pattern {
  const match = PATTERN.exec(text);
  if (match === null) return { kind: 'exact', text };
  return { kind: 'regex', regex: new RegExp(match[1]!, match[2]!), source: text };
}

/** A regular expression that matches exactly `text`, written as a pattern: what the recorder writes for text that looks like one. */
export function exactPattern(text: string): string {
  return `/^${text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')}$/`;
}

/** The string a recorded answer holds, written so that it matches itself: as is, unless it looks like a pattern. */
export function literal(text: string): string {
  return looksLikePattern(text) ? exactPattern(text) : text;
}
