import type { Context } from '../../context.js';
import { ExitCode, NetworkError } from '../../errors.js';
import { writeReports } from '../../output/report-targets.js';
import { makeStyle } from '../../output/style.js';
import { renderCheckReport, summaryLine } from '../../testing/check-bot/report.js';
import type { Played } from './play.js';
import type { CheckPlan } from './plan.js';

/**
 * Reporting a `core check-bot` run: the report written to stdout or --output (src/output/report-targets.ts),
 * then the closing line and the exit code: 0 every check passed, 3 one failed, 6 (a NetworkError) the
 * bot or the sandbox at --sandbox could not be reached at all. Either way the report is written,
 * saying which could not be reached; the human one on stdout is then only the error.
 */
export async function reportCheckBot(plan: CheckPlan, played: Played, ctx: Context): Promise<number> {
  const { report, context } = played;
  const humanOnStdout = plan.report.reporter === 'human' && plan.report.file === undefined;
  await writeReports(
    [plan.report],
    async (target) =>
      humanOnStdout && report.unreachable
        ? undefined
        : renderCheckReport(report, target.reporter, context, makeStyle(humanOnStdout && ctx.color.stdout, ctx.glyphs)),
    (text) => ctx.out(text),
  );
  if (played.sandboxUnreachable) throw played.sandboxUnreachable;
  if (report.unreachable) {
    throw new NetworkError(report.unreachable.message, 'EBOTUNREACHABLE', {
      hint: `start the bot before core check-bot, listening at ${context.botUrl ?? "the sandbox's --bot-url"}; its answers go to the sandbox's base URL (${context.sandboxUrl})`,
    });
  }
  if (!humanOnStdout) ctx.err(summaryLine(report, context, makeStyle(ctx.color.stderr, ctx.glyphs)));
  return report.failed > 0 ? ExitCode.testFailed : ExitCode.ok;
}
