import type { Problem } from '../errors.js';
import { count, invalid, readJsonObject, type Answer, type Exchange, type Handler } from './exchange.js';
import type { SandboxState, Thread } from './state.js';

/**
 * The agent's side over HTTP (docs/sandbox.md, "Agents"): list the agents with what they hold and
 * the queue, change an agent's status, write as an agent in a thread it holds. Giving a thread back
 * to the bot is the customer side's release. The server has already checked the Host and, for
 * requests that change state, the Content-Type.
 */

export interface AgentDeps {
  state: SandboxState;
  /** The tenant of a request that names none (?tenant=). */
  defaultTenant: string;
}

const LONG_MAX = 9_223_372_036_854_775_807n;

/** The tenant of ?tenant=, or the default one; an answer for one not served. */
function tenantOf(
  deps: AgentDeps,
  ex: Exchange,
  fallback: string | undefined,
): { ok: true; tenant: string | undefined } | { ok: false; answer: Answer } {
  const tenant = ex.query.get('tenant') ?? fallback;
  if (tenant !== undefined && !deps.state.hasTenant(tenant)) {
    return {
      ok: false,
      answer: { status: 404, error: `no tenant '${tenant}' (tenants: ${deps.state.tenantNames.join(', ')})`, what: 'unknown tenant' },
    };
  }
  return { ok: true, tenant };
}

/** An agent id of the path: a long. */
function agentIdOf(text: string): bigint | null {
  if (!/^\d{1,19}$/.test(text)) return null;
  const id = BigInt(text);
  return id <= LONG_MAX ? id : null;
}

/** GET /_sandbox/agents: the agents of one tenant (?tenant=) or all, and the hand-overs queued. */
function list(deps: AgentDeps, ex: Exchange): Answer {
  const read = tenantOf(deps, ex, undefined);
  if (!read.ok) return read.answer;
  const agents = deps.state.agents(read.tenant);
  const queue = deps.state.queue(read.tenant);
  return { status: 200, json: { agents, queue }, what: `listed ${count(agents.length, 'agent')}, ${queue.length} queued` };
}

/** POST /_sandbox/agents/{id}/status `{"status": "online"|"away", "reason"?: CODE}` (?tenant=, else the default tenant). */
async function status(deps: AgentDeps, ex: Exchange): Promise<Answer> {
  const body = await readJsonObject(ex);
  if (!body.ok) return body.answer;
  const read = tenantOf(deps, ex, deps.defaultTenant);
  if (!read.ok) return read.answer;
  const tenant = read.tenant!;
  const agentId = agentIdOf(ex.params[0] ?? '');
  if (agentId === null)
    return { status: 404, error: `no agent '${ex.params[0] ?? ''}': an agent's id is an integer`, what: 'unknown agent' };
  const problems: Problem[] = Object.keys(body.value)
    .filter((key) => key !== 'status' && key !== 'reason')
    .map((key) => ({ path: key, message: 'unknown field; this request takes status, reason' }));
  const { status: wanted, reason } = body.value;
  if (wanted !== 'online' && wanted !== 'away') problems.push({ path: 'status', message: 'must be "online" or "away"' });
  if (reason !== undefined && reason !== null && (typeof reason !== 'string' || reason === '')) {
    problems.push({ path: 'reason', message: 'must be the code of an inactivity reason' });
  }
  if (problems.length > 0) return invalid(problems);
  const changed = deps.state.agentStatus(tenant, agentId, wanted as 'online' | 'away', (reason as string | null | undefined) ?? null);
  if (!changed.ok) return { status: changed.status, error: changed.message, what: `refused: ${changed.message}`, tenant };
  const routed = changed.events.filter((event) => event.type === 'handover.routed').length;
  return {
    status: 200,
    tenant,
    json: { agent: changed.agent, changed: changed.events.length > 0, events: changed.events },
    what:
      `agent ${agentId} ${changed.agent.status}${changed.agent.reason === null ? '' : ` (${changed.agent.reason})`}` +
      (routed > 0 ? `, ${count(routed, 'queued hand-over')} routed` : ''),
  };
}

/** POST /_sandbox/conversations/{sessionId}/agent-messages `{"text", "agentId"?}`. */
async function message(deps: AgentDeps, ex: Exchange, thread: Thread): Promise<Answer> {
  const body = await readJsonObject(ex);
  if (!body.ok) return body.answer;
  const problems: Problem[] = Object.keys(body.value)
    .filter((key) => key !== 'text' && key !== 'agentId')
    .map((key) => ({ path: key, message: 'unknown field; this request takes text, agentId' }));
  const { agentId } = body.value;
  if (agentId !== undefined && agentId !== null && (typeof agentId !== 'bigint' || agentId < 0n || agentId > LONG_MAX)) {
    problems.push({ path: 'agentId', message: 'must be an integer from 0 to 9223372036854775807' });
  }
  if (problems.length > 0) return invalid(problems);
  const written = deps.state.agentMessage(thread, body.value.text, (agentId as bigint | null | undefined) ?? null);
  if (!written.ok) return { status: written.status, error: written.message, what: `refused: ${written.message}`, tenant: thread.tenant };
  const { event } = written;
  return {
    status: 201,
    tenant: thread.tenant,
    json: { tenant: thread.tenant, sessionId: thread.sessionId, seq: event.seq, agentId: event.agentId, agentName: event.agentName },
    what: `agent ${event.agentId} wrote in ${thread.sessionId}`,
  };
}

export function agentHandlers(deps: AgentDeps): Record<'list' | 'status' | 'message', Handler> {
  return {
    list: (ex) => list(deps, ex),
    status: (ex) => status(deps, ex),
    message: (ex) => {
      const sessionId = ex.params[0] ?? '';
      const thread = deps.state.thread(sessionId);
      if (thread === undefined) {
        return { status: 404, error: `no conversation with sessionId '${sessionId}'`, what: 'unknown conversation' };
      }
      return message(deps, ex, thread);
    },
  };
}
