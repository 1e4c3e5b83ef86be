// @ts-check
// The agent's side of the page (docs/sandbox.md, "Agents"): each tenant's agents with a status menu
// (online, or away with one of the tenant's active inactivity reasons), the queue, an agent's message
// as the customer sees it, and "Answer as <agent>" on a thread an agent holds. The agents are read
// from GET /_sandbox/agents, again after each event that changes them or what they may pick.

import { ApiError } from './api.js';
import { parseJson, stringifyJson } from './json.js';
import { append, clear, h, show } from './dom.js';

/**
 * An agent as GET /_sandbox/agents lists it (src/sandbox/state.ts, AgentView), its ids read as the
 * page reads identifiers (number, or BigInt past 2^53).
 *
 * @typedef {{
 *   tenant: string,
 *   id: number | bigint,
 *   name: string,
 *   skills: (number | bigint)[],
 *   units: (number | bigint)[],
 *   status: 'online' | 'away',
 *   reason: string | null,
 *   reasonActive: boolean | null,
 *   capacity: number,
 *   threads: string[],
 * }} PageAgent
 */
/**
 * @typedef {{ tenant: string, sessionId: string, scope: 'thread' | 'question' }} PageQueued
 * @typedef {import('../events.js').PageEvent} PageEvent
 * @typedef {import('../model.js').PageReasonRecord} PageReasonRecord
 */

/** The events after which the agents are read again: they change a status, a hold, the queue, or the reasons to pick. */
const CHANGES_AGENTS = new Set(['agent.status', 'handover.routed', 'handover.queued', 'released', 'reason.updated', 'sandbox.reset']);

/** The routing rule, shown next to each routing (docs/sandbox.md, "Agents"). */
export const ROUTING_RULE =
  'each target list given narrows (any one of a list, all lists), then the least busy online agent under capacity';

/**
 * @param {string} path
 * @param {'GET' | 'POST'} method
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function request(path, method, body) {
  const response = await fetch(path, {
    method,
    headers: method === 'POST' ? { 'Content-Type': 'application/json', Accept: 'application/json' } : { Accept: 'application/json' },
    body: method === 'POST' ? stringifyJson(body ?? {}) : undefined,
    cache: 'no-store',
  });
  const read = await response.text();
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`.trim();
    try {
      const error = parseJson(read);
      if (typeof error?.message === 'string') message = error.message;
    } catch {
      // Not the Error body: the status says enough.
    }
    throw new ApiError(response.status, message);
  }
  return parseJson(read);
}

/** @param {string} tenant */
const tenantQuery = (tenant) => `?tenant=${encodeURIComponent(tenant)}`;

/** The agent's requests of the page. */
export const agentApi = {
  /** @returns {Promise<{ agents: PageAgent[], queue: PageQueued[] }>} */
  list: () => request('/_sandbox/agents', 'GET'),
  /**
   * @param {string} tenant
   * @param {number | bigint} id
   * @param {'online' | 'away'} status
   * @param {string | null} reason
   */
  status: (tenant, id, status, reason) =>
    request(
      `/_sandbox/agents/${encodeURIComponent(String(id))}/status${tenantQuery(tenant)}`,
      'POST',
      reason === null ? { status } : { status, reason },
    ),
  /**
   * @param {string} sessionId
   * @param {string} text
   * @param {number | bigint} agentId
   */
  say: (sessionId, text, agentId) =>
    request(`/_sandbox/conversations/${encodeURIComponent(sessionId)}/agent-messages`, 'POST', { text, agentId }),
};

/** @type {{ agents: PageAgent[], queue: PageQueued[], reading: Promise<void> | null, again: boolean }} */
const model = { agents: [], queue: [], reading: null, again: false };

/**
 * Whether an event changes what the agents' panel shows.
 *
 * @param {PageEvent} event
 */
export const changesAgents = (event) => CHANGES_AGENTS.has(event.type);

/**
 * Reads the agents again and calls `draw` once they are in; reads that overlap are folded into one
 * more read after the current one, so the last state always wins.
 *
 * @param {() => void} draw
 * @param {(message: string) => void} notice
 */
export function refreshAgents(draw, notice) {
  if (model.reading) {
    model.again = true;
    return;
  }
  model.reading = agentApi
    .list()
    .then((listed) => {
      model.agents = listed.agents;
      model.queue = listed.queue;
      draw();
    })
    .catch((error) => notice(`Cannot read the agents: ${/** @type {Error} */ (error).message}`))
    .finally(() => {
      model.reading = null;
      if (model.again) {
        model.again = false;
        refreshAgents(draw, notice);
      }
    });
}

/**
 * An agent of the panel's model, by tenant and id.
 *
 * @param {string} tenant
 * @param {number | bigint | null} id
 */
export const agentOf = (tenant, id) => model.agents.find((agent) => agent.tenant === tenant && String(agent.id) === String(id));

/**
 * The codes and names of a tenant's active reasons, in code order: what an agent going away may pick.
 *
 * @param {PageReasonRecord[]} reasons
 */
function activeReasons(reasons) {
  return reasons
    .filter((record) => /** @type {{ active?: unknown }} */ (record.reason)?.active !== false)
    .map((record) => {
      const names = /** @type {{ reasons?: { locale?: unknown, name?: unknown }[] }} */ (record.reason)?.reasons ?? [];
      const name = names.find((entry) => entry.locale === 'en')?.name ?? names[0]?.name;
      return { code: record.code, name: typeof name === 'string' ? name : '' };
    })
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
}

/**
 * The status menu of one agent: online, or away with each active reason of its tenant. An agent away
 * with a reason made inactive since keeps it, marked, until it changes.
 *
 * @param {PageAgent} agent
 * @param {PageReasonRecord[]} reasons
 * @param {(message: string) => void} notice
 */
function statusMenu(agent, reasons, notice) {
  const active = activeReasons(reasons);
  const current = agent.status === 'online' ? 'online' : `away:${agent.reason ?? ''}`;
  const stale = agent.status === 'away' && agent.reasonActive === false;
  const select = h(
    'select',
    {
      className: 'agent-status',
      id: `agent-status-${agent.tenant}-${agent.id}`,
      'aria-label': `Status of ${agent.name} (${show(agent.id)})`,
      dataset: { tenant: agent.tenant, agent: String(agent.id) },
      on: {
        change: async (/** @type {Event} */ event) => {
          const value = /** @type {HTMLSelectElement} */ (event.target).value;
          const [status, reason] = value === 'online' ? ['online', null] : ['away', value.slice('away:'.length)];
          try {
            await agentApi.status(agent.tenant, agent.id, /** @type {'online' | 'away'} */ (status), reason);
            notice('');
          } catch (error) {
            notice(`${agent.name} cannot change status: ${/** @type {Error} */ (error).message}`);
            /** @type {HTMLSelectElement} */ (event.target).value = current;
          }
        },
      },
    },
    h('option', { value: 'online', selected: current === 'online' }, 'online'),
    active.map(({ code, name }) =>
      h('option', { value: `away:${code}`, selected: current === `away:${code}` }, `away: ${code}${name ? ` (${name})` : ''}`),
    ),
    stale ? h('option', { value: current, selected: true, disabled: true }, `away: ${agent.reason} (reason no longer active)`) : null,
  );
  return select;
}

/**
 * The agents' panel: each tenant's agents with their skills, units, load and status menu, and the queue.
 *
 * @param {HTMLElement} container
 * @param {string[]} tenants
 * @param {(tenant: string) => PageReasonRecord[]} reasonsOf
 * @param {(message: string) => void} notice
 */
export function drawAgents(container, tenants, reasonsOf, notice) {
  // A menu the user is on keeps the focus when the panel is drawn again.
  const focused = container.contains(document.activeElement) ? document.activeElement?.id : undefined;
  clear(container);
  for (const tenant of tenants) {
    const agents = model.agents.filter((agent) => agent.tenant === tenant);
    const queued = model.queue.filter((entry) => entry.tenant === tenant);
    append(container, [
      tenants.length > 1 ? h('h3', { className: 'agents-tenant' }, `Tenant ${tenant}`) : null,
      agents.length === 0
        ? h('p', { className: 'muted small' }, 'No agents.')
        : h(
            'ul',
            { className: 'agents', 'aria-label': `Agents of tenant ${tenant}` },
            agents.map((agent) =>
              h(
                'li',
                { className: `agent agent-${agent.status}`, dataset: { agent: String(agent.id), tenant } },
                h('span', { className: 'agent-name' }, `${agent.name} (${show(agent.id)})`),
                ' ',
                statusMenu(agent, reasonsOf(tenant), notice),
                agent.status === 'away' && agent.reasonActive === false
                  ? h('span', { className: 'agent-stale small' }, ' reason no longer active')
                  : null,
                h(
                  'span',
                  { className: 'agent-facts muted small' },
                  ` skills ${agent.skills.map(show).join(', ') || 'none'} \u00b7 units ${agent.units.map(show).join(', ') || 'none'} \u00b7 ` +
                    `${agent.threads.length} of ${agent.capacity} held`,
                ),
              ),
            ),
          ),
      h(
        'p',
        { className: 'queue small', dataset: { tenant } },
        queued.length === 0
          ? 'Queue: empty.'
          : `Queue: ${queued.map((entry) => `${entry.sessionId}${entry.scope === 'question' ? ' (a question)' : ''}`).join(', ')}`,
      ),
    ]);
  }
  if (focused) document.getElementById(focused)?.focus();
}

/**
 * An agent's message, as the customer sees it: a bubble of its own, by the agent.
 *
 * @param {import('../events.js').PageEventOf<'agent.message'>} event
 */
export function agentBubble(event) {
  return h(
    'li',
    { className: 'bubble agent', dataset: { seq: String(event.seq), kind: 'agent' } },
    h('p', { className: 'meta' }, `Agent ${event.agentName} (${show(event.agentId)})`),
    h('p', { className: 'message-text' }, event.text),
  );
}

/**
 * "Answer as <agent>" and its text box, for a thread an agent holds; null for one with the bot or in the queue.
 *
 * @param {{ sessionId: string, tenant: string, holder: string, agentId: number | bigint | null, agentName: string | null }} summary
 * @param {(message: string) => void} notice
 */
export function agentComposer(summary, notice) {
  if (summary.holder !== 'agent' || summary.agentId === null) return null;
  const agentId = summary.agentId;
  const name = summary.agentName ?? agentOf(summary.tenant, agentId)?.name ?? `agent ${show(agentId)}`;
  const input = h('input', {
    id: 'agent-message',
    name: 'agentMessage',
    autocomplete: 'off',
    maxLength: 4000,
    'aria-label': `What ${name} writes to the customer`,
  });
  return h(
    'form',
    {
      className: 'agent-composer',
      id: 'agent-composer',
      on: {
        submit: async (/** @type {Event} */ event) => {
          event.preventDefault();
          const text = input.value;
          if (text.trim() === '') return;
          // The header is drawn again when the message comes back as an event: the box is emptied
          // first, so the draft it keeps is not the message sent, and gets the text back on a refusal.
          input.value = '';
          try {
            await agentApi.say(summary.sessionId, text, agentId);
            notice('');
          } catch (error) {
            const current = /** @type {HTMLInputElement | null} */ (document.getElementById('agent-message'));
            if (current && current.value === '') current.value = text;
            notice(`${name} cannot write: ${/** @type {Error} */ (error).message}`);
          }
        },
      },
    },
    input,
    h('button', { type: 'submit', id: 'agent-send' }, `Answer as ${name}`),
  );
}
