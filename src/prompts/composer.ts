import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CoreError, InterruptedError, type Problem } from '../errors.js';
import type { Limits } from '../payload/index.js';
import type { Io } from './ask.js';
import { renderPreview } from './preview.js';
import { isPromptExit } from './prompter.js';

/**
 * The composer's flow, shared by `core greet -i` and `core reply -i`: ask for each required part
 * the flags and the file did not give, offer the optional parts, then show a preview and let the
 * user send, edit a part, save to a file, or cancel.
 */

export type Draft = Record<string, unknown>;

export interface ComposeEnv extends Io {
  /** The profile's limits on quick replies (docs/configuration.md, "Keys", limits). */
  limits: Limits;
}

/** One part of a message that can be asked for, and later edited, as a whole. */
export interface Part {
  key: string;
  /** Its name in the edit menu, such as "Quick-reply buttons". */
  name: string;
  /** A short view of the part in the draft; undefined when the draft does not have it. */
  summary(draft: Draft): string | undefined;
  /** A required part: asked at the start when this says it is missing. */
  needed?(draft: Draft): boolean;
  /** An optional part: offered under this label at the start when the draft does not have it. */
  offer?: string;
  /** Asks for the part (with the draft's values as defaults) and writes it into the draft. */
  ask(draft: Draft, env: ComposeEnv): Promise<void>;
  /** Takes an optional part out of the draft. */
  remove?(draft: Draft): void;
}

/** The outcome of validating the draft with the payload schema. */
export interface DraftCheck {
  ok: boolean;
  problems?: Problem[];
  warnings: Problem[];
}

export interface ComposeOptions {
  /** "greeting" or "reply": the default file name and the words of the menu. */
  kind: string;
  parts: Part[];
  /** The line above the preview, from the draft. */
  title(draft: Draft): string;
  /** The payload's own validation (validateGreeting / validateReply with the profile's limits). */
  validate(draft: Draft): DraftCheck;
  /** The first choice of the menu: "Send it", or what --dry-run / --save do instead. */
  sendLabel: string;
  /** Writes the draft to a file; returns where it went. Without it, the menu offers no "Save to a file". */
  save?(path: string, draft: Draft): Promise<string>;
  cwd: string;
  /**
   * What is drawn above the problems, in place of the message preview: for a payload that is no
   * message (an inactivity reason), a summary of its fields.
   */
  summary?(payload: Draft, env: ComposeEnv): string;
  /** The field order of the payload, for a draft whose fields were added in the order asked. */
  order: readonly string[];
}

/**
 * Composes a payload from a draft built from the file and flags. Returns the payload to send.
 * Ctrl-C at any prompt, and "Cancel" in the menu, end with InterruptedError: "cancelled, nothing
 * sent", exit 130 (docs/exit-codes.md; docs/composer.md, "Leaving without sending").
 */
export async function compose(start: Draft, env: ComposeEnv, options: ComposeOptions): Promise<Draft> {
  const draft: Draft = { ...start };
  try {
    for (const part of options.parts) {
      if (part.needed?.(draft)) await part.ask(draft, env);
    }
    const offers = options.parts.filter((p) => p.offer !== undefined && p.summary(draft) === undefined);
    if (offers.length > 0) {
      const picked = await env.prompter.checkbox<string>({
        message: `Add to the ${options.kind} ${env.style.dim('(Space to pick, Enter to go on)')}`,
        choices: offers.map((p) => ({ value: p.key, name: p.offer!, short: p.name })),
      });
      for (const part of offers) if (picked.includes(part.key)) await part.ask(draft, env);
    }
    return await review(draft, env, options);
  } catch (error) {
    if (isPromptExit(error)) throw new InterruptedError();
    throw error;
  }
}

/** The draft's fields in the payload's order; fields the order does not know come last, as they were. */
export function ordered(draft: Draft, order: readonly string[]): Draft {
  const out: Draft = {};
  for (const key of order) if (draft[key] !== undefined) out[key] = draft[key];
  for (const [key, value] of Object.entries(draft)) if (!(key in out) && value !== undefined) out[key] = value;
  return out;
}

/** The problems and warnings under the preview. */
export function renderCheck(check: DraftCheck, io: Io): string {
  const { style } = io;
  const lines: string[] = [];
  const problems = check.problems ?? [];
  if (problems.length > 0) {
    lines.push(
      style.red(
        `${style.glyphs.fail} ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}; choose "Edit a part" to fix:`,
      ),
    );
    for (const p of problems) lines.push(`  ${p.path ? `${p.path}: ` : ''}${p.message}`);
  }
  for (const w of check.warnings) lines.push(style.yellow(`! ${w.path ? `${w.path}: ` : ''}${w.message}`));
  if (problems.length === 0) lines.push(style.green(`${style.glyphs.ok} ready to send`));
  return `${lines.join('\n')}\n`;
}

type Action = 'send' | 'edit' | 'save' | 'cancel';

async function review(draft: Draft, env: ComposeEnv, options: ComposeOptions): Promise<Draft> {
  const { prompter, style } = env;
  for (;;) {
    const payload = ordered(draft, options.order);
    const check = options.validate(payload);
    const picture = options.summary
      ? options.summary(payload, env)
      : renderPreview(payload, { title: options.title(payload), columns: prompter.columns, style });
    prompter.write(`\n${picture}`);
    prompter.write(renderCheck(check, env));
    const action = await prompter.select<Action>({
      message: 'What now?',
      choices: [
        { value: 'send', name: options.sendLabel, disabled: check.ok ? false : '(fix the problems first)' },
        { value: 'edit', name: 'Edit a part' },
        ...(options.save ? [{ value: 'save' as const, name: 'Save to a file (JSON, for -f)' }] : []),
        { value: 'cancel', name: 'Cancel: send nothing' },
      ],
      default: check.ok ? 'send' : 'edit',
    });
    if (action === 'send') return payload;
    if (action === 'cancel') throw new InterruptedError();
    if (action === 'edit') await editPart(draft, env, options);
    if (action === 'save') await saveDraft(payload, env, options);
  }
}

async function editPart(draft: Draft, env: ComposeEnv, options: ComposeOptions): Promise<void> {
  const { prompter, style } = env;
  const key = await prompter.select<string>({
    message: 'Which part?',
    choices: [
      ...options.parts.map((p) => ({ value: p.key, name: `${p.name}: ${p.summary(draft) ?? style.dim('none')}` })),
      { value: '', name: 'Back to the preview' },
    ],
  });
  const part = options.parts.find((p) => p.key === key);
  if (!part) return;
  if (part.remove && part.summary(draft) !== undefined) {
    const how = await prompter.select<'change' | 'remove' | 'back'>({
      message: part.name,
      choices: [
        { value: 'change', name: 'Change it' },
        { value: 'remove', name: 'Remove it' },
        { value: 'back', name: 'Back to the preview' },
      ],
    });
    if (how === 'back') return;
    if (how === 'remove') {
      part.remove(draft);
      return;
    }
  }
  await part.ask(draft, env);
}

async function saveDraft(payload: Draft, env: ComposeEnv, options: ComposeOptions): Promise<void> {
  const { save } = options;
  if (!save) return;
  const { prompter, style } = env;
  const path = await prompter.input({
    message: 'Save to file',
    default: `${options.kind}.json`,
    validate: (value) => (value.trim() === '' ? 'give a file name' : true),
  });
  if (existsSync(resolve(options.cwd, path.trim()))) {
    const overwrite = await prompter.confirm({ message: `${path.trim()} exists. Replace it?`, default: false });
    if (!overwrite) return;
  }
  try {
    const where = await save(path.trim(), payload);
    prompter.write(style.green(`saved to ${where}; send it later with -f ${path.trim()}\n`));
  } catch (error) {
    // A file that cannot be written is no reason to lose the message: say why and go back to the menu.
    if (!(error instanceof CoreError)) throw error;
    prompter.write(style.red(`${style.glyphs.fail} ${error.message}\n`));
  }
}
