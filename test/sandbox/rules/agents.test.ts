import { describe, expect, it } from 'vitest';
import { MAX_CUSTOMER_TEXT } from '../../../src/payload/customer-text.js';
import type { ReasonRecord } from '../../../src/sandbox/model.js';
import { activeReasonCodes, agentMessage, holdersOf, statusChange } from '../../../src/sandbox/rules/agents.js';
import { world } from './world.js';

/** What agents do (docs/sandbox.md, "Agents"): change their status, and write in a thread they hold. */

/** A tenant with reasons LUNCH and MEETING active, TRAINING not; agent 7 online, agent 8 away at LUNCH. */
function tenant() {
  const w = world();
  w.reason('LUNCH', true);
  w.reason('TRAINING', false);
  w.reason('MEETING', true);
  const online = w.agent(7n, { name: 'Zoe' });
  const away = w.agent(8n, { name: 'Yan', status: 'away', reason: 'LUNCH' });
  return { w, online, away };
}

describe('the reasons an agent going away may pick', () => {
  it('are the active ones, in the order the tenant keeps them', () => {
    expect(activeReasonCodes(tenant().w.view)).toEqual(['LUNCH', 'MEETING']);
  });

  it('count a reason with no `active` field as active, as the API does', () => {
    const w = world();
    const record = w.reason('OTHER', true);
    const { active: _active, ...reason } = record.reason;
    (w.view.reasons as Map<string, ReasonRecord>).set('OTHER', { ...record, reason: reason as ReasonRecord['reason'] });
    expect(activeReasonCodes(w.view)).toEqual(['OTHER']);
  });

  it('are none when no reason is active', () => {
    const w = world();
    w.reason('TRAINING', false);
    expect(activeReasonCodes(w.view)).toEqual([]);
  });
});

describe("an agent's change of status", () => {
  it.each([
    ['online to away, with an active reason', 7n, 'away', 'MEETING'],
    ['away to online', 8n, 'online', null],
    ['away to away with another active reason', 8n, 'away', 'MEETING'],
  ] as const)('%s: the event', (_, agentId, status, reason) => {
    const { w } = tenant();
    expect(statusChange(w.view, agentId, status, reason)).toEqual({
      ok: true,
      agent: w.view.agents.get(agentId),
      event: { type: 'agent.status', sessionId: null, agentId, agentStatus: status, reason },
    });
  });

  it.each([
    ['online, and online again', 7n, 'online', null],
    ['away at LUNCH, and away at LUNCH again', 8n, 'away', 'LUNCH'],
  ] as const)('is no change, with no event, for an agent already so: %s', (_, agentId, status, reason) => {
    const { w } = tenant();
    expect(statusChange(w.view, agentId, status, reason)).toEqual({ ok: true, agent: w.view.agents.get(agentId), event: null });
  });

  it.each([
    ['an unknown agent (404), naming the agents there are', 9n, 'online', null, 404, "no agent 9 in tenant 'acme' (agents: 7, 8)"],
    [
      'a reason given with online (400)',
      7n,
      'online',
      'LUNCH',
      400,
      'an agent online gives no reason: send reason only with status "away"',
    ],
    [
      'away without a reason (400), naming the active ones',
      7n,
      'away',
      null,
      400,
      'an agent going away gives a reason: the code of an active reason (LUNCH, MEETING)',
    ],
    ['a code the tenant lacks (404)', 7n, 'away', 'NAP', 404, "no inactivity reason with code 'NAP' in tenant 'acme'"],
    [
      'a reason not active (409), naming the ones that are',
      7n,
      'away',
      'TRAINING',
      409,
      "the inactivity reason 'TRAINING' is not active: an agent may pick LUNCH, MEETING",
    ],
  ] as const)('is refused for %s', (_, agentId, status, reason, code, message) => {
    const { w } = tenant();
    expect(statusChange(w.view, agentId, status, reason)).toEqual({ ok: false, status: code, message });
  });

  it('is refused (409) for an agent already away that picks a reason not active', () => {
    const { w } = tenant();
    expect(statusChange(w.view, 8n, 'away', 'TRAINING')).toMatchObject({ ok: false, status: 409 });
  });

  /** A tenant with agent 7 and one reason, TRAINING, not active. */
  const noneActive = () => {
    const w = world();
    w.agent(7n);
    w.reason('TRAINING', false);
    return w.view;
  };

  it.each([
    ['an unknown agent in a tenant with none', () => world().view, 9n, 'online', null, "no agent 9 in tenant 'acme' (agents: none)"],
    [
      'away with no reason active',
      noneActive,
      7n,
      'away',
      null,
      'an agent going away gives a reason: the code of an active reason (none is active)',
    ],
    [
      'a reason not active, with none active',
      noneActive,
      7n,
      'away',
      'TRAINING',
      "the inactivity reason 'TRAINING' is not active: an agent may pick none",
    ],
  ] as const)('says so when there is nothing to name: %s', (_, view, agentId, status, reason, message) => {
    expect(statusChange(view(), agentId, status, reason)).toMatchObject({ ok: false, message });
  });
});

describe('the agents holding a thread', () => {
  it("are those holding it or a question of it, the thread's own agent first, whatever the order of the agents", () => {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 's-1', owner: 'agents' });
    const question = w.ask(thread);
    for (const id of [3n, 4n]) {
      w.agent(id).assigned.set(`s-1/${question.questionId}`, {
        key: `s-1/${question.questionId}`,
        sessionId: 's-1',
        scope: 'question',
        questionId: question.questionId,
        seq: 1,
      });
    }
    w.agent(6n);
    w.assign(w.agent(5n), thread);
    expect(holdersOf(w.view, thread).map((agent) => agent.id)).toEqual([5n, 3n, 4n]);
  });

  it('are none for a thread no agent holds, though agents hold others', () => {
    const w = world();
    const held = w.thread(w.client(1n), { sessionId: 's-1' });
    const free = w.thread(w.client(2n), { sessionId: 's-2' });
    w.assign(w.agent(3n), held);
    expect(holdersOf(w.view, free)).toEqual([]);
  });
});

describe("an agent's message in a thread", () => {
  function held() {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 's-1' });
    w.assign(w.agent(7n, { name: 'Zoe' }), thread);
    w.agent(8n, { name: 'Yan' });
    return { w, thread };
  }
  const message = (agentId: bigint, agentName: string, text: string) => ({
    ok: true,
    event: { type: 'agent.message', sessionId: 's-1', agentId, agentName, text },
  });

  it.each([
    ['by the agent named, which holds it', 7n],
    ['by the one that holds it, when none is named', null],
  ])('is written %s', (_, agentId) => {
    const { w, thread } = held();
    expect(agentMessage(w.view, thread, 'On it.', agentId)).toEqual(message(7n, 'Zoe', 'On it.'));
  });

  it.each([
    ['of one character', 'x'],
    [`of ${MAX_CUSTOMER_TEXT} characters, the limit`, 'x'.repeat(MAX_CUSTOMER_TEXT)],
  ])('takes a text %s', (_, text) => {
    const { w, thread } = held();
    expect(agentMessage(w.view, thread, text, null)).toEqual(message(7n, 'Zoe', text));
  });

  it.each([
    ['no text', undefined, 'text: must be a non-empty string'],
    ['a text that is not a string', 42, 'text: must be a non-empty string'],
    ['an empty text', '', 'text: must be a non-empty string'],
    ['a text of spaces alone', ' \t\n', 'text: must be a non-empty string'],
    [
      `a text of ${MAX_CUSTOMER_TEXT + 1} characters, one past the limit`,
      'x'.repeat(MAX_CUSTOMER_TEXT + 1),
      `text: ${MAX_CUSTOMER_TEXT + 1} characters, limit ${MAX_CUSTOMER_TEXT} (a sandbox limit)`,
    ],
  ])('is refused (400) for %s', (_, text, error) => {
    const { w, thread } = held();
    expect(agentMessage(w.view, thread, text, 7n)).toEqual({ ok: false, status: 400, message: error });
  });

  it('is refused (404) by an unknown agent, naming the agents there are', () => {
    const { w, thread } = held();
    expect(agentMessage(w.view, thread, 'Hi', 9n)).toEqual({
      ok: false,
      status: 404,
      message: "no agent 9 in tenant 'acme' (agents: 7, 8)",
    });
  });

  it.each([
    ['one', [], 'it is with agent 7'],
    ['several', [6n], 'it is with agent 7, 6'],
  ] as const)('is refused (409) by an agent that does not hold it, naming the ones that do: %s', (_, others, where) => {
    const { w, thread } = held();
    const question = w.ask(thread);
    for (const id of others) {
      const key = `s-1/${question.questionId}`;
      w.agent(id).assigned.set(key, { key, sessionId: 's-1', scope: 'question', questionId: question.questionId, seq: 1 });
    }
    expect(agentMessage(w.view, thread, 'Hi', 8n)).toEqual({
      ok: false,
      status: 409,
      message: `agent 8 does not hold thread 's-1': ${where}`,
    });
  });

  it.each([
    ['with the bot', 'bot', 'it is with the bot'],
    ['waiting in the queue', 'agents', 'it waits in the queue for an agent'],
  ] as const)('is refused (409) in a thread %s, by an agent named or not, saying where it is', (_, owner, where) => {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 's-1', owner });
    w.agent(8n);
    expect(agentMessage(w.view, thread, 'Hi', 8n)).toEqual({
      ok: false,
      status: 409,
      message: `agent 8 does not hold thread 's-1': ${where}`,
    });
    expect(agentMessage(w.view, thread, 'Hi', null)).toEqual({ ok: false, status: 409, message: `no agent holds thread 's-1': ${where}` });
  });
});
