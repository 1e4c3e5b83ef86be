import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { platform, reply, testFolder, type Message } from './platform.js';
import type { TestSandbox } from '../sandbox/helpers.js';

/**
 * `core test` with the agent's side (docs/testing-bots.md, "Agents"): `handover:` beside a bot step,
 * `agent:` and `release: true` steps, and routing in --coverage, through main() against an in-process
 * sandbox with its default agents (Ann 101 skill 12 capacity 2, Boris 102 skill 14 capacity 1, Chen
 * 103 away) and a scripted bot on loopback that hands over as the customer asks.
 */

/** "person": to skill 12 (Ann); "nobody": to skill 99 (no agent); "Chen": to agent 103 (away); "anyone": no targets. */
async function bot(message: Message, sb: TestSandbox) {
  const handover = (fields: Record<string, unknown>) =>
    reply(sb, message, { text: 'Passing you to a person.', code: 'SWITCH_TO_HUMAN', ...fields });
  if (/person/.test(message.text)) return handover({ skillIds: [12n] });
  if (/nobody/.test(message.text)) return handover({ skillIds: [99n] });
  if (/Chen/.test(message.text)) return handover({ userIds: [103n] });
  if (/anyone/.test(message.text)) return handover({});
  return reply(sb, message, { code: 'SUCCESS' });
}

async function run(files: Record<string, string>, extra: string[] = []) {
  const { sb, env } = await platform(bot);
  const folder = testFolder(files);
  const result = await runInProcess(['test', ...Object.keys(files), '--sandbox', sb.url, ...extra], { env, cwd: folder });
  return { ...result, sb };
}

const agentAnswers = `name: a person answers, then the bot again
steps:
  - customer: A person, please
  - bot: {code: SWITCH_TO_HUMAN}
    handover: {agent: 101}
  - agent: Ann here, how can I help?
  - customer: Where is my parcel?
  - bot: none
  - agent: It left this morning.
    agentId: 101
  - release: true
  - customer: Thanks
  - bot: {text: "You said: Thanks"}
`;

describe('core test steps of the agent side', () => {
  it('passes a conversation whose hand-over is routed to the agent it expects, who answers and gives the thread back', async () => {
    const result = await run({ 'agents.yaml': agentAnswers });
    expect(result.stdout).toMatch(/^✓ a person answers, then the bot again \(agents\.yaml:1, \S+\)$/m);
    expect(result.code).toBe(0);
    // The customer got the agent's messages, written by Ann, in the thread core test played.
    const written = result.sb.events().filter((event) => event.type === 'agent.message');
    expect(written.map((event) => [event.agentId, event.agentName, event.text])).toEqual([
      [101n, 'Ann', 'Ann here, how can I help?'],
      [101n, 'Ann', 'It left this morning.'],
    ]);
  });

  it.each([
    ['another agent', '{agent: 102}', 'the hand-over went to agent 101 (Ann), matched by skillIds; the step expects agent 102'],
    ['the queue', 'queued', 'the hand-over went to agent 101 (Ann), matched by skillIds; the step expects it queued'],
  ])('fails, naming where the hand-over went, when the step expects %s', async (_, expected, message) => {
    const result = await run({
      'agents.yaml': `steps:\n  - customer: A person, please\n  - bot: {code: SWITCH_TO_HUMAN}\n    handover: ${expected}\n`,
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('step 2, line 3 (bot)');
    expect(result.stdout).toContain(`  ${message}\n`);
  });

  it.each([
    ['no agent has the skill', 'nobody there?', 'no agent matches the targets'],
    ['the agent named is away', 'Chen, please', 'all matching agents are away or full'],
  ])('passes handover: queued when %s, and fails {agent: ID} saying why it was queued', async (_, text, why) => {
    const queued = await run({ 'q.yaml': `steps:\n  - customer: ${text}\n  - bot: {code: SWITCH_TO_HUMAN}\n    handover: queued\n` });
    expect(queued.code).toBe(0);
    const routed = await run({ 'q.yaml': `steps:\n  - customer: ${text}\n  - bot: {code: SWITCH_TO_HUMAN}\n    handover: {agent: 101}\n` });
    expect(routed.code).toBe(3);
    expect(routed.stdout).toContain(`  the hand-over was queued (${why}); the step expects agent 101\n`);
  });

  it('fails a handover expectation on an answer that hands nothing over', async () => {
    const result = await run({ 'a.yaml': 'steps:\n  - customer: hello\n  - bot: {}\n    handover: {agent: 101}\n' });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      '  the answer hands nothing over (code SUCCESS), and the step expects a hand-over routed to agent 101: the bot answers with SWITCH_TO_HUMAN or UNCLEAR_QUESTION to hand over\n',
    );
  });

  it.each([
    [
      'an agent writes in a thread with the bot',
      'steps:\n  - customer: hello\n  - bot: {}\n  - agent: Hi\n',
      "the sandbox refused the agent's message: 409 ",
    ],
    [
      'an agent who does not hold the thread writes',
      'steps:\n  - customer: A person\n  - bot: {}\n  - agent: Hi\n    agentId: 102\n',
      "the sandbox refused the agent's message: 409 agent 102 does not hold thread",
    ],
    [
      'a thread with the bot is given back',
      'steps:\n  - customer: hello\n  - bot: {}\n  - release: true\n',
      'nothing to give back: the thread and its questions are with the bot',
    ],
  ])('fails the step when %s', async (_, file, message) => {
    const result = await run({ 'a.yaml': file });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('step 3, line 4 (');
    expect(result.stdout).toContain(`  ${message}`);
  });

  it('gives a thread still with an agent back when its run ends, so every run of --repeat (one at a time) meets the same agents', async () => {
    const result = await run(
      { 'a.yaml': 'steps:\n  - customer: anyone?\n  - bot: {code: SWITCH_TO_HUMAN}\n    handover: {agent: 101}\n' },
      ['--repeat', '3', '--concurrency', '1'],
    );
    expect(result.stdout).toMatch(/^1 passed, 0 failed \(1 conversation in 1 file, 3 runs each/m);
    expect(result.code).toBe(0);
    expect(result.sb.events().filter((event) => event.type === 'released')).toHaveLength(3);
  });

  it('counts the routings in --coverage', async () => {
    const result = await run(
      {
        'a.yaml': agentAnswers,
        'b.yaml': 'steps:\n  - customer: nobody?\n  - bot: {}\n    handover: queued\n',
        'c.yaml': 'steps:\n  - customer: Chen?\n  - bot: {}\n    handover: queued\n',
      },
      ['--coverage', '--reporter', 'json', '--concurrency', '1'],
    );
    expect(result.code).toBe(0);
    const { coverage } = JSON.parse(result.stdout) as { coverage: { exercised: Record<string, number>; notExercised: string[] } };
    expect(coverage.exercised).toMatchObject({ routedBySkillIds: 1, queuedNoMatch: 1, queuedAwayOrFull: 1 });
    expect(coverage.notExercised).toEqual(
      expect.arrayContaining(['routedByUserIds', 'routedByUnitIds', 'routedToAnyAgent', 'routedFromQueue']),
    );
  });
});
