/**
 * A CommonJS package imported with `await import()` arrives as `{ default: module.exports }` in the
 * ESM bundle, while Node also copies its named exports when run from source. This returns the
 * module's exports either way.
 */
export function cjs<T extends object>(mod: T | { default: T }, probe: keyof T): T {
  if (probe in mod) return mod as T;
  return (mod as { default: T }).default;
}
