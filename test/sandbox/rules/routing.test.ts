import { describe, expect, it } from 'vitest';
import { drainQueue, matches, route, routingEvent, type RoutingAgent } from '../../../src/sandbox/rules/routing.js';
import { world } from './world.js';

/** Routing of hand-overs (docs/sandbox.md, "Agents": each target list given narrows, any one of a list, all lists). */

const agent = (id: bigint, fields: Partial<RoutingAgent> = {}): RoutingAgent => ({
  id,
  skills: [],
  units: [],
  status: 'online',
  capacity: 2,
  load: 0,
  ...fields,
});

const targets = (fields: { userIds?: bigint[]; skillIds?: bigint[]; unitIds?: bigint[] } = {}) => ({
  userIds: fields.userIds ?? [],
  skillIds: fields.skillIds ?? [],
  unitIds: fields.unitIds ?? [],
});

// Agent 1: skill 12, unit 1. Agent 2: skills 12 and 14, unit 2. Agent 3: skill 14, units 1 and 2.
const team = [
  agent(1n, { skills: [12n], units: [1n] }),
  agent(2n, { skills: [12n, 14n], units: [2n] }),
  agent(3n, { skills: [14n], units: [1n, 2n] }),
];

describe('which agents a hand-over matches: every combination of userIds, skillIds and unitIds', () => {
  it.each([
    ['no targets: every agent', {}, [1n, 2n, 3n], []],
    ['userIds alone', { userIds: [2n, 3n] }, [2n, 3n], ['userIds']],
    ['skillIds alone', { skillIds: [12n] }, [1n, 2n], ['skillIds']],
    ['skillIds alone: any one of them, though no agent has them all', { skillIds: [12n, 99n] }, [1n, 2n], ['skillIds']],
    ['unitIds alone', { unitIds: [1n] }, [1n, 3n], ['unitIds']],
    ['unitIds alone: any one of them, though no agent is in them all', { unitIds: [1n, 98n] }, [1n, 3n], ['unitIds']],
    ['userIds and skillIds: both hold', { userIds: [1n, 3n], skillIds: [12n] }, [1n], ['userIds', 'skillIds']],
    ['userIds and unitIds', { userIds: [1n, 2n], unitIds: [2n] }, [2n], ['userIds', 'unitIds']],
    ['skillIds and unitIds', { skillIds: [12n], unitIds: [2n] }, [2n], ['skillIds', 'unitIds']],
    ['all three', { userIds: [2n, 3n], skillIds: [14n], unitIds: [1n] }, [3n], ['userIds', 'skillIds', 'unitIds']],
    ['a list naming nothing any agent has', { skillIds: [99n] }, [], ['skillIds']],
    ['lists that each match, but never on one agent', { userIds: [1n], skillIds: [14n] }, [], ['userIds', 'skillIds']],
  ] as const)('%s', (_, given, matching, narrowed) => {
    const wanted = targets(given as Parameters<typeof targets>[0]);
    expect(team.filter((each) => matches(each, wanted)).map((each) => each.id)).toEqual(matching);
    const routed = route(team, wanted);
    if (matching.length === 0) expect(routed).toEqual({ kind: 'queued', why: 'no agent matches the targets' });
    else expect(routed).toEqual({ kind: 'routed', agentId: matching[0], matched: narrowed });
  });
});

describe('among the matching agents, the online ones under capacity, least busy first', () => {
  it.each([
    ['the busier one first', [agent(1n, { load: 1 }), agent(2n, { load: 0 })]],
    ['the least busy first, the busier one with the smaller id', [agent(2n, { load: 0 }), agent(1n, { load: 1 })]],
  ])('goes to the least busy, whatever its id: %s', (_, agents) => {
    expect(route(agents, targets())).toMatchObject({ agentId: 2n });
  });

  it('takes the smallest id among agents equally busy, whatever their order', () => {
    expect(route([agent(9n, { load: 1 }), agent(4n, { load: 1 }), agent(6n, { load: 1 })], targets())).toMatchObject({ agentId: 4n });
  });

  it('skips an agent away', () => {
    expect(route([agent(1n, { status: 'away' }), agent(2n, { load: 1 })], targets())).toMatchObject({ agentId: 2n });
  });

  it('takes an agent one below its capacity, and not one at it', () => {
    expect(route([agent(1n, { capacity: 2, load: 1 })], targets())).toMatchObject({ kind: 'routed', agentId: 1n });
    expect(route([agent(1n, { capacity: 2, load: 2 })], targets())).toEqual({
      kind: 'queued',
      why: 'all matching agents are away or full',
    });
  });

  it.each([
    ['away', agent(1n, { skills: [12n], status: 'away' })],
    ['full', agent(1n, { skills: [12n], load: 2 })],
  ])('queues when the one matching agent is %s, though another agent is free', (_, matching) => {
    const free = agent(2n, { skills: [14n] });
    expect(route([matching, free], targets({ skillIds: [12n] }))).toEqual({ kind: 'queued', why: 'all matching agents are away or full' });
  });

  it('queues with no agent at all, as matching none', () => {
    expect(route([], targets())).toEqual({ kind: 'queued', why: 'no agent matches the targets' });
  });
});

describe('the queue', () => {
  it('routes a queued hand-over when a matching agent is online with room, oldest first, counting each routing', () => {
    const w = world();
    w.agent(7n, { name: 'Zoe', skills: [12n], capacity: 1 });
    const first = w.thread(w.client(1n), { sessionId: 's-1' });
    const second = w.thread(w.client(2n), { sessionId: 's-2' });
    w.enqueue(first, { skillIds: [12n] });
    w.enqueue(second, { skillIds: [12n] });
    expect(drainQueue(w.view)).toEqual([
      {
        type: 'handover.routed',
        sessionId: 's-1',
        scope: 'thread',
        questionId: null,
        agentId: 7n,
        agentName: 'Zoe',
        matched: ['skillIds'],
        fromQueue: true,
      },
    ]);
  });

  it('counts each routing against the agent it went to, not another', () => {
    const w = world();
    w.agent(1n, { name: 'Ann', capacity: 1 });
    w.agent(2n, { name: 'Bob', capacity: 1 });
    w.enqueue(w.thread(w.client(1n), { sessionId: 's-1' }), { userIds: [2n] });
    w.enqueue(w.thread(w.client(2n), { sessionId: 's-2' }));
    w.enqueue(w.thread(w.client(3n), { sessionId: 's-3' }));
    expect(drainQueue(w.view).map((event) => [event.sessionId, event.agentName])).toEqual([
      ['s-1', 'Bob'],
      ['s-2', 'Ann'],
    ]);
  });

  it('gives nothing with an empty queue', () => {
    const w = world();
    w.agent(1n);
    expect(drainQueue(w.view)).toEqual([]);
  });

  it('leaves in the queue what still has no agent, with no event', () => {
    const w = world();
    w.agent(7n, { skills: [12n], status: 'away', reason: 'LUNCH' });
    w.enqueue(w.thread(w.client(1n)), { skillIds: [12n] });
    expect(drainQueue(w.view)).toEqual([]);
  });

  it('routes a later hand-over past an earlier one that no agent can take', () => {
    const w = world();
    w.agent(7n, { skills: [12n] });
    w.enqueue(w.thread(w.client(1n), { sessionId: 's-1' }), { skillIds: [99n] });
    w.enqueue(w.thread(w.client(2n), { sessionId: 's-2' }), { skillIds: [12n] });
    expect(drainQueue(w.view).map((event) => event.sessionId)).toEqual(['s-2']);
  });
});

describe('the event of a hand-over', () => {
  it('names the agent routed to and what matched', () => {
    const w = world();
    w.agent(7n, { name: 'Zoe', skills: [12n] });
    const handover = { sessionId: 's-1', scope: 'thread' as const, questionId: null, targets: targets({ skillIds: [12n] }) };
    expect(routingEvent(w.view, handover)).toEqual({
      type: 'handover.routed',
      sessionId: 's-1',
      scope: 'thread',
      questionId: null,
      agentId: 7n,
      agentName: 'Zoe',
      matched: ['skillIds'],
      fromQueue: false,
    });
  });

  it('counts what an agent holds against its capacity', () => {
    const w = world();
    const zoe = w.agent(7n, { skills: [12n], capacity: 1 });
    w.assign(zoe, w.thread(w.client(1n)));
    const handover = { sessionId: 's-9', scope: 'question' as const, questionId: 5001n, targets: targets({ skillIds: [12n] }) };
    expect(routingEvent(w.view, handover)).toEqual({
      type: 'handover.queued',
      sessionId: 's-9',
      scope: 'question',
      questionId: 5001n,
      why: 'all matching agents are away or full',
    });
  });
});
