import { isRecord } from '../payload/json.js';
import { formatPath, type Path } from '../payload/messages.js';
import { looksLikePattern, patternParts } from './pattern.js';
import type { BotExpectation } from './schema.js';

/**
 * Matching a `bot:` step against a bot answer (docs/testing-bots.md, "Matching"):
 *
 * - a string is exact, or a regular expression when written /source/flags; against a number (an
 *   identifier) it is compared with the number's digits; against an object (a button, a list item,
 *   an attachment) with the object's label: its text, else its title, else its url;
 * - a number is compared by value, identifiers exactly (bigints);
 * - a list is matched item by item, in order, and must have as many items; an absent list is empty;
 * - an object checks only the fields it names;
 * - null expects the field to be absent (or null).
 *
 * Pure: the result is the list of differences, each with its path, what was expected and what came.
 */

export interface FieldDiff {
  /** Where, in the answer: `quickReplies[1].text`. */
  path: string;
  expected: unknown;
  /** undefined: the answer does not have the field. */
  received: unknown;
}

/**
 * Whether a string written as a /pattern/ matches a text. Matching a test file's patterns is left to
 * the caller (src/testing/steps.ts runs them in a worker, with a bound: src/testing/pattern-worker.ts);
 * the default runs them here, for patterns known to be harmless.
 */
export type PatternTest = (pattern: string, text: string) => boolean;

/** Matching calls a PatternTest only with strings written as patterns (matchString). */
const testHere: PatternTest = (pattern, text) => {
  const { source, flags } = patternParts(pattern)!;
  return new RegExp(source, flags).test(text);
};

/** The differences between what a `bot:` step expects and the answer's body; empty when it matches. */
export function matchAnswer(expected: BotExpectation, body: unknown, test: PatternTest = testHere): FieldDiff[] {
  return diffsOf(expected, body, test);
}

/** Whether one expected value matches one received value (the same rules). */
export function matches(expected: unknown, received: unknown, test: PatternTest = testHere): boolean {
  return diffsOf(expected, received, test).length === 0;
}

/** Each /pattern/ of `expected` with the text it is to be matched against in `body`, in the order matching meets them. */
export function patternsToMatch(expected: unknown, body: unknown): { pattern: string; text: string }[] {
  const pairs: { pattern: string; text: string }[] = [];
  diffsOf(expected, body, (pattern, text) => {
    pairs.push({ pattern, text });
    return true;
  });
  return pairs;
}

function diffsOf(expected: unknown, received: unknown, test: PatternTest): FieldDiff[] {
  const diffs: FieldDiff[] = [];
  matchValue(expected, received, [], diffs, test);
  return diffs;
}

function matchValue(expected: unknown, received: unknown, path: Path, diffs: FieldDiff[], test: PatternTest): void {
  const differ = () => diffs.push({ path: formatPath(path), expected, received });
  if (expected === null || expected === undefined) {
    if (received !== null && received !== undefined) differ();
    return;
  }
  if (typeof expected === 'string') {
    if (!matchString(expected, received, test)) differ();
    return;
  }
  if (typeof expected === 'bigint' || typeof expected === 'number') {
    if (!sameNumber(expected, received)) differ();
    return;
  }
  if (Array.isArray(expected)) {
    const list = received === undefined || received === null ? [] : received;
    if (!Array.isArray(list) || list.length !== expected.length) {
      differ();
      return;
    }
    expected.forEach((item: unknown, index) => matchValue(item, list[index], [...path, index], diffs, test));
    return;
  }
  if (isRecord(expected)) {
    if (!isRecord(received)) {
      differ();
      return;
    }
    for (const [key, item] of Object.entries(expected)) matchValue(item, received[key], [...path, key], diffs, test);
    return;
  }
  // A boolean: the same value.
  if (expected !== received) differ();
}

function matchString(expected: string, received: unknown, test: PatternTest): boolean {
  const text = textOf(received);
  if (text === undefined) return false;
  return looksLikePattern(expected) ? test(expected, text) : text === expected;
}

/** The text a string is compared with: the string, a number's digits, or an object's label. */
export function textOf(received: unknown): string | undefined {
  if (typeof received === 'string') return received;
  if (typeof received === 'bigint' || typeof received === 'number') return String(received);
  if (isRecord(received)) {
    for (const key of ['text', 'title', 'url']) if (typeof received[key] === 'string') return received[key];
  }
  return undefined;
}

function sameNumber(expected: bigint | number, received: unknown): boolean {
  if (typeof received !== 'bigint' && typeof received !== 'number') return false;
  const integral = (value: bigint | number) => typeof value === 'bigint' || Number.isInteger(value);
  // Integers compare exactly, as bigints, so identifiers past 2^53 keep every digit.
  if (integral(expected) && integral(received)) return BigInt(expected) === BigInt(received);
  return Number(expected) === Number(received);
}
