import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { InterruptedError, type Problem } from '../errors.js';
import { itemPath, positionLabel, type BatchItem, type BatchSource, type Position } from './source.js';
import { count } from '../output/count.js';

/**
 * The first pass over a batch: every item is checked before anything is sent, so a batch is
 * either sent or refused as a whole, never half sent because of a typo on line 9,000. The checks
 * themselves come from the caller (the payload schema, the single source of every rule); this pass
 * adds what only a set of items can break: one code twice.
 */

/** What a payload validator returns (the shape of `Validation<T>` in src/payload/). */
export type Validation<T> = { ok: true; value: T; warnings: Problem[] } | { ok: false; problems: Problem[]; warnings: Problem[] };

export interface ItemSpec<T> {
  /** Turns a parsed item into the payload to check and send (flags laid over it, for example). */
  prepare(value: unknown): unknown;
  validate(payload: unknown): Validation<T>;
  /** The item's key, unique within a batch (a reason's code), when it has one that is a string. */
  keyOf(payload: unknown): string | undefined;
  /**
   * What `validate` returns as the value of a payload it accepted, without running its checks again:
   * given only when that value is the payload itself (a schema without transforms or defaults). The
   * second pass uses it for an item whose line is byte for byte the one the first pass accepted.
   */
  accepted?(payload: unknown): T;
}

export type CheckedItem<T> =
  | { ok: true; position: Position; key: string | undefined; value: T; warnings: Problem[] }
  /** Problems' paths are relative to the item: `reasons[0].name`. */
  | { ok: false; position: Position; key: string | undefined; problems: Problem[]; warnings: Problem[] };

/**
 * Checks one item on its own: that it parsed, and the validator's rules. With `known` (the item's
 * line is the very one the first pass accepted) and `spec.accepted`, the rules are not run again.
 */
export function checkItem<T>(item: BatchItem, spec: ItemSpec<T>, known = false): CheckedItem<T> {
  const { position } = item;
  if (item.parseError !== undefined) {
    return { ok: false, position, key: undefined, problems: [{ path: '', message: item.parseError }], warnings: [] };
  }
  const payload = spec.prepare(item.value);
  const key = spec.keyOf(payload);
  if (known && spec.accepted) return { ok: true, position, key, value: spec.accepted(payload), warnings: NO_PROBLEMS };
  const validation = spec.validate(payload);
  return validation.ok
    ? { ok: true, position, key, value: validation.value, warnings: validation.warnings }
    : { ok: false, position, key, problems: validation.problems, warnings: validation.warnings };
}

const NO_PROBLEMS: Problem[] = [];

/**
 * What the first pass accepted, line by line, so that the second pass need not run the checks
 * again on a line that has not changed (docs/performance.md, "Batches"): the first 16 bytes of the
 * SHA-256 of each accepted NDJSON line, in input order, in one buffer (1.6 MB for 100,000 lines).
 * A line of the second pass is known only when it is the item at the same place and its digest is
 * the same; any other (the file changed in between, a line added or removed before it) is checked
 * in full, and refused if it no longer passes. Items of a whole document (a JSON array, YAML) carry
 * no line: none of them is known, and each is checked again.
 */
export class Fingerprints {
  static readonly BYTES = 16;
  private buffer = Buffer.alloc(0);
  private count = 0;
  private broken = false;

  /** Records the item at `index` (0-based, in input order) as accepted; anything out of order stops the recording. */
  accept(index: number, text: string | undefined): void {
    if (this.broken) return;
    if (text === undefined || index !== this.count) {
      this.broken = true;
      return;
    }
    const size = Fingerprints.BYTES;
    if ((this.count + 1) * size > this.buffer.length) {
      const grown = Buffer.alloc(Math.max(1024 * size, this.buffer.length * 2));
      this.buffer.copy(grown);
      this.buffer = grown;
    }
    this.buffer.write(digest(text), this.count * size, size, 'binary');
    this.count += 1;
  }

  /** Whether the item at `index` is the line the first pass accepted there. */
  has(index: number, text: string | undefined): boolean {
    if (this.broken || text === undefined || index >= this.count) return false;
    const size = Fingerprints.BYTES;
    return this.buffer.toString('binary', index * size, (index + 1) * size) === digest(text).slice(0, size);
  }
}

/**
 * The SHA-256 of `text`, one character a byte ('binary', that is latin1): one call and no Hash object with
 * crypto.hash (Node 20.12, the oldest release the package runs on).
 */
const digest = (text: string): string => crypto.hash('sha256', text, 'binary');

export interface CheckOptions<T> {
  signal: AbortSignal;
  /** How many problems (and warnings) are kept for the message; the rest are counted. Default 50. */
  maxProblems?: number;
  /** The name of the key in messages, such as "code". */
  keyName: string;
  /** Told about every item once its checks (duplicates included) are done. May throw to stop. */
  onItem?: (checked: CheckedItem<T>, index: number) => void;
}

export interface CheckSummary<T> {
  total: number;
  /** Items with at least one problem. */
  invalid: number;
  /** The first problems, each path prefixed with its item's position: `line 12: reasons[0].name`. */
  problems: Problem[];
  /** Every problem, including those not kept. */
  problemCount: number;
  warnings: Problem[];
  warningCount: number;
  /** The first item's payload, for a dry run. */
  first: T | undefined;
  /** The lines accepted, for the second pass. */
  accepted: Fingerprints;
}

export const DEFAULT_MAX_PROBLEMS = 50;

/**
 * Reads the whole source once and checks every item. Memory stays flat: items are dropped once
 * checked, and only a key per item is kept for duplicate detection (the key itself when short, a
 * SHA-256 of it when long).
 */
export async function checkBatch<T>(source: BatchSource, spec: ItemSpec<T>, options: CheckOptions<T>): Promise<CheckSummary<T>> {
  const max = options.maxProblems ?? DEFAULT_MAX_PROBLEMS;
  // The first position of each key, as a bare number (line or index): a Map of 100,000 small
  // numbers costs a few MB, where position objects would cost twice that.
  const seen = new Map<string, number>();
  const summary: CheckSummary<T> = {
    total: 0,
    invalid: 0,
    problems: [],
    problemCount: 0,
    warnings: [],
    warningCount: 0,
    first: undefined,
    accepted: new Fingerprints(),
  };
  for await (const item of source.items()) {
    if (options.signal.aborted) throw new InterruptedError(`cancelled while checking ${source.name}; nothing sent`);
    // An array is already in memory, so its loop never waits; let a Ctrl-C through now and then.
    if (summary.total % 1000 === 999) await nextTurn();
    let checked = checkItem(item, spec);
    if (checked.key !== undefined) {
      const id = checked.key.length <= 64 ? `=${checked.key}` : `#${createHash('sha256').update(checked.key).digest('base64')}`;
      const earlier = seen.get(id);
      if (earlier === undefined) {
        seen.set(id, positionNumber(item.position));
      } else {
        const problem = {
          path: options.keyName,
          message: duplicateMessage(checked.key, positionAt(item.position, earlier), options.keyName),
        };
        checked = {
          ok: false,
          position: checked.position,
          key: checked.key,
          problems: [...(checked.ok ? [] : checked.problems), problem],
          warnings: checked.warnings,
        };
      }
    }
    if (summary.total === 0 && checked.ok) summary.first = checked.value;
    if (checked.ok) summary.accepted.accept(summary.total, item.text);
    else summary.accepted.accept(-1, undefined);
    summary.total += 1;
    for (const warning of checked.warnings) {
      summary.warningCount += 1;
      if (summary.warnings.length < max) summary.warnings.push({ path: itemPath(item.position, warning.path), message: warning.message });
    }
    if (!checked.ok) {
      summary.invalid += 1;
      for (const problem of checked.problems) {
        summary.problemCount += 1;
        if (summary.problems.length < max) summary.problems.push({ path: itemPath(item.position, problem.path), message: problem.message });
      }
    }
    options.onItem?.(checked, summary.total - 1);
  }
  return summary;
}

function positionNumber(position: Position): number {
  return position.kind === 'line' ? position.line : position.kind === 'index' ? position.index : 0;
}

/** The position of the same kind as `like` at `number`. */
function positionAt(like: Position, number: number): Position {
  return like.kind === 'line' ? { kind: 'line', line: number } : like.kind === 'index' ? { kind: 'index', index: number } : like;
}

function duplicateMessage(key: string, earlier: Position, keyName: string): string {
  const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  const where = earlier.kind === 'line' ? `on ${positionLabel(earlier)}` : `at ${positionLabel(earlier)}`;
  // docs/api.md, reason field rule 1: the code "identifies the reason to update", so two items with
  // one code would race each other, and which one wins would depend on timing.
  return `${JSON.stringify(shown)} also appears ${where}; each ${keyName} may appear once in a batch`;
}

/** The problems as a list for an error, with a last line counting those not shown. */
export function listedProblems(summary: Pick<CheckSummary<unknown>, 'problems' | 'problemCount'>): Problem[] {
  const rest = summary.problemCount - summary.problems.length;
  return rest > 0 ? [...summary.problems, { path: '', message: `… and ${count(rest)} more` }] : summary.problems;
}
