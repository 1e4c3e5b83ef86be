import type { Context } from '../../context.js';
import { PayloadError, UsageError } from '../../errors.js';
import { openSource, positionLabel } from '../../batch/source.js';
import { isRecord } from '../../input/fields.js';
import { layFields, reasonFromFlags, type ReasonFields } from './build.js';

/** What the prompts start from: the flags, a file holding one reason, and what the command will do. */
export interface ReasonPromptInput {
  file?: string;
  fields: ReasonFields;
  dryRun: boolean;
  curl: boolean;
}

/**
 * `core reason update -i`: one reason, started from the flags (and `-f FILE` holding one reason),
 * completed with prompts (src/prompts/reason.ts). Returns the reason to send once the user chooses
 * to; Ctrl-C or "Cancel" end with InterruptedError (exit 130), nothing sent.
 */
export async function composeReasonInteractively(options: ReasonPromptInput, ctx: Context): Promise<Record<string, unknown>> {
  const start = options.file === undefined ? reasonFromFlags(options.fields) : await oneReasonFrom(options.file, options, ctx);
  const prompts = await import('../../prompts/index.js');
  const env = prompts.composerEnv(ctx.prompter(), {});
  return prompts.composeReason(start, env, { sendLabel: prompts.finishLabel(options), cwd: ctx.cwd });
}

/** The one reason of `-f FILE`, with the flags laid over it; a file of several is refused. */
async function oneReasonFrom(path: string, options: ReasonPromptInput, ctx: Context): Promise<Record<string, unknown>> {
  if (path === '-') {
    throw new UsageError('-i reads its answers from the terminal, so it cannot take the reason from standard input (-f -)', {
      hint: 'give -f the path of a file holding one reason, or pipe the reasons in without -i',
    });
  }
  const source = await openSource(path, ctx);
  try {
    let first: { value: unknown; parseError?: string; where: string } | undefined;
    let more = false;
    for await (const item of source.items()) {
      if (first !== undefined) {
        more = true;
        break;
      }
      first = {
        value: item.value,
        ...(item.parseError !== undefined ? { parseError: item.parseError } : {}),
        where: positionLabel(item.position),
      };
    }
    if (more) {
      throw new UsageError(`-i prompts for one reason, and ${source.name} holds more than one`, {
        hint: `send the batch without -i (core reason update -f ${path}), or give -i a file holding one reason`,
      });
    }
    // openSource refuses an empty file, so there is one item here.
    if (first?.parseError !== undefined) {
      throw new PayloadError(`${source.name} is not valid JSON; nothing was sent`, [{ path: first.where, message: first.parseError }]);
    }
    if (!isRecord(first?.value)) {
      throw new PayloadError(`${source.name} does not hold a reason (a JSON or YAML object); nothing was sent`, [], {
        hint: 'write the reason as an object: {"code": "LUNCH", "reasons": [{"locale": "en", "name": "Lunch"}]}',
      });
    }
    return layFields(first.value, options.fields) as Record<string, unknown>;
  } finally {
    await source.close();
  }
}
