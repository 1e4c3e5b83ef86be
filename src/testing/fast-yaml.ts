import { cjs } from '../interop.js';
import { readInteger, readNumber } from '../payload/inexact.js';
import type { Path } from '../payload/messages.js';

/**
 * A test file read fast (docs/performance.md, "Driving a bot"): js-yaml builds the value about eight
 * times faster than the `yaml` library's document, and without the document of every node, which
 * for 5,000 conversations weighed more than the run itself. Only what line numbers need is kept:
 * the line where each mapping and sequence starts.
 *
 * The value is the one the `yaml` library gives (YAML 1.2's core schema, integers as bigint):
 * null, booleans, integers and floats are resolved by that schema's own patterns, everything else
 * is a string. Where the two parsers could differ, this reader declines and the caller reads the
 * file with the `yaml` library as before: a file that may hold an anchor or alias (which also keeps
 * alias bombs out), a directive, or anything js-yaml refuses (duplicate keys, a syntax
 * error). The caller uses the document too for every problem it reports, so messages and their
 * lines are the library's.
 */

export interface FastRead {
  value: unknown;
  /** The line (from 1) where the mapping or sequence at `path` starts; undefined for a scalar or a missing path. */
  lineOf(path: Path): number | undefined;
}

// YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), as the `yaml` library resolves it.
/**
 * Where an anchor (`&a`) or an alias (`*a`) could be: after a space, a line start, a flow
 * indicator or a colon (`{"a":*x}`), which they always follow. A `*` inside a pattern (`/a.*b/`) is not one; one after a
 * space is taken for one, and the file goes to the library.
 */
const MAYBE_ALIAS = /(?:^|[\s[{,:])[&*]/m;
const NULL = /^(?:~|null|Null|NULL|)$/;
const BOOL = /^(?:true|True|TRUE|false|False|FALSE)$/;
const INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;
const FLOAT = /^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

type JsYaml = Pick<typeof import('js-yaml'), 'load' | 'FAILSAFE_SCHEMA' | 'Type'>;
let schema: import('js-yaml').Schema | undefined;

function coreSchema(yaml: JsYaml): import('js-yaml').Schema {
  schema ??= yaml.FAILSAFE_SCHEMA.extend({
    implicit: [
      new yaml.Type('tag:yaml.org,2002:null', {
        kind: 'scalar',
        resolve: (data: unknown) => typeof data === 'string' && NULL.test(data),
        construct: () => null,
      }),
      new yaml.Type('tag:yaml.org,2002:bool', {
        kind: 'scalar',
        resolve: (data: unknown) => typeof data === 'string' && BOOL.test(data),
        construct: (data: string) => data.toLowerCase() === 'true',
      }),
      new yaml.Type('tag:yaml.org,2002:int', {
        kind: 'scalar',
        resolve: (data: unknown) => typeof data === 'string' && INT.test(data),
        construct: (data: string) => (data.startsWith('0o') ? BigInt(`0o${data.slice(2)}`) : readInteger(data)),
      }),
      new yaml.Type('tag:yaml.org,2002:float', {
        kind: 'scalar',
        resolve: (data: unknown) => typeof data === 'string' && FLOAT.test(data) && !INT.test(data),
        construct: (data: string) => {
          const plain = data.replace(/^\+/, '');
          if (/inf$/i.test(plain)) return plain.startsWith('-') ? -Infinity : Infinity;
          if (/nan$/i.test(plain)) return NaN;
          // A number whose written digits are lost to an integer is kept as written (payload/inexact.ts).
          return readNumber(plain);
        },
      }),
    ],
  });
  return schema;
}

/** The file's value and the lines of its collections, or undefined when the `yaml` library must read it. */
export async function readFast(text: string): Promise<FastRead | undefined> {
  if (MAYBE_ALIAS.test(text) || /^%/m.test(text)) return undefined;
  const yaml = cjs<JsYaml>(await import('js-yaml'), 'load');
  const starts = lineStarts(text);
  const lines = new Map<object, number>();
  const open: number[] = [];
  let value: unknown;
  try {
    value = yaml.load(text, {
      schema: coreSchema(yaml),
      listener(event, state) {
        if (event === 'open') {
          open.push(state.position);
          return;
        }
        const from = open.pop() ?? 0;
        const result: unknown = state.result;
        if (typeof result === 'object' && result !== null) lines.set(result, lineAt(starts, contentStart(text, from)));
      },
    });
  } catch {
    return undefined;
  }
  return {
    value,
    lineOf(path) {
      let node: unknown = value;
      for (const key of path) {
        if (typeof node !== 'object' || node === null) return undefined;
        node = (node as Record<string | number, unknown>)[key];
      }
      return typeof node === 'object' && node !== null ? lines.get(node) : undefined;
    },
  };
}

/** Where a node's content starts: past spaces, line breaks and comments from where js-yaml began reading it. */
function contentStart(text: string, from: number): number {
  let at = from;
  for (;;) {
    const c = text.charCodeAt(at);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) at += 1;
    else if (c === 0x23 /* # */) {
      const end = text.indexOf('\n', at);
      if (end === -1) return text.length;
      at = end + 1;
    } else return at;
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The line (from 1) of an offset. */
function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}
