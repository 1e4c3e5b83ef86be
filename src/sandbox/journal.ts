import { closeSync, openSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * A log of records kept in a file, one line each (NDJSON), whatever the records are: the sandbox's
 * state file (src/sandbox/state-file.ts) gives it lines and reads them back. It knows nothing of
 * what a line means, so any kind of record may be added without touching it.
 *
 * - Reading (`readJournal`): every line ended by a newline is read with the caller's reader; a line
 *   it refuses is a damaged line, and the start stops naming the file and the line (the file left
 *   exactly as it is). A last line without its newline is a write cut short: it is dropped with a
 *   warning naming it, and the file cut back to the end of the line before it, so that what is
 *   appended next starts a line of its own.
 * - Writing (`Journal`): lines are appended in the order given and written together (one write and
 *   one fdatasync for all the lines given while the last write was under way: group commit).
 *   `settled()` tells a request when everything given before it is on disk, or was lost to a failed
 *   write: a request is answered only after that. A failed write (a full disk, a read-only file) is
 *   cut off the file again (nothing half-written stays) and every line not yet written is dropped;
 *   the owner hears of it (`onFailure`) and goes back to what the file holds. The next lines are
 *   tried again as they come: once there is room (or the file is writable again), the log goes on.
 * - Compaction (`compact`): a new file, written whole beside the old one, synced, then renamed over
 *   it; never a change in place.
 * - A lock (`lockJournal`): a file beside the log, `<file>.lock`, holding the owner's pid; a second
 *   owner is refused, naming it, while that process lives.
 */

/** A line the reader refused, or a file that cannot be read: names the file and, for a line, its number. */
export class JournalError extends Error {
  constructor(
    readonly path: string,
    readonly line: number | null,
    reason: string,
  ) {
    super(line === null ? `${path}: ${reason}` : `${path}, line ${line}: ${reason}`);
    this.name = 'JournalError';
  }
}

/** The log's file is locked by another process that still runs. */
export class JournalLockedError extends Error {
  constructor(
    readonly path: string,
    readonly pid: number,
  ) {
    super(`${path} is in use by another sandbox (pid ${pid})`);
    this.name = 'JournalLockedError';
  }
}

/** The lines of a file as read: each line's record, and what was dropped of a last line cut short. */
export interface JournalRead<R> {
  records: { line: number; record: R }[];
  /** The size of the file once read (after a torn last line was cut off). */
  bytes: number;
  /** A last line without its newline: its number and length, dropped. */
  torn: { line: number; bytes: number } | null;
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Reads every line of `path` with `read` (which throws on a line it refuses). A missing file is an
 * empty one. A torn last line is cut off (`torn`); any other refused line throws JournalError, and
 * the file is left as it is.
 */
export function readJournal<R>(path: string, read: (text: string, line: number) => R): JournalRead<R> {
  let handle: number;
  try {
    handle = openSync(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], bytes: 0, torn: null };
    throw new JournalError(path, null, `cannot be read: ${errorText(error)}`);
  }
  const records: { line: number; record: R }[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const buffer = Buffer.allocUnsafe(CHUNK);
  let carry: Buffer | null = null;
  let offset = 0;
  let lineNumber = 0;
  let complete = 0;
  try {
    for (;;) {
      const got = readSync(handle, buffer, 0, CHUNK, offset);
      if (got === 0) break;
      offset += got;
      let start = 0;
      for (let at = buffer.indexOf(NEWLINE, 0); at !== -1 && at < got; at = buffer.indexOf(NEWLINE, start)) {
        const piece = carry === null ? buffer.subarray(start, at) : Buffer.concat([carry, buffer.subarray(start, at)]);
        carry = null;
        lineNumber += 1;
        let text: string;
        try {
          text = decoder.decode(piece);
        } catch {
          throw new JournalError(path, lineNumber, 'damaged: not UTF-8 text');
        }
        try {
          records.push({ line: lineNumber, record: read(text, lineNumber) });
        } catch (error) {
          throw new JournalError(path, lineNumber, `damaged: ${errorText(error)}`);
        }
        complete = offset - got + at + 1;
        start = at + 1;
      }
      if (start < got)
        carry = carry === null ? Buffer.from(buffer.subarray(start, got)) : Buffer.concat([carry, buffer.subarray(start, got)]);
    }
  } finally {
    closeSync(handle);
  }
  if (carry === null || carry.length === 0) return { records, bytes: complete, torn: null };
  return { records, bytes: complete, torn: { line: lineNumber + 1, bytes: carry.length } };
}

/**
 * Takes the lock of the log at `path` (`<path>.lock`, holding this process's pid); throws
 * JournalLockedError while another process that holds it runs. A lock left by a process that no
 * longer runs (killed) is taken over. Returns the function that lets it go.
 */
export function lockJournal(path: string): () => void {
  const lockPath = `${path}.lock`;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const fd = openSync(lockPath, 'wx', 0o600);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      return () => {
        try {
          if (readFileSync(lockPath, 'utf8').trim() === String(process.pid)) unlinkSync(lockPath);
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        if (error instanceof JournalLockedError) throw error;
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw new JournalError(path, null, `its lock ${lockPath} was taken while it was read`);
        throw new JournalError(path, null, `cannot be locked (${lockPath}): ${errorText(error)}`);
      }
      const holder = lockHolder(lockPath);
      if (holder !== null && holder !== process.pid && running(holder)) throw new JournalLockedError(path, holder);
      if (holder === process.pid) throw new JournalLockedError(path, holder);
      try {
        unlinkSync(lockPath);
      } catch {
        // Taken away by another: the next attempt finds out who holds it now.
      }
    }
  }
}

function lockHolder(lockPath: string): number | null {
  try {
    const pid = Number(readFileSync(lockPath, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const errorText = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.startsWith(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
};

interface Waiter {
  count: number;
  resolve: (failures: number) => void;
}

/** What the owner of a journal is told and asked. */
export interface JournalOwner {
  /** A write failed: the lines not yet written were dropped; the owner goes back to what the file holds. */
  onFailure(error: unknown): void;
  /** Whether the file has grown enough to be compacted, given the lines it holds. */
  compactionDue?(lines: number): boolean;
  /** The lines of the compacted file, taken when nothing is waiting to be written. */
  compactedLines?(): string[];
  /** A compaction that failed (the old file is kept as it was). */
  onCompactionFailure?(error: unknown): void;
}

/** Appends lines to a file, with group commit; see the module's comment. */
export class Journal {
  private handle: FileHandle | null = null;
  private queue: string[] = [];
  private writing = false;
  private appended = 0;
  private settledCount = 0;
  private waiters: Waiter[] = [];
  private closed = false;
  private idle: (() => void)[] = [];
  /** How many writes failed: a request that saw the count change while it ran may have lost its events. */
  failures = 0;
  /** The last failure, for the messages of the requests it refused. */
  lastFailure: unknown = null;

  private constructor(
    readonly path: string,
    private size: number,
    private lines: number,
    private readonly owner: JournalOwner,
  ) {}

  /** A journal appending to `path` (its first `size` bytes, `lines` lines, as read). A file that cannot be written yet is tried again at each write. */
  static async open(path: string, size: number, lines: number, owner: JournalOwner): Promise<Journal> {
    const journal = new Journal(path, size, lines, owner);
    if (size === 0 && lines === 0) return journal;
    try {
      journal.handle = await journal.reopen();
    } catch {
      // Read-only for now: each write tries again, and fails its requests with the reason.
    }
    return journal;
  }

  /** The bytes of the file written so far. */
  get bytes(): number {
    return this.size;
  }

  /** Gives one line (no newline) to write. */
  append(line: string): void {
    this.queue.push(`${line}\n`);
    this.appended += 1;
    this.pump();
  }

  /**
   * Resolves once every line given so far is written and synced, or was dropped by a failed write,
   * with the count of failures then: a request whose start saw a lower count may have lost its events.
   */
  settled(): Promise<number> {
    if (this.settledCount >= this.appended) return Promise.resolve(this.failures);
    return new Promise((resolve) => this.waiters.push({ count: this.appended, resolve }));
  }

  /** Writes what is queued, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.writing) await new Promise<void>((resolve) => this.idle.push(resolve));
    if (this.queue.length > 0) await this.writeBatch();
    await this.handle?.close().catch(() => {});
    this.handle = null;
  }

  private pump(): void {
    if (this.writing || this.queue.length === 0 || this.closed) return;
    this.writing = true;
    void this.writeBatch().finally(() => {
      this.writing = false;
      for (const resolve of this.idle.splice(0)) resolve();
      this.pump();
    });
  }

  private async writeBatch(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    const upTo = this.settledCount + batch.length;
    const bytes = Buffer.from(batch.join(''), 'utf8');
    try {
      const handle = await this.writable();
      let done = 0;
      while (done < bytes.length) {
        const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, this.size + done);
        done += bytesWritten;
      }
      await handle.datasync();
      this.size += bytes.length;
      this.lines += batch.length;
      this.settle(upTo);
    } catch (error) {
      await this.fail(error);
      return;
    }
    await this.maybeCompact();
  }

  private async writable(): Promise<FileHandle> {
    if (this.handle !== null) return this.handle;
    if (this.size > 0) return (this.handle = await this.reopen());
    const handle = await open(this.path, 'w', 0o600);
    this.handle = handle;
    await syncDirectory(this.path);
    return handle;
  }

  /** The file opened for writing, cut back to what was read: a torn last line, dropped, goes from the file too. */
  private async reopen(): Promise<FileHandle> {
    const handle = await open(this.path, 'r+');
    try {
      if ((await handle.stat()).size > this.size) {
        await handle.truncate(this.size);
        await handle.datasync();
      }
    } catch (error) {
      await handle.close().catch(() => {});
      throw error;
    }
    return handle;
  }

  /** A failed write: cut back to what was written, drop what waits, tell the owner, then the waiters. */
  private async fail(error: unknown): Promise<void> {
    try {
      await this.handle?.truncate(this.size);
    } catch {
      // A file that cannot be cut back keeps a torn last line, which the next start drops.
    }
    this.queue = [];
    this.failures += 1;
    this.lastFailure = error;
    this.owner.onFailure(error);
    this.settle(this.appended);
  }

  private settle(count: number): void {
    this.settledCount = count;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.count <= count) waiter.resolve(this.failures);
      else this.waiters.push(waiter);
    }
  }

  /** Compacts when the owner says it is due and nothing waits to be written. */
  private async maybeCompact(): Promise<void> {
    const { compactionDue, compactedLines } = this.owner;
    if (this.queue.length > 0 || compactionDue === undefined || compactedLines === undefined || this.closed) return;
    if (!compactionDue.call(this.owner, this.lines)) return;
    const lines = compactedLines.call(this.owner);
    try {
      await this.compact(lines);
    } catch (error) {
      this.owner.onCompactionFailure?.(error);
    }
  }

  /** Writes `lines` as a new file beside the log, syncs it, and renames it over the log. */
  private async compact(lines: string[]): Promise<void> {
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.compacting`);
    const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(''), 'utf8');
    const handle = await open(temporary, 'w', 0o600);
    try {
      await handle.writeFile(bytes);
      await handle.datasync();
    } catch (error) {
      await handle.close().catch(() => {});
      await unlinkQuietly(temporary);
      throw error;
    }
    try {
      await rename(temporary, this.path);
    } catch (error) {
      await handle.close().catch(() => {});
      await unlinkQuietly(temporary);
      throw error;
    }
    await syncDirectory(this.path);
    const old = this.handle;
    this.handle = handle;
    this.size = bytes.length;
    this.lines = lines.length;
    await old?.close().catch(() => {});
  }
}

async function unlinkQuietly(path: string): Promise<void> {
  try {
    unlinkSync(path);
  } catch {
    // Not there.
  }
}

/** Syncs the directory of `path`, so that a new or renamed file's name is on disk too. */
async function syncDirectory(path: string): Promise<void> {
  try {
    const directory = await open(dirname(path), 'r');
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
  } catch {
    // Some file systems do not sync a directory; the file's own data is synced.
  }
}
