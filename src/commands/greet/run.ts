import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { mayRetry, operations } from '../../operations.js';
import { validateGreeting } from '../../payload/greeting.js';
import { printWarnings, rejectPayload, sendOne } from '../../send/deliver.js';
import { readPayloadFile, readTextFile, refuseTwoStdinReaders } from '../../input/files.js';
import { loadSendSettings, requireTerminal } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import type { SendOptions } from '../send-options.js';
import { buildGreeting, type GreetFields } from './build.js';

export interface GreetOptions extends SendOptions {
  global: GlobalOptions;
  fields: GreetFields;
  /** --save FILE: also write the composed payload to FILE; with --dry-run, only write it. */
  save?: string;
  /** --retry: greetings carry no answerId, so they are repeated only when asked (docs/security.md, "Retries"). */
  retry: boolean;
  /** --text-file: the text from a file ("-": standard input). */
  textFile?: string;
}

/**
 * `core greet`: build the greeting from a file and flags, let the composer ask for the rest (-i),
 * validate it, then save, send or show it.
 */
export async function runGreet(options: GreetOptions, ctx: Context): Promise<number> {
  // Checked before anything else, so that -i without a terminal fails at once instead of waiting,
  // and nobody composes a greeting only to hear that the flags clash.
  if (options.interactive) requireTerminal(ctx, 'core greet', '-t/--text with --core-client-id, or -f FILE');
  if (options.dryRun && options.curl) throw new UsageError('--dry-run and --curl cannot be used together');
  const settings = await loadSendSettings(options, ctx);

  refuseTwoStdinReaders([
    ['-f', options.file],
    ['--text-file', options.textFile],
  ]);
  const file = options.file === undefined ? undefined : (await readPayloadFile(options.file, ctx)).value;
  const fields =
    options.textFile === undefined ? options.fields : { ...options.fields, text: await readTextFile(options.textFile, '--text-file', ctx) };
  const built = buildGreeting(file, fields, { now: new Date() });

  const limits = settings.limits.value;
  let payload = built.payload;
  if (options.interactive) {
    const prompts = await import('../../prompts/index.js');
    payload = await prompts.composeGreeting(payload, prompts.composerEnv(ctx.prompter(), limits), {
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
    rejectPayload(validation.problems, ctx, {
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

  return sendOne(
    {
      operation: operations.greet,
      settings,
      payload,
      flags: options,
      // A greeting has no answerId, so a repeat could deliver it twice: only with --retry.
      retryable: mayRetry(operations.greet, { optIn: options.retry }),
      notes: built.notes,
    },
    ctx,
  );
}
