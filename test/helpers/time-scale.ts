import { availableParallelism, loadavg } from 'node:os';

/**
 * How much longer than usual a wait may take here before it counts as a hang (CONTRIBUTING.md, "A
 * verdict that does not depend on the machine's speed"). The limits of the suite (vitest.config.ts,
 * `happens` in ./wait.ts, the argv properties) only catch hangs, and on a loaded machine everything
 * is slower by about the number of runnable processes per core: so they are multiplied by that, read
 * from the load average when the run starts (never below 1), or by `CORE_TEST_TIME_SCALE` when set
 * (the stress job sets it, as its busy loops start with the run). Nothing is asserted about speed.
 */
function scale(): number {
  const given = Number(process.env.CORE_TEST_TIME_SCALE);
  if (Number.isFinite(given) && given >= 1) return given;
  const [oneMinute = 0] = loadavg();
  return Math.max(1, Math.ceil(oneMinute / availableParallelism()));
}

export const timeScale = scale();

/** A limit that only catches a hang, scaled to this machine's load. */
export function hangLimit(ms: number): number {
  return ms * timeScale;
}
