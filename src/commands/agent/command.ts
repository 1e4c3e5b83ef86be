import { Command } from 'commander';
import { globalOptions, type CommandFactory } from '../definition.js';
import type { AgentCommonOptions } from './run.js';

/** `core agent`: the agents of a running `core sandbox`, from a shell (docs/sandbox.md, "Agents"). */
export const agentCommand: CommandFactory = (inv) => {
  const group = new Command('agent')
    .summary('play an agent of a core sandbox: list agents, set a status, answer a thread, give it back to the bot')
    .description(
      'The agents of a running `core sandbox`: list them with the threads they hold and the queue, set one online or ' +
        'away (with the code of an active inactivity reason), write in a thread as its agent, give a thread back to the ' +
        'bot. Talks to the sandbox at --sandbox URL (default CORE_BASE_URL, as core sandbox prints it); needs no token. ' +
        'Exit status: 0 done, 4 refused by the sandbox, 6 the sandbox could not be reached, 2 bad usage. See docs/sandbox.md.',
    );
  const common = (cmd: Command) =>
    cmd
      .option('--sandbox <url>', "the sandbox's base URL, as core sandbox prints it (default CORE_BASE_URL)")
      .option('--timeout <duration>', 'time limit of the request to the sandbox (default 30s)')
      .option('--json', "print the sandbox's answer as one JSON document");
  const base = (raw: Record<string, unknown>, self: Command): AgentCommonOptions => ({
    global: globalOptions(self),
    json: raw.json === true,
    ...(typeof raw.sandbox === 'string' ? { sandbox: raw.sandbox } : {}),
    ...(typeof raw.timeout === 'string' ? { timeout: raw.timeout } : {}),
  });

  const list = common(new Command('list').summary('list the agents, what each holds, and the queue'));
  list.action(async (raw: Record<string, unknown>, self: Command) => {
    const { runAgentList } = await import('./run.js');
    inv.exitCode = await runAgentList(base(raw, self), inv.ctx);
  });

  const say = common(
    new Command('say')
      .summary('write in a thread as the agent that holds it')
      .argument('<text>', 'what the agent writes')
      .requiredOption('--session <id>', 'the thread: its sessionId')
      .option('--agent <id>', 'the agent writing; it must hold the thread (default: the agent that holds it)'),
  );
  say.action(async (text: string, raw: Record<string, unknown>, self: Command) => {
    const { runAgentSay } = await import('./run.js');
    inv.exitCode = await runAgentSay(
      { ...base(raw, self), text, session: raw.session as string, ...(typeof raw.agent === 'string' ? { agent: raw.agent } : {}) },
      inv.ctx,
    );
  });

  const status = common(
    new Command('status')
      .summary("set an agent online, or away with an active inactivity reason's code")
      .argument('<id>', "the agent's id")
      .argument('<status>', 'online or away')
      .option('--reason <code>', "with away: the code of one of the tenant's active inactivity reasons"),
  );
  status.action(async (id: string, wanted: string, raw: Record<string, unknown>, self: Command) => {
    const { runAgentStatus } = await import('./run.js');
    inv.exitCode = await runAgentStatus(
      { ...base(raw, self), id, status: wanted, ...(typeof raw.reason === 'string' ? { reason: raw.reason } : {}) },
      inv.ctx,
    );
  });

  const release = common(
    new Command('release').summary('give a thread back to the bot').requiredOption('--session <id>', 'the thread: its sessionId'),
  );
  release.action(async (raw: Record<string, unknown>, self: Command) => {
    const { runAgentRelease } = await import('./run.js');
    inv.exitCode = await runAgentRelease({ ...base(raw, self), session: raw.session as string }, inv.ctx);
  });

  const examples: [Command, string][] = [
    [list, '  $ core agent list\n  $ core agent list --json --sandbox http://127.0.0.1:8080'],
    [
      say,
      '  $ core agent say --session s-1f2e3d4c5b6a "Hello, Ann here. How can I help?"\n  $ core agent say --session s-1f2e3d4c5b6a --agent 102 "Boris here."',
    ],
    [status, '  $ core agent status 101 away --reason LUNCH\n  $ core agent status 101 online'],
    [release, '  $ core agent release --session s-1f2e3d4c5b6a\n  $ core agent release --session s-1f2e3d4c5b6a --json'],
  ];
  for (const [cmd, lines] of examples) cmd.addHelpText('after', `\nExamples:\n${lines}`);
  for (const cmd of [list, say, status, release]) group.addCommand(cmd);
  group.addHelpText(
    'after',
    `
Examples:
  $ core agent list
  $ core agent status 101 away --reason LUNCH
  $ core agent status 101 online
  $ core agent say --session s-1f2e3d4c5b6a "Hello, Ann here. How can I help?"
  $ core agent release --session s-1f2e3d4c5b6a --json`,
  );
  return group;
};
