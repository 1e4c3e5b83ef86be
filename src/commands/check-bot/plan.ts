import { formatDuration, parseDuration } from '../../config/duration.js';
import { suggest } from '../../config/schema.js';
import { UsageError } from '../../errors.js';
import { reportTargets, type ReportTarget } from '../../output/report-targets.js';
import { checkSandboxTarget, type SandboxTarget } from '../../platform/target.js';
import { CHECK_IDS, CHECK_REPORTERS, type CheckId, type CheckReporter } from '../../testing/check-bot/ids.js';

/**
 * The plan of a `core check-bot` run, made before anything runs: where the sandbox is, the time limit,
 * the checks --only selects, and where the report goes (src/output/report-targets.ts). A bad option
 * is a UsageError (exit 2), and nothing has been started.
 */

export interface CheckBotOptions {
  sandbox?: string;
  botUrl?: string;
  port?: string;
  reporter: CheckReporter;
  output?: string;
  timeout?: string;
  /** Check ids, or the part before their dot (`signature`), each word possibly a comma-separated list; with --fuzz, fuzz rules. */
  only?: string[];
  /** --fuzz N: fuzzed conversations instead of the checks (docs/check-bot.md, "Fuzzing"; fuzz.ts). */
  fuzz?: string;
  seed?: string;
  /** --fuzz-replay: a spec `<seed>:<path>`, or a file the fuzzer saved. */
  fuzzReplay?: string;
  fuzzSave?: string;
}

export const DEFAULT_TIMEOUT = '10s';
/** The longest --timeout: a battery waits about this long. */
export const MAX_TIMEOUT_MS = 10 * 60_000;

export interface CheckPlan {
  target: SandboxTarget;
  /** How long an answer may take; the checks that expect none wait this long. */
  timeoutMs: number;
  /** The checks to run; all when undefined. */
  only: CheckId[] | undefined;
  /** The report's one target: --output, or stdout. */
  report: ReportTarget<CheckReporter>;
}

export async function planCheckBot(options: CheckBotOptions, cwd: string): Promise<CheckPlan> {
  const { timeoutMs, only } = checkOptions(options);
  const [report] = await reportTargets([options.reporter], options.output, CHECK_REPORTERS, 'human', cwd);
  return { target: { sandbox: options.sandbox, botUrl: options.botUrl, port: options.port }, timeoutMs, only, report: report! };
}

function checkOptions(options: CheckBotOptions): Pick<CheckPlan, 'timeoutMs' | 'only'> {
  checkSandboxTarget(options, 'core check-bot', 'core check-bot --bot-url http://127.0.0.1:3000/webhook');
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(options.timeout ?? DEFAULT_TIMEOUT);
  } catch (error) {
    throw new UsageError(`--timeout: ${(error as Error).message}`, { hint: 'such as --timeout 5s or --timeout 2500ms' });
  }
  if (timeoutMs > MAX_TIMEOUT_MS) {
    throw new UsageError(`--timeout: ${formatDuration(timeoutMs)} is longer than the limit of ${formatDuration(MAX_TIMEOUT_MS)}`, {
      hint: 'a run of core check-bot takes about --timeout; such as --timeout 30s',
    });
  }
  // With --fuzz or --fuzz-replay, --only names fuzz rules (fuzz.ts).
  const fuzzing = options.fuzz !== undefined || options.fuzzReplay !== undefined;
  return { timeoutMs, only: options.only === undefined || fuzzing ? undefined : selectChecks(options.only) };
}

/** The parts before the dot of the check ids that have one (`signature`, `timestamp`, ...): each names its checks. */
const CHECK_GROUPS = [...new Set(CHECK_IDS.flatMap((id) => (id.includes('.') ? [id.slice(0, id.indexOf('.'))] : [])))];

/**
 * The checks --only names: ids, or the part before their dot (`signature`, also written
 * `signature.*`); every unknown word is reported at once, each with its likeliest meaning.
 */
export function selectChecks(words: readonly string[]): CheckId[] {
  const chosen = new Set<CheckId>();
  const unknown: string[] = [];
  for (const word of words.flatMap((w) => w.split(',')).map((w) => w.trim())) {
    if (word === '') continue;
    const name = word.endsWith('.*') ? word.slice(0, -2) : word;
    const matches = CHECK_IDS.filter((id) => id === name || id.startsWith(`${name}.`));
    if (matches.length === 0) unknown.push(word);
    for (const id of matches) chosen.add(id);
  }
  const hint = `the checks: ${CHECK_IDS.join(', ')}; or all of a group: ${CHECK_GROUPS.map((group) => `${group}.*`).join(', ')}`;
  if (unknown.length > 0) {
    const described = unknown.map((word) => {
      const guess = guessCheck(word);
      return `'${word}'${guess ? ` (did you mean ${guess}?)` : ''}`;
    });
    throw new UsageError(`--only: no check ${described.join(', ')}`, { hint });
  }
  if (chosen.size === 0) throw new UsageError('--only: name at least one check', { hint });
  return CHECK_IDS.filter((id) => chosen.has(id));
}

/**
 * What an unknown --only word most likely meant: a near miss of a whole id; else an id that ends as
 * the word does (`missing`, `sig.missing`); else a near miss of a group, as `signature.*` (`signatur`).
 */
function guessCheck(word: string): string | undefined {
  const tail = word.split('.').pop();
  const group = suggest(word.replace(/\.\*$/, ''), CHECK_GROUPS);
  return suggest(word, CHECK_IDS) ?? CHECK_IDS.find((id) => id.split('.').pop() === tail) ?? (group ? `${group}.*` : undefined);
}
