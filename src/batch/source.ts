import { createWriteStream } from 'node:fs';
import { mkdtemp, open, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Context } from '../context.js';
import { InterruptedError, PayloadError, UsageError } from '../errors.js';
import { parseJson } from '../payload/json.js';
import { formatBytes } from '../input/bytes.js';
import { decode, parseText } from '../input/files.js';
import { openChunks, readLines, type FileRef } from './lines.js';
import { count } from '../output/count.js';
import { unreadableFile } from '../text/files.js';

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
  /**
   * The NDJSON line as read (its end removed): what the second pass compares with the first pass's
   * fingerprint of it (src/batch/check.ts, `Fingerprints`). Absent for an item of a whole document.
   */
  text?: string;
  /**
   * The very item an earlier pass read, kept in memory since (a small NDJSON file is read once: see
   * KEPT_NDJSON_BYTES): it cannot have changed, so what that pass found of it still holds.
   */
  kept?: true;
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

/**
 * An NDJSON file whose lines add up to at most this many characters is read from the file once:
 * the second pass takes the items the first one parsed, instead of reading, parsing and comparing
 * each line again (a fifth of a small batch's own time; docs/performance.md, "Batches"). Larger
 * files are streamed both times, so memory stays flat however long they are.
 */
export const KEPT_NDJSON_BYTES = 1024 * 1024;

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
 * Opens `-f PATH` (or `-f -`). Standard input, anything else that is not a regular file (a pipe from
 * `<(...)`), and a regular file larger than KEPT_NDJSON_BYTES, is first copied to a private
 * temporary file so it can be read twice as it was; the copy has no name left once it is open (see
 * `spooled`), and `close()` closes it. A smaller file is read once (the first pass keeps its items).
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
    throw new UsageError(unreadableFile(path, error), { hint: 'check the path given to -f' });
  }
  if (info.isDirectory())
    throw new UsageError(`${path} is a folder, not a file of reasons`, { hint: 'give -f the path of a JSON, NDJSON or YAML file' });
  // A file larger than what the first pass keeps in memory is read twice: it is copied first, so the
  // second pass sends exactly what the first one checked even if the file changes meanwhile (an
  // editor saving it, a script appending to it: lines sent twice or never, codes never checked).
  if (!info.isFile() || info.size > KEPT_NDJSON_BYTES) {
    const { createReadStream } = await import('node:fs');
    return spooled(createReadStream(full), path, ctx);
  }
  return fileSource(full, path, () => Promise.resolve());
}

/**
 * Copies a stream to a private temporary file (mode 600) that can be read twice. Its name is removed
 * as soon as it is open, before a byte is copied: the copy is then read through the open descriptor
 * and vanishes with it, so nothing is left behind whatever ends the process (SIGKILL included).
 * Where an open file cannot be removed (Windows), it is removed by `close()`.
 */
async function spooled(input: NodeJS.ReadableStream, name: string, ctx: Context): Promise<BatchSource> {
  let folder: string | undefined;
  let handle: FileHandle;
  try {
    folder = await mkdtemp(join(tmpdir(), 'core-reasons-'));
    handle = await open(join(folder, 'input'), 'w+', 0o600);
  } catch (error) {
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
    // The errors of making a folder and opening a file carry a code (EACCES, ENOSPC, ...).
    const code = (error as { code?: string }).code;
    throw new UsageError(`cannot copy ${name} to a temporary file in ${tmpdir()} (${code})`, {
      hint: 'set TMPDIR to a folder you can write to',
    });
  }
  let named = true;
  try {
    await rm(folder, { recursive: true });
    named = false;
  } catch {
    // An open file cannot be removed here: close() removes it.
  }
  const remove = async () => {
    await handle.close().catch(() => {});
    if (named) await rm(folder!, { recursive: true, force: true });
  };
  try {
    if (ctx.signal.aborted) throw new InterruptedError();
    const copied = pipeline(input, createWriteStream('', { fd: handle.fd, autoClose: false }), { signal: ctx.signal });
    // The wait ends at the abort itself: opening a FIFO nobody writes waits in one of Node's threads,
    // and some Node releases settle the pipeline only once that open returns, which may be never.
    copied.catch(() => {});
    await Promise.race([copied, aborted(ctx.signal)]);
  } catch (error) {
    await remove();
    if (ctx.signal.aborted) throw new InterruptedError(`cancelled while reading ${name}; nothing sent`);
    throw new UsageError(`cannot read ${name}: ${(error as Error).message}`);
  }
  try {
    return await fileSource({ handle }, name, remove);
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * Decides the format from the start of the file, without reading it whole:
 * - `.ndjson` / `.jsonl`: NDJSON, streamed.
 * - a first character `[`: a JSON array, parsed whole (up to MAX_DOCUMENT_BYTES), however long its
 *   lines: `jq -c` writes a whole array on one line.
 * - a first line that is a whole JSON object: NDJSON, streamed. A first line that is not JSON still
 *   means NDJSON when the second line is a whole object, so a broken first line is reported by its
 *   number instead of failing the file as one document.
 * - anything else (a pretty-printed object, YAML): one document, parsed whole.
 */
async function fileSource(file: FileRef, name: string, cleanup: () => Promise<void>): Promise<BatchSource> {
  const ndjsonByName = /\.(ndjson|jsonl)$/i.test(name);
  const first = ndjsonByName ? undefined : await firstCharacter(file, name);
  // An empty file (or white space alone) has no first line either: it is refused below.
  if (first === '[') return documentSource(file, name, cleanup);
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
  const [line1, line2] = firstLines as [string, string | undefined];
  const isObjectLine = (text: string | undefined) => text !== undefined && parsesAsObject(text);
  if (ndjsonByName || isObjectLine(line1) || (line1.startsWith('{') && isObjectLine(line2))) {
    return ndjsonSource(file, name, cleanup);
  }
  return documentSource(file, name, cleanup);
}

/** The file's first character that is not white space (a byte-order mark skipped), or '' for none. */
async function firstCharacter(file: FileRef, name: string): Promise<string> {
  const { chunks, close } = openChunks(file);
  try {
    let start = true;
    for await (const chunk of chunks) {
      let text = chunk.toString('latin1');
      if (start && text.startsWith('\xef\xbb\xbf')) text = text.slice(3);
      start = false;
      const match = /[^\s]/.exec(text);
      if (match) return match[0];
    }
    return '';
  } catch (error) {
    // The errors of reading a file carry a code (EISDIR, EACCES, ...).
    throw new UsageError(`cannot read ${name} (${(error as { code?: string }).code})`);
  } finally {
    close();
  }
}

async function documentSource(file: FileRef, name: string, cleanup: () => Promise<void>): Promise<BatchSource> {
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

async function readDocument(file: FileRef, name: string): Promise<unknown> {
  const size = (typeof file === 'string' ? await stat(file) : await file.handle.stat()).size;
  if (size > MAX_DOCUMENT_BYTES) {
    throw new PayloadError(
      `${name} is ${formatBytes(size)} (${count(size)} bytes); a JSON array or YAML file is read whole, up to ${formatBytes(MAX_DOCUMENT_BYTES)}`,
      [],
      {
        hint: 'write one reason a line (NDJSON): it is read as a stream, at any size',
      },
    );
  }
  const format = /\.ya?ml$/i.test(name) ? 'yaml' : /\.json$/i.test(name) ? 'json' : 'auto';
  return parseText(decode(await readWhole(file, size), name), name, format);
}

/** The whole file; a descriptor is read from its start, whatever its position. */
async function readWhole(file: FileRef, size: number): Promise<Buffer> {
  if (typeof file === 'string') return readFile(file);
  const chunks: Buffer[] = [];
  for await (const chunk of openChunks(file, Math.max(64 * 1024, Math.min(size, 8 * 1024 * 1024))).chunks) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function ndjsonSource(file: FileRef, name: string, cleanup: () => Promise<void>): BatchSource {
  /** The items of a small file, once a pass has read all of them (KEPT_NDJSON_BYTES). */
  let kept: BatchItem[] | undefined;
  return {
    name,
    kind: 'ndjson',
    async *items() {
      if (kept !== undefined) {
        yield* kept;
        return;
      }
      let keeping: BatchItem[] | undefined = [];
      let size = 0;
      for await (const line of readLines(file, name)) {
        if (line.text.trim() === '') continue;
        const position: Position = { kind: 'line', line: line.number };
        let item: BatchItem;
        try {
          item = { position, value: parseLine(line.text), text: line.text };
        } catch (error) {
          item = { position, value: undefined, parseError: `not valid JSON: ${(error as Error).message}`, text: line.text };
        }
        if (keeping !== undefined) {
          size += line.text.length;
          if (size > KEPT_NDJSON_BYTES) keeping = undefined;
          else keeping.push({ ...item, text: undefined, kept: true });
        }
        yield item;
      }
      // Only a pass that read the file to its end leaves its items for the next.
      kept = keeping;
    },
    close: cleanup,
  };
}

/** Rejects when `signal` is aborted; never settles otherwise. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * `parseJson` of one NDJSON line, through the engine's JSON.parse where that gives the very same
 * value: a line with no backslash (so no escape: every string is in the text as it is), no number
 * (the lossless reader makes integers bigints) and no key twice in one object (the lossless reader
 * refuses a key repeated with another value, JSON.parse keeps the last one). Anything else, and every
 * line that does not parse, goes to `parseJson`, which also words the error.
 */
export function parseLine(text: string): unknown {
  if (text.includes('\\')) return parseJson(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseJson(text);
  }
  const keys = countKeys(value);
  return keys >= 0 && keys === keysInText(text) ? value : parseJson(text);
}

/** The keys of every object in a parsed value, or -1 when it holds a number. Exported for its tests. */
export function countKeys(value: unknown): number {
  if (typeof value === 'number') return -1;
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      const inner = countKeys(item);
      if (inner < 0) return -1;
      count += inner;
    }
    return count;
  }
  for (const key of Object.keys(value)) {
    const inner = countKeys((value as Record<string, unknown>)[key]);
    if (inner < 0) return -1;
    count += inner + 1;
  }
  return count;
}

/**
 * The keys written in JSON text that has no backslash and parses: its quotes pair up in order (no
 * string holds an escaped one), and a string is a key when the first character after it that is not
 * white space is a colon. Exported for its tests.
 */
export function keysInText(text: string): number {
  let count = 0;
  for (let open = text.indexOf('"'); open !== -1;) {
    const close = text.indexOf('"', open + 1);
    let next = close + 1;
    // Past the end, text[next] is undefined: no white space, so the loop stops there.
    while (text[next] === ' ' || text[next] === '\t' || text[next] === '\n' || text[next] === '\r') next += 1;
    if (text[next] === ':') count += 1;
    open = text.indexOf('"', close + 1);
  }
  return count;
}
