import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { validateReply } from '../../payload/index.js';
import type { Prompter } from '../../prompts/prompter.js';
import { deliver, printWarnings, rejectPayload } from '../../send/deliver.js';
import { readPayloadFile } from '../../send/input.js';
import { operations } from '../../send/request.js';
import { loadCommandSettings, requireTerminal } from '../common.js';
import { buildReply } from './build.js';
import type { ReplyOptions } from './command.js';

/** What a test may hand in instead of the real thing. */
export interface ReplyDeps {
  /** The prompts for -i; the real one draws on the terminal with inquirer. */
  prompter?: Prompter;
}

/** `core reply`: build the bot answer from a file and flags, validate it, then send or show it. */
export async function runReply(options: ReplyOptions, ctx: Context, deps: ReplyDeps = {}): Promise<number> {
  // Checked before anything else, so that -i without a terminal fails at once and nobody composes a
  // reply only to hear that the flags clash (as core greet does).
  if (options.interactive) requireTerminal(ctx, 'core reply', '-t/--text with --core-client-id (or another address), or -f FILE');
  if (options.dryRun && options.curl) throw new UsageError('--dry-run and --curl cannot be used together');
  const settings = await loadCommandSettings(options, ctx);

  const file = options.file === undefined ? undefined : (await readPayloadFile(options.file, ctx)).value;
  const built = await buildReply(file, options.fields, { now: new Date(), newId: randomUUID });

  const limits = settings.limits.value;
  if (options.interactive) {
    // The composer asks only for what the file and flags left out; the answerId is already filled.
    const prompts = await import('../../prompts/index.js');
    const prompter = deps.prompter ?? prompts.createPrompter(ctx);
    built.payload = await prompts.composeReply(built.payload, prompts.composerEnv(prompter, limits), {
      validate: (draft) => validateReply(draft, { limits, email: options.email }),
      email: options.email,
      sendLabel: prompts.finishLabel(options),
      save: (path, draft) => prompts.savePayload(path, draft, ctx.cwd),
      cwd: ctx.cwd,
    });
  }
  const validation = validateReply(built.payload, { limits, email: options.email });
  // The composer's preview has shown the warnings already.
  if (!options.interactive) printWarnings(validation.warnings, ctx);
  if (!validation.ok) {
    rejectPayload('reply', validation.problems, ctx, {
      json: options.json,
      operation: operations.reply,
      settings,
      answerId: built.answerId,
      hint: 'fix the fields above, or compose the reply with prompts: core reply -i',
    });
  }
  return deliver(
    {
      operation: operations.reply,
      settings,
      payload: built.payload,
      flags: options,
      credential: 'bot',
      retryable: true,
      answerId: built.answerId,
      notes: built.notes,
    },
    ctx,
  );
}
