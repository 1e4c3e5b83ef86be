import { ExitPromptError } from '@inquirer/core';
import type {
  CheckboxConfig,
  ConfirmConfig,
  EditorConfig,
  InputConfig,
  PasswordConfig,
  Prompter,
  SelectConfig,
} from '../../src/prompts/prompter.js';

/**
 * A prompter that answers from a script, for testing the composer's flows without a terminal.
 * Each step names the kind of prompt and a pattern its message must match, so a flow that asks
 * something else, or in another order, fails at once with both messages.
 *
 * An input step may list several answers: each is put through the prompt's own validation, as
 * inquirer does on Enter, and the messages of the rejected ones are kept in `rejections` — which
 * is how the tests read the validation messages a user would see.
 */

type Kind = 'input' | 'editor' | 'password' | 'select' | 'checkbox' | 'confirm';

export type Step =
  | { kind: 'input' | 'editor' | 'password'; message: RegExp; answers: string[] }
  | { kind: 'select'; message: RegExp; answer: unknown }
  | { kind: 'checkbox'; message: RegExp; answer: unknown[] }
  | { kind: 'confirm'; message: RegExp; answer: boolean }
  /** The user presses Ctrl-C at this prompt. */
  | { kind: Kind; message: RegExp; ctrlC: true };

/** An answer typed after Backspace has cleared the prompt's default: an empty line. */
export const CLEARED = '\u0000cleared';

export const input = (message: RegExp, ...answers: string[]): Step => ({ kind: 'input', message, answers });
export const editor = (message: RegExp, ...answers: string[]): Step => ({ kind: 'editor', message, answers });
export const password = (message: RegExp, ...answers: string[]): Step => ({ kind: 'password', message, answers });
export const select = (message: RegExp, answer: unknown): Step => ({ kind: 'select', message, answer });
export const checkbox = (message: RegExp, ...answer: unknown[]): Step => ({ kind: 'checkbox', message, answer });
export const confirm = (message: RegExp, answer: boolean): Step => ({ kind: 'confirm', message, answer });
export const ctrlC = (kind: Kind, message: RegExp): Step => ({ kind, message, ctrlC: true });

export interface Asked {
  kind: Kind;
  message: string;
  default?: unknown;
  /** For select: each choice's value and whether it was disabled (with the reason). */
  choices?: { value: unknown; name: string; disabled?: string | false }[];
  /** For input: how the prompt showed the first answer while it was typed (the transformer). */
  shown?: string;
}

export interface ScriptedPrompter extends Prompter {
  /** Every prompt asked, in order. */
  asked: Asked[];
  /** The validation messages shown for rejected answers, in order. */
  rejections: string[];
  /** Everything written between prompts (the previews). */
  written: string;
  /** Steps not yet used. */
  left(): number;
}

export function scriptedPrompter(steps: Step[], columns = 80): ScriptedPrompter {
  const queue = [...steps];
  const asked: Asked[] = [];
  const rejections: string[] = [];
  const self: ScriptedPrompter = {
    asked,
    rejections,
    written: '',
    columns,
    color: false,
    left: () => queue.length,
    write(text) {
      self.written += text;
    },
    async input(config: InputConfig) {
      const step = next('input', config.message, { default: config.default });
      if (config.transformer && 'answers' in step) asked.at(-1)!.shown = config.transformer(step.answers[0] ?? '', { isFinal: false });
      return answerText(step, config);
    },
    async editor(config: EditorConfig) {
      const step = next('editor', config.message, { default: config.default });
      return answerText(step, config);
    },
    async password(config: PasswordConfig) {
      const step = next('password', config.message, {});
      return answerText(step, config);
    },
    async select<T>(config: SelectConfig<T>) {
      const step = next('select', config.message, {
        default: config.default,
        choices: config.choices.map((c) => ({ value: c.value, name: c.name, disabled: c.disabled ?? false })),
      });
      if (!('answer' in step)) throw new Error('unreachable');
      const choice = config.choices.find((c) => c.value === step.answer);
      if (!choice)
        throw new Error(
          `"${config.message}": ${String(step.answer)} is not a choice (${config.choices.map((c) => String(c.value)).join(', ')})`,
        );
      if (choice.disabled) throw new Error(`"${config.message}": ${String(step.answer)} is disabled: ${choice.disabled}`);
      return step.answer as T;
    },
    async checkbox<T>(config: CheckboxConfig<T>) {
      const step = next('checkbox', config.message, {
        choices: config.choices.map((c) => ({ value: c.value, name: c.name, disabled: c.disabled ?? false })),
      });
      if (!('answer' in step) || !Array.isArray(step.answer)) throw new Error('unreachable');
      for (const value of step.answer) {
        if (!config.choices.some((c) => c.value === value)) throw new Error(`"${config.message}": ${String(value)} is not a choice`);
      }
      return step.answer as T[];
    },
    async confirm(config: ConfirmConfig) {
      const step = next('confirm', config.message, { default: config.default });
      if (!('answer' in step)) throw new Error('unreachable');
      return step.answer as boolean;
    },
  };

  function next(kind: Kind, message: string, extra: Partial<Asked>): Step {
    asked.push({ kind, message, ...extra });
    const step = queue.shift();
    if (!step) throw new Error(`the script has ended, but the composer asked (${kind}) "${message}"`);
    if (step.kind !== kind || !step.message.test(message)) {
      throw new Error(`the script expected (${step.kind}) ${String(step.message)}, but the composer asked (${kind}) "${message}"`);
    }
    if ('ctrlC' in step) throw new ExitPromptError('User force closed the prompt with SIGINT');
    return step;
  }

  function answerText(step: Step, config: { message: string; default?: string; validate?: (v: string) => true | string }): string {
    if (!('answers' in step)) throw new Error('unreachable');
    for (const typed of step.answers) {
      // inquirer's input: Enter on an empty line takes the default.
      const value = typed === CLEARED ? '' : typed === '' ? (config.default ?? '') : typed;
      const verdict = config.validate ? config.validate(value) : true;
      if (verdict === true) return value;
      rejections.push(verdict);
    }
    throw new Error(`"${config.message}": no answer passed validation; shown: ${rejections.slice(-step.answers.length).join(' | ')}`);
  }

  return self;
}
