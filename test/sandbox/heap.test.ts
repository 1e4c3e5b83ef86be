import { describe, expect, it } from 'vitest';
import { BATCH_HEAP_FLAGS, heapSettings, SANDBOX_HEAP_FLAGS } from '../../src/heap.js';

/** The flags handed to V8, in order, by a HeapSettings over a recording setter. */
function recorded() {
  const set: string[] = [];
  return { set, heap: heapSettings((flag) => void set.push(flag)) };
}

const sandbox = ['--heap-growing-percent=25'];
const defaults = ['--heap-growing-percent=0'];

describe("the sandbox's heap settings (src/heap.ts)", () => {
  it('are the V8 setting documented, with the default this V8 starts with', () => {
    expect(SANDBOX_HEAP_FLAGS.map((flag) => `${flag.name}=${flag.sandbox}`)).toEqual(sandbox);
    expect(SANDBOX_HEAP_FLAGS.map((flag) => `${flag.name}=${flag.standard}`)).toEqual(defaults);
    // A default that changes in a later V8 would stamp cached code with settings no run starts with:
    // the batch's defaults are checked against this V8 (test/reason/heap.test.ts), and these are among them.
    for (const flag of SANDBOX_HEAP_FLAGS) expect(BATCH_HEAP_FLAGS.find((batch) => batch.name === flag.name)?.standard).toBe(flag.standard);
  });

  it('cap nothing: no setting limits the size of the heap, so live data larger than usual grows it as before', () => {
    for (const flag of SANDBOX_HEAP_FLAGS) expect(flag.name).not.toMatch(/max|size|limit/);
  });

  it('are set once, however often a run asks', () => {
    const { set, heap } = recorded();
    heap.tuneForSandbox();
    heap.tuneForSandbox();
    expect(set).toEqual(sandbox);
  });

  it("leave a process tuned for the sandbox without the batch's settings, and the other way round", () => {
    const first = recorded();
    first.heap.tuneForSandbox();
    first.heap.tuneForBatch();
    expect(first.set).toEqual(sandbox);
    const second = recorded();
    second.heap.tuneForBatch();
    second.heap.tuneForSandbox();
    expect(second.set).not.toContain(sandbox[0]);
  });

  it('give way to the defaults around a compilation, and come back after it, even when it throws', () => {
    const { set, heap } = recorded();
    heap.tuneForSandbox();
    set.length = 0;
    const during: string[][] = [];
    expect(heap.withDefaults(() => (during.push([...set]), 'compiled'))).toBe('compiled');
    expect(during).toEqual([defaults]);
    expect(set).toEqual([...defaults, ...sandbox]);
    set.length = 0;
    expect(() =>
      heap.withDefaults(() => {
        throw new Error('no');
      }),
    ).toThrow('no');
    expect(set).toEqual([...defaults, ...sandbox]);
  });

  it('do not stop the sandbox when V8 refuses them', () => {
    const heap = heapSettings(() => {
      throw new Error('unknown flag');
    });
    expect(() => heap.tuneForSandbox()).not.toThrow();
    expect(heap.withDefaults(() => 1)).toBe(1);
  });
});
