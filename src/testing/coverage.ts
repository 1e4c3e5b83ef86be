import { CHANNELS, type Channel } from '../payload/channels.js';
import { isRecord } from '../payload/json.js';
import { COUNTED_FEATURES, COUNTED_VALUES, type CountedName } from '../payload/reply-fields.js';
import type { BotAnswerEvent, HandoverQueuedEvent, HandoverRoutedEvent, QueuedWhy } from '../sandbox/events.js';

/**
 * `core test --coverage` (docs/testing-bots.md, "Coverage"): what of the platform a suite exercised,
 * counted over what happened in its runs (not over what its files say), in the platform's terms.
 * The names are fixed: a report lists each one, exercised with its count or not exercised.
 */
/** What the customer did besides writing. */
const ACTIONS = ['press', 'pick'] as const;
/**
 * The platform's outcomes the bot met: a second answer to one question, an answer whose answerId
 * was already used (dropped), a request or answer the platform refused.
 */
const OUTCOMES = ['secondAnswer', 'duplicateAnswerId', 'refusal'] as const;

/**
 * How the sandbox routed the hand-overs (docs/sandbox.md, "Agents"): to an agent named by userIds, one
 * with a skill of skillIds, one of a unit of unitIds (a routing narrowed by two lists counts for
 * both), to any agent (no targets); queued as no agent matches, or as all matching ones are away or
 * full; routed later from the queue.
 */
const ROUTINGS = [
  'routedByUserIds',
  'routedBySkillIds',
  'routedByUnitIds',
  'routedToAnyAgent',
  'queuedNoMatch',
  'queuedAwayOrFull',
  'routedFromQueue',
] as const;

export type CoverageName = Channel | CountedName | (typeof ACTIONS)[number] | (typeof OUTCOMES)[number] | (typeof ROUTINGS)[number];

export const COVERAGE_NAMES: readonly CoverageName[] = [
  // The channels of the conversations played.
  ...CHANNELS,
  // The codes of the answers delivered (the answer's model: src/payload/reply-fields.ts).
  ...COUNTED_VALUES.flatMap(([, values]) => values),
  // The features of the answers delivered.
  ...COUNTED_FEATURES.flatMap(([, names]) => names),
  ...ACTIONS,
  ...OUTCOMES,
  ...ROUTINGS,
];

/** Counts by name; a name never met is absent. */
export type CoverageCounts = Map<CoverageName, number>;

export function count(counts: CoverageCounts, name: CoverageName, by = 1): void {
  counts.set(name, (counts.get(name) ?? 0) + by);
}

/** What a `bot.answer` event of the sandbox exercised: its code and features when delivered, the platform's outcome otherwise. */
export function countAnswer(counts: CoverageCounts, event: BotAnswerEvent): void {
  // An answerId used before is dropped under chatbot rule 6, before rule 7 is ever asked.
  if (event.notDelivered === 'duplicate answerId') {
    count(counts, 'duplicateAnswerId');
    return;
  }
  const status = Number(event.status);
  // A second answer to one question as rule 7 treats it: delivered (the soft mode) or refused with
  // 409 (the strict mode, or a thread with agents); an answer refused as invalid (400) never got there.
  if (event.questionAlreadyAnswered === true && (status < 400 || status === 409)) count(counts, 'secondAnswer');
  if (status >= 400) count(counts, 'refusal');
  if (event.delivered !== true || !isRecord(event.body)) return;
  const body = event.body;
  for (const [field, values] of COUNTED_VALUES) {
    const value = body[field];
    if (typeof value === 'string' && (values as readonly string[]).includes(value)) count(counts, value as CountedName);
  }
  // A feature's name is a path into the answer: quickReplies, settings.blockInput.
  for (const name of COUNTED_FEATURES.flatMap(([, names]) => names)) if (present(at(body, name))) count(counts, name);
}

/**
 * The sandbox's reason for a hand-over no agent matches (src/sandbox/events.ts, queuedReasons), named by
 * its type: a change of the sandbox's text fails to compile here. Bot testing runs nothing of the sandbox.
 */
const NO_MATCH = 'no agent matches the targets' satisfies QueuedWhy;

/** What one routing event of the sandbox exercised. */
export function countRouting(counts: CoverageCounts, event: HandoverRoutedEvent | HandoverQueuedEvent): void {
  if (event.type === 'handover.queued') {
    count(counts, event.why === NO_MATCH ? 'queuedNoMatch' : 'queuedAwayOrFull');
    return;
  }
  if (event.fromQueue) count(counts, 'routedFromQueue');
  if (event.matched.length === 0) count(counts, 'routedToAnyAgent');
  for (const kind of event.matched) {
    count(counts, kind === 'userIds' ? 'routedByUserIds' : kind === 'skillIds' ? 'routedBySkillIds' : 'routedByUnitIds');
  }
}

/** The value at a dotted path of an answer (settings.masked), or undefined. */
function at(body: Record<string, unknown>, path: string): unknown {
  let value: unknown = body;
  for (const key of path.split('.')) value = isRecord(value) ? value[key] : undefined;
  return value;
}

/** A field an answer uses: given, not null, and not an empty list or text. */
function present(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (Array.isArray(value) || typeof value === 'string') return value.length > 0;
  return true;
}

export function merge(into: CoverageCounts, from: CoverageCounts): void {
  for (const [name, n] of from) count(into, name, n);
}

/** The report's view: every name met with its count, in the fixed order, and the names never met. */
export function coverageReport(counts: CoverageCounts): { exercised: Record<string, number>; notExercised: string[] } {
  const exercised: Record<string, number> = {};
  const notExercised: string[] = [];
  for (const name of COVERAGE_NAMES) {
    const n = counts.get(name) ?? 0;
    if (n > 0) exercised[name] = n;
    else notExercised.push(name);
  }
  return { exercised, notExercised };
}
