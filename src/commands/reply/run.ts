import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { mayRetry, operations } from '../../operations.js';
import { validateReply } from '../../payload/reply.js';
import { printWarnings, rejectPayload, sendOne } from '../../send/deliver.js';
import { readPayloadFile, readTextFile, refuseTwoStdinReaders } from '../../input/files.js';
import { randomId } from '../../uuid.js';
import { loadSendSettings, requireTerminal } from '../common.js';
import type { GlobalOptions } from '../definition.js';
import type { SendOptions } from '../send-options.js';
import { answerIdOf, buildReply, type ReplyFields } from './build.js';

export interface ReplyOptions extends SendOptions {
  global: GlobalOptions;
  fields: ReplyFields;
  /** The question came by email: docs/api.md, chatbot rule 2 then requires sessionId and questionIndex. */
  email: boolean;
  /** --text-file / --markdown-file: the text or the Markdown from a file ("-": standard input). */
  textFile?: string;
  markdownFile?: string;
}

/** `core reply`: build the bot answer from a file and flags, validate it, then send or show it. */
export async function runReply(options: ReplyOptions, ctx: Context): Promise<number> {
  // Checked before anything else, so that -i without a terminal fails at once and nobody composes a
  // reply only to hear that the flags clash (as core greet does).
  if (options.interactive) requireTerminal(ctx, 'core reply', '-t/--text with --core-client-id (or another address), or -f FILE');
  if (options.dryRun && options.curl) throw new UsageError('--dry-run and --curl cannot be used together');
  const settings = await loadSendSettings(options, ctx);

  refuseTwoStdinReaders([
    ['-f', options.file],
    ['--text-file', options.textFile],
    ['--markdown-file', options.markdownFile],
  ]);
  const file = options.file === undefined ? undefined : (await readPayloadFile(options.file, ctx)).value;
  const fields = {
    ...options.fields,
    ...(options.textFile !== undefined ? { text: await readTextFile(options.textFile, '--text-file', ctx) } : {}),
    ...(options.markdownFile !== undefined ? { markdown: await readTextFile(options.markdownFile, '--markdown-file', ctx) } : {}),
  };
  const built = await buildReply(file, fields, { now: new Date(), newId: () => randomId() });

  const limits = settings.limits.value;
  if (options.interactive) {
    // The composer asks only for what the file and flags left out; the answerId is already filled.
    const prompts = await import('../../prompts/index.js');
    built.payload = await prompts.composeReply(built.payload, prompts.composerEnv(ctx.prompter(), limits), {
      validate: (draft) => validateReply(draft, { limits, email: options.email }),
      email: options.email,
      sendLabel: prompts.finishLabel(options),
      save: (path, draft) => prompts.savePayload(path, draft, ctx.cwd),
      cwd: ctx.cwd,
    });
  }
  const validation = validateReply(built.payload, { limits, email: options.email });
  const answerId = answerIdOf(built.payload);
  // The composer's preview has shown the warnings already.
  if (!options.interactive) printWarnings(validation.warnings, ctx);
  if (!validation.ok) {
    rejectPayload(validation.problems, ctx, {
      json: options.json,
      operation: operations.reply,
      settings,
      answerId,
      hint: 'fix the fields above, or compose the reply with prompts: core reply -i',
    });
  }
  return sendOne(
    {
      operation: operations.reply,
      settings,
      payload: built.payload,
      flags: options,
      // Every reply carries an answerId, which the service delivers once (docs/api.md, chatbot rule 6).
      retryable: mayRetry(operations.reply, { answerId: built.payload.answerId }),
      // A valid reply's answerId is a string (the schema), so it is never null here.
      ...(answerId !== null ? { answerId } : {}),
      notes: built.notes,
    },
    ctx,
  );
}
