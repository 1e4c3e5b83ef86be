import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { createHold, HOLD_BYTES, HOLD_MS } from '../../src/output/hold.js';

/** A hold over a recording writer, with timers the test fires by hand. */
function recorded() {
  const writes: string[] = [];
  const timers: Array<{ fn: () => void; ms: number; cleared: boolean }> = [];
  const hold = createHold((text) => void writes.push(text), {
    set: (fn, ms) => {
      const timer = { fn, ms, cleared: false };
      timers.push(timer);
      return timer;
    },
    clear: (timer) => void ((timer as { cleared: boolean }).cleared = true),
  });
  const fire = () => {
    for (const timer of timers.splice(0)) if (!timer.cleared) timer.fn();
  };
  return { writes, timers, hold, fire };
}

describe('output held back and written in larger pieces (src/output/hold.ts)', () => {
  it('writes at once while it is not holding', () => {
    const { writes, hold, timers } = recorded();
    hold.write('a\n');
    hold.write('b\n');
    expect(writes).toEqual(['a\n', 'b\n']);
    expect(timers).toEqual([]);
  });

  it(`gathers what is written while holding, and writes it as one piece ${HOLD_MS} ms after the first of it`, () => {
    const { writes, hold, timers, fire } = recorded();
    hold.start();
    hold.write('a\n');
    hold.write('b\n');
    expect(writes).toEqual([]);
    expect(timers.map((timer) => timer.ms)).toEqual([HOLD_MS]);
    fire();
    expect(writes).toEqual(['a\nb\n']);
    hold.write('c\n');
    fire();
    expect(writes).toEqual(['a\nb\n', 'c\n']);
  });

  it.each([
    [HOLD_BYTES - 1, 0],
    [HOLD_BYTES, 1],
  ])('writes what it holds once %d characters have gathered (writes: %d)', (size, count) => {
    const { writes, hold } = recorded();
    hold.start();
    hold.write('x'.repeat(size - 1));
    hold.write('\n');
    expect(writes).toHaveLength(count);
    if (count > 0) expect(writes[0]).toHaveLength(size);
  });

  it('writes what it holds when flushed and when released, then writes straight through', () => {
    const { writes, hold, timers } = recorded();
    hold.start();
    hold.write('a\n');
    hold.flush();
    expect(writes).toEqual(['a\n']);
    expect(timers.every((timer) => timer.cleared)).toBe(true);
    hold.flush();
    expect(writes).toEqual(['a\n']);
    hold.write('b\n');
    hold.release();
    expect(writes).toEqual(['a\n', 'b\n']);
    expect(hold.active).toBe(false);
    hold.write('c\n');
    expect(writes).toEqual(['a\n', 'b\n', 'c\n']);
  });
});

describe("a context's held output", () => {
  /** A context whose stdout and stderr write into one record, as a terminal or `2>&1` would. */
  function shared() {
    let record = '';
    const sink = () => new Writable({ write: (chunk: Buffer, _encoding, done) => ((record += chunk.toString()), done()) });
    const controller = new AbortController();
    const ctx = createContext({
      streams: { stdin: process.stdin, stdout: sink(), stderr: sink() },
      env: {},
      cwd: '/',
      signal: controller.signal,
    });
    return { ctx, controller, record: () => record };
  }

  it('keeps stdout and stderr in the order they were written: each write to stderr first writes what stdout holds', () => {
    const { ctx, record } = shared();
    const release = ctx.holdOutput();
    ctx.out('line 1\n');
    ctx.out('line 2\n');
    expect(record()).toBe('');
    ctx.err('a note\n');
    ctx.out('line 3\n');
    ctx.warn('careful');
    ctx.out('line 4\n');
    release();
    expect(record()).toBe('line 1\nline 2\na note\nline 3\nwarning: careful\nline 4\n');
  });

  it('stops holding when the run is asked to stop, since it may be ended before it releases', () => {
    const { ctx, controller, record } = shared();
    ctx.holdOutput();
    ctx.out('line 1\n');
    controller.abort('SIGTERM');
    expect(record()).toBe('line 1\n');
    ctx.out('line 2\n');
    expect(record()).toBe('line 1\nline 2\n');
    // Asked to hold again after the stop, it does not.
    ctx.holdOutput();
    ctx.out('line 3\n');
    expect(record()).toBe('line 1\nline 2\nline 3\n');
  });
});
