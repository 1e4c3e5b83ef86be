import type { TenantView } from '../model.js';

/**
 * The identifiers the sandbox counts (docs/sandbox.md, "State"): a new client's coreClientId is the
 * first from the tenant's counter that no kept client has (a conversation may have named one), and a
 * new question's questionId is the counter itself (only the sandbox makes questions). The store moves
 * the counters on as it applies the events that use them (src/sandbox/store/apply.ts), so they are
 * derived from the log: a replay of it goes on where the ids stopped.
 */
export function freeCoreClientId(view: Pick<TenantView, 'nextClientId' | 'clients'>): bigint {
  let id = view.nextClientId;
  while (view.clients.has(id)) id += 1n;
  return id;
}
