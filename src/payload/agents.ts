import * as z from 'zod/mini';
import { text } from './checks.js';
import { longSchema, longSetSchema } from './long.js';
import { validateWith, type Validation } from './validate.js';

/**
 * The agents file of `core sandbox --agents FILE` (docs/sandbox.md, "Agents"; `core schema agents`):
 * the agents every tenant of the sandbox starts with. The API shows no agent record (docs/api.md):
 * these fields are the sandbox's own, what routing a hand-over needs (userIds, skillIds, unitIds).
 */

/** The most threads and questions one agent holds at once, a bound of the sandbox's own. */
export const MAX_AGENT_CAPACITY = 1000;
/** The most agents a file may name. */
export const MAX_AGENTS = 1000;

export const agentSchema = z
  .strictObject({
    id: longSchema.check(z.describe("The agent's id: the value a bot names in userIds.")),
    name: text('The name shown on the page and in listings, 1 to 100 characters.', 100),
    skills: z.optional(longSetSchema('The ids of the skills the agent has: what skillIds match. Default none.')),
    units: z.optional(longSetSchema('The ids of the units (departments) the agent belongs to: what unitIds match. Default none.')),
    capacity: z.optional(
      z
        .int()
        .check(
          z.gte(1),
          z.lte(MAX_AGENT_CAPACITY),
          z.describe(`How many hand-overs (threads and questions) the agent holds at once, 1 to ${MAX_AGENT_CAPACITY}. Default 3.`),
        ),
    ),
    status: z.optional(z.enum(['online', 'away']).check(z.describe('The status the agent starts with. Default online.'))),
    reason: z.optional(
      text('The code of the inactivity reason of an agent that starts away: one of the active reasons. Only with status away.', 256),
    ),
  })
  .check(z.describe('One agent.'));
export type AgentEntry = z.output<typeof agentSchema>;

export const agentsFileSchema = z
  .strictObject({
    agents: z
      .array(agentSchema)
      .check(z.maxLength(MAX_AGENTS), z.describe(`The agents, each with a unique id, at most ${MAX_AGENTS}; an empty list means none.`)),
  })
  .check(z.describe('The agents every tenant of core sandbox starts with (and returns to on reset). core sandbox --agents FILE.'));
export type AgentsFile = z.output<typeof agentsFileSchema>;

/**
 * Validates an agents file as read. The JSON and YAML readers give every integer as a bigint; a
 * capacity is a count, not an identifier, so one within 2^53 is made a number first.
 */
export function validateAgentsFile(input: unknown): Validation<AgentsFile> {
  return validateWith(agentsFileSchema, countsAsNumbers(input));
}

function countsAsNumbers(input: unknown): unknown {
  if (typeof input !== 'object' || input === null || !Array.isArray((input as { agents?: unknown }).agents)) return input;
  const agents = (input as { agents: unknown[] }).agents.map((entry) => {
    if (typeof entry !== 'object' || entry === null) return entry;
    const { capacity } = entry as { capacity?: unknown };
    if (typeof capacity !== 'bigint' || capacity > BigInt(Number.MAX_SAFE_INTEGER) || capacity < -BigInt(Number.MAX_SAFE_INTEGER))
      return entry;
    return { ...entry, capacity: Number(capacity) };
  });
  return { ...input, agents };
}
