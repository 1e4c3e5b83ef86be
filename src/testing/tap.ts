import { cjs } from '../interop.js';

/**
 * TAP version 14 (https://testanything.org/tap-version-14-specification.html) for the reports of
 * `core test` and `core check-bot`: a plan, a test point per case, a case's details in a YAML
 * diagnostic block, and `Bail out!` instead of the points when nothing could be tested.
 */

export interface TapPoint {
  ok: boolean;
  description: string;
  /** The YAML diagnostic block; none when absent or empty. */
  block?: Record<string, unknown>;
}

/** The document; `bailOut` (the reason, in one line) replaces the plan and the points. */
export async function tapDocument(points: readonly TapPoint[], bailOut: string | null): Promise<string> {
  const out = ['TAP version 14'];
  if (bailOut !== null) {
    out.push(`Bail out! ${bailOut.replace(/\n/g, ' ')}`);
    return `${out.join('\n')}\n`;
  }
  const { stringify } = cjs(await import('yaml'), 'stringify');
  out.push(`1..${points.length}`);
  points.forEach((point, i) => {
    // A description ends at a `#` (a directive) or a line break: both written so they do not.
    const description = point.description.replace(/\\/g, '\\\\').replace(/#/g, '\\#').replace(/\n/g, ' ');
    out.push(`${point.ok ? 'ok' : 'not ok'} ${i + 1} - ${description}`);
    if (point.block !== undefined && Object.keys(point.block).length > 0) {
      // One value met twice (an expected list in a diff and in the block) is written twice, not as an alias.
      const yaml = stringify(point.block, { lineWidth: 0, aliasDuplicateObjects: false }).trimEnd();
      out.push('  ---', ...yaml.split('\n').map((line: string) => `  ${line}`), '  ...');
    }
  });
  return `${out.join('\n')}\n`;
}
