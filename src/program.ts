import { Command, CommanderError } from 'commander';
import { configure, configureTree, type CommandFactory, type Invocation } from './commands/definition.js';
import { replyCommand } from './commands/reply/command.js';
import { greetCommand } from './commands/greet/command.js';
import { reasonCommand } from './commands/reason/command.js';
import { sandboxCommand } from './commands/sandbox/command.js';
import { bridgeCommand } from './commands/bridge/command.js';
import { customerCommand } from './commands/customer/command.js';
import { agentCommand } from './commands/agent/command.js';
import { testCommand } from './commands/test-command/command.js';
import { checkBotCommand } from './commands/check-bot/command.js';
import { configCommand } from './commands/config/command.js';
import { schemaCommand } from './commands/schema/command.js';
import { completionCommand } from './commands/completion/command.js';
import { apiCommand } from './commands/api/command.js';
import { exampleCommand } from './commands/example/command.js';
import { doctorCommand } from './commands/doctor/command.js';
import { mcpCommand } from './commands/mcp/command.js';
import { versionCommand } from './commands/version/command.js';
import { DOCS_URL, isTopic, TOPICS, TOPIC_NAMES, type Direct, type TopicName } from './commands/help-topics.js';
import { version } from './version.js';

/** The commands, by name, in the order help lists them. Each factory module is small; its run function is imported lazily. */
const commands: Record<string, CommandFactory> = {
  reply: replyCommand,
  greet: greetCommand,
  reason: reasonCommand,
  api: apiCommand,
  sandbox: sandboxCommand,
  customer: customerCommand,
  agent: agentCommand,
  test: testCommand,
  'check-bot': checkBotCommand,
  bridge: bridgeCommand,
  mcp: mcpCommand,
  example: exampleCommand,
  config: configCommand,
  doctor: doctorCommand,
  schema: schemaCommand,
  completion: completionCommand,
  version: versionCommand,
};

/** The command names, in the order help lists them (for the short usage of a bare `core`). */
export const COMMAND_NAMES = Object.keys(commands);

/** Root options that take a value, so the word after them is not a command name. */
const ROOT_VALUE_OPTIONS = new Set(['--config', '-p', '--profile']);

/** Where the first word from `from` that is not an option (nor a root option's value) is; -1 if none, or `--` comes first. */
function firstWord(argv: readonly string[], from = 0): number {
  for (let i = from; i < argv.length; i += 1) {
    const word = argv[i]!;
    if (word === '--') return -1;
    if (ROOT_VALUE_OPTIONS.has(word)) {
      i += 1;
      continue;
    }
    if (!word.startsWith('-')) return i;
  }
  return -1;
}

/**
 * `core help reason update` as `core reason update --help`: commander's help command reads only the
 * first word. Options may stand before or after `help` (`core help --no-color sandbox` is the
 * sandbox's help, never the sandbox). An unknown name is passed on as a command, so commander
 * reports it as unknown; `help` alone is commander's overview.
 */
export function expandHelp(argv: readonly string[]): string[] {
  const at = firstWord(argv);
  if (at < 0 || argv[at] !== 'help') return [...argv];
  const named = firstWord(argv, at + 1);
  if (named < 0) return [...argv];
  const rest = [...argv.slice(0, at), ...argv.slice(at + 1)];
  if (!Object.hasOwn(commands, argv[named]!)) return rest;
  // --help right after the command's words (`reason update`), before any option: at the end it would be
  // the value of an option that takes one (`core help sandbox --config` would start a sandbox).
  let end = named;
  while (end + 1 < argv.length && !argv[end + 1]!.startsWith('-')) end += 1;
  return [...argv.slice(0, at), ...argv.slice(at + 1, end + 1), '--help', ...argv.slice(end + 1)];
}

/**
 * Lines main answers itself: `core help <topic>` (commander would take a topic for an unknown
 * command, or for the command of the same name), `core` with no command (a short usage, exit 0, as gh does), and
 * `core --version --json` (commander prints its version before it reads --json). Root options may
 * stand anywhere on these lines.
 */
export function directInvocation(argv: readonly string[]): Direct | undefined {
  const at = firstWord(argv);
  if (at >= 0 && argv[at] === 'help') {
    const named = firstWord(argv, at + 1);
    // `config` is a topic and a command: `core help config` is the topic, which points to
    // `core config --help` (and `core help config show` is the subcommand's help).
    if (named < 0 || !isTopic(argv[named]!)) return undefined;
    // Anything else on the line but root options: commander says what is wrong with it.
    return firstWord(argv, named + 1) < 0 && !argv.some((word) => word === '--help' || word === '-h')
      ? { kind: 'topic', name: argv[named] as TopicName }
      : undefined;
  }
  if (at >= 0) return undefined;
  const flags = argv.filter((word, index) => !(index > 0 && ROOT_VALUE_OPTIONS.has(argv[index - 1]!)) && !ROOT_VALUE_OPTIONS.has(word));
  const rest = flags.filter((word) => word !== '--no-color');
  if (rest.length === 0) return { kind: 'usage' };
  if (rest.length === 2 && rest.includes('--json') && (rest.includes('--version') || rest.includes('-V')))
    return { kind: 'version', json: true };
  return undefined;
}

/**
 * The command an argv names, when it names one whose tree is enough to run it. Building only that
 * command spares every run the others' definitions; help, completion and anything unrecognised get
 * the whole tree.
 */
export function invokedCommand(argv: readonly string[]): string | undefined {
  const at = firstWord(argv);
  if (at < 0) return undefined;
  const word = argv[at]!;
  return Object.hasOwn(commands, word) && word !== 'completion' ? word : undefined;
}

/** Builds the program: every command, or only `only` (see invokedCommand). */
export async function buildProgram(inv: Invocation, only?: string): Promise<Command> {
  const program = configure(new Command('core'), inv.ctx)
    .description('Talk to the chatbot integration API from a shell: bot replies, hand-over to agents, greetings, inactivity reasons.')
    .version(version(), '-V, --version', 'print the version')
    .option('--config <file>', 'use this config file and skip the search (env CORE_CONFIG)')
    .option('-p, --profile <name>', 'the profile to use (env CORE_PROFILE)')
    .option('--no-color', 'no colour in output (also NO_COLOR)')
    .helpCommand('help [command]', 'show help for a command, or a help topic')
    .addHelpText(
      'after',
      `
Help topics (core help <topic>):
${topicLines()}

Docs: ${DOCS_URL} (and man core)

Examples:
  $ core sandbox &                                   # a local platform to try things on
  $ core customer say "Where is my order?"           # play the customer of your bot
  $ core test tests/ --bot-url http://127.0.0.1:3000/webhook --port 8080   # its conversations as tests
  $ export CORE_BASE_URL=https://chat.example.com CORE_TENANT=acme CORE_TOKEN=...
  $ core reply --core-client-id 1234567 -t "Your order has shipped."
  $ core greet --core-client-id 1234567 -t "Hi! Need a hand?" --quick-reply Yes --quick-reply No
  $ core reason update --code LUNCH --name en=Lunch --name de=Mittagspause --inactive
  $ core reason update -f reasons.ndjson --report applied.ndjson
  $ core help reply
  $ core help environment
  $ core doctor                                      # is everything in place?`,
    );

  const names = only !== undefined && Object.hasOwn(commands, only) ? [only] : Object.keys(commands);
  for (const name of names) program.addCommand(configureTree(commands[name]!(inv), inv.ctx));
  return program;
}

/** The topics, a line each, as the root's help lists them. */
function topicLines(): string {
  const width = Math.max(...TOPIC_NAMES.map((name) => name.length));
  return TOPIC_NAMES.map((name) => `  ${name.padEnd(width)}  ${TOPICS[name]}`).join('\n');
}

export { CommanderError };
export type { Invocation } from './commands/definition.js';
