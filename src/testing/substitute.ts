import { literal, looksLikePattern } from './pattern.js';

/**
 * `${NAME}` in the strings of a test file (docs/testing-bots.md, "Captured values" and "Examples"):
 * NAME is a value captured from an earlier answer (`capture:`) or a key of the conversation's
 * `examples` row. Inside a /pattern/ the value is matched literally (its special characters
 * escaped); `$${` writes a literal `${`. Pure: the loader checks the references, the runner fills
 * them in.
 */

/** What a NAME may be: a letter or underscore, then letters, digits and underscores. */
export const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A piece of a string: literal text, or a reference to a value. */
export type Segment = { text: string } | { name: string };

/** The pieces of a string, or why it cannot be read (a `${` without its `}`, a NAME that is not one). */
export function parseTemplate(text: string): { segments: Segment[] } | { problem: string } {
  const segments: Segment[] = [];
  let literalText = '';
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      literalText += '${';
      i += 3;
    } else if (text.startsWith('${', i)) {
      const end = text.indexOf('}', i + 2);
      if (end === -1) return { problem: `${JSON.stringify(text)}: \${ without its closing }; write $\${ for a literal \${` };
      const name = text.slice(i + 2, end);
      if (!NAME.test(name)) {
        return {
          problem: `${JSON.stringify(text)}: \${${name}} is not a name (letters, digits and _, not starting with a digit); write $\${ for a literal \${`,
        };
      }
      if (literalText !== '') segments.push({ text: literalText });
      literalText = '';
      segments.push({ name });
      i = end + 1;
    } else {
      literalText += text[i];
      i += 1;
    }
  }
  if (literalText !== '') segments.push({ text: literalText });
  return { segments };
}

/** Whether a string needs reading as a template at all (most do not). */
export function isTemplate(text: string): boolean {
  return text.includes('${');
}

/** The names a string refers to, in order (an unreadable string refers to none: its problem is reported by the schema). */
export function referencesOf(text: string): string[] {
  if (!isTemplate(text)) return [];
  const parsed = parseTemplate(text);
  if ('problem' in parsed) return [];
  return parsed.segments.flatMap((segment) => ('name' in segment ? [segment.name] : []));
}

/** The string with every reference made harmless, for checking a /pattern/ before its values are known. */
export function withPlaceholders(text: string): string {
  if (!isTemplate(text)) return text;
  const parsed = parseTemplate(text);
  if ('problem' in parsed) return text;
  return parsed.segments.map((segment) => ('name' in segment ? 'x' : segment.text)).join('');
}

export type Values = ReadonlyMap<string, string>;

/**
 * A string with its references replaced.
 * - `send`: text the customer sends (a message, a press label): the values as they are.
 * - `match`: a string a bot answer is matched with: inside a /pattern/ a value is matched literally;
 *   an exact string stays exact even when the values make it look like a /pattern/.
 * A name without a value is left as written (the loader has already refused such a file).
 */
export function substitute(text: string, values: Values, use: 'send' | 'match'): string {
  if (!isTemplate(text)) return text;
  const parsed = parseTemplate(text);
  if ('problem' in parsed) return text;
  const pattern = use === 'match' && looksLikePattern(text);
  const out = parsed.segments
    .map((segment) => {
      if ('text' in segment) return segment.text;
      const value = values.get(segment.name);
      if (value === undefined) return `\${${segment.name}}`;
      return pattern ? escapeRegExp(value) : value;
    })
    .join('');
  return use === 'match' && !pattern ? literal(out) : out;
}

/** Every string inside a value (an expected answer) substituted for matching. */
export function substituteAll(value: unknown, values: Values): unknown {
  if (typeof value === 'string') return substitute(value, values, 'match');
  if (Array.isArray(value)) return value.map((item: unknown) => substituteAll(item, values));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteAll(item, values)]));
  }
  return value;
}

/** Every string inside a value, with the path to it: where the loader looks for references. */
export function* stringsOf(value: unknown, path: (string | number)[] = []): Generator<[string, (string | number)[]]> {
  if (typeof value === 'string') yield [value, path];
  else if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* stringsOf(item, [...path, index]);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) yield* stringsOf(item, [...path, key]);
  }
}

/** A text matched literally inside a regular expression: every character with a meaning escaped (braces too). */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** A text written so that it reads back as itself: `${` as `$${` (what "save as test" writes). */
export function escapeTemplate(text: string): string {
  return text.replace(/\$\{/g, '$$${');
}
