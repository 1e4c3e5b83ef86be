import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import { mayRetry, operations } from '../../operations.js';
import { validateGreeting } from '../../payload/greeting.js';
import type { Limits } from '../../payload/common.js';
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
  const payload = options.interactive ? await compose(built.payload, limits, options, ctx) : built.payload;

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

  // Written before sending, so the greeting is kept whatever the send's outcome; with --dry-run, that is all.
  if (options.save !== undefined && (await save(options.save, payload, options.dryRun, ctx))) return ExitCode.ok;

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

/** The composer's greeting (-i): it asks for what the file and the flags did not give, and previews it. */
async function compose(
  payload: Record<string, unknown>,
  limits: Limits,
  options: GreetOptions,
  ctx: Context,
): Promise<Record<string, unknown>> {
  const prompts = await import('../../prompts/index.js');
  return prompts.composeGreeting(payload, prompts.composerEnv(ctx.prompter(), limits), {
    validate: (draft) => validateGreeting(draft, { limits }),
    sendLabel: prompts.finishLabel(options),
    save: (path, draft) => prompts.savePayload(path, draft, ctx.cwd),
    cwd: ctx.cwd,
  });
}

/** Saves the greeting to `path` (--save); whether the run ends there (--dry-run). */
async function save(path: string, payload: Record<string, unknown>, dryRun: boolean | undefined, ctx: Context): Promise<boolean> {
  const { savePayload } = await import('../../prompts/save.js');
  await savePayload(path, payload, ctx.cwd);
  if (dryRun) {
    ctx.err(`saved the greeting to ${path}; nothing sent (--dry-run)\n`);
    return true;
  }
  ctx.err(`saved the greeting to ${path}\n`);
  return false;
}
