import type { Problem } from '../errors.js';
import { validateAgentsFile } from '../payload/agents.js';
import type { Reason } from '../payload/index.js';
import { isActive } from './seed.js';
import type { AgentSeed } from './model.js';

/**
 * The agents every tenant starts with unless `agents` (core sandbox --agents FILE) says otherwise:
 * a set that exercises routing (docs/sandbox.md, "Agents"): skill 12 held by one agent only, skill
 * 14 by two, unit 1 shared, one agent away, capacities 1 to 3.
 */
export const defaultAgents: readonly unknown[] = [
  { id: 101, name: 'Ann', skills: [12], units: [1], capacity: 2 },
  { id: 102, name: 'Boris', skills: [14], units: [1, 2], capacity: 1 },
  { id: 103, name: 'Chen', skills: [14, 15], units: [2], capacity: 3, status: 'away', reason: 'LUNCH' },
];

/**
 * The default set for the seed reasons a sandbox starts with: the agent away gives LUNCH when it is
 * active, else the first active reason, and is online when none is (custom `--reasons` need not
 * have LUNCH, and the default set must never stop a start).
 */
export function defaultAgentsFor(reasons: readonly Reason[]): readonly unknown[] {
  const active = reasons.filter(isActive).map((reason) => reason.code);
  const reason = active.includes('LUNCH') ? 'LUNCH' : active[0];
  return defaultAgents.map((agent) => {
    const entry = agent as { status?: string; reason?: string };
    if (entry.status !== 'away') return agent;
    if (reason === undefined) {
      const { status: _status, reason: _reason, ...online } = entry;
      return online;
    }
    return { ...entry, reason };
  });
}

/** The capacity of an agent whose entry names none. */
export const DEFAULT_CAPACITY = 3;

export type PreparedAgents = { ok: true; agents: AgentSeed[] } | { ok: false; problems: Problem[] };

/**
 * Checks the agents with the agents file's schema (the only copy of its rules), then what only the
 * set can break: ids unique, and an agent starting away names an active reason of the seed reasons
 * (an agent online names none). Paths are `[index].field`.
 */
export function prepareAgents(input: readonly unknown[], reasons: readonly Reason[]): PreparedAgents {
  const validated = validateAgentsFile({ agents: input });
  if (!validated.ok) {
    return { ok: false, problems: validated.problems.map((problem) => ({ ...problem, path: problem.path.replace(/^agents/, '') })) };
  }
  const problems: Problem[] = [];
  const agents: AgentSeed[] = [];
  const firstIndexOfId = new Map<bigint, number>();
  const active = reasons.filter(isActive).map((reason) => reason.code);
  validated.value.agents.forEach((entry, index) => {
    const earlier = firstIndexOfId.get(entry.id);
    if (earlier !== undefined)
      problems.push({ path: `[${index}].id`, message: `${entry.id} is also the id of [${earlier}]; ids must be unique` });
    else firstIndexOfId.set(entry.id, index);
    const status = entry.status ?? 'online';
    const reason = entry.reason ?? null;
    if (status === 'online' && reason !== null)
      problems.push({ path: `[${index}].reason`, message: 'only an agent with status away gives a reason' });
    if (status === 'away' && (reason === null || !active.includes(reason))) {
      problems.push({
        path: `[${index}].reason`,
        message: `an agent that starts away names an active inactivity reason: ${active.join(', ') || 'none is active'}`,
      });
    }
    agents.push({
      id: entry.id,
      name: entry.name,
      skills: entry.skills ?? [],
      units: entry.units ?? [],
      capacity: entry.capacity ?? DEFAULT_CAPACITY,
      status,
      reason,
    });
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, agents };
}
