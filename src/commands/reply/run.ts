import { randomUUID } from 'node:crypto';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { deliver, printWarnings, rejectPayload } from '../../send/deliver.js';
import { readPayloadFile } from '../../send/input.js';
import { operations } from '../../send/request.js';
import { loadCommandSettings, requireTerminal } from '../common.js';
import { buildReply } from './build.js';
import type { ReplyOptions } from './command.js';

/** `core reply`: build the bot answer from a file and flags, validate it, then send or show it. */
export async function runReply(options: ReplyOptions, ctx: Context): Promise<number> {
  const settings = await loadCommandSettings(options, ctx);
  if (options.interactive) requireTerminal(ctx, 'core reply', '-t/--text with --core-client-id (or another address), or -f FILE');

  const file = options.file === undefined ? undefined : (await readPayloadFile(options.file, ctx)).value;
  const built = await buildReply(file, options.fields, { now: new Date(), newId: randomUUID });

  const { validateReply } = await import('../../payload/index.js');
  const limits = settings.limits.value;
  const validation = validateReply(built.payload, { limits, email: options.email });
  printWarnings(validation.warnings, ctx);
  if (!validation.ok) {
    rejectPayload('reply', validation.problems, ctx, {
      json: options.json,
      operation: operations.reply,
      settings,
      answerId: built.answerId,
      hint: 'fix the fields above, or compose the reply with prompts: core reply -i',
    });
  }
  if (options.dryRun && options.curl) throw new UsageError('--dry-run and --curl cannot be used together');
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
