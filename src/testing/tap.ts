import { cjs } from '../interop.js';

/**
 * TAP version 14 (https://testanything.org/tap-version-14-specification.html) for the reports of
 * `core test` and `core check-bot`: a plan, a test point per case, a case's details in a YAML
 * diagnostic block, and `Bail out!` instead of the points when nothing could be tested.
 *
 * A name or a message comes from a test file or from the bot, so it may hold any character. A TAP
 * document is read line by line, and readers differ on what ends a line: tap-parser reads lines with
 * `/^.*\r?\n/`, whose `.` stops at \r, U+2028 and U+2029 too. So no such character is written as
 * it is: a description has each line breaker made a space, and a string of the YAML block that holds
 * one is written double-quoted, where YAML escapes it (`\r`, `\L`, `\P`, `\N`).
 */

export interface TapPoint {
  ok: boolean;
  description: string;
  /** The YAML diagnostic block; none when absent or empty. */
  block?: Record<string, unknown>;
}

/** Every character Unicode or a TAP reader may take for the end of a line; \r\n counts as one. */
const LINE_BREAK = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g;
const HOLDS_LINE_BREAK = /[\n\r\u000b\u000c\u0085\u2028\u2029]/;

const YAML_ESCAPES: Record<string, string> = { '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P' };

/** One line of text: each line break a space. */
const oneLine = (text: string) => text.replace(LINE_BREAK, ' ');

/** The document; `bailOut` (the reason, in one line) replaces the plan and the points. */
export async function tapDocument(points: readonly TapPoint[], bailOut: string | null): Promise<string> {
  const out = ['TAP version 14'];
  if (bailOut !== null) {
    out.push(`Bail out! ${oneLine(bailOut)}`);
    return `${out.join('\n')}\n`;
  }
  const YAML = cjs(await import('yaml'), 'Document');
  out.push(`1..${points.length}`);
  points.forEach((point, i) => {
    // A description ends at a `#` (a directive) or a line break: both written so they do not.
    const description = oneLine(point.description.replace(/\\/g, '\\\\').replace(/#/g, '\\#'));
    out.push(`${point.ok ? 'ok' : 'not ok'} ${i + 1} - ${description}`);
    if (point.block !== undefined && Object.keys(point.block).length > 0) {
      // One value met twice (an expected list in a diff and in the block) is written twice, not as an alias.
      const doc = new YAML.Document(point.block, { aliasDuplicateObjects: false });
      // A key or a value that holds a line break is written double-quoted, where it is escaped;
      // plain or in a block scalar it would be written as it is.
      YAML.visit(doc, {
        Scalar(_key, node) {
          if (typeof node.value === 'string' && HOLDS_LINE_BREAK.test(node.value)) node.type = 'QUOTE_DOUBLE';
        },
      });
      // The library builds a double-quoted scalar from JSON.stringify, which leaves U+0085, U+2028
      // and U+2029 as they are: every one left in the text is inside such a scalar, so YAML's own
      // escapes write them.
      const yaml = doc
        .toString({ lineWidth: 0 })
        .trimEnd()
        .replace(/[\u0085\u2028\u2029]/g, (c) => YAML_ESCAPES[c]!);
      out.push('  ---', ...yaml.split('\n').map((line: string) => `  ${line}`), '  ...');
    }
  });
  return `${out.join('\n')}\n`;
}
