import { queuedReasons, type EventFields, type QueuedWhy, type TargetKind } from '../events.js';
import type { Agent, QueuedHandover, Targets, TenantView } from '../model.js';

/**
 * Routing of hand-overs to agents (docs/sandbox.md, "Agents"). The API says that userIds, skillIds
 * and unitIds "narrow the target agents" and not how they combine; the sandbox's rule:
 *
 * - each list given narrows: an agent matches when it is one of `userIds` (if given), has one of
 *   `skillIds` (if given) and belongs to one of `unitIds` (if given); within a list any one will do,
 *   across lists all must hold; a hand-over with no targets matches every agent of the tenant;
 * - among the matching agents, those online and under their capacity can take it; the least busy
 *   (fewest hand-overs held) gets it, the smallest id first among equals;
 * - with no agent matching, or none of them online with room, it waits in the queue, oldest first,
 *   and is routed when an agent it matches comes online or gives a hand-over back.
 */

/** What routing reads of an agent: who it is, and how many hand-overs it holds now. */
export interface RoutingAgent {
  readonly id: bigint;
  readonly skills: readonly bigint[];
  readonly units: readonly bigint[];
  readonly status: 'online' | 'away';
  readonly capacity: number;
  readonly load: number;
}

export type Routing = { kind: 'routed'; agentId: bigint; matched: TargetKind[] } | { kind: 'queued'; why: QueuedWhy };

/** The lists of the targets that narrow the choice: the non-empty ones, in the API's order. */
export function narrowing(targets: Targets): TargetKind[] {
  return (['userIds', 'skillIds', 'unitIds'] as const).filter((kind) => targets[kind].length > 0);
}

const hasOne = (own: readonly bigint[], wanted: readonly bigint[]) => wanted.some((id) => own.includes(id));

/** Whether an agent is among the targets: every list given narrows (any one of a list, all lists). */
export function matches(agent: Pick<RoutingAgent, 'id' | 'skills' | 'units'>, targets: Targets): boolean {
  if (targets.userIds.length > 0 && !targets.userIds.includes(agent.id)) return false;
  if (targets.skillIds.length > 0 && !hasOne(agent.skills, targets.skillIds)) return false;
  if (targets.unitIds.length > 0 && !hasOne(agent.units, targets.unitIds)) return false;
  return true;
}

/** The agent a hand-over goes to, or why it waits. */
export function route(agents: Iterable<RoutingAgent>, targets: Targets): Routing {
  const matching = [...agents].filter((agent) => matches(agent, targets));
  if (matching.length === 0) return { kind: 'queued', why: queuedReasons.noMatch };
  let best: RoutingAgent | undefined;
  for (const agent of matching) {
    if (agent.status !== 'online' || agent.load >= agent.capacity) continue;
    if (best === undefined || agent.load < best.load || (agent.load === best.load && agent.id < best.id)) best = agent;
  }
  if (best === undefined) return { kind: 'queued', why: queuedReasons.unavailable };
  return { kind: 'routed', agentId: best.id, matched: narrowing(targets) };
}

/** The tenant's agents as routing reads them. */
export function routingAgents(agents: Iterable<Agent>): RoutingAgent[] {
  return [...agents].map(({ id, skills, units, status, capacity, assigned }) => ({
    id,
    skills,
    units,
    status,
    capacity,
    load: assigned.size,
  }));
}

/** A hand-over to route: where it is held, and its targets. */
export interface HandoverToRoute {
  sessionId: string;
  scope: 'thread' | 'question';
  questionId: bigint | null;
  targets: Targets;
}

type RoutingEvent = EventFields<'handover.routed'> | EventFields<'handover.queued'>;

/** The event of one hand-over's routing, just handed over (`fromQueue` false) or from the queue. */
export function routingEvent(view: Pick<TenantView, 'agents'>, handover: HandoverToRoute, fromQueue = false): RoutingEvent {
  const routed = route(routingAgents(view.agents.values()), handover.targets);
  const { sessionId, scope, questionId } = handover;
  if (routed.kind === 'queued') return { type: 'handover.queued', sessionId, scope, questionId, why: routed.why };
  // The routed agent is one of view.agents: routing chose it from them.
  const agentName = view.agents.get(routed.agentId)!.name;
  return { type: 'handover.routed', sessionId, scope, questionId, agentId: routed.agentId, agentName, matched: routed.matched, fromQueue };
}

/**
 * The queued hand-overs that can be routed now (after an agent came online or gave one back), oldest
 * first: each routing counts against the agent's capacity for the ones after it. Those still without
 * an agent stay queued, with no new event.
 */
export function drainQueue(view: Pick<TenantView, 'agents' | 'queue'>): EventFields<'handover.routed'>[] {
  const agents = routingAgents(view.agents.values());
  const events: EventFields<'handover.routed'>[] = [];
  for (const queued of view.queue.values()) {
    const routed = route(agents, queued.targets);
    if (routed.kind === 'queued') continue;
    const index = agents.findIndex((agent) => agent.id === routed.agentId);
    agents[index] = { ...agents[index]!, load: agents[index]!.load + 1 };
    events.push(fromQueue(view, queued, routed));
  }
  return events;
}

function fromQueue(view: Pick<TenantView, 'agents'>, queued: QueuedHandover, routed: Extract<Routing, { kind: 'routed' }>) {
  const { sessionId, scope, questionId } = queued;
  return {
    type: 'handover.routed' as const,
    sessionId,
    scope,
    questionId,
    agentId: routed.agentId,
    agentName: view.agents.get(routed.agentId)!.name,
    matched: routed.matched,
    fromQueue: true,
  };
}
