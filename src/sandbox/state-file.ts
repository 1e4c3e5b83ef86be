import { stringifyJson, parseJson } from '../payload/json.js';
import { eventJson, parseWrittenEvent, readEvent } from './event-json.js';
import type { SandboxEvent } from './events.js';
import { errorText, Journal, JournalError, JournalLockedError, lockJournal, readJournal, type JournalRead } from './journal.js';
import type { Snapshot } from './snapshots.js';
import type { SandboxState } from './state.js';
import type { CheckpointState } from './store/store.js';

/**
 * The sandbox's state on disk (`--state FILE`, docs/sandbox.md, "State on disk"): its event log,
 * one JSON object a line (NDJSON). The first line is the file's header: its format and version, and
 * the tenants served by the sandbox that wrote it, and the checkpoint a compaction wrote (null until
 * the first). A line `{"snapshot": {...}}` is a snapshot (src/sandbox/snapshots.ts) with its events.
 * Every other line is an event in its JSON form (src/sandbox/event-json.ts): the events a checkpoint
 * keeps (seq up to the checkpoint's), then the events recorded since, replayed at start through
 * applyEvent, the code that applies them as the sandbox runs. The file is written through src/sandbox/journal.ts (group commit, a lock, compaction
 * by renaming a new file over it).
 */

export const STATE_FORMAT = 'core-sandbox-state';
export const STATE_VERSION = 1;

/** The first line of a state file. */
interface Header {
  format: typeof STATE_FORMAT;
  version: number;
  /** The tenants the sandbox served when it wrote the header (absent in a file written before they were recorded). */
  tenants?: string[];
  checkpoint: CheckpointState | null;
}

export type Line = { kind: 'header'; header: Header } | { kind: 'event'; event: SandboxEvent } | { kind: 'snapshot'; snapshot: Snapshot };

/**
 * The checkpoint's JSON: every bigint written as {"$bigint":"digits"}, so that plain JSON.parse reads
 * it back exactly (events, the bulk of the file, are written in their own JSON form).
 */
const bigintTag = '$bigint';
const writeValue = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? { [bigintTag]: value.toString() } : value);
const readValue = (_key: string, value: unknown): unknown => {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const tagged = (value as Record<string, unknown>)[bigintTag];
    if (typeof tagged === 'string' && Object.keys(value).length === 1 && /^-?\d+$/.test(tagged)) return BigInt(tagged);
  }
  return value;
};

/** The header line of a state file: the tenants served, with the checkpoint a compaction took (or null). */
export function headerLine(checkpoint: CheckpointState | null, tenants: readonly string[]): string {
  return JSON.stringify({ format: STATE_FORMAT, version: STATE_VERSION, tenants: [...tenants], checkpoint } satisfies Header, writeValue);
}

const SNAPSHOT_PREFIX = '{"snapshot":';

/** The line of a snapshot: its name, tenant, time and seq, and its events in their JSON form (identifiers exact). */
export function snapshotLine(snapshot: Snapshot): string {
  return stringifyJson({ snapshot });
}

function readSnapshot(text: string): Snapshot {
  const value = (parseJson(text) as { snapshot?: unknown }).snapshot as Record<string, unknown> | undefined;
  const { name, tenant, savedAt, seq, events } = value ?? {};
  if (
    typeof name !== 'string' ||
    typeof tenant !== 'string' ||
    typeof savedAt !== 'string' ||
    typeof seq !== 'bigint' ||
    !Array.isArray(events)
  )
    throw new Error('a snapshot line has name, tenant, savedAt, seq and events');
  return { name, tenant, savedAt, seq: Number(seq), events: events.map((event) => readEvent(event)) };
}

/** One line of a state file read back: the header (line 1) or an event; throws for a damaged line. */
export function readLine(text: string, line: number): Line {
  if (line === 1) {
    let value: unknown;
    try {
      value = JSON.parse(text, readValue);
    } catch {
      throw new Error(`not a state file of core sandbox (its first line is not JSON)`);
    }
    const header = value as Partial<Header> | null;
    if (header?.format !== STATE_FORMAT)
      throw new Error(`not a state file of core sandbox (its first line has no "format": "${STATE_FORMAT}")`);
    if (header.version !== STATE_VERSION)
      throw new Error(`a state file of version ${String(header.version)}; this core reads version ${STATE_VERSION}`);
    return { kind: 'header', header: header as Header };
  }
  if (text.startsWith(SNAPSHOT_PREFIX)) return { kind: 'snapshot', snapshot: readSnapshot(text) };
  return { kind: 'event', event: parseWrittenEvent(text) };
}

/** A state file that cannot be used: damaged, locked by another sandbox, or unreadable. The message names the file (and the line). */
export class StateFileError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'StateFileError';
  }
}

/** What a start read from the state file, for the page and GET /_sandbox/info. */
export interface StateFileInfo {
  file: string;
  /** Whether the file held events (the sandbox was restored from it). */
  restored: boolean;
  /** The events read from the file at start (the checkpoint's kept events and those after it). */
  eventsRead: number;
  /** When the file was read. */
  readAt: string;
}

/** The state file of a running sandbox. */
export interface StateFile {
  readonly info: StateFileInfo;
  /** Resolves once every event recorded so far is on disk (or lost to a failed write), with the count of failures then. */
  settled(): Promise<number>;
  /** How many writes failed so far: a request that saw it change while it ran is answered 503. */
  readonly failures: number;
  /** Why the last write failed. */
  readonly lastFailure: string;
  /** Writes what is left, closes the file and lets the lock go. */
  close(): Promise<void>;
}

/**
 * Opens the state file at `path` for `state`: takes its lock, reads it (a torn last line dropped with
 * a warning through `warn`), rebuilds the state from it, and from then on appends each event the
 * state records. Throws StateFileError for a damaged file or a file another sandbox holds.
 */
export async function openStateFile(path: string, state: SandboxState, warn: (line: string) => void): Promise<StateFile> {
  let unlock: () => void;
  try {
    unlock = lockJournal(path);
  } catch (error) {
    if (error instanceof JournalLockedError) {
      throw new StateFileError(error.message, `stop that sandbox first, or give this one another --state file`);
    }
    throw new StateFileError(errorText(error), 'check the path and its directory');
  }
  try {
    const read = readFile(path, warn);
    const eventsRead = rebuild(path, state, read);
    const store = state.store;
    const journal = await Journal.open(path, read.bytes, read.records.length, {
      onFailure(error) {
        // Back to what the file holds: the events of the lost write, and of the requests after it, are
        // taken back (their requests are answered 503). Their seqs are not handed out again.
        const seq = store.lastSeq;
        try {
          rebuild(path, state, readJournal(path, readLine));
        } catch (reread) {
          warn(`state file ${path} could not be read back after a failed write: ${errorText(reread)}`);
        }
        store.skipTo(seq);
        warn(`state file ${path}: ${errorText(error)}; the requests of the events not written were answered 503`);
      },
      compactionDue: (lines) => lines > Math.max(COMPACT_AT_LEAST, 2 * keptEvents(state)),
      compactedLines: () => {
        const { state: checkpoint, events } = store.checkpoint();
        return [headerLine(checkpoint, state.tenantNames), ...state.snapshots.list().map(snapshotLine), ...events.map(eventJson)];
      },
      onCompactionFailure: (error) => warn(`state file ${path} could not be compacted (it goes on growing): ${errorText(error)}`),
    });
    if (read.records.length === 0) journal.append(headerLine(null, state.tenantNames));
    const stopEvents = state.subscribe((event) => journal.append(eventJson(event)));
    const stopSnapshots = state.snapshots.onSave((snapshot) => journal.append(snapshotLine(snapshot)));
    const stop = () => {
      stopEvents();
      stopSnapshots();
    };
    const info: StateFileInfo = { file: path, restored: eventsRead > 0, eventsRead, readAt: new Date().toISOString() };
    return {
      info,
      settled: () => journal.settled(),
      get failures() {
        return journal.failures;
      },
      get lastFailure() {
        return errorText(journal.lastFailure);
      },
      close: async () => {
        stop();
        await journal.close();
        unlock();
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** The fewest lines a file holds before it is compacted. */
const COMPACT_AT_LEAST = 1000;

function keptEvents(state: SandboxState): number {
  let count = 0;
  for (const tenant of state.store.selected(undefined)) count += tenant.log.length;
  return count;
}

function readFile(path: string, warn: (line: string) => void): JournalRead<Line> {
  let read: JournalRead<Line>;
  try {
    read = readJournal(path, readLine);
  } catch (error) {
    if (error instanceof JournalError) {
      throw new StateFileError(
        `state file ${error.message}`,
        'the file is left as it is: fix or remove that line (every line is one JSON object), or start with another --state file',
      );
    }
    throw error;
  }
  if (read.torn !== null) {
    warn(
      `state file ${path}, line ${read.torn.line}: the last line was cut short (${read.torn.bytes} bytes without a newline, ` +
        'a write the sandbox did not finish): dropped',
    );
  }
  return read;
}

/** The state made again from what the file holds: the checkpoint and its kept events, then the events after it applied. Returns the events read. */
function rebuild(path: string, state: SandboxState, whole: JournalRead<Line>): number {
  const store = state.store;
  // Snapshots are kept beside the events, wherever their lines are.
  const snapshots: Snapshot[] = [];
  const records = whole.records.filter(({ record }) => {
    if (record.kind !== 'snapshot') return true;
    snapshots.push(record.snapshot);
    return false;
  });
  state.snapshots.load(snapshots.filter((snapshot) => state.hasTenant(snapshot.tenant)));
  const read = { ...whole, records };
  const first = read.records[0];
  const checkpoint = first?.record.kind === 'header' ? first.record.header.checkpoint : null;
  const kept: SandboxEvent[] = [];
  let index = 1;
  if (checkpoint !== null) {
    for (; index < read.records.length; index += 1) {
      const { record } = read.records[index]!;
      if (record.kind !== 'event' || record.event.seq > checkpoint.lastSeq) break;
      kept.push(record.event);
    }
  }
  try {
    store.restore(checkpoint === null ? null : { state: checkpoint, events: kept });
  } catch (error) {
    throw new StateFileError(
      `state file ${path}, line 1: the checkpoint cannot be restored: ${errorText(error)}`,
      'start with another --state file',
    );
  }
  for (; index < read.records.length; index += 1) {
    const { line, record } = read.records[index]!;
    if (record.kind !== 'event')
      throw new StateFileError(
        `state file ${path}, line ${line}: damaged: a header in the middle of the file`,
        'the file is left as it is',
      );
    try {
      store.replay([record.event]);
    } catch (error) {
      throw new StateFileError(
        `state file ${path}, line ${line}: the event cannot be applied: ${errorText(error)}`,
        `the file is left as it is; start with the same --tenant options it was written with${writtenWith(read)}, or another --state file`,
      );
    }
  }
  return read.records.length === 0 ? 0 : read.records.length - 1;
}

/** What a message about an event that cannot be applied adds: the tenants the file was written with. */
function writtenWith(read: JournalRead<Line>): string {
  const first = read.records[0]?.record;
  const tenants = first?.kind === 'header' ? first.header.tenants : undefined;
  return tenants === undefined ? '' : ` (it was written by a sandbox serving ${tenants.map((name) => `--tenant ${name}`).join(' ')})`;
}
