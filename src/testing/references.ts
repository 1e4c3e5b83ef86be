import { closestField, formatPath, type Path } from '../payload/messages.js';
import type { Step } from './schema.js';
import { isTemplate, parseTemplate, referencesOf, stringsOf } from './substitute.js';

/**
 * The `${NAME}`s of one conversation, checked before anything runs (docs/testing-bots.md,
 * "Captured values" and "Examples"): every NAME is captured by an earlier step or is a key of every
 * examples row; every key of a row is used; every `${` is readable. Pure: problems with their paths,
 * relative to the conversation.
 */

export interface ReferenceProblem {
  path: Path;
  message: string;
}

export interface ConversationText {
  name?: string;
  /** A conversation that starts mid-flow knows ${sessionId} and ${questionId} from its first step. */
  from?: unknown;
  steps: readonly Step[];
  examples?: readonly Record<string, unknown>[];
}

/** The strings of a step where `${NAME}` is read, with their paths inside the step. */
function* stepStrings(step: Step): Generator<[string, Path]> {
  if (step.customer !== undefined) yield [step.customer, ['customer']];
  if (step.press !== undefined) yield [step.press, ['press']];
  if (step.agent !== undefined) yield [step.agent, ['agent']];
  if (step.bot !== undefined && step.bot !== 'none') yield* stringsOf(step.bot, ['bot']);
  for (const [name, pattern] of Object.entries(step.capture ?? {})) yield [pattern, ['capture', name]];
}

/** The values a conversation that starts from a seed or a snapshot knows: its thread's sessionId and last questionId. */
export const FROM_VALUES = ['sessionId', 'questionId'] as const;

export function checkReferences(conversation: ConversationText, namePath: Path | undefined): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const rows = conversation.examples ?? [];
  const keys = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const used = new Set<string>();
  const captured = new Set<string>(conversation.from === undefined ? [] : FROM_VALUES);
  const lacking = new Set<string>();

  const check = (text: string, path: Path, capturable: boolean) => {
    if (!isTemplate(text)) return;
    const parsed = parseTemplate(text);
    if ('problem' in parsed) {
      problems.push({ path, message: parsed.problem });
      return;
    }
    for (const name of referencesOf(text)) {
      if (capturable && captured.has(name)) continue;
      if (keys.includes(name)) {
        used.add(name);
        rows.forEach((row, index) => {
          if (name in row || lacking.has(`${index} ${name}`)) return;
          lacking.add(`${index} ${name}`);
          problems.push({ path: ['examples', index], message: `gives no ${name}, which ${formatPath(path)} uses as \${${name}}` });
        });
        continue;
      }
      const known = capturable ? [...captured, ...keys] : keys;
      const close = closestField(name, known);
      problems.push({
        path,
        message:
          `\${${name}} is unknown: ${capturable ? 'no earlier step captures it and ' : ''}` +
          `${rows.length > 0 ? 'the examples do not give it' : 'there are no examples'}` +
          `${close === undefined ? '' : `; did you mean \${${close}}?`} (write $\${ for a literal \${)`,
      });
    }
  };

  if (conversation.name !== undefined && namePath !== undefined) check(conversation.name, namePath, false);
  conversation.steps.forEach((step, index) => {
    for (const [text, path] of stepStrings(step)) check(text, ['steps', index, ...path], true);
    // A value captured here is known from the next step on.
    for (const name of Object.keys(step.capture ?? {})) captured.add(name);
  });
  rows.forEach((row, index) => {
    for (const key of Object.keys(row)) {
      if (!used.has(key)) problems.push({ path: ['examples', index, key], message: `\${${key}} is used by no step` });
    }
  });
  return problems;
}
