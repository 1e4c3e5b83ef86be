import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requestJson } from '../../platform/http.js';
import { client, done, type AgentCommonOptions } from '../sandbox-client.js';

export type { AgentCommonOptions } from '../sandbox-client.js';

/**
 * `core agent list|say|status|release`: the agent's side of a running sandbox (docs/sandbox.md,
 * "Agents"). Each is one request to the sandbox's own endpoints: the answer printed (or its JSON with
 * --json); a refusal is exit 4 with the sandbox's message, no sandbox at the URL exit 6.
 */

const LONG_MAX = 9_223_372_036_854_775_807n;

function idOf(flag: string, text: string): bigint {
  if (!/^\d{1,19}$/.test(text) || BigInt(text) > LONG_MAX)
    throw new UsageError(`${flag}: '${text}' is not an agent id (an integer from 0 to 9223372036854775807)`);
  return BigInt(text);
}

const tenantQuery = (options: AgentCommonOptions) =>
  options.global.tenant === undefined ? '' : `?tenant=${encodeURIComponent(options.global.tenant)}`;

interface ListedAgent {
  tenant: string;
  id: bigint;
  name: string;
  skills: bigint[];
  units: bigint[];
  status: string;
  reason: string | null;
  reasonActive: boolean | null;
  capacity: bigint | number;
  threads: string[];
}

export async function runAgentList(options: AgentCommonOptions, ctx: Context): Promise<number> {
  const http = client(options, ctx);
  const answer = await requestJson(http, 'GET', `/_sandbox/agents${tenantQuery(options)}`);
  return done(
    answer,
    200,
    'the list of agents',
    options,
    ctx,
    (json: { agents: ListedAgent[]; queue: { sessionId: string; scope: string }[] }) => {
      const lines = json.agents.map((agent) => {
        const status =
          agent.status === 'away'
            ? `away (${String(agent.reason)}${agent.reasonActive === false ? ', reason no longer active' : ''})`
            : 'online';
        const ids = (label: string, values: bigint[]) => (values.length > 0 ? ` ${label} ${values.join(',')}` : '');
        return (
          `${agent.id}  ${agent.name}  ${status}  ${agent.threads.length}/${String(agent.capacity)}` +
          `${ids('skills', agent.skills)}${ids('units', agent.units)}` +
          (agent.threads.length > 0 ? `  threads ${agent.threads.join(', ')}` : '') +
          (json.agents.some((other) => other.tenant !== agent.tenant) ? `  tenant ${agent.tenant}` : '')
        );
      });
      lines.push(json.queue.length === 0 ? 'queue: empty' : `queue: ${json.queue.map((item) => item.sessionId).join(', ')}`);
      return lines.join('\n');
    },
  );
}

export async function runAgentSay(
  options: AgentCommonOptions & { text: string; session: string; agent?: string },
  ctx: Context,
): Promise<number> {
  if (options.text.trim() === '')
    throw new UsageError('the message is empty: write something, such as core agent say --session ID "Hello"');
  const agentId = options.agent === undefined ? undefined : idOf('--agent', options.agent);
  const http = client(options, ctx);
  const body: Record<string, unknown> = { text: options.text };
  if (agentId !== undefined) body.agentId = agentId;
  const answer = await requestJson(http, 'POST', `/_sandbox/conversations/${encodeURIComponent(options.session)}/agent-messages`, body);
  return done(
    answer,
    201,
    `the agent's message in ${options.session}`,
    options,
    ctx,
    (json: { agentId: bigint; agentName: string; sessionId: string }) =>
      `agent ${json.agentId} (${json.agentName}) wrote in ${json.sessionId}`,
  );
}

export async function runAgentStatus(
  options: AgentCommonOptions & { id: string; status: string; reason?: string },
  ctx: Context,
): Promise<number> {
  const id = idOf('<id>', options.id);
  const status = options.status.toLowerCase();
  if (status !== 'online' && status !== 'away') throw new UsageError(`'${options.status}' is not a status: use online or away`);
  if (status === 'online' && options.reason !== undefined) throw new UsageError('--reason goes with away: an agent online gives no reason');
  if (status === 'away' && options.reason === undefined) {
    throw new UsageError("away takes --reason CODE: the code of one of the tenant's active inactivity reasons", {
      hint: 'GET $CORE_BASE_URL/_sandbox/reasons lists them, such as --reason LUNCH',
    });
  }
  const http = client(options, ctx);
  const body: Record<string, unknown> = { status };
  if (options.reason !== undefined) body.reason = options.reason;
  const answer = await requestJson(http, 'POST', `/_sandbox/agents/${id}/status${tenantQuery(options)}`, body);
  return done(
    answer,
    200,
    `the status of agent ${id}`,
    options,
    ctx,
    (json: { agent: ListedAgent; events: { type: string; sessionId: string }[] }) => {
      const routed = json.events.filter((event) => event.type === 'handover.routed').map((event) => event.sessionId);
      const now = json.agent.status === 'away' ? `away (${String(json.agent.reason)})` : 'online';
      return `agent ${json.agent.id} (${json.agent.name}) is ${now}${routed.length > 0 ? `; took from the queue: ${routed.join(', ')}` : ''}`;
    },
  );
}

export async function runAgentRelease(options: AgentCommonOptions & { session: string }, ctx: Context): Promise<number> {
  const http = client(options, ctx);
  const answer = await requestJson(http, 'POST', `/_sandbox/conversations/${encodeURIComponent(options.session)}/release`, {});
  return done(answer, 200, `the release of ${options.session}`, options, ctx, (json: { released: boolean }) =>
    json.released ? `${options.session} is back with the bot` : `${options.session} was already with the bot`,
  );
}
