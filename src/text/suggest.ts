/**
 * "Did you mean": the one way core guesses what a mistyped name meant, for unknown keys of the
 * config file, unknown profiles and unknown fields of a payload. A leaf: it imports nothing.
 */

/** Words longer than this are not compared: the distance grows with the product of the lengths. */
const LONGEST = 100;

/**
 * The candidate a mistyped word most likely meant, or undefined when none is close enough:
 * - the same word in another case or spelling of separators (`base_url`, `baseURL`, `shownText`
 *   for `shown_text`);
 * - else the nearest within a third of the candidate's length in edits (always allowing one, but
 *   never a change of every letter), a swap of neighbouring letters counting as one: `colour`
 *   finds `color`, `tokn` finds `token`, an unrelated word finds nothing. The first of equally
 *   near candidates wins.
 */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > LONGEST) return undefined;
  const squashed = squash(word);
  const same = candidates.find((candidate) => squash(candidate) === squashed);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const other = squash(candidate);
    const distance = editDistance(squashed, other);
    const close = distance <= Math.max(1, Math.floor(other.length / 3)) && distance < Math.min(squashed.length, other.length);
    if (close && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `did you mean "x"?` for the candidate `suggest` finds, or undefined. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const guess = suggest(word, candidates);
  return guess === undefined ? undefined : `did you mean ${JSON.stringify(guess)}?`;
}

function squash(word: string): string {
  return word.toLowerCase().replace(/[-_\s]/g, '');
}

/**
 * The edits between two words (Damerau-Levenshtein, optimal string alignment): insertions,
 * deletions, substitutions and swaps of neighbours each cost one.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      row.push(value);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}
