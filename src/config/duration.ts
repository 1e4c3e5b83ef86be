import { UsageError } from '../errors.js';
import { formatDuration } from '../text/duration.js';

/**
 * Durations for `timeout` in the config file, `CORE_TIMEOUT` and the `--timeout` flag
 * (docs/configuration.md, "Keys": a number of milliseconds or a duration string).
 *
 * This module is deliberately free of other imports so that a command definition can parse its
 * `--timeout` flag without loading the config loader, cosmiconfig or zod.
 */

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/**
 * The largest timeout Node's timers honour: setTimeout treats anything above 2^31 - 1 ms
 * (about 24.8 days) as 1 ms, which would turn a generous timeout into an instant failure.
 */
export const MAX_DURATION_MS = 2_147_483_647;

const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;

/**
 * Milliseconds from `30s`, `500ms`, `2m`, `1h`, `1m30s`, `1.5s`, `1500` (a bare number is
 * milliseconds), or a number of milliseconds. Throws a UsageError for anything else, for zero and
 * for durations beyond what a timer can wait; callers that read a config file or the environment
 * rethrow it as a ConfigError that names the source.
 */
export function parseDuration(text: string | number): number {
  const ms = typeof text === 'number' ? fromNumber(text) : fromText(text);
  if (ms === undefined) {
    throw new UsageError(`invalid duration ${JSON.stringify(String(text))}`, {
      hint: 'use milliseconds (1500) or a duration such as 500ms, 30s, 2m, 1m30s, 1h',
    });
  }
  if (ms < 1) throw new UsageError(`invalid duration ${JSON.stringify(String(text))}: must be at least 1ms`);
  if (ms > MAX_DURATION_MS) {
    throw new UsageError(`invalid duration ${JSON.stringify(String(text))}: longer than the limit of ${formatDuration(MAX_DURATION_MS)}`);
  }
  return ms;
}

function fromNumber(value: number): number | undefined {
  return Number.isFinite(value) && Number.isInteger(value) ? value : undefined;
}

function fromText(raw: string): number | undefined {
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (text === '') return undefined;
  let total = 0;
  const seen = new Set<string>();
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const match = PART.exec(text);
    if (match === null) return undefined;
    const unit = match[2] as keyof typeof UNIT_MS;
    // "1m1m" is almost certainly a typo, not a request for two minutes.
    if (seen.has(unit)) return undefined;
    seen.add(unit);
    total += Number(match[1]) * UNIT_MS[unit];
  }
  return Math.round(total);
}

/** The one duration formatter (src/text/duration.ts): 30000 → "30s", 90000 → "1m30s", 1500 → "1.5s". */
export { formatDuration };
