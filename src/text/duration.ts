/**
 * The one way core writes a duration for people: in the units `--timeout` and the config file read
 * (`250ms`, `1.5s`, `30s`, `1m30s`, `2h`), so what a message says can be typed back. A leaf.
 */

/** 250 → "250ms", 1500 → "1.5s", 30000 → "30s", 90000 → "1m30s", 3600000 → "1h"; fractions of a millisecond are rounded. */
export function formatDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole}ms`;
  if (whole % 1000 !== 0 || whole < 60_000) return `${whole / 1000}s`;
  const parts: string[] = [];
  let rest = whole;
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return parts.join('');
}
