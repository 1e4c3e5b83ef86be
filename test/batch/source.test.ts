import { mkdirSync, mkdtempSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  itemPath,
  MAX_DOCUMENT_BYTES,
  openSource,
  positionLabel,
  valueSource,
  type BatchItem,
  type BatchSource,
  type Position,
} from '../../src/batch/source.js';
import { MAX_LINE_BYTES } from '../../src/batch/lines.js';
import { createContext, type Context } from '../../src/context.js';
import { InterruptedError, PayloadError, UsageError } from '../../src/errors.js';
import { memoryStreams } from '../helpers/streams.js';

/**
 * Where the items of a batch come from (src/batch/source.ts): the format decided from the file's
 * name and its start, each item with its position, standard input copied so it can be read twice,
 * and every way an input is refused.
 */

function contextIn(cwd: string, options: { stdinIsTTY?: boolean; signal?: AbortSignal } = {}) {
  const io = memoryStreams({ stdinIsTTY: options.stdinIsTTY ?? false });
  const ctx = createContext({ streams: io.streams, env: {}, cwd, ...(options.signal ? { signal: options.signal } : {}) });
  return { ctx, stdin: io.streams.stdin };
}

async function readAll(source: BatchSource, stopAfter = Infinity): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  for await (const item of source.items()) {
    items.push(item);
    if (items.length >= stopAfter) break;
  }
  return items;
}

/** Writes `content` as `name` in a fresh folder and opens it. */
async function openFile(name: string, content: string | Buffer): Promise<BatchSource> {
  const folder = mkdtempSync(join(tmpdir(), 'core-source-'));
  writeFileSync(join(folder, name), content);
  return openSource(name, contextIn(folder).ctx);
}

/** The kind of source a file makes and the values of its items (with their positions). */
async function shapeOf(name: string, content: string | Buffer) {
  const source = await openFile(name, content);
  const items = await readAll(source);
  await source.close();
  return { name: source.name, kind: source.kind, items: items.map((item) => [positionLabel(item.position), item.value]) };
}

async function refusalOf(opening: Promise<unknown>): Promise<Error> {
  const error = await opening.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('positionLabel and itemPath', () => {
  it.each<[Position, string]>([
    [{ kind: 'line', line: 12 }, 'line 12'],
    [{ kind: 'index', index: 0 }, '[0]'],
    [{ kind: 'whole' }, ''],
  ])('labels %j as "%s"', (position, label) => {
    expect(positionLabel(position)).toBe(label);
  });

  it.each<[Position, string, string]>([
    [{ kind: 'index', index: 3 }, '[0].name', '[3][0].name'],
    [{ kind: 'index', index: 3 }, 'reasons[0]', '[3].reasons[0]'],
    [{ kind: 'line', line: 1 }, '[0]', 'line 1: [0]'],
    [{ kind: 'whole' }, '', ''],
  ])('prefixes %j to "%s": %s', (position, path, expected) => {
    expect(itemPath(position, path)).toBe(expected);
  });
});

describe('valueSource: one value from the flags', () => {
  it('gives the value once, as a whole, every time it is read', async () => {
    const source = valueSource({ code: 'A' });
    expect(source.name).toBe('the flags');
    expect(source.kind).toBe('single');
    const expected = [{ position: { kind: 'whole' }, value: { code: 'A' } }];
    expect(await readAll(source)).toEqual(expected);
    expect(await readAll(source)).toEqual(expected);
    await expect(source.close()).resolves.toBeUndefined();
  });

  it('takes the name it is given', () => {
    expect(valueSource(1, 'the arguments').name).toBe('the arguments');
  });
});

describe('openSource: the format of a file', () => {
  const A = '{"code":"A"}';
  const B = '{"code":"B"}';

  it.each<[string, string, string, string, Array<[string, unknown]>]>([
    [
      'NDJSON by its content',
      'reasons.txt',
      `${A}\n${B}\n`,
      'ndjson',
      [
        ['line 1', { code: 'A' }],
        ['line 2', { code: 'B' }],
      ],
    ],
    [
      'NDJSON with blank lines, counted in the positions',
      'reasons.txt',
      `\n${A}\n  \n${B}`,
      'ndjson',
      [
        ['line 2', { code: 'A' }],
        ['line 4', { code: 'B' }],
      ],
    ],
    ['one object on one line: NDJSON of one item', 'reasons.json', `${A}\n`, 'ndjson', [['line 1', { code: 'A' }]]],
    [
      '.ndjson, whatever the start',
      'reasons.ndjson',
      `[1]\n${A}\n`,
      'ndjson',
      [
        ['line 1', [1n]],
        ['line 2', { code: 'A' }],
      ],
    ],
    ['.jsonl, in capitals', 'REASONS.JSONL', `"x"\n`, 'ndjson', [['line 1', 'x']]],
    [
      'a JSON array',
      'reasons.json',
      `[${A},\n${B}]`,
      'array',
      [
        ['[0]', { code: 'A' }],
        ['[1]', { code: 'B' }],
      ],
    ],
    ['a JSON array on one line, after white space', 'reasons.txt', ` \n\t[${A}]`, 'array', [['[0]', { code: 'A' }]]],
    ['a JSON array after a byte-order mark', 'reasons.json', `\uFEFF[${A}]`, 'array', [['[0]', { code: 'A' }]]],
    ['a pretty-printed object', 'reasons.json', '{\n  "code": "A"\n}\n', 'single', [['', { code: 'A' }]]],
    [
      'a YAML list',
      'reasons.yaml',
      '- code: A\n- code: B\n',
      'array',
      [
        ['[0]', { code: 'A' }],
        ['[1]', { code: 'B' }],
      ],
    ],
    ['a YAML object', 'reasons.yml', 'code: A\n', 'single', [['', { code: 'A' }]]],
    ['YAML in a file of another name', 'reasons.txt', 'code: A\n', 'single', [['', { code: 'A' }]]],
    ['YAML in a file whose name only holds .ndjson', 'reasons.ndjson.yaml', 'code: A\n', 'single', [['', { code: 'A' }]]],
    [
      'YAML in a file whose name only holds .json',
      'reasons.json.txt',
      '- code: A\n- x\n',
      'array',
      [
        ['[0]', { code: 'A' }],
        ['[1]', 'x'],
      ],
    ],
    ['YAML whose second line is a JSON object', 'reasons.txt', 'a:\n  {"b": "c"}\n', 'single', [['', { a: { b: 'c' } }]]],
    ['a first line that is JSON but no object (a string): one document', 'reasons.txt', '"x"\n', 'single', [['', 'x']]],
    ['a first line that is JSON but no object (null): one document', 'reasons.txt', 'null\n', 'single', [['', null]]],
    [
      'NDJSON lines indented',
      'reasons.txt',
      `  ${A}\n\t${B}\n`,
      'ndjson',
      [
        ['line 1', { code: 'A' }],
        ['line 2', { code: 'B' }],
      ],
    ],
    [
      'NDJSON after a line of white space only',
      'reasons.txt',
      ` \t\n${A}\n${B}\n`,
      'ndjson',
      [
        ['line 2', { code: 'A' }],
        ['line 3', { code: 'B' }],
      ],
    ],
    [
      'a broken first line before an object: NDJSON',
      'reasons.txt',
      `{"code":\n${B}\n`,
      'ndjson',
      [
        ['line 1', undefined],
        ['line 2', { code: 'B' }],
      ],
    ],
    [
      'a first line that is an object, before a broken one: NDJSON',
      'reasons.txt',
      `${A}\n{"code":\n`,
      'ndjson',
      [
        ['line 1', { code: 'A' }],
        ['line 2', undefined],
      ],
    ],
  ])('%s', async (_name, name, content, kind, items) => {
    expect(await shapeOf(name, content)).toEqual({ name, kind, items });
  });

  it.each<[string, string]>([
    ['with no byte-order mark', ''],
    ['after a byte-order mark', '\uFEFF'],
  ])('reads a JSON array on one line longer than a line may be (MAX_LINE_BYTES) whole, %s', async (_name, mark) => {
    const items = Array.from({ length: 1100 }, (_, index) => ({ code: `C${index}`, pad: 'x'.repeat(1000) }));
    const line = JSON.stringify(items);
    expect(line.length).toBeGreaterThan(MAX_LINE_BYTES);
    const source = await openFile('reasons.txt', `${mark}${line}`);
    expect(source.kind).toBe('array');
    const read = await readAll(source);
    await source.close();
    expect(read).toHaveLength(items.length);
    expect(read.at(-1)).toEqual({ position: { kind: 'index', index: items.length - 1 }, value: items.at(-1) });
  });

  it('reads a file of one broken line that starts like an object as one document, and refuses it', async () => {
    const error = await refusalOf(openFile('reasons.txt', '{"code":\n'));
    expect(error).toBeInstanceOf(PayloadError);
    expect(error.message).toMatch(/^reasons\.txt is neither valid JSON nor valid YAML: /);
  });

  it('reports a line of NDJSON that is not JSON as an item that did not parse, with its text', async () => {
    const source = await openFile('reasons.ndjson', `{"code":"A"}\n{"code":\n`);
    const items = await readAll(source);
    expect(items[1]).toEqual({
      position: { kind: 'line', line: 2 },
      value: undefined,
      parseError: expect.stringMatching(/^not valid JSON: ./) as unknown,
      text: '{"code":',
    });
    expect(items[0]).toEqual({ position: { kind: 'line', line: 1 }, value: { code: 'A' }, text: '{"code":"A"}' });
  });

  // A key twice with the same value: JSON keeps one, YAML refuses it.
  const TWICE = '[{"a":"x","a":"x"}]';

  it.each<[string, string]>([
    ['a .yaml file', 'reasons.yaml'],
    ['a .YML file', 'REASONS.YML'],
  ])('reads %s as YAML, even when it holds JSON', async (_name, name) => {
    const error = await refusalOf(openFile(name, TWICE));
    expect(error.message).toMatch(new RegExp(`^${name.replace('.', '\\.')} is neither valid JSON nor valid YAML: Map keys must be unique`));
  });

  it.each<[string, string]>([
    ['a .json file', 'reasons.json'],
    ['a file of another name', 'reasons.txt'],
    ['a file whose name only holds .yaml', 'reasons.yaml.txt'],
  ])('reads %s holding a JSON array as JSON', async (_name, name) => {
    expect((await shapeOf(name, TWICE)).items).toEqual([['[0]', { a: 'x' }]]);
  });

  it('reads a .json file as JSON only: YAML in it is refused', async () => {
    const error = await refusalOf(openFile('reasons.json', '- code: A\n- x\n'));
    expect(error).toBeInstanceOf(PayloadError);
    expect(error.message).toMatch(/^reasons\.json is not valid JSON: /);
  });

  it('closes a file source with a promise', async () => {
    const source = await openFile('reasons.json', '[1]');
    await expect(source.close()).resolves.toBeUndefined();
  });

  it('reads a document source again from memory, the same each time', async () => {
    const source = await openFile('reasons.json', '[{"code":"A"}]');
    const first = await readAll(source);
    expect(await readAll(source)).toEqual(first);
    const single = await openFile('reasons.yaml', 'code: A\n');
    expect(await readAll(single)).toEqual(await readAll(single));
  });

  it.each<[string, string, string]>([
    ['an empty file', 'reasons.json', ''],
    ['white space only', 'reasons.json', ' \n\t\r\n'],
    ['a byte-order mark only', 'reasons.json', '\uFEFF\n'],
    ['an empty .ndjson file', 'reasons.ndjson', ''],
    ['a .ndjson file of blank lines', 'reasons.ndjson', '\n  \n\n'],
  ])('refuses %s: it holds no reasons', async (_name, name, content) => {
    const error = await refusalOf(openFile(name, content));
    expect(error).toBeInstanceOf(PayloadError);
    expect(error.message).toBe(`${name} is empty: it holds no reasons`);
    expect((error as PayloadError).hint).toBe('write one reason (a JSON object), a JSON array of reasons, or one reason a line (NDJSON)');
    expect((error as PayloadError).problems).toEqual([]);
  });

  it('refuses an empty array', async () => {
    const error = await refusalOf(openFile('reasons.json', ' [ ] '));
    expect(error).toBeInstanceOf(PayloadError);
    expect(error.message).toBe('reasons.json holds an empty array: no reasons');
    expect((error as PayloadError).hint).toBe('nothing to update; put at least one reason in it');
    expect((error as PayloadError).problems).toEqual([]);
  });

  it('refuses a JSON array or YAML file over 64 MB before reading it, and points to NDJSON', async () => {
    expect(MAX_DOCUMENT_BYTES).toBe(64 * 1024 * 1024);
    const folder = mkdtempSync(join(tmpdir(), 'core-source-'));
    const path = join(folder, 'reasons.json');
    writeFileSync(path, '[');
    truncateSync(path, MAX_DOCUMENT_BYTES + 1);
    const error = await refusalOf(openSource('reasons.json', contextIn(folder).ctx));
    expect(error).toBeInstanceOf(PayloadError);
    expect(error.message).toBe('reasons.json is 64.0 MB (67,108,865 bytes); a JSON array or YAML file is read whole, up to 64.0 MB');
    expect((error as PayloadError).hint).toBe('write one reason a line (NDJSON): it is read as a stream, at any size');
    expect((error as PayloadError).problems).toEqual([]);
  });

  it('reads a JSON array or YAML file of exactly 64 MB', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-source-'));
    const path = join(folder, 'reasons.json');
    // Read (not refused for its size), then refused for a byte that is not UTF-8, early enough to be quick.
    writeFileSync(path, Buffer.from([0x5b, 0xff]));
    truncateSync(path, MAX_DOCUMENT_BYTES);
    const error = await refusalOf(openSource('reasons.json', contextIn(folder).ctx));
    expect(error.message).toBe('reasons.json is not valid UTF-8 text');
  });

  it('refuses a file that is not UTF-8', async () => {
    const error = await refusalOf(openFile('reasons.json', Buffer.from([0x5b, 0xe9, 0x5d])));
    expect(error).toBeInstanceOf(PayloadError);
    expect(error.message).toBe('reasons.json is not valid UTF-8 text');
  });
});

describe('openSource: a path that is not a file of reasons', () => {
  it.each<[string, (folder: string) => string, string, string]>([
    ['a missing file', () => 'missing.json', 'file not found: missing.json', 'check the path given to -f'],
    [
      'a folder',
      (folder) => {
        mkdirSync(join(folder, 'reasons'));
        return 'reasons';
      },
      'reasons is a folder, not a file of reasons',
      'give -f the path of a JSON, NDJSON or YAML file',
    ],
    [
      'a path through a file',
      (folder) => {
        writeFileSync(join(folder, 'file'), '');
        return 'file/reasons.json';
      },
      'cannot read file/reasons.json (ENOTDIR)',
      'check the path given to -f',
    ],
  ])('refuses %s as a usage error', async (_name, make, message, hint) => {
    const folder = mkdtempSync(join(tmpdir(), 'core-source-'));
    const path = make(folder);
    const error = await refusalOf(openSource(path, contextIn(folder).ctx));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(message);
    expect((error as UsageError).hint).toBe(hint);
  });

  it('reads a relative path from the folder of the context, and an absolute path as it is', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-source-'));
    writeFileSync(join(folder, 'reasons.json'), '[1]');
    expect(await readAll(await openSource(join(folder, 'reasons.json'), contextIn('/').ctx))).toHaveLength(1);
  });

  it.runIf(process.platform === 'linux')('says which file could not be read, and why', async () => {
    // A file by stat that cannot be read from its start.
    const error = await refusalOf(openSource('/proc/self/mem', contextIn('/').ctx));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('cannot read /proc/self/mem (EIO)');
  });

  it('copies a file that is not a regular one (a device) before reading it', async () => {
    const error = await refusalOf(openSource('/dev/null', contextIn('/').ctx));
    expect(error.message).toBe('/dev/null is empty: it holds no reasons');
  });
});

describe('openSource: standard input (-f -)', () => {
  const savedTmpdir = process.env.TMPDIR;
  afterEach(() => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
  });

  it('refuses a terminal, and says how to pipe the reasons in', async () => {
    const error = await refusalOf(openSource('-', contextIn('/', { stdinIsTTY: true }).ctx));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('-f - reads the reasons from standard input, but standard input is a terminal');
    expect((error as UsageError).hint).toBe('pipe them in (core reason update -f - < reasons.ndjson) or pass the file with -f');
  });

  it.each<[string, string, string, unknown[]]>([
    ['NDJSON', '{"code":"A"}\n{"code":"B"}\n', 'ndjson', [{ code: 'A' }, { code: 'B' }]],
    ['a JSON array', '[{"code":"A"},{"code":"B"}]', 'array', [{ code: 'A' }, { code: 'B' }]],
    ['YAML', 'code: A\n', 'single', [{ code: 'A' }]],
  ])('reads %s twice from a private copy that leaves no file behind', async (_name, content, kind, values) => {
    process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'core-spool-'));
    const { ctx, stdin } = contextIn('/');
    stdin.end(content);
    const source = await openSource('-', ctx);
    expect(readdirSync(process.env.TMPDIR)).toEqual([]);
    expect(source.name).toBe('standard input');
    expect(source.kind).toBe(kind);
    expect((await readAll(source)).map((item) => item.value)).toEqual(values);
    expect((await readAll(source)).map((item) => item.value)).toEqual(values);
    await source.close();
  });

  it('reads a large NDJSON input again from the copy, and cannot once it is closed', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ code: `C${i}`, pad: 'x'.repeat(400) }));
    const { ctx, stdin } = contextIn('/');
    stdin.end(`${lines.join('\n')}\n`);
    const source = await openSource('-', ctx);
    expect((await readAll(source)).map((item) => item.text)).toEqual(lines);
    expect((await readAll(source, 2)).map((item) => item.text)).toEqual(lines.slice(0, 2));
    await source.close();
    await expect(readAll(source)).rejects.toThrow();
  });

  it('refuses empty standard input', async () => {
    const { ctx, stdin } = contextIn('/');
    stdin.end('');
    const error = await refusalOf(openSource('-', ctx));
    expect(error.message).toBe('standard input is empty: it holds no reasons');
  });

  it('says where it could not make its copy, and what to set', async () => {
    process.env.TMPDIR = join(mkdtempSync(join(tmpdir(), 'core-spool-')), 'missing');
    const { ctx, stdin } = contextIn('/');
    stdin.end('{"code":"A"}\n');
    const error = await refusalOf(openSource('-', ctx));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(`cannot copy standard input to a temporary file in ${process.env.TMPDIR} (ENOENT)`);
    expect((error as UsageError).hint).toBe('set TMPDIR to a folder you can write to');
  });

  it('removes the folder it made when the copy cannot be opened in it', async () => {
    // A folder whose path is so long that a new folder fits in it but a file in that one does not
    // (Linux: 4,096 bytes a path): making the folder works, opening the copy fails (ENAMETOOLONG).
    let folder = mkdtempSync(join(tmpdir(), 'core-spool-'));
    const target = 4072;
    while (folder.length < target) folder = join(folder, 'd'.repeat(Math.min(200, target - folder.length - 1)));
    mkdirSync(folder, { recursive: true });
    expect(folder.length).toBe(target);
    process.env.TMPDIR = folder;
    const { ctx, stdin } = contextIn('/');
    stdin.end('{"code":"A"}\n');
    const error = await refusalOf(openSource('-', ctx));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(`cannot copy standard input to a temporary file in ${folder} (ENAMETOOLONG)`);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('reports a failure of standard input itself', async () => {
    process.env.TMPDIR = mkdtempSync(join(tmpdir(), 'core-spool-'));
    const { ctx, stdin } = contextIn('/');
    stdin.write('{"code":"A"}\n');
    stdin.on('error', () => {});
    const opening = openSource('-', ctx);
    stdin.destroy(new Error('the pipe broke'));
    const error = await refusalOf(opening);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('cannot read standard input: the pipe broke');
    expect(readdirSync(process.env.TMPDIR)).toEqual([]);
  });

  it.each<[string, boolean]>([
    ['a Ctrl-C before the copy starts', true],
    ['a Ctrl-C while standard input is still open', false],
  ])('stops at %s: nothing is sent', async (_name, before) => {
    const controller = new AbortController();
    if (before) controller.abort();
    const { ctx, stdin } = contextIn('/', { signal: controller.signal });
    stdin.write('{"code":"A"}\n');
    const opening = openSource('-', ctx);
    if (!before) setImmediate(() => controller.abort());
    const error = await refusalOf(opening);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error.message).toBe('cancelled while reading standard input; nothing sent');
  });
});

export type { Context };
