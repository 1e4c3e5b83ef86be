import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { flatten } from '../../src/commands/completion/tree.js';
import { main } from '../../src/main.js';
import { commandTree } from '../../scripts/docs/generate.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, ensureBuilt, runBuilt, runInProcess, type RunResult } from '../helpers/run.js';
import { memoryStreams } from '../helpers/streams.js';

/**
 * Every command that takes -i refuses it at once without a terminal: exit 2, one line saying so,
 * a hint naming the flags to pass instead, nothing asked and nothing sent. Prompting on a pipe
 * would wait forever on an idle one (inquirer does not check), so this is checked with standard
 * input ended and with an open idle pipe, in-process, and for `core reply -i` in the built binary.
 */

const commands: Array<{ name: string; argv: string[]; hint: string }> = [
  {
    name: 'core reply -i',
    argv: ['reply'],
    hint: 'pass the payload as flags instead: -t/--text with --core-client-id (or another address), or -f FILE',
  },
  { name: 'core greet -i', argv: ['greet'], hint: 'pass the payload as flags instead: -t/--text with --core-client-id, or -f FILE' },
  {
    name: 'core reason update -i',
    argv: ['reason', 'update'],
    hint: 'pass the payload as flags instead: --code CODE --name LOCALE=TEXT (with --color, --active or --inactive, --system as needed), or -f FILE',
  },
];

/** Runs `argv` in this process with standard input an open pipe that never sends anything. */
async function withIdlePipe(argv: string[], env: Record<string, string | undefined>): Promise<RunResult> {
  const io = memoryStreams();
  const code = await main({ argv, streams: io.streams, env, cwd: env.HOME! });
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

type Way = [string, (argv: string[], env: Record<string, string | undefined>) => Promise<RunResult>];
const ways: Way[] = [
  ['standard input ended', (argv, env) => runInProcess(argv, { env })],
  ['standard input an open, idle pipe', withIdlePipe],
];
/** The built binary, once: what it does with a pipe is the same for every command. */
const built: Way = ['the built binary, standard input a pipe', (argv, env) => runBuilt(argv, { env })];

let server: RecordingServer;
beforeAll(async () => {
  ensureBuilt();
  server = await startRecordingServer();
  return () => server.close();
});

describe.each(commands.map((command) => [command.name, command] as const))('%s without a terminal', (name, { argv, hint }) => {
  let before: number;
  afterEach(() => expect(server.requests.length, 'requests sent').toBe(before));

  it.each(name === commands[0]!.name ? [...ways, built] : ways)(
    'exits 2 at once, naming the flags to pass instead, with %s',
    async (_way, run) => {
      before = server.requests.length;
      const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: 'tok-no-terminal-1' });
      const result = await run([...argv, '-i'], env);
      expect(result.stderr).toBe(`error: ${name} needs a terminal, and standard input is not one\nhint: ${hint}\n`);
      expect(result.stdout).toBe('');
      expect(result.code).toBe(2);
    },
  );
});

it('covers every command that takes -i', async () => {
  const { root } = await commandTree();
  const interactive = flatten(root)
    .filter((command) => command.options.some((option) => option.long === '--interactive'))
    .map((command) => command.path.join(' '));
  expect(interactive.sort()).toEqual(commands.map((command) => command.argv.join(' ')).sort());
});
