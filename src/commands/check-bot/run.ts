import type { Context } from '../../context.js';
import { planFuzz } from './fuzz.js';
import { planCheckBot, type CheckBotOptions } from './plan.js';
import { playCheckBot } from './play.js';
import { reportCheckBot } from './report.js';

/**
 * `core check-bot`: grades the bot's side of the MESSAGE webhook with the battery of
 * src/testing/check-bot/ (docs/check-bot.md), in three steps as `core test`: the plan (plan.ts: the
 * options and the report's target checked before anything runs), the play (play.ts: the sandbox at
 * --sandbox, or one started here on --port delivering to --bot-url with the sandbox's defaults and
 * its environment settings (CORE_SANDBOX_WEBHOOK_SECRET), and the checks run through it) and the
 * report (report.ts).
 *
 * Exit codes (docs/exit-codes.md): 0 every check passed, 3 one failed, 6 the bot could not be
 * reached at all (or the sandbox at --sandbox), 2 bad usage. Either way the report is written, saying
 * which could not be reached.
 */
export async function runCheckBot(options: CheckBotOptions, ctx: Context): Promise<number> {
  const plan = await planCheckBot(options, ctx.cwd);
  // --fuzz or --fuzz-replay: fuzzed conversations instead of the checks (fuzz.ts, docs/check-bot.md, "Fuzzing").
  const fuzzing = await planFuzz(options, ctx);
  const played = await playCheckBot(plan, ctx, fuzzing);
  await fuzzing?.save(played.report);
  return reportCheckBot(plan, played, ctx);
}
