/**
 * A whole number with its thousands grouped by commas, as `toLocaleString('en-US')` writes it
 * ("100,000"), without its cost: the first call of that builds ICU's number formatting, ~10 ms on
 * Node 20, which a batch paid for its summary line.
 */
export function count(n: number): string {
  if (!Number.isSafeInteger(n)) return String(n);
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}
