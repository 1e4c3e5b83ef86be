import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BATCH_HEAP_FLAGS, heapSettings } from '../../src/heap.js';

/** The flags handed to V8, in order, by a HeapSettings over a recording setter. */
function recorded() {
  const set: string[] = [];
  return { set, heap: heapSettings((flag) => void set.push(flag)) };
}

const batch = ['--semi-space-growth-factor=1', '--heap-growing-percent=100'];
const defaults = ['--semi-space-growth-factor=2', '--heap-growing-percent=0'];

describe("a batch's heap settings (src/heap.ts)", () => {
  it('are the two V8 settings documented, with the defaults this V8 starts with', () => {
    expect(BATCH_HEAP_FLAGS.map((flag) => `${flag.name}=${flag.batch}`)).toEqual(batch);
    expect(BATCH_HEAP_FLAGS.map((flag) => `${flag.name}=${flag.standard}`)).toEqual(defaults);
    // A default that changes in a later V8 would stamp cached code with settings no run starts with.
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    for (const flag of BATCH_HEAP_FLAGS) expect(options).toContain(`default: ${flag.name}=${flag.standard}\n`);
  });

  it('are set once, however often a run asks', () => {
    const { set, heap } = recorded();
    heap.tuneForBatch();
    heap.tuneForBatch();
    expect(set).toEqual(batch);
  });

  it('leave V8 alone around a compilation while they were never set', () => {
    const { set, heap } = recorded();
    expect(heap.withDefaults(() => 'compiled')).toBe('compiled');
    expect(set).toEqual([]);
  });

  it('give way to the defaults around a compilation once set, and come back after it, even when it throws', () => {
    const { set, heap } = recorded();
    heap.tuneForBatch();
    set.length = 0;
    const during: string[][] = [];
    expect(heap.withDefaults(() => (during.push([...set]), 'compiled'))).toBe('compiled');
    expect(during).toEqual([defaults]);
    expect(set).toEqual([...defaults, ...batch]);
    set.length = 0;
    expect(() =>
      heap.withDefaults(() => {
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(set).toEqual([...defaults, ...batch]);
  });

  it('do not stop a run when V8 refuses one of them', () => {
    const heap = heapSettings(() => {
      throw new Error('unknown flag');
    });
    expect(() => heap.tuneForBatch()).not.toThrow();
    expect(heap.withDefaults(() => 1)).toBe(1);
  });
});
