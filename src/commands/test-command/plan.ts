import { parseDuration } from '../../config/duration.js';
import { UsageError } from '../../errors.js';
import { reportTargets, type ReportTarget } from '../../output/report-targets.js';
import { checkSandboxTarget, type SandboxTarget } from '../../platform/target.js';
import { listFiles, loadTests, type PlannedConversation, type PlannedFile } from '../../testing/load.js';
import { REPORTERS, type Reporter } from '../../testing/report.js';

/**
 * The plan of a `core test` run, made before anything runs: the options checked, the report targets
 * checked (src/output/report-targets.ts), every file read and checked (src/testing/load.ts). A bad
 * option is a UsageError and a bad file a PayloadError (exit 2), and nothing has been started.
 */

export interface TestOptions {
  files: string[];
  sandbox?: string;
  botUrl?: string;
  port?: string;
  /** --state FILE: the state file of the sandbox core test starts. */
  state?: string;
  /** Each --reporter as given: NAME, or NAME=FILE; none means human. */
  reporters: string[];
  output?: string;
  timeout?: string;
  concurrency?: string;
  repeat?: string;
  coverage?: boolean;
  largeIds?: boolean;
}

export const DEFAULT_TIMEOUT = '10s';
export const DEFAULT_CONCURRENCY = 4;
/** The most conversations at once. */
export const MAX_CONCURRENCY = 64;
/** The most runs of each conversation (--repeat). */
export const MAX_REPEAT = 100_000;

export interface TestPlan {
  files: PlannedFile[];
  /** Every conversation of every file, each examples row its own, in the order of the files. */
  conversations: PlannedConversation[];
  /** Where the sandbox is: --sandbox, or --bot-url and --port for one started here. */
  target: SandboxTarget;
  /** How long each step waits for what it expects (--timeout). */
  timeoutMs: number;
  concurrency: number;
  repeat: number;
  coverage: boolean;
  reports: ReportTarget<Reporter>[];
}

export async function planTest(options: TestOptions, cwd: string): Promise<TestPlan> {
  const checked = checkOptions(options);
  const reports = await reportTargets(options.reporters, options.output, REPORTERS, 'human', cwd);
  const files = await loadTests(await listFiles(options.files, cwd), cwd);
  return {
    ...checked,
    files,
    conversations: files.flatMap((file) => file.conversations),
    target: { sandbox: options.sandbox, botUrl: options.botUrl, port: options.port, largeIds: options.largeIds, state: options.state },
    coverage: options.coverage === true,
    reports,
  };
}

function checkOptions(options: TestOptions): { timeoutMs: number; concurrency: number; repeat: number } {
  checkSandboxTarget(options, 'core test', 'core test tests/*.yaml --bot-url http://127.0.0.1:3000/webhook');
  let timeoutMs: number;
  try {
    timeoutMs = parseDuration(options.timeout ?? DEFAULT_TIMEOUT);
  } catch (error) {
    throw new UsageError(`--timeout: ${(error as Error).message}`, { hint: 'such as --timeout 30s or --timeout 2500ms' });
  }
  const concurrency = wholeNumber(options.concurrency, DEFAULT_CONCURRENCY, MAX_CONCURRENCY, () => {
    throw new UsageError(`--concurrency: '${options.concurrency}' is not a whole number from 1 to ${MAX_CONCURRENCY}`);
  });
  const repeat = wholeNumber(options.repeat, 1, MAX_REPEAT, () => {
    throw new UsageError(`--repeat: '${options.repeat}' is not a whole number from 1 to ${MAX_REPEAT}`, {
      hint: 'such as --repeat 20: every conversation runs 20 times',
    });
  });
  return { timeoutMs, concurrency, repeat };
}

/** A whole number from 1 to `max` as given, `fallback` when not given; `refuse` throws for anything else. */
function wholeNumber(text: string | undefined, fallback: number, max: number, refuse: () => never): number {
  if (text === undefined) return fallback;
  const value = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!(value >= 1 && value <= max)) refuse();
  return value;
}
