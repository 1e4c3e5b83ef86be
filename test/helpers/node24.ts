import { describe } from 'vitest';

/** Whether this is the second run, on Node 24 (scripts/test-node24.mjs sets CORE_TEST_NODE24=1). */
export const inNode24Run = process.env.CORE_TEST_NODE24 === '1';

/**
 * `describe` for a part of an ON_NODE24 file that cannot differ on Node 24 (text checks, what
 * TypeScript or another program makes of a file, what another file runs there already): declared
 * in the first run, and not declared at all in the run on Node 24, so nothing is skipped there.
 * A comment above each says why; CONTRIBUTING.md, "Tests on Node 24", lists these parts.
 */
export function describeOnce(name: string, body: () => void): void {
  if (!inNode24Run) describe(name, body);
}
