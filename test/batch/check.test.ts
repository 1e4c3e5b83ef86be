import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkBatch,
  checkItem,
  DEFAULT_MAX_PROBLEMS,
  Fingerprints,
  listedProblems,
  type CheckedItem,
  type ItemSpec,
  type Validation,
} from '../../src/batch/check.js';
import type { BatchItem, BatchSource, Position } from '../../src/batch/source.js';
import { InterruptedError, type Problem } from '../../src/errors.js';

/**
 * The first pass over a batch (src/batch/check.ts): each item checked on its own, a key twice
 * refused, problems kept up to a limit and counted beyond it, and the lines accepted remembered for
 * the second pass.
 */

type Item = { code?: string; problems?: string[]; warnings?: string[] };

/** A spec whose items say what they are: their code, their problems and warnings. */
function specOf(log: string[] = []): ItemSpec<Item> {
  return {
    prepare: (value) => {
      log.push('prepare');
      return value;
    },
    validate: (payload): Validation<Item> => {
      log.push('validate');
      const item = payload as Item;
      const warnings = (item.warnings ?? []).map((message) => ({ path: 'w', message }));
      return item.problems && item.problems.length > 0
        ? { ok: false, problems: item.problems.map((message) => ({ path: 'p', message })), warnings }
        : { ok: true, value: item, warnings };
    },
    keyOf: (payload) => {
      log.push('keyOf');
      return (payload as Item).code;
    },
  };
}

function lineItem(line: number, value: unknown, text = JSON.stringify(value)): BatchItem {
  return { position: { kind: 'line', line }, value, text };
}

/** A source of these items, each reading giving them again. */
function sourceOf(items: BatchItem[], name = 'reasons.ndjson'): BatchSource {
  return {
    name,
    kind: 'ndjson',
    async *items() {
      yield* items;
    },
    close: async () => {},
  };
}

const lines = (...values: Item[]) => sourceOf(values.map((value, index) => lineItem(index + 1, value)));
const indexed = (...values: Item[]) =>
  sourceOf(
    values.map((value, index): BatchItem => ({ position: { kind: 'index', index }, value })),
    'reasons.json',
  );

const run = (
  source: BatchSource,
  options: { maxProblems?: number; signal?: AbortSignal; onItem?: (checked: CheckedItem<Item>, index: number) => void } = {},
) => checkBatch(source, specOf(), { signal: options.signal ?? new AbortController().signal, keyName: 'code', ...options });

describe('checkItem: one item on its own', () => {
  const position: Position = { kind: 'line', line: 4 };

  it('refuses an item that did not parse, with the parse error as its one problem at the item itself', () => {
    const log: string[] = [];
    expect(checkItem({ position, value: undefined, parseError: 'not valid JSON: x' }, specOf(log))).toEqual({
      ok: false,
      position,
      key: undefined,
      problems: [{ path: '', message: 'not valid JSON: x' }],
      warnings: [],
    });
    expect(log).toEqual([]);
  });

  it('prepares the value, then takes its key and validates what was prepared', () => {
    const spec: ItemSpec<unknown> = {
      prepare: (value) => ({ ...(value as object), code: 'PREPARED' }),
      validate: (payload) => ({ ok: true, value: payload, warnings: [{ path: 'x', message: 'careful' }] }),
      keyOf: (payload) => (payload as { code: string }).code,
    };
    expect(checkItem({ position, value: { code: 'RAW' } }, spec)).toEqual({
      ok: true,
      position,
      key: 'PREPARED',
      value: { code: 'PREPARED' },
      warnings: [{ path: 'x', message: 'careful' }],
    });
  });

  it("keeps a refused item's key, problems and warnings", () => {
    expect(checkItem({ position, value: { code: 'A', problems: ['bad'], warnings: ['odd'] } }, specOf())).toEqual({
      ok: false,
      position,
      key: 'A',
      problems: [{ path: 'p', message: 'bad' }],
      warnings: [{ path: 'w', message: 'odd' }],
    });
  });

  it('runs the rules when not told the item is known, even with accepted', () => {
    const log: string[] = [];
    const spec: ItemSpec<Item> = { ...specOf(log), accepted: (payload) => payload as Item };
    expect(checkItem({ position, value: { code: 'A', problems: ['bad'] } }, spec).ok).toBe(false);
    expect(log).toContain('validate');
  });

  it.each<[string, boolean, boolean, boolean]>([
    ['known, with accepted: the rules are not run again', true, true, false],
    ['known, without accepted: the rules run', true, false, true],
    ['not known, with accepted: the rules run', false, true, true],
    ['not known, without accepted: the rules run', false, false, true],
  ])('%s', (_name, known, withAccepted, validated) => {
    const log: string[] = [];
    const spec: ItemSpec<Item> = {
      ...specOf(log),
      ...(withAccepted ? { accepted: (payload: unknown) => ({ ...(payload as Item), code: 'FROM ACCEPTED' }) } : {}),
    };
    // An item the rules refuse: run, they say so; not run, it passes as `accepted` makes it.
    const checked = checkItem({ position, value: { code: 'A', problems: ['bad'], warnings: ['odd'] } }, spec, known);
    expect(log.includes('validate')).toBe(validated);
    expect(checked.ok).toBe(!validated);
    expect(checked.key).toBe('A');
    if (checked.ok) {
      expect(checked.value.code).toBe('FROM ACCEPTED');
      expect(checked.warnings).toEqual([]);
    }
  });
});

describe('Fingerprints: the lines the first pass accepted', () => {
  const text = (i: number) => `{"code":"C${i}"}`;

  it.each([0, 1, 1023, 1024, 1025, 3000])('remembers %d lines accepted in order, each at its place only', (n) => {
    const prints = new Fingerprints();
    for (let i = 0; i < n; i += 1) prints.accept(i, text(i));
    for (let i = 0; i < n; i += 1) {
      expect(prints.has(i, text(i))).toBe(true);
      expect(prints.has(i, text(i + 1))).toBe(false);
    }
    expect(prints.has(n, text(n))).toBe(false);
    expect(prints.has(n + 1, text(n))).toBe(false);
  });

  it('tells apart lines that differ in one character, and any text from undefined', () => {
    const prints = new Fingerprints();
    prints.accept(0, 'abc');
    prints.accept(1, '');
    expect(prints.has(0, 'abc')).toBe(true);
    expect(prints.has(0, 'abd')).toBe(false);
    expect(prints.has(0, 'abc ')).toBe(false);
    expect(prints.has(0, undefined)).toBe(false);
    expect(prints.has(1, '')).toBe(true);
    expect(prints.has(1, undefined)).toBe(false);
  });

  it('tells apart lines of characters past Latin-1 that differ only in their high bytes', () => {
    const prints = new Fingerprints();
    prints.accept(0, '{"name":"Обед"}');
    expect(prints.has(0, '{"name":"Обед"}')).toBe(true);
    expect(prints.has(0, '{"name":"Обеж"}')).toBe(false);
  });

  it.each<[string, (prints: Fingerprints) => void]>([
    ['a line accepted out of order', (prints) => prints.accept(5, 'x')],
    ['a line accepted again at its place', (prints) => prints.accept(1, 'b')],
    ['an item without a line (of a whole document)', (prints) => prints.accept(2, undefined)],
    ['a refused item', (prints) => prints.accept(-1, undefined)],
  ])('remembers nothing after %s, not even what came before', (_name, breakIt) => {
    const prints = new Fingerprints();
    prints.accept(0, 'a');
    prints.accept(1, 'b');
    breakIt(prints);
    prints.accept(2, 'c');
    expect([prints.has(0, 'a'), prints.has(1, 'b'), prints.has(2, 'c')]).toEqual([false, false, false]);
  });

  it('keeps 16 bytes a line', () => {
    expect(Fingerprints.BYTES).toBe(16);
  });
});

describe('checkBatch: the first pass over a batch', () => {
  it('counts the items and the invalid ones, and keeps the first payload when it is valid', async () => {
    const summary = await run(lines({ code: 'A' }, { code: 'B', problems: ['bad'] }, { code: 'C' }));
    expect(summary.total).toBe(3);
    expect(summary.invalid).toBe(1);
    expect(summary.first).toEqual({ code: 'A' });
    expect(summary.problems).toEqual([{ path: 'line 2: p', message: 'bad' }]);
    expect(summary.problemCount).toBe(1);
  });

  it('runs the rules on every item of the first pass, even when the spec can skip them', async () => {
    const spec: ItemSpec<Item> = { ...specOf(), accepted: (payload) => payload as Item };
    const summary = await checkBatch(lines({ code: 'A', problems: ['bad'] }), spec, {
      signal: new AbortController().signal,
      keyName: 'code',
    });
    expect(summary.invalid).toBe(1);
  });

  it('keeps no first payload when the first item is refused, even if a later one passes', async () => {
    const summary = await run(lines({ code: 'A', problems: ['bad'] }, { code: 'B' }));
    expect(summary.first).toBeUndefined();
  });

  it('reads an empty source as no items', async () => {
    const summary = await run(lines());
    expect(summary).toMatchObject({ total: 0, invalid: 0, problems: [], problemCount: 0, warnings: [], warningCount: 0, first: undefined });
  });

  it("prefixes each problem and warning with its item's position", async () => {
    const summary = await run(indexed({ code: 'A', warnings: ['odd'] }, { code: 'B', problems: ['bad', 'worse'] }));
    expect(summary.problems).toEqual([
      { path: '[1].p', message: 'bad' },
      { path: '[1].p', message: 'worse' },
    ]);
    expect(summary.warnings).toEqual([{ path: '[0].w', message: 'odd' }]);
    expect(summary.warningCount).toBe(1);
  });

  it('counts a refused item once however many problems it has', async () => {
    const summary = await run(lines({ code: 'A', problems: ['a', 'b', 'c'] }));
    expect(summary.invalid).toBe(1);
    expect(summary.problemCount).toBe(3);
  });

  it.each<[number, number, number]>([
    [2, 1, 1],
    [2, 2, 2],
    [2, 3, 2],
    [0, 1, 0],
  ])('with at most %d problems kept, keeps %d of %d problems and counts them all', async (max, made, kept) => {
    const messages = Array.from({ length: made }, (_, i) => `p${i}`);
    const summary = await run(lines({ code: 'A', problems: messages, warnings: messages }), { maxProblems: max });
    expect(summary.problems.map((problem) => problem.message)).toEqual(messages.slice(0, kept));
    expect(summary.problemCount).toBe(made);
    expect(summary.warnings.map((warning) => warning.message)).toEqual(messages.slice(0, kept));
    expect(summary.warningCount).toBe(made);
  });

  it.each<[number, number]>([
    [DEFAULT_MAX_PROBLEMS, DEFAULT_MAX_PROBLEMS],
    [DEFAULT_MAX_PROBLEMS + 1, DEFAULT_MAX_PROBLEMS],
  ])('keeps 50 problems and warnings by default: of %d, %d', async (made, kept) => {
    expect(DEFAULT_MAX_PROBLEMS).toBe(50);
    const values = Array.from({ length: made }, (_, i): Item => ({ code: `C${i}`, problems: ['bad'], warnings: ['odd'] }));
    const summary = await run(lines(...values));
    expect(summary.problems).toHaveLength(kept);
    expect(summary.warnings).toHaveLength(kept);
    expect(summary.problemCount).toBe(made);
    expect(summary.warningCount).toBe(made);
    expect(summary.invalid).toBe(made);
  });

  it('tells onItem of every item, with its index, once its checks are done', async () => {
    const seen: Array<[number, boolean, string | undefined]> = [];
    await run(lines({ code: 'A' }, { code: 'A' }, { problems: ['bad'] }), {
      onItem: (checked, index) => seen.push([index, checked.ok, checked.key]),
    });
    expect(seen).toEqual([
      [0, true, 'A'],
      [1, false, 'A'],
      [2, false, undefined],
    ]);
  });

  it('remembers the lines accepted, in order, for the second pass', async () => {
    const values = [{ code: 'A' }, { code: 'B' }];
    const source = lines(...values);
    const summary = await run(source);
    expect(summary.accepted.has(0, JSON.stringify(values[0]))).toBe(true);
    expect(summary.accepted.has(1, JSON.stringify(values[1]))).toBe(true);
    expect(summary.accepted.has(1, JSON.stringify(values[0]))).toBe(false);
  });

  it('remembers no line once an item is refused (the batch is not sent then)', async () => {
    const summary = await run(lines({ code: 'A' }, { code: 'B', problems: ['bad'] }, { code: 'C' }));
    expect(summary.accepted.has(0, JSON.stringify({ code: 'A' }))).toBe(false);
    expect(summary.accepted.has(2, JSON.stringify({ code: 'C' }))).toBe(false);
  });

  it('stops at an aborted signal before checking another item', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const checking = run(lines({ code: 'A' }, { code: 'B' }, { code: 'C' }), {
      signal: controller.signal,
      onItem: (_checked, index) => {
        seen.push(index);
        if (index === 1) controller.abort();
      },
    });
    await expect(checking).rejects.toThrow(new InterruptedError('cancelled while checking reasons.ndjson; nothing sent'));
    await expect(checking).rejects.toBeInstanceOf(InterruptedError);
    expect(seen).toEqual([0, 1]);
  });

  it('lets other work run after every 1,000 items of a source that never waits, so a Ctrl-C gets through', async () => {
    const controller = new AbortController();
    // Runs when the loop first lets other work through: after item 999 (the 1,000th) is read.
    setImmediate(() => controller.abort());
    const seen: number[] = [];
    const values = Array.from({ length: 2500 }, (_, i): Item => ({ code: `C${i}` }));
    await expect(
      run(indexed(...values), { signal: controller.signal, onItem: (_checked, index) => seen.push(index) }),
    ).rejects.toBeInstanceOf(InterruptedError);
    expect(seen).toHaveLength(1000);
  });
});

describe('checkBatch: a key twice', () => {
  it.each<[string, BatchSource, string]>([
    ['NDJSON lines', lines({ code: 'A' }, { code: 'B' }, { code: 'A' }), 'line 3: code'],
    ['array items', indexed({ code: 'A' }, { code: 'B' }, { code: 'A' }), '[2].code'],
  ])('refuses the second of two items with one code, naming the first: %s', async (_name, source, path) => {
    const summary = await run(source);
    expect(summary.invalid).toBe(1);
    const where = source.name === 'reasons.ndjson' ? 'on line 1' : 'at [0]';
    expect(summary.problems).toEqual([{ path, message: `"A" also appears ${where}; each code may appear once in a batch` }]);
  });

  it.each<[string, BatchSource, string]>([
    [
      'NDJSON lines',
      lines({ code: 'B' }, { code: 'A' }, { code: 'C' }, { code: 'A' }),
      '"A" also appears on line 2; each code may appear once in a batch',
    ],
    [
      'array items',
      indexed({ code: 'B' }, { code: 'A' }, { code: 'C' }, { code: 'A' }),
      '"A" also appears at [1]; each code may appear once in a batch',
    ],
  ])('names where the first item with the code is, past the first place: %s', async (_name, source, message) => {
    expect((await run(source)).problems.map((problem) => problem.message)).toEqual([message]);
  });

  it('names the first of three items with one code in each later one', async () => {
    const summary = await run(lines({ code: 'A' }, { code: 'A' }, { code: 'A' }));
    expect(summary.problems.map((problem) => problem.message)).toEqual([
      '"A" also appears on line 1; each code may appear once in a batch',
      '"A" also appears on line 1; each code may appear once in a batch',
    ]);
  });

  it("adds the duplicate after the item's own problems, and keeps its warnings", async () => {
    const summary = await run(lines({ code: 'A' }, { code: 'A', problems: ['bad'], warnings: ['odd'] }));
    expect(summary.problems).toEqual([
      { path: 'line 2: p', message: 'bad' },
      { path: 'line 2: code', message: '"A" also appears on line 1; each code may appear once in a batch' },
    ]);
    expect(summary.warnings).toEqual([{ path: 'line 2: w', message: 'odd' }]);
    expect(summary.invalid).toBe(1);
  });

  it('counts a key of an item that was refused for other reasons as seen', async () => {
    const summary = await run(lines({ code: 'A', problems: ['bad'] }, { code: 'A' }));
    expect(summary.problems[1]).toEqual({
      path: 'line 2: code',
      message: '"A" also appears on line 1; each code may appear once in a batch',
    });
  });

  it('names the key with the word the caller gives', async () => {
    const summary = await checkBatch(lines({ code: 'A' }, { code: 'A' }), specOf(), {
      signal: new AbortController().signal,
      keyName: 'id',
    });
    expect(summary.problems).toEqual([{ path: 'line 2: id', message: '"A" also appears on line 1; each id may appear once in a batch' }]);
  });

  it('takes items without a key, and keys that differ only in case, as different', async () => {
    const summary = await run(lines({}, {}, { code: 'a' }, { code: 'A' }));
    expect(summary.invalid).toBe(0);
  });

  it.each<[number, string]>([
    [40, 'x'.repeat(40)],
    [41, `${'x'.repeat(40)}…`],
    [64, `${'x'.repeat(40)}…`],
    [65, `${'x'.repeat(40)}…`],
    [200, `${'x'.repeat(40)}…`],
  ])('shows a key of %d characters as %s', async (length, shown) => {
    const code = 'x'.repeat(length);
    const summary = await run(lines({ code }, { code }));
    expect(summary.problems.map((problem) => problem.message)).toEqual([
      `${JSON.stringify(shown)} also appears on line 1; each code may appear once in a batch`,
    ]);
  });

  it('tells apart long keys that differ only past their 64th character', async () => {
    const base = 'y'.repeat(100);
    const summary = await run(lines({ code: `${base}1` }, { code: `${base}2` }, { code: `${base}1` }));
    expect(summary.problems.map((problem) => problem.path)).toEqual(['line 3: code']);
  });

  it('does not take a short key written like the digest of a long one for that long key', async () => {
    const long = 'z'.repeat(65);
    const lookalike = `#${createHash('sha256').update(long).digest('base64')}`;
    const summary = await run(lines({ code: long }, { code: lookalike }, { code: `=${long.slice(0, 10)}` }, { code: long.slice(0, 10) }));
    expect(summary.invalid).toBe(0);
  });
});

describe('listedProblems', () => {
  const problems: Problem[] = [
    { path: 'line 1', message: 'a' },
    { path: 'line 2', message: 'b' },
  ];

  it.each<[number, Problem[]]>([
    [2, problems],
    [3, [...problems, { path: '', message: '… and 1 more' }]],
    [1236, [...problems, { path: '', message: '… and 1,234 more' }]],
  ])('lists the problems kept, and counts the rest of %d', (problemCount, expected) => {
    expect(listedProblems({ problems, problemCount })).toEqual(expected);
  });
});
