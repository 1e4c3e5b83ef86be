import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Context } from '../context.js';
import { InterruptedError, PayloadError, UsageError } from '../errors.js';
import { parseJson } from '../payload/json.js';
import { decode, formatBytes, parseText } from '../send/input.js';
import { readLines } from './lines.js';

/**
 * Where the items of a batch come from: one value (flags, or a file holding one object), a JSON
 * array (or YAML list), or NDJSON (one item a line). A source can be read twice: once to check
 * every item before anything is sent, once to send. NDJSON is streamed both times; a whole
 * document (an object, an array, YAML) is parsed once and kept.
 */

/** Where an item sits in its input, for messages: `line 12`, `[3]`, or nothing for a lone value. */
export type Position = { kind: 'line'; line: number } | { kind: 'index'; index: number } | { kind: 'whole' };

export interface BatchItem {
  position: Position;
  /** The parsed value; undefined when `parseError` is set. */
  value: unknown;
  /** Why an NDJSON line is not JSON. */
  parseError?: string;
}

export type SourceKind = 'ndjson' | 'array' | 'single';

export interface BatchSource {
  /** The input's name for messages: the path as given, or "standard input". */
  readonly name: string;
  readonly kind: SourceKind;
  /** Every item, in input order; blank NDJSON lines are skipped. Can be called again. */
  items(): AsyncIterable<BatchItem>;
  /** Removes the spool file of standard input, if any. */
  close(): Promise<void>;
}

/** A JSON array or YAML file is parsed whole; past this size, NDJSON (streamed) is the way. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** The label of a position: `line 12`, `[3]`, or '' for a lone value. */
export function positionLabel(position: Position): string {
  switch (position.kind) {
    case 'line':
      return `line ${position.line}`;
    case 'index':
      return `[${position.index}]`;
    case 'whole':
      return '';
  }
}

/**
 * A field path inside an item, prefixed with the item's position: `line 12: reasons[0].name`,
 * `[3].color`, or `color` for a lone value.
 */
export function itemPath(position: Position, path: string): string {
  switch (position.kind) {
    case 'line':
      return path === '' ? `line ${position.line}` : `line ${position.line}: ${path}`;
    case 'index':
      return path === '' || path.startsWith('[') ? `[${position.index}]${path}` : `[${position.index}].${path}`;
    case 'whole':
      return path;
  }
}

/** A source of one value already in memory (built from flags). */
export function valueSource(value: unknown, name = 'the flags'): BatchSource {
  return {
    name,
    kind: 'single',
    async *items() {
      yield { position: { kind: 'whole' }, value };
    },
    close: async () => {},
  };
}

/**
 * Opens `-f PATH` (or `-f -`). Standard input, and anything else that is not a regular file (a
 * pipe from `<(...)`), is first copied to a private temporary file so it can be read twice; the
 * copy is removed by `close()`.
 */
export async function openSource(path: string, ctx: Context): Promise<BatchSource> {
  if (path === '-') {
    if (ctx.streams.stdin.isTTY) {
      throw new UsageError('-f - reads the reasons from standard input, but standard input is a terminal', {
        hint: 'pipe them in (core reason update -f - < reasons.ndjson) or pass the file with -f',
      });
    }
    return spooled(ctx.streams.stdin, 'standard input', ctx);
  }
  const full = resolve(ctx.cwd, path);
  let info;
  try {
    info = await stat(full);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(code === 'ENOENT' ? `file not found: ${path}` : `cannot read ${path} (${code ?? 'error'})`, {
      hint: 'check the path given to -f',
    });
  }
  if (info.isDirectory())
    throw new UsageError(`${path} is a folder, not a file of reasons`, { hint: 'give -f the path of a JSON, NDJSON or YAML file' });
  if (!info.isFile()) {
    const { createReadStream } = await import('node:fs');
    return spooled(createReadStream(full), path, ctx);
  }
  return fileSource(full, path, () => Promise.resolve());
}

async function spooled(input: NodeJS.ReadableStream, name: string, ctx: Context): Promise<BatchSource> {
  const folder = await mkdtemp(join(tmpdir(), 'core-reasons-'));
  const remove = () => rm(folder, { recursive: true, force: true });
  const file = join(folder, 'input');
  try {
    if (ctx.signal.aborted) throw new InterruptedError();
    await pipeline(input, createWriteStream(file, { mode: 0o600 }), { signal: ctx.signal });
  } catch (error) {
    await remove();
    if (ctx.signal.aborted) throw new InterruptedError('cancelled while reading standard input; nothing sent');
    throw new UsageError(`cannot read ${name}: ${(error as Error).message}`);
  }
  try {
    return await fileSource(file, name, remove);
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * Decides the format from the first lines, without reading the whole file:
 * - `.ndjson` / `.jsonl`, or a first line that is a whole JSON object: NDJSON, streamed. A first
 *   line that is not JSON still means NDJSON when the second line is a whole object, so a broken
 *   first line is reported by its number instead of failing the file as one document.
 * - a first line starting with `[`: a JSON array, parsed whole.
 * - anything else (a pretty-printed object, YAML): one document, parsed whole.
 */
async function fileSource(file: string, name: string, cleanup: () => Promise<void>): Promise<BatchSource> {
  const firstLines: string[] = [];
  for await (const line of readLines(file, name)) {
    if (line.text.trim() === '') continue;
    firstLines.push(line.text.trim());
    if (firstLines.length === 2) break;
  }
  if (firstLines.length === 0) {
    throw new PayloadError(`${name} is empty: it holds no reasons`, [], {
      hint: 'write one reason (a JSON object), a JSON array of reasons, or one reason a line (NDJSON)',
    });
  }
  const [first, second] = firstLines as [string, string | undefined];
  const isObjectLine = (text: string | undefined) => text !== undefined && text.startsWith('{') && parsesAsObject(text);
  if (/\.(ndjson|jsonl)$/i.test(name) || isObjectLine(first) || (first.startsWith('{') && isObjectLine(second))) {
    return ndjsonSource(file, name, cleanup);
  }
  const value = await readDocument(file, name);
  if (Array.isArray(value)) {
    if (value.length === 0) {
      throw new PayloadError(`${name} holds an empty array: no reasons`, [], { hint: 'nothing to update; put at least one reason in it' });
    }
    return {
      name,
      kind: 'array',
      async *items() {
        for (const [index, item] of value.entries()) yield { position: { kind: 'index', index }, value: item };
      },
      close: cleanup,
    };
  }
  return {
    name,
    kind: 'single',
    async *items() {
      yield { position: { kind: 'whole' }, value };
    },
    close: cleanup,
  };
}

function parsesAsObject(text: string): boolean {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

async function readDocument(file: string, name: string): Promise<unknown> {
  const { size } = await stat(file);
  if (size > MAX_DOCUMENT_BYTES) {
    throw new PayloadError(
      `${name} is ${formatBytes(size)}; a JSON array or YAML file is read whole, up to ${formatBytes(MAX_DOCUMENT_BYTES)}`,
      [],
      {
        hint: 'write one reason a line (NDJSON): it is read as a stream, at any size',
      },
    );
  }
  const format = /\.ya?ml$/i.test(name) ? 'yaml' : /\.json$/i.test(name) ? 'json' : 'auto';
  return parseText(decode(await readFile(file), name), name, format);
}

function ndjsonSource(file: string, name: string, cleanup: () => Promise<void>): BatchSource {
  return {
    name,
    kind: 'ndjson',
    async *items() {
      for await (const line of readLines(file, name)) {
        if (line.text.trim() === '') continue;
        const position: Position = { kind: 'line', line: line.number };
        let item: BatchItem;
        try {
          item = { position, value: parseJson(line.text) };
        } catch (error) {
          item = { position, value: undefined, parseError: `not valid JSON: ${(error as Error).message}` };
        }
        yield item;
      }
    },
    close: cleanup,
  };
}
