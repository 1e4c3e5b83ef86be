import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { validateGreeting } from '../../payload/index.js';
import type { Prompter } from '../../prompts/prompter.js';
import { deliver, printWarnings, rejectPayload } from '../../send/deliver.js';
import { readPayloadFile } from '../../send/input.js';
import { operations } from '../../send/request.js';
import { loadCommandSettings, requireTerminal } from '../common.js';
import { buildGreeting } from './build.js';
import type { GreetOptions } from './command.js';

/** What a test may hand in instead of the real thing. */
export interface GreetDeps {
  /** The prompts for -i; the real one draws on the terminal with inquirer. */
  prompter?: Prompter;
  now?: () => Date;
}

/**
 * `core greet`: build the greeting from a file and flags, let the composer ask for the rest (-i),
 * validate it, then save, send or show it.
 */
export async function runGreet(options: GreetOptions, ctx: Context, deps: GreetDeps = {}): Promise<number> {
  // Checked before anything else, so that -i without a terminal fails at once instead of waiting,
  // and nobody composes a greeting only to hear that the flags clash.
  if (options.interactive) requireTerminal(ctx, 'core greet', '-t/--text with --core-client-id, or -f FILE');
  if (options.dryRun && options.curl) throw new UsageError('--dry-run and --curl cannot be used together');
  const settings = await loadCommandSettings(options, ctx);

  const file = options.file === undefined ? undefined : (await readPayloadFile(options.file, ctx)).value;
  const built = buildGreeting(file, options.fields, { now: deps.now?.() ?? new Date() });

  const limits = settings.limits.value;
  let payload = built.payload;
  if (options.interactive) {
    const prompts = await import('../../prompts/index.js');
    const prompter = deps.prompter ?? prompts.createPrompter(ctx);
    payload = await prompts.composeGreeting(payload, prompts.composerEnv(prompter, limits), {
      validate: (draft) => validateGreeting(draft, { limits }),
      sendLabel: prompts.finishLabel(options),
      save: (path, draft) => prompts.savePayload(path, draft, ctx.cwd),
      cwd: ctx.cwd,
    });
  }

  const validation = validateGreeting(payload, { limits });
  // The composer's preview has shown the warnings already.
  if (!options.interactive) printWarnings(validation.warnings, ctx);
  if (!validation.ok) {
    rejectPayload('greeting', validation.problems, ctx, {
      json: options.json,
      operation: operations.greet,
      settings,
      hint: 'fix the fields above, or compose the greeting with prompts: core greet -i',
    });
  }

  if (options.save !== undefined) {
    // Written before sending, so the greeting is kept whatever the send's outcome.
    const { savePayload } = await import('../../prompts/save.js');
    await savePayload(options.save, payload, ctx.cwd);
    if (options.dryRun) {
      ctx.err(`saved the greeting to ${options.save}; nothing sent (--dry-run)\n`);
      return ExitCode.ok;
    }
    ctx.err(`saved the greeting to ${options.save}\n`);
  }

  return deliver(
    {
      operation: operations.greet,
      settings,
      payload,
      flags: options,
      credential: 'bot',
      // docs/security.md, "Retries": a greeting has no answerId, so a repeat could deliver it twice.
      retryable: options.retry,
      notes: built.notes,
    },
    ctx,
  );
}
