import type { CoverageCounts } from './coverage.js';
import type { PlannedStep } from './load.js';
import type { FieldDiff } from './match.js';
import { formatDuration } from '../text/duration.js';

/** The result of one run of one conversation of `core test` (src/testing/runner.ts), as the reports read it. */

export type StepOutcome = 'passed' | 'failed' | 'skipped';

export interface Failure {
  message: string;
  /** What a `bot:` step expected (its ${NAME}s filled in). */
  expected?: unknown;
  /** The body of the answer that came, as the bot sent it. */
  received?: unknown;
  /** The fields that differ. */
  diff?: FieldDiff[];
}

export interface StepResult {
  index: number;
  line: number;
  kind: PlannedStep['kind'];
  /** The step as the file writes it, in short: `customer: Hi`, `press: Yes`, `bot`, `bot: none`. */
  title: string;
  outcome: StepOutcome;
  durationMs: number;
  /** For a `bot:` step that got its answer: question recorded to answer recorded, on the sandbox's clock. */
  latencyMs?: number;
  failure?: Failure;
}

/** One run of one conversation. */
export interface RunResult {
  sessionId: string | null;
  outcome: 'passed' | 'failed';
  durationMs: number;
  steps: StepResult[];
  /** The first failure: of a step (stepIndex), or of the conversation itself (null: its start, or after its last step). */
  failure?: Failure & { stepIndex: number | null; line: number };
  /** The latency of every answer a bot step took, in ms (the sandbox's clock). */
  latenciesMs: number[];
  /** What the run exercised (src/testing/coverage.ts). */
  coverage: CoverageCounts;
  /** Whether the bot could be reached: webhooks attempted, whether any connected, and the errors of those that did not. */
  reach: { attempts: number; connected: boolean; errors: string[] };
  /** Whether any request of the bot reached the sandbox's API in this conversation. */
  botSpoke: boolean;
}

/** A duration in the test's messages and reports (src/text/duration.ts). */
export const formatMs = formatDuration;

/** A measured time, such as a latency (the same one formatter: `640ms`, `1.52s`). */
export const formatLatency = formatDuration;
