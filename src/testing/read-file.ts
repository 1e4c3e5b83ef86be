import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Problem } from '../errors.js';
import { cjs } from '../interop.js';
import { inexactFloatTags } from '../payload/inexact.js';
import { parseJson } from '../payload/json.js';
import type { Path } from '../payload/messages.js';
import { formatBytes } from '../input/bytes.js';
import { decode, MAX_PAYLOAD_BYTES } from '../input/files.js';
import { readFast } from './fast-yaml.js';

/**
 * Reading one file of `core test` (src/testing/load.ts): its text, within the size a test file may
 * have; its value, by the fast YAML reader (src/testing/fast-yaml.ts), as JSON, or by the `yaml`
 * library; and the line of any place in it, for problems and for the reports.
 */

/** The problems of a file that cannot be read: the file (and the line) as each one's path. */
export interface FileProblems {
  problems: Problem[];
}

/** A problem of one file: the file (and the line) as its path. */
export const problemOf = (file: string, message: string, line?: number): FileProblems => ({
  problems: [{ path: line ? `${file}:${line}` : file, message }],
});

/** The file's text, read within the size a test file may have; a file too large, not text, or empty is a problem. */
export async function readText(file: string, cwd: string): Promise<string | FileProblems> {
  const problem = (message: string, line?: number) => problemOf(file, message, line);
  const full = resolve(cwd, file);
  const info = await stat(full);
  if (info.size > MAX_PAYLOAD_BYTES)
    return problem(`${formatBytes(info.size)}, more than a test file can be (limit ${formatBytes(MAX_PAYLOAD_BYTES)})`);
  const { readFile } = await import('node:fs/promises');
  let text: string;
  try {
    text = decode(await readFile(full), file);
  } catch (error) {
    return problem((error as Error).message.replace(`${file} `, ''));
  }
  if (text.trim() === '') return problem('is empty');
  return text;
}

/** The lines of a file's places: the `yaml` library's document, parsed once when first asked. */
export interface LineFinder {
  exact(): ReturnType<typeof parseDocument>;
  /** The line of a problem's path: the document's, whatever the reader. */
  problemLine(path: Path): Promise<number>;
  /** The line of a conversation or a step (a mapping): the fast reader's when it read the file. */
  lineOf(path: Path): Promise<number>;
}

export function lineFinder(text: string, fast: Awaited<ReturnType<typeof readFast>>): LineFinder {
  let document: ReturnType<typeof parseDocument> | undefined;
  const exact = () => (document ??= parseDocument(text));
  const problemLine = async (path: Path): Promise<number> => {
    const { doc, lines } = await exact();
    for (let end = path.length; end >= 0; end -= 1) {
      const node =
        doc.errors.length === 0 ? (doc.getIn(path.slice(0, end), true) as { range?: [number, number, number] } | undefined) : undefined;
      if (node?.range) return lines.linePos(node.range[0]).line;
    }
    return 1;
  };
  const lineOf = async (path: Path): Promise<number> => fast?.lineOf(path) ?? (await problemLine(path));
  return { exact, problemLine, lineOf };
}

/** The file's value: the fast reader's, JSON's, or the `yaml` library's document's; a file that does not parse is a problem. */
export async function readValue(
  file: string,
  text: string,
  isJson: boolean,
  fast: Awaited<ReturnType<typeof readFast>>,
  finder: LineFinder,
): Promise<{ value: unknown } | FileProblems> {
  const problem = (message: string, line?: number) => problemOf(file, message, line);
  let value: unknown;
  if (fast !== undefined) value = fast.value;
  else if (isJson) {
    try {
      value = parseJson(text, { inexact: true });
    } catch (error) {
      return problem(`not valid JSON: ${(error as Error).message}`);
    }
  } else {
    const { doc, lines } = await finder.exact();
    if (doc.errors.length > 0) {
      const first = doc.errors[0]!;
      return problem(`not valid YAML: ${first.message.split('\n')[0]}`, lines.linePos(first.pos[0]).line);
    }
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch {
      return problem('not a usable YAML file: its aliases expand too far (more than 100 copies)');
    }
  }
  return { value };
}

/** The `yaml` library's document of a file, with the line of every offset. */
async function parseDocument(text: string) {
  const YAML = cjs(await import('yaml'), 'parseDocument');
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, {
    intAsBigInt: true,
    uniqueKeys: true,
    lineCounter: lines,
    prettyErrors: false,
    customTags: inexactFloatTags,
  });
  return { doc, lines };
}

/** `steps[2].bot.text` as path segments, for finding its line. */
export function pathSegments(path: string): Path {
  const segments: (string | number)[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)) {
    if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(`"${match[3]}"`) as string);
    else segments.push(match[1]!);
  }
  return segments;
}
