import * as fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { conversationArbitrary, conversationAt, conversations } from './arbitraries.js';
import { judge, PROMPT_RULES, type Attempt, type FuzzFailure, type FuzzRule, type PlayedConversation } from './judge.js';
import type { FuzzConversation } from './model.js';
import { playConversation, type FuzzKit } from './play.js';

/**
 * `core check-bot --fuzz N [--seed S]` (docs/check-bot.md, "Fuzzing"): N conversations from
 * fast-check's stream for the seed, played a few at once; then each rule broken is shrunk, from the
 * first conversation that broke it, by fast-check's shrinking to the smallest conversation that still
 * breaks it, and reported with the replay spec `<seed>:<path>` that gives back exactly that
 * conversation. `--fuzz-replay` plays one conversation (from its spec or a file) and judges it.
 */

/** Conversations played at once in a run. */
export const FUZZ_CONCURRENCY = 8;
/**
 * How long after a conversation's last step a second answer is still looked for: once at the end of a
 * run, after a replay, and after each conversation shrinking plays for a rule that something the bot
 * does late can break (whatever the bot did before it acknowledged a delivery is seen without it; the
 * rules of PROMPT_RULES are decided without it).
 */
export const FUZZ_SETTLE_MS = 300;
/**
 * The most smaller conversations shrinking plays for one failure: shrinking is bounded by this count
 * of work, never by a clock, so that the same seed shrinks to the same case on any machine.
 */
export const MAX_SHRINKS = 400;
/** The rules shrunk and reported in one run, each from its first conversation. */
export const MAX_FUZZ_CASES = 5;

export interface FuzzCase {
  rule: FuzzRule;
  message: string;
  /** `<seed>:<path>`: the shrunk conversation, for --fuzz-replay. */
  replay: string;
  conversation: FuzzConversation;
  played: PlayedConversation;
  /** How many smaller conversations shrinking played. */
  shrinks: number;
  /** Which of the N conversations first broke the rule (1-based), and how many broke it. */
  first: number;
  count: number;
}

export interface FuzzResult {
  seed: number;
  runs: number;
  cases: FuzzCase[];
  durationMs: number;
}

/** What a run needs: the kit on the sandbox, how to wait, and a stop. */
export interface FuzzInit {
  kit: FuzzKit;
  settle(ms: number): Promise<void>;
  signal: AbortSignal;
  /** The rules judged (--only); undefined: every rule. */
  rules?: ReadonlySet<FuzzRule>;
}

/** A random seed for a run without --seed: 31 bits, as fast-check takes. */
export function newSeed(): number {
  return Math.floor(Math.random() * 0x7fffffff);
}

/**
 * One conversation played and judged on its own (a shrink's candidate, a replay). Unless `settle` is
 * false, a conversation that broke no rule is judged again FUZZ_SETTLE_MS later, with what the bot did
 * after its last acknowledgement.
 */
export async function playAlone(
  init: FuzzInit,
  conversation: FuzzConversation,
  settle = true,
): Promise<{ played: PlayedConversation; failure: FuzzFailure | null }> {
  const played = await playConversation(init.kit, conversation);
  let failure = judge(played, init.rules);
  if (failure === null && settle) {
    await init.settle(FUZZ_SETTLE_MS);
    failure = judge({ ...played, events: init.kit.events(played.sessionId), untied: init.kit.untied() }, init.rules);
  }
  return { played, failure };
}

export async function runFuzz(init: FuzzInit, seed: number, runs: number): Promise<FuzzResult> {
  const started = performance.now();
  const all = conversations(seed, runs);
  const played: PlayedConversation[] = new Array(runs);
  let next = 0;
  const worker = async () => {
    while (next < runs && !init.signal.aborted) {
      const index = next++;
      const conversation = await playConversation(init.kit, all[index]!);
      // Kept until the end of the run, for 1,000 conversations and more: only what the judge reads then.
      played[index] = lighter(conversation);
      init.kit.done(conversation.sessionId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FUZZ_CONCURRENCY, runs) }, worker));
  await init.settle(FUZZ_SETTLE_MS);
  const firsts = new Map<FuzzRule, { index: number; count: number }>();
  played.forEach((conversation, index) => {
    if (conversation === undefined) return;
    const failure = judge({ ...conversation, events: init.kit.events(conversation.sessionId), untied: init.kit.untied() }, init.rules);
    if (failure === null) return;
    const seen = firsts.get(failure.rule);
    if (seen) seen.count += 1;
    else firsts.set(failure.rule, { index, count: 1 });
  });
  const cases: FuzzCase[] = [];
  for (const [rule, { index, count }] of [...firsts].slice(0, MAX_FUZZ_CASES)) {
    if (init.signal.aborted) break;
    cases.push({ ...(await shrink(init, seed, index, rule)), first: index + 1, count });
  }
  return { seed, runs, cases, durationMs: Math.round(performance.now() - started) };
}

/**
 * A played conversation as the end of a run judges it: its events read again then (the kit keeps the
 * ones the judge reads), its attempts without the bodies sent, the largest part of it (a delivery can
 * be 4,000 characters written with \u escapes).
 */
function lighter(played: PlayedConversation): PlayedConversation {
  const light = (attempt: Attempt): Attempt => ({ ...attempt, delivery: '' });
  return {
    ...played,
    events: [],
    messages: played.messages.map((message) => ({
      ...message,
      attempt: light(message.attempt),
      redelivery: message.redelivery === null ? null : light(message.redelivery),
    })),
  };
}

/**
 * The smallest conversation under the run's `index`-th that breaks `rule` again, by fast-check's
 * shrinking from that run (its path starts with the index). A candidate that breaks another rule, or
 * none, does not count: the failure shrunk is the one found. Against a bot that stopped (`unreachable`),
 * nothing smaller can be tried, and the conversation is reported as it was.
 */
async function shrink(init: FuzzInit, seed: number, index: number, rule: FuzzRule): Promise<Omit<FuzzCase, 'first' | 'count'>> {
  let last: { played: PlayedConversation; failure: FuzzFailure } | null = null;
  let shrinks = 0;
  const property = fc.asyncProperty(conversationArbitrary(), async (conversation) => {
    // Past the bound, every candidate passes: fast-check keeps the smallest failure found so far.
    if (init.signal.aborted || shrinks > MAX_SHRINKS) return true;
    shrinks += 1;
    // A candidate that broke nothing yet cannot break a prompt rule later: no quiet period for it.
    const outcome = await playAlone(init, conversation, !PROMPT_RULES.has(rule));
    if (outcome.failure?.rule !== rule) return true;
    last = { played: outcome.played, failure: outcome.failure };
    return false;
  });
  const details = await fc.check(property, { seed, path: String(index), numRuns: 1, endOnFailure: rule === 'unreachable' });
  const path = details.counterexamplePath ?? String(index);
  const found = last as { played: PlayedConversation; failure: FuzzFailure } | null;
  const conversation = conversationAt(seed, path);
  if (found === null) {
    // The failure did not come again (a flaky bot, or a machine too busy to answer in time): the first
    // conversation is reported as found, and said to be flaky.
    const { played, failure } = await playAlone(init, conversation);
    const again = failure === null ? 'no rule broken' : `${failure.rule}: ${failure.text}`;
    return {
      rule,
      message: `${rule} in the run, and not when played again alone (${FLAKY}; played again: ${again})`,
      replay: `${seed}:${path}`,
      conversation,
      played,
      shrinks,
    };
  }
  return { rule, message: found.failure.text, replay: `${seed}:${path}`, conversation, played: found.played, shrinks: shrinks - 1 };
}

/** What a failure that did not come again is said to be. */
export const FLAKY = 'flaky: it depends on timing or on what ran at the same time';

/** A replay spec, `<seed>:<path>` (integers separated by colons), or undefined for anything else (a file). */
export function parseReplaySpec(spec: string): { seed: number; path: string } | undefined {
  const match = /^(-?\d+):(\d+(?::\d+)*)$/.exec(spec.trim());
  if (!match) return undefined;
  const seed = Number(match[1]);
  return Number.isSafeInteger(seed) ? { seed, path: match[2]! } : undefined;
}
