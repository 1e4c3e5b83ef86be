import { hangLimit } from './time-scale.js';

/**
 * Waits for an event the test expects (a promise that settles when it happens), with a bound: if it
 * has not happened in `boundMs`, the test fails naming what never happened. The bound only keeps a
 * broken build from hanging until the test's own time-out; it asserts nothing about speed.
 */
export async function happens<T>(event: Promise<T>, what: string, boundMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // Scaled to the machine's load (./time-scale.ts): a busy machine is slower, not broken.
  const limit = hangLimit(boundMs);
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`never happened within ${limit / 1000} s: ${what}`)), limit);
  });
  try {
    return await Promise.race([event, bound]);
  } finally {
    clearTimeout(timer);
  }
}
