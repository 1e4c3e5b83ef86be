import type { Context } from '../../context.js';
import { conversationPrinter } from '../../output/conversations.js';
import { liveProgress, showsLiveProgress } from '../../output/live-progress.js';
import { makeStyle } from '../../output/style.js';
import { planTest, type TestOptions } from './plan.js';
import { playTest } from './play.js';
import { reportTest } from './report.js';

/**
 * `core test FILE...`: plays conversation files against a bot through a sandbox and reports the
 * outcome (docs/testing-bots.md), in three steps: the plan (plan.ts: the options, the report targets
 * and every file checked before anything runs), the play (play.ts: the sandbox at --sandbox, or one
 * started here on --port delivering to --bot-url, and every conversation played through a connection
 * to it) and the report (report.ts: every report written, the closing lines, the exit code).
 *
 * Exit codes (docs/exit-codes.md): 0 every conversation passed, 3 one failed, 2 an invalid file or
 * usage (nothing ran), 6 the bot could not be reached at all (or the sandbox at --sandbox). Either
 * way every report requested is written, saying which could not be reached.
 */
export async function runTest(options: TestOptions, ctx: Context): Promise<number> {
  const plan = await planTest(options, ctx.cwd);
  // The human view goes where the human report does: stdout when it is there, else stderr.
  const humanOnStdout = plan.reports.some((target) => target.reporter === 'human' && target.file === undefined);
  // The live line (src/output/live-progress.ts): on a terminal only, and not when a report for a program goes to stdout.
  const forProgram = plan.reports.some((target) => target.reporter !== 'human' && target.file === undefined);
  const progress = liveProgress(
    ctx,
    { command: 'core test', unit: 'runs', total: plan.conversations.length * plan.repeat },
    showsLiveProgress(ctx, forProgram),
  );
  const printer = humanOnStdout
    ? conversationPrinter(
        progress.around((text) => ctx.out(text)),
        makeStyle(ctx.color.stdout, ctx.glyphs),
      )
    : conversationPrinter(
        progress.around((text) => ctx.err(text)),
        makeStyle(ctx.color.stderr, ctx.glyphs),
      );
  const played = await playTest(plan, printer, ctx, progress);
  return reportTest(plan, played, printer, ctx);
}
