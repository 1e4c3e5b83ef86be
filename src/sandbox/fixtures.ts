import { validateSeedFile } from '../payload/seed.js';
import { parseJson } from '../payload/json.js';
import { count, invalid, readJsonObject, type Answer, type Exchange, type Handler } from './exchange.js';
import { readBody } from './http.js';
import { unknownTenant } from './inspect.js';
import { applySeed, seededThread, type SeededThread } from './seed-file.js';
import { isSnapshotName, SNAPSHOT_NAME_PROBLEM, summaryOf, type Snapshot, type SnapshotSummary } from './snapshots.js';
import type { ConversationView, SandboxState } from './state.js';

/**
 * The sandbox's fixtures over HTTP (docs/sandbox.md, "Fixtures" and "Snapshots"): POST /_sandbox/seed
 * applies a seed, POST /_sandbox/snapshots takes a snapshot of a tenant, GET /_sandbox/snapshots
 * lists them, POST /_sandbox/snapshots/{name}/restore goes back to one. The tenant is `?tenant=` or
 * the body's `tenant` (default the first tenant served). Like the other endpoints of the sandbox's own,
 * they need no token, answer only the sandbox's own Host and take only JSON (routes.ts).
 */

export interface FixtureDeps {
  state: SandboxState;
  defaultTenant: string;
  renderMarkdown?: (markdown: string) => string;
}

/** The largest seed a request may carry: a seed holds whole conversations. */
export const MAX_SEED_BYTES = 8 * 1024 * 1024;

/** POST /_sandbox/seed: the seed as the body (JSON, the schema of core schema seed); 201 with the threads made. */
function seed(deps: FixtureDeps): Handler {
  return async (ex) => {
    const read = await readBody(ex.req, MAX_SEED_BYTES);
    if (!read.ok)
      return { status: 413, error: `a seed larger than ${MAX_SEED_BYTES} bytes`, what: 'seed too large, connection closed', close: true };
    ex.bodyBytes = read.bytes.length;
    let value: unknown;
    try {
      value = parseJson(new TextDecoder('utf-8', { fatal: true }).decode(read.bytes));
    } catch (error) {
      return { status: 400, error: `the seed is not valid JSON: ${(error as Error).message}`, what: 'invalid seed: not JSON' };
    }
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && '$schema' in value) {
      const { $schema: _editor, ...rest } = value as Record<string, unknown>;
      value = rest;
    }
    const validated = validateSeedFile(value);
    if (!validated.ok) return invalid(validated.problems);
    const applied = applySeed(deps.state, validated.value, deps);
    if (!applied.ok) return invalid(applied.problems);
    const { threads, events } = applied.result;
    return { status: 201, json: applied.result, what: `seeded ${count(threads.length, 'thread')} (${count(events, 'event')})` };
  };
}

/** The tenant of a snapshot request: ?tenant=, else the body's tenant, else the default; or the answer refusing it. */
function tenantOf(deps: FixtureDeps, ex: Exchange, body: Record<string, unknown>): string | Answer {
  const named = ex.query.get('tenant') ?? body.tenant;
  if (named !== undefined && typeof named !== 'string') return invalid([{ path: 'tenant', message: 'must be the name of a tenant' }]);
  const tenant = named ?? deps.defaultTenant;
  return deps.state.hasTenant(tenant) ? tenant : unknownTenant(deps.state, tenant);
}

const unknownField = (body: Record<string, unknown>, known: string[]): Answer | undefined => {
  const extra = Object.keys(body).filter((key) => !known.includes(key));
  return extra.length === 0
    ? undefined
    : invalid(extra.map((key) => ({ path: key, message: `unknown field (known: ${known.join(', ')})` })));
};

/** POST /_sandbox/snapshots {"name", "tenant"?}: 201 with the snapshot's summary. */
function save(deps: FixtureDeps): Handler {
  return async (ex) => {
    const read = await readJsonObject(ex);
    if (!read.ok) return read.answer;
    const body = read.value;
    const extra = unknownField(body, ['name', 'tenant']);
    if (extra) return extra;
    if (!isSnapshotName(body.name)) return invalid([{ path: 'name', message: SNAPSHOT_NAME_PROBLEM }]);
    const tenant = tenantOf(deps, ex, body);
    if (typeof tenant !== 'string') return tenant;
    const saved = deps.state.saveSnapshot(tenant, body.name);
    if (!saved.ok) return { status: saved.status, error: saved.message, what: 'snapshot refused', tenant };
    const summary = summaryOf(saved.snapshot);
    return {
      status: 201,
      json: { ...summary, replaced: saved.replaced },
      what: `snapshot ${summary.name} of ${tenant} saved (${count(summary.events, 'event')})`,
      tenant,
    };
  };
}

/** GET /_sandbox/snapshots[?tenant=]: every snapshot's summary. */
function list(deps: FixtureDeps): Handler {
  return (ex) => {
    const tenant = ex.query.get('tenant') ?? undefined;
    if (tenant !== undefined && !deps.state.hasTenant(tenant)) return unknownTenant(deps.state, tenant);
    const snapshots = deps.state.snapshots.list(tenant).map(summaryOf);
    return { status: 200, json: { snapshots }, what: `listed ${count(snapshots.length, 'snapshot')}` };
  };
}

/** POST /_sandbox/snapshots/{name}/restore {"tenant"?}: the tenant as the snapshot has it; 200 with its conversations. */
function restore(deps: FixtureDeps): Handler {
  return async (ex) => {
    const read = await readJsonObject(ex);
    if (!read.ok) return read.answer;
    const extra = unknownField(read.value, ['tenant']);
    if (extra) return extra;
    const tenant = tenantOf(deps, ex, read.value);
    if (typeof tenant !== 'string') return tenant;
    const name = ex.params[0] ?? '';
    const restored = deps.state.restoreSnapshot(tenant, name);
    if (!restored.ok) return { status: restored.status, error: restored.message, what: 'restore refused', tenant };
    const json = restoredSnapshot(deps.state, tenant, restored);
    return {
      status: 200,
      json,
      what: `snapshot ${name} of ${tenant} restored (${count(json.conversations.length, 'conversation')})`,
      tenant,
    };
  };
}

/** What a restore answers (POST /_sandbox/snapshots/{name}/restore, and `sandbox.snapshots.restore` from code). */
export interface RestoredSnapshot extends Omit<SnapshotSummary, 'conversations'> {
  /** The events recorded by the restore: the tenant's reset, then the snapshot's events again. */
  restoredEvents: number;
  /** The tenant's conversations once restored, as GET /_sandbox/conversations lists them. */
  conversations: ConversationView[];
  /** The thread written in last, with its last question: where `core test`'s from: {snapshot} goes on; null when none. */
  latest: SeededThread | null;
}

/** The answer of a restore that was made: the snapshot's summary, the tenant's conversations, the thread written in last. */
export function restoredSnapshot(
  state: SandboxState,
  tenant: string,
  restored: { snapshot: Snapshot; events: readonly unknown[] },
): RestoredSnapshot {
  const threads = [...state.store.tenant(tenant).threads.values()].sort((a, b) => a.startedSeq - b.startedSeq);
  const latest = threads.reduce<(typeof threads)[number] | undefined>(
    (found, thread) => (found && found.lastSeq > thread.lastSeq ? found : thread),
    undefined,
  );
  return {
    ...summaryOf(restored.snapshot),
    restoredEvents: restored.events.length,
    conversations: threads.map((thread) => state.view(thread)),
    latest: latest === undefined ? null : seededThread(latest),
  };
}

export function fixtureHandlers(deps: FixtureDeps): Record<'seed' | 'save' | 'list' | 'restore', Handler> {
  return { seed: seed(deps), save: save(deps), list: list(deps), restore: restore(deps) };
}
