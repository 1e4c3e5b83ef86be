import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import { InterruptedError, PayloadError, UsageError } from '../errors.js';
import { cjs } from '../interop.js';
import { inexactFloatTags } from '../payload/inexact.js';
import { parseJson } from '../payload/json.js';
import { trimLineBreaks } from '../text/trim.js';
import { unreadableFile } from '../text/files.js';
import { formatBytes } from './bytes.js';

/**
 * Reading payload files (`-f FILE`, `-f -` for standard input) as JSON or YAML. Integers are read
 * as bigints in both, so identifiers keep every digit (docs/payloads.md, "Identifiers").
 */

/** A single message is small; anything past this is not a payload the service would take. */
export const MAX_PAYLOAD_BYTES = 5 * 1024 * 1024;

export interface LoadedFile {
  /** The file's name as the user gave it, or "standard input". */
  name: string;
  value: unknown;
}

/** Reads a payload file (or standard input for "-") and parses it. Throws PayloadError or UsageError. */
export async function readPayloadFile(path: string, ctx: Context): Promise<LoadedFile> {
  if (path === '-') {
    if (ctx.streams.stdin.isTTY) {
      throw new UsageError('-f - reads the payload from standard input, but standard input is a terminal', {
        hint: 'pipe a file in (core reply -f - < reply.json) or pass its path with -f',
      });
    }
    const bytes = await readStream(ctx.streams.stdin, 'standard input', ctx.signal);
    return { name: 'standard input', value: await parseText(decode(bytes, 'standard input'), 'standard input', 'auto') };
  }
  const full = resolve(ctx.cwd, path);
  let info;
  try {
    info = await stat(full);
  } catch (error) {
    throw new UsageError(unreadableFile(path, error, 'payload file'), { hint: 'check the path given to -f' });
  }
  if (info.isDirectory())
    throw new UsageError(`${path} is a folder, not a payload file`, { hint: 'give -f the path of a JSON or YAML file' });
  if (!info.isFile()) {
    // A pipe (`-f <(jq ...)`), a device: read as a stream, with the same limit, as `reason update -f` reads it.
    const bytes = await readStream(createReadStream(full), path, ctx.signal);
    return {
      name: path,
      value: await parseText(decode(bytes, path), path, /\.ya?ml$/i.test(path) ? 'yaml' : /\.json$/i.test(path) ? 'json' : 'auto'),
    };
  }
  if (info.size > MAX_PAYLOAD_BYTES) {
    throw new PayloadError(
      `${path} is ${formatBytes(info.size)}, more than a payload can be (limit ${formatBytes(MAX_PAYLOAD_BYTES)})`,
      [],
    );
  }
  const handle = await open(full, 'r');
  let bytes: Buffer;
  try {
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  const format = /\.ya?ml$/i.test(path) ? 'yaml' : /\.json$/i.test(path) ? 'json' : 'auto';
  return { name: path, value: await parseText(decode(bytes, path), path, format) };
}

/**
 * The text of `--text-file PATH` or `--markdown-file PATH` (`-` reads standard input): UTF-8, at most
 * MAX_PAYLOAD_BYTES, with the line endings at its very end removed, since an editor ends a file with
 * one and a message should not (docs/commands/reply.md). Everything else is kept as written.
 */
export async function readTextFile(path: string, flag: string, ctx: Context): Promise<string> {
  let bytes: Buffer;
  let name: string;
  if (path === '-') {
    if (ctx.streams.stdin.isTTY) {
      throw new UsageError(`${flag} - reads the text from standard input, but standard input is a terminal`, {
        hint: `pipe the text in (echo "Hello" | core reply ${flag} - ...) or pass a file's path`,
      });
    }
    name = 'standard input';
    bytes = await readStream(ctx.streams.stdin, name, ctx.signal);
  } else {
    name = path;
    const full = resolve(ctx.cwd, path);
    let info;
    try {
      info = await stat(full);
    } catch (error) {
      throw new UsageError(unreadableFile(path, error, flag));
    }
    if (info.isDirectory()) throw new UsageError(`${flag}: ${path} is a folder, not a text file`);
    if (info.isFile() && info.size > MAX_PAYLOAD_BYTES) {
      throw new PayloadError(
        `${flag}: ${path} is ${formatBytes(info.size)}, more than a message can be (limit ${formatBytes(MAX_PAYLOAD_BYTES)})`,
        [],
      );
    }
    // A regular file, or a pipe such as <(command): read as a stream, with the same bound.
    try {
      bytes = await readStream(createReadStream(full), path, ctx.signal);
    } catch (error) {
      if (error instanceof PayloadError || error instanceof InterruptedError) throw error;
      throw new UsageError(`${flag}: cannot read ${path} (${(error as { code?: string }).code ?? 'error'})`);
    }
  }
  return trimLineBreaks(decode(bytes, name));
}

/**
 * Standard input can be read once: refuses two options that would both read it (`-f -` and
 * `--text-file -`, say), naming them.
 */
export function refuseTwoStdinReaders(readers: Array<[string, string | undefined]>): void {
  const fromStdin = readers.filter(([, path]) => path === '-').map(([flag]) => `${flag} -`);
  if (fromStdin.length > 1) {
    throw new UsageError(`${fromStdin.join(' and ')} both read standard input, which can be read once`, {
      hint: 'give one of them a file instead',
    });
  }
}

/** Reads a stream whole, up to MAX_PAYLOAD_BYTES; Ctrl-C or SIGTERM stops the wait for its end. */
async function readStream(stream: NodeJS.ReadableStream, name: string, signal: AbortSignal): Promise<Buffer> {
  if (signal.aborted) throw new InterruptedError(`cancelled while reading ${name}; nothing sent`);
  const chunks: Buffer[] = [];
  let size = 0;
  let stop = () => {};
  const stopped = new Promise<never>((_, reject) => {
    stop = () => reject(new InterruptedError(`cancelled while reading ${name}; nothing sent`));
  });
  signal.addEventListener('abort', stop, { once: true });
  const iterator = (stream as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next.done) break;
      const buf = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      size += buf.length;
      if (size > MAX_PAYLOAD_BYTES) {
        throw new PayloadError(`${name} holds more than a payload can be (limit ${formatBytes(MAX_PAYLOAD_BYTES)})`, []);
      }
      chunks.push(buf);
    }
  } finally {
    signal.removeEventListener('abort', stop);
    if (signal.aborted || size > MAX_PAYLOAD_BYTES) void iterator.return?.();
  }
  return Buffer.concat(chunks);
}

/** Decodes UTF-8 strictly: a file with invalid bytes is rejected, not silently mangled. */
export function decode(bytes: Buffer, name: string): string {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  } catch {
    throw new PayloadError(`${name} is not valid UTF-8 text`, [], { hint: 'save the payload as UTF-8 JSON or YAML' });
  }
}

/** Parses JSON or YAML. "auto" reads JSON when the text starts like JSON, else YAML. */
export async function parseText(text: string, name: string, format: 'json' | 'yaml' | 'auto'): Promise<unknown> {
  if (text.trim() === '') throw new PayloadError(`${name} is empty`, []);
  const looksJson = /^\s*[[{"]/.test(text);
  if (format === 'json' || (format === 'auto' && looksJson)) {
    try {
      return parseJson(text, { inexact: true });
    } catch (error) {
      if (format === 'json') throw new PayloadError(`${name} is not valid JSON: ${(error as Error).message}`, []);
      // "auto" text that starts like JSON but is not: YAML (a superset) gives the better message below.
    }
  }
  return parseYaml(text, name);
}

async function parseYaml(text: string, name: string): Promise<unknown> {
  // Loaded here rather than at the top: only YAML payloads pay for the parser.
  const YAML = cjs(await import('yaml'), 'parseAllDocuments');
  // A number whose written digits are lost to an integer is kept as written, for validation to refuse (payload/inexact.ts).
  const docs = YAML.parseAllDocuments(text, { intAsBigInt: true, uniqueKeys: true, customTags: inexactFloatTags });
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.length !== 1) throw new PayloadError(`${name} holds ${list.length} YAML documents; a payload is one`, []);
  const doc = list[0]!;
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    throw new PayloadError(`${name} is neither valid JSON nor valid YAML: ${first.message.split('\n')[0]}`, []);
  }
  // The yaml library reads a value under a tag it does not know (`!secret x`) as plain text, with
  // only a warning; a tag means something to whoever wrote it, so it is refused rather than ignored.
  const unknownTag = doc.warnings.find((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (unknownTag) {
    const tag = /Unresolved tag: (\S+)/.exec(unknownTag.message)?.[1] ?? 'a tag';
    const line = unknownTag.linePos?.[0]?.line;
    throw new PayloadError(`${name}${line === undefined ? '' : `, line ${line}`}: unknown YAML tag ${tag}`, [], {
      hint: 'write the value without the tag; core reads plain YAML (strings, numbers, booleans, lists and mappings)',
    });
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // The yaml library refuses aliases that expand past maxAliasCount (a "billion laughs" file) by
    // throwing; that is a payload problem, not a failure of the program.
    const reason =
      error instanceof Error && /alias/i.test(error.message) ? 'its aliases expand too far (more than 100 copies)' : 'it cannot be read';
    throw new PayloadError(`${name} is not a usable YAML payload: ${reason}`, [], {
      hint: 'write the payload out without anchors and aliases',
    });
  }
}
