import type { Style } from '../output/style.js';
import type * as z from 'zod/mini';
import { maxLengthOf, validateField } from '../payload/index.js';
import type { InputConfig, Prompter } from './prompter.js';
import { count } from '../output/count.js';

/**
 * Asking for one field of a payload. Every answer is checked, as it is typed, by the very zod schema
 * that validates the payload (one source of truth per rule: docs/architecture.md, "Rules of the
 * road"), and a field with a length limit shows the characters left against that limit, read from
 * the same schema.
 */

export type FieldSchema = z.ZodMiniType;

export interface Io {
  prompter: Prompter;
  /** Colours and glyphs of the prompts' stream. */
  style: Style;
}

export interface FieldSpec {
  /** What the prompt asks for, such as "Text" or "Button 1 text". */
  label: string;
  schema: FieldSchema;
  /** The value so far: offered as the default (Enter keeps it; Backspace on an empty line drops it). */
  current?: string | undefined;
  /** An optional field: Enter on an empty line leaves it out. */
  optional?: boolean;
  /** Turns the typed text into the field's value before validation, such as digits into a bigint. */
  parse?: (text: string) => unknown;
  /** A further check over the value in its surroundings (a whole list, say), also from the payload schemas. */
  check?: (value: unknown) => true | string;
}

/** The validation of one answer: the field's schema, then the surrounding check. */
export function fieldValidator(spec: FieldSpec): (text: string) => true | string {
  return (text) => {
    if (text === '' && spec.optional) return true;
    const value = spec.parse ? spec.parse(text) : text;
    const verdict = validateField(spec.schema, value);
    if (verdict !== true) return verdict;
    return spec.check ? spec.check(value) : true;
  };
}

/**
 * Shows the characters left while typing, counted as the service counts them (UTF-16 code units, as
 * the schema's check does): `Hello (3,995 left)`, or `(5 over the limit of 61)` past it.
 */
export function charactersLeft(
  limit: number | undefined,
  style: Style,
  hasDefault = false,
): ((value: string, state: { isFinal: boolean }) => string) | undefined {
  if (limit === undefined) return undefined;
  return (value, { isFinal }) => {
    if (isFinal) return style.cyan(value);
    // While the default is offered, a count for the empty line would read as the default's.
    if (value === '' && hasDefault) return '';
    const left = limit - value.length;
    const note = left >= 0 ? style.dim(`(${count(left)} left)`) : style.red(`(${count(-left)} over the limit of ${count(limit)})`);
    return value === '' ? note : `${value} ${note}`;
  };
}

/** The prompt's message: the label, the limit when there is one, and how to skip an optional field. */
export function fieldMessage(spec: Pick<FieldSpec, 'label' | 'schema' | 'optional'>, style: Style): string {
  const limit = maxLengthOf(spec.schema);
  const notes: string[] = [];
  if (limit !== undefined) notes.push(`up to ${count(limit)} characters`);
  if (spec.optional) notes.push('Enter to skip');
  return notes.length === 0 ? spec.label : `${spec.label} ${style.dim(`(${notes.join('; ')})`)}`;
}

/** The input prompt's configuration for a field: message, default, validation, characters left. */
export function fieldPrompt(spec: FieldSpec, style: Style): InputConfig {
  const hasDefault = spec.current !== undefined && spec.current !== '';
  const transformer = charactersLeft(maxLengthOf(spec.schema), style, hasDefault);
  return {
    message: fieldMessage(spec, style),
    ...(hasDefault ? { default: spec.current } : {}),
    validate: fieldValidator(spec),
    ...(transformer ? { transformer } : {}),
  };
}

/** Asks for a field on one line. Returns undefined when an optional field is skipped. */
export async function askField(io: Io, spec: FieldSpec): Promise<string | undefined> {
  const answer = await io.prompter.input(fieldPrompt(spec, io.style));
  return answer === '' && spec.optional ? undefined : answer;
}

/**
 * Asks for a message text: on one line, or in the user's editor for longer text (offered as a
 * choice; a text that already has several lines opens in the editor by default).
 */
export async function askText(io: Io, spec: FieldSpec): Promise<string | undefined> {
  const multiline = spec.current?.includes('\n') === true;
  const way = await io.prompter.select<'line' | 'editor'>({
    message: `${spec.label}: how do you want to write it?`,
    choices: [
      { value: 'line', name: 'Type it here, on one line', short: 'on one line' },
      { value: 'editor', name: 'Write it in my editor ($VISUAL or $EDITOR), for longer text', short: 'in the editor' },
    ],
    default: multiline ? 'editor' : 'line',
  });
  if (way === 'line') return askField(io, spec);
  const validate = fieldValidator(spec);
  const written = await io.prompter.editor({
    message: fieldMessage(spec, io.style),
    ...(spec.current !== undefined ? { default: spec.current } : {}),
    // Editors end a file with a newline the user did not mean as part of the text.
    validate: (value) => validate(trimFinalNewline(value)),
  });
  const text = trimFinalNewline(written);
  return text === '' && spec.optional ? undefined : text;
}

export function trimFinalNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}
