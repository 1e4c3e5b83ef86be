/**
 * Items in seq order: the queue the store keeps each tenant's and thread's events and questions in,
 * a page of them, and the merge of several such sources into one.
 */

/** What a reader may do with a SeqQueue: read it, never change it. */
export interface ReadonlySeqQueue<T extends { seq: number }> {
  readonly length: number;
  first(): T | undefined;
  last(): T | undefined;
  indexAfter(after: number): number;
  at(index: number): T | undefined;
  after(after: number): Generator<T>;
}

/**
 * A queue of items in seq order that drops from the front: push at the back, shift at the front,
 * both O(1) amortised, and binary search by seq. An array with a moving start, compacted once the
 * dead front is as long as the live part.
 */
export class SeqQueue<T extends { seq: number }> implements ReadonlySeqQueue<T> {
  private items: (T | undefined)[] = [];
  private start = 0;

  get length(): number {
    return this.items.length - this.start;
  }

  push(item: T): void {
    this.items.push(item);
  }

  first(): T | undefined {
    return this.items[this.start];
  }

  last(): T | undefined {
    return this.length === 0 ? undefined : this.items[this.items.length - 1];
  }

  shift(): T | undefined {
    if (this.length === 0) return undefined;
    const item = this.items[this.start];
    this.items[this.start] = undefined;
    this.start += 1;
    if (this.start >= 1024 && this.start * 2 >= this.items.length) {
      this.items = this.items.slice(this.start);
      this.start = 0;
    }
    return item;
  }

  /** The position (0-based, from the first kept item) of the first item with seq > after. */
  indexAfter(after: number): number {
    let lo = this.start;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.items[mid] as T).seq <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo - this.start;
  }

  at(index: number): T | undefined {
    return index < 0 || index >= this.length ? undefined : this.items[this.start + index];
  }

  /** Items with seq > after, in order. */
  *after(after: number): Generator<T> {
    for (let i = this.indexAfter(after); i < this.length; i += 1) yield this.items[this.start + i] as T;
  }
}

/** A page of items: what was asked for, and the `after` of the next page (null when this was the last). */
export interface Page<T> {
  items: T[];
  next: number | null;
}

/**
 * The first `limit` items of a source in seq order that `keep` accepts; `next` is the `after` of the
 * following page when more items follow (the seq of the last item given, or `after` itself for a
 * page of 0 items), else null. Reads at most one item past the page, never the whole source.
 */
export function page<T extends { seq: number }>(
  source: Iterable<T>,
  after: number,
  limit: number,
  keep: (item: T) => boolean = () => true,
): Page<T> {
  const items: T[] = [];
  for (const item of source) {
    if (!keep(item)) continue;
    if (items.length === limit) return { items, next: items.at(-1)?.seq ?? after };
    items.push(item);
  }
  return { items, next: null };
}

/** Merges sources that are each in seq order into one in seq order (the tenants' logs, for a listing of all). */
export function* mergeBySeq<T extends { seq: number }>(sources: Iterable<T>[]): Generator<T> {
  const iterators = sources.map((source) => source[Symbol.iterator]());
  const heads = iterators.map((iterator) => iterator.next());
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i += 1) {
      const head = heads[i]!;
      if (!head.done && (best === -1 || head.value.seq < (heads[best]!.value as T).seq)) best = i;
    }
    if (best === -1) return;
    yield heads[best]!.value as T;
    heads[best] = iterators[best]!.next();
  }
}
