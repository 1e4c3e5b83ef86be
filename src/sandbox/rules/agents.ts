import type { EventFields } from '../events.js';
import { maxCustomerText } from '../model.js';
import type { Agent, TenantView, Thread } from '../model.js';
import { isActive } from '../seed.js';

/**
 * What agents do (docs/sandbox.md, "Agents"): change their status, and write in a thread they hold.
 * Pure functions of the tenant's view and the request, returning the event or the refusal.
 */

export type AgentRefusal = { ok: false; status: 400 | 404 | 409; message: string };

/** The active reasons' codes of a tenant: what an agent going away may pick. */
export function activeReasonCodes(view: Pick<TenantView, 'reasons'>): string[] {
  return [...view.reasons.values()].filter((record) => isActive(record.reason)).map((record) => record.code);
}

const unknownAgent = (view: Pick<TenantView, 'name' | 'agents'>, id: bigint): AgentRefusal => ({
  ok: false,
  status: 404,
  message: `no agent ${id} in tenant '${view.name}' (agents: ${[...view.agents.keys()].join(', ') || 'none'})`,
});

/**
 * An agent's change of status: online (no reason), or away with the code of one of the tenant's
 * active reasons (404 for a code the tenant lacks, 409 for one not active). `changed` is false, with
 * no event, when the agent is already so.
 */
export function statusChange(
  view: Pick<TenantView, 'name' | 'agents' | 'reasons'>,
  agentId: bigint,
  status: 'online' | 'away',
  reason: string | null,
): { ok: true; agent: Agent; event: EventFields<'agent.status'> | null } | AgentRefusal {
  const agent = view.agents.get(agentId);
  if (agent === undefined) return unknownAgent(view, agentId);
  const active = activeReasonCodes(view);
  if (status === 'online' && reason !== null) {
    return { ok: false, status: 400, message: 'an agent online gives no reason: send reason only with status "away"' };
  }
  if (status === 'away') {
    if (reason === null) {
      return {
        ok: false,
        status: 400,
        message: `an agent going away gives a reason: the code of an active reason (${active.join(', ') || 'none is active'})`,
      };
    }
    const record = view.reasons.get(reason);
    if (record === undefined)
      return { ok: false, status: 404, message: `no inactivity reason with code '${reason}' in tenant '${view.name}'` };
    if (!isActive(record.reason)) {
      return {
        ok: false,
        status: 409,
        message: `the inactivity reason '${reason}' is not active: an agent may pick ${active.join(', ') || 'none'}`,
      };
    }
  }
  // A reason is given exactly when away (checked above, and so is every agent's): the same reason is the same status.
  if (agent.reason === reason) return { ok: true, agent, event: null };
  return { ok: true, agent, event: { type: 'agent.status', sessionId: null, agentId, agentStatus: status, reason } };
}

/** The agents holding a thread or a question of it, the thread's own agent first. */
export function holdersOf(view: Pick<TenantView, 'agents'>, thread: Thread): Agent[] {
  const holders = [...view.agents.values()].filter((agent) =>
    [...agent.assigned.values()].some((held) => held.sessionId === thread.sessionId),
  );
  return holders.sort((a, b) => Number(b.id === thread.agentId) - Number(a.id === thread.agentId));
}

/**
 * An agent's message in a thread: by the agent named, which must hold the thread or a question of it,
 * or by the one that holds it. A thread with the bot or in the queue takes none (409).
 */
export function agentMessage(
  view: Pick<TenantView, 'name' | 'agents'>,
  thread: Thread,
  text: unknown,
  agentId: bigint | null,
): { ok: true; event: EventFields<'agent.message'> } | AgentRefusal {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false, status: 400, message: 'text: must be a non-empty string' };
  if (text.length > maxCustomerText)
    return { ok: false, status: 400, message: `text: ${text.length} characters, limit ${maxCustomerText} (a sandbox limit)` };
  const holders = holdersOf(view, thread);
  let agent: Agent | undefined;
  if (agentId !== null) {
    agent = view.agents.get(agentId);
    if (agent === undefined) return unknownAgent(view, agentId);
    if (!holders.includes(agent)) {
      const held = holders.length > 0 ? `it is with agent ${holders.map((each) => each.id).join(', ')}` : whereIs(thread);
      return { ok: false, status: 409, message: `agent ${agentId} does not hold thread '${thread.sessionId}': ${held}` };
    }
  } else {
    agent = holders[0];
    if (agent === undefined) return { ok: false, status: 409, message: `no agent holds thread '${thread.sessionId}': ${whereIs(thread)}` };
  }
  return { ok: true, event: { type: 'agent.message', sessionId: thread.sessionId, agentId: agent.id, agentName: agent.name, text } };
}

function whereIs(thread: Thread): string {
  return thread.owner === 'agents' ? 'it waits in the queue for an agent' : 'it is with the bot';
}
