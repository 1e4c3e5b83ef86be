import type { Context } from '../../context.js';
import { CoreError, ExitCode, NetworkError } from '../../errors.js';
import { renderHuman, type ConversationPrinter } from '../../output/conversations.js';
import { writeReports, type ReportTarget } from '../../output/report-targets.js';
import type { Glyphs } from '../../output/glyphs.js';
import { makeStyle } from '../../output/style.js';
import { signatureDiagnosis } from '../../testing/check-bot/battery.js';
import type { CoverageCounts } from '../../testing/coverage.js';
import { renderJson } from '../../testing/json-report.js';
import { renderJunit } from '../../testing/junit-report.js';
import { buildReport, type Reporter, type RunReport } from '../../testing/report.js';
import { renderTap } from '../../testing/tap-report.js';
import { unplayed, type ConversationSummary } from '../../testing/suite.js';
import { neverReached, type Played } from './play.js';
import type { TestPlan } from './plan.js';

/**
 * Reporting a `core test` run: one `RunReport` (src/testing/report.ts) written to every report
 * target (src/output/report-targets.ts), then the closing lines and the exit code: 0 every
 * conversation passed, 3 one failed, 6 (a NetworkError) the bot or the sandbox at --sandbox could
 * not be reached at all. Either way every report requested is written, saying which could not be
 * reached.
 */
export async function reportTest(plan: TestPlan, played: Played, printer: ConversationPrinter, ctx: Context): Promise<number> {
  if (played.kind === 'sandbox-unreachable') {
    // The reports say so, as they do for a bot that cannot be reached, each planned conversation in
    // its place; then the error as it came.
    const message = played.error.message;
    const summaries = plan.conversations.map((conversation) => unplayed(conversation, message));
    await write(report(plan, played, summaries, new Map(), { kind: 'sandbox', url: played.url, message }), plan.reports, ctx);
    throw played.error;
  }
  const { suite, botUrl, url } = played;
  if (suite.stopped?.kind === 'signature') {
    // The bot was reached, and refused every correctly signed delivery: one cause, said once in every report.
    const diagnosis = signatureDiagnosis(suite.stopped.statuses);
    const message = `${diagnosis?.message ?? "the bot refuses the sandbox's signature"}, so the run stopped: no conversation could be played`;
    const summaries = plan.conversations.map((conversation) => unplayed(conversation, message));
    await write(report(plan, played, summaries, suite.coverage, { kind: 'signature', url: botUrl, message }), plan.reports, ctx);
    throw new CoreError(message, ExitCode.testFailed, 'EBOTREFUSESSIGNATURE', { hint: diagnosis?.fix });
  }
  const stoppedDown = suite.stopped?.kind === 'bot-down';
  const summaries = stoppedDown ? withUnplayed(plan, suite.summaries) : suite.summaries;
  const runReport = report(plan, played, summaries, suite.coverage, unreachable(summaries, botUrl));
  await write(runReport, plan.reports, ctx);
  if (runReport.unreachable) {
    throw new NetworkError(runReport.unreachable.message, 'EBOTUNREACHABLE', {
      hint: `start the bot before core test, listening at ${botUrl ?? "the sandbox's --bot-url"}; its answers go to the sandbox's base URL (${url})`,
    });
  }
  printer.end(runReport, played.deferred);
  return runReport.failed > 0 ? ExitCode.testFailed : ExitCode.ok;
}

function report(
  plan: TestPlan,
  played: Played,
  summaries: readonly ConversationSummary[],
  coverage: CoverageCounts,
  unreachable: RunReport['unreachable'],
): RunReport {
  return buildReport(plan.files, summaries, {
    startedAt: played.startedAt.toISOString(),
    durationMs: played.durationMs,
    repeat: plan.repeat,
    coverage: plan.coverage ? coverage : null,
    unreachable,
  });
}

/** Writes each report but the human one on stdout, which the run prints as it goes. */
async function write(report: RunReport, targets: readonly ReportTarget<Reporter>[], ctx: Context): Promise<void> {
  await writeReports(
    targets,
    async (target) => (target.reporter === 'human' && target.file === undefined ? undefined : render(report, target.reporter, ctx.glyphs)),
    (text) => ctx.out(text),
  );
}

async function render(report: RunReport, reporter: Reporter, glyphs: Glyphs): Promise<string> {
  switch (reporter) {
    case 'junit':
      return renderJunit(report);
    case 'tap':
      return renderTap(report);
    case 'json':
      return renderJson(report);
    case 'human':
      return renderHuman(report, makeStyle(false, glyphs));
  }
}

/**
 * The bot could not be reached at all: webhooks were attempted, none reached it (every attempt
 * failed to connect: no status, and not a time-out, which means it connected), and no request of the
 * bot came to the sandbox.
 */
function unreachable(summaries: readonly ConversationSummary[], botUrl: string | null): RunReport['unreachable'] {
  const attempts = summaries.reduce((sum, summary) => sum + summary.reach.attempts, 0);
  if (attempts === 0 || !summaries.every(neverReached)) return null;
  const errors = [...new Set(summaries.flatMap((summary) => summary.reach.errors))].join(', ') || 'no answer';
  return {
    kind: 'bot',
    url: botUrl,
    message: `the bot could not be reached: every webhook delivery to ${botUrl ?? 'the bot'} failed to connect (${errors}), so no conversation could be played`,
  };
}

/**
 * The summaries of a run stopped early because the bot is down, each planned conversation in its place: those
 * never started are unplayed, and said never to have reached the bot as those played were.
 */
function withUnplayed(plan: TestPlan, played: readonly ConversationSummary[]): ConversationSummary[] {
  const byOrdinal = new Map(played.map((summary) => [summary.ordinal, summary]));
  return plan.conversations.map(
    (conversation) => byOrdinal.get(conversation.ordinal) ?? unplayed(conversation, 'not played: the bot could not be reached'),
  );
}
