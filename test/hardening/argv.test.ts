import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeTree, type CommandSpec, type OptionSpec } from '../../src/commands/completion/tree.js';
import { createContext } from '../../src/context.js';
import { buildProgram } from '../../src/program.js';
import { runInProcess } from '../helpers/run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { hangLimit } from '../helpers/time-scale.js';
import { happens } from '../helpers/wait.js';

/**
 * Arbitrary command lines for every command, mixing the real option names (read from commander's
 * own tree, so a new option is covered as soon as it exists), plausible and hostile values, and
 * junk. Whatever is typed, core ends with 0, 2 (usage, config or payload), or an HTTP or network
 * code (4, 5, 6), with something printed when it fails, and never with a stack trace or exit 1.
 *
 * The runs are in-process against a recording server, with standard input closed and not a
 * terminal, so nothing prompts or waits. `core sandbox` is left out: it serves until stopped.
 *
 * Bounded by work, not by the clock: each property makes a fixed number of runs, each run may take
 * RUN_LIMIT_MS before it counts as hung (a limit that only catches a hang, named with its command
 * line), and a property's own limit is that times its runs. A busy machine makes them slower, never
 * red: 200 runs once took more than the 30 s every test had then.
 */

/** The longest one command line may run before it counts as hung (scaled to the machine's load by `happens`). */
const RUN_LIMIT_MS = 60_000;
/** A property's time limit: its runs' (fast-check may shrink a failure with as many again). */
const limitFor = (runs: number) => hangLimit(2 * runs * RUN_LIMIT_MS);

const ALLOWED = [0, 2, 4, 5, 6];
/** core doctor reports a setting it cannot use as a failed check, and ends with 1 when one fails (its contract). */
const allowedFor = (argv: readonly string[]) => (argv.includes('doctor') ? [...ALLOWED, 1] : ALLOWED);

function walk(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(walk)];
}

const junk = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.constantFrom(
    '',
    ' ',
    '-',
    '--',
    '---',
    '-x',
    '--nope',
    '--text=',
    '-tv',
    '-vt',
    '=',
    '\u0000',
    '\n',
    '%s',
    '$(echo hi)',
    '../..',
    '/',
    '.',
  ),
);

const FILE_VALUES = [
  'reply.json',
  'greet.yaml',
  'reasons.ndjson',
  'bad.json',
  'folder',
  'missing.json',
  '-',
  'empty.json',
  'invalid-utf8.json',
  'array.json',
];
const TEXT_VALUES = [
  '1',
  '0',
  '-1',
  '42',
  '9223372036854775807',
  '9223372036854775808',
  '99999999999999999999',
  '1e3',
  '0x10',
  'now',
  'NOW',
  'en=Lunch',
  'de=',
  '=x',
  'EN=Lunch',
  'k=v',
  '#FF8800',
  '#fff',
  'INIT_CHAT',
  'SWITCH_TO_HUMAN',
  'strict',
  '10s',
  '1ms',
  '0ms',
  '2147483648',
  'https://example.com/a.png',
  'ftp://x',
  'http://127.0.0.1:1',
  'staging',
  'x'.repeat(5000),
  '😀'.repeat(2001),
  '2026-02-30T00:00:00.000Z',
];

function optionToken(option: OptionSpec, names: string[]): fc.Arbitrary<string[]> {
  const name = fc.constantFrom(...names);
  if (option.value === undefined) return name.map((n) => [n]);
  const words = option.value.kind === 'words' ? option.value.words : [];
  const values = option.value.kind === 'file' ? FILE_VALUES : TEXT_VALUES;
  const value = fc.oneof(fc.constantFrom(...words, ...values), junk);
  return fc.oneof(
    fc.tuple(name, value).map(([n, v]) => [n, v]),
    fc.tuple(name, value).map(([n, v]) => [n.startsWith('--') ? `${n}=${v}` : `${n}${v}`]),
    // The value left out: the next word is taken as the value, or the line ends.
    name.map((n) => [n]),
  );
}

/** Flags that make a valid payload, so that many runs get past validation and reach the server. */
const ENOUGH: Record<string, string[]> = {
  reply: ['--core-client-id', '1', '-t', 'hi'],
  greet: ['--core-client-id', '1', '-t', 'hello'],
  'reason update': ['--code', 'LUNCH', '--name', 'en=Lunch'],
};

function argvFor(spec: CommandSpec, everyCommandName: string[]): fc.Arbitrary<string[]> {
  const tokensOf = (options: OptionSpec[]) =>
    options.map((option) =>
      optionToken(
        option,
        [option.long, option.short].filter((n): n is string => n !== undefined),
      ),
    );
  const own = tokensOf(spec.options);
  const global = tokensOf(spec.globalOptions);
  const word = fc.oneof(
    ...(own.length > 0 ? [{ arbitrary: fc.oneof(...own), weight: 12 }] : []),
    // --config and --profile mostly name nothing here, which ends the run early: less often.
    ...(global.length > 0 ? [{ arbitrary: fc.oneof(...global), weight: 2 }] : []),
    { arbitrary: junk.map((j) => [j]), weight: 1 },
    { arbitrary: fc.constantFrom(...everyCommandName, ...TEXT_VALUES.slice(0, 10)).map((w) => [w]), weight: 1 },
  );
  const enough = ENOUGH[spec.path.join(' ')] ?? [];
  return fc.tuple(fc.boolean(), fc.array(word, { maxLength: 6 })).map(([start, words]) => {
    const argv = [...spec.path, ...(start ? enough : []), ...words.flat()];
    // The sandbox serves until it is stopped: never reached from here.
    return spec.path.length === 0 ? argv.filter((w) => w !== 'sandbox') : argv;
  });
}

// The command tree, read once before the tests are collected, so that each command has a test and
// each property a limit that fits its work.
const tree = describeTree(
  await buildProgram({
    ctx: createContext({ streams: { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }, env: {}, cwd: process.cwd() }),
    exitCode: undefined,
  }),
);
const specs = walk(tree).filter((spec) => spec.path[0] !== 'sandbox');
const commandNames = [...new Set(walk(tree).flatMap((spec) => spec.path))];

describe('arbitrary command lines', () => {
  let server: RecordingServer;

  beforeAll(async () => {
    let hit = 0;
    // Most answers are 200; some are 4xx or 5xx, so those exits are reached too (5xx without Retry-After backoff is short).
    server = await startRecordingServer(() => {
      hit += 1;
      return hit % 7 === 0
        ? { status: 404, body: '{"message":"no such reason"}' }
        : hit % 11 === 0
          ? { status: 500, body: 'oops' }
          : { status: 200 };
    });
  });
  afterAll(() => server.close());

  /** A fresh folder per run: a private home, and payload files of every kind to name with -f. */
  function workspace(): { dir: string; env: Record<string, string | undefined> } {
    const dir = mkdtempSync(join(tmpdir(), 'core-argv-'));
    const home = join(dir, 'home');
    mkdirSync(home);
    mkdirSync(join(dir, 'folder'));
    writeFileSync(join(dir, 'reply.json'), '{"text":"hi","coreClientId":1,"answerId":"a-1"}');
    writeFileSync(join(dir, 'greet.yaml'), 'text: hello\ncoreClientId: 9223372036854775807\n');
    writeFileSync(join(dir, 'reasons.ndjson'), '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}]}\n{"code":"X","reasons":[]}\n');
    writeFileSync(join(dir, 'bad.json'), '{"text": ');
    writeFileSync(join(dir, 'empty.json'), '');
    writeFileSync(join(dir, 'array.json'), '[1,2,3]');
    writeFileSync(join(dir, 'invalid-utf8.json'), Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    return {
      dir,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        CORE_BASE_URL: server.url,
        CORE_TENANT: 'acme',
        CORE_TOKEN: 'argv-fuzz-token',
        CORE_TIMEOUT: '5s',
      },
    };
  }

  async function check(argv: string[]): Promise<void> {
    const { dir, env } = workspace();
    const run = await happens(runInProcess(argv, { env, cwd: dir }), `core ${JSON.stringify(argv)} to end`, RUN_LIMIT_MS);
    const shown = `core ${JSON.stringify(argv)} exited ${run.code}\nstdout: ${run.stdout.slice(0, 500)}\nstderr: ${run.stderr.slice(0, 1500)}`;
    expect(allowedFor(argv), shown).toContain(run.code);
    expect(run.stderr, shown).not.toMatch(/\n\s+at /);
    expect(run.stderr, shown).not.toContain('unexpected failure');
    if (run.code !== 0) expect((run.stdout + run.stderr).trim().length, shown).toBeGreaterThan(0);
  }

  it(
    'end with 0, 2, 4, 5 or 6, a message, and no stack trace, for any command (200 runs)',
    async () => {
      const arbitrary = fc.constantFrom(...specs).chain((spec) => argvFor(spec, commandNames));
      await fc.assert(fc.asyncProperty(arbitrary, check), { numRuns: 200 });
    },
    limitFor(200),
  );

  it(
    'send, or refuse with exit 2, any text given to the free-text options of the sending commands (100 runs)',
    async () => {
      const before = server.requests.length;
      const freeText = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 30 }), junk);
      const pick = (flags: string[]) =>
        fc.array(fc.tuple(fc.constantFrom(...flags), freeText), { maxLength: 4 }).map((pairs) => pairs.flat());
      const plain = fc.subarray(['--json', '--verbose', '--no-color']);
      const arbitrary = fc.oneof(
        fc
          .tuple(
            pick([
              '-t',
              '--markdown',
              '--answer-id',
              '--session-id',
              '--quick-reply',
              '--contact-reply',
              '--personal-manager',
              '--action',
              '--segment',
            ]),
            plain,
          )
          .map(([flags, extra]) => ['reply', '--core-client-id', '7', '-t', 'x', ...flags, ...extra]),
        fc
          .tuple(pick(['-t', '--quick-reply', '--contact-reply', '--client-id']), plain)
          .map(([flags, extra]) => ['greet', '--core-client-id', '7', '-t', 'x', ...flags, ...extra]),
        fc
          .tuple(pick(['--code', '--name']), plain)
          .map(([flags, extra]) => ['reason', 'update', '--code', 'C', '--name', 'en=x', ...flags, ...extra]),
      );
      await fc.assert(fc.asyncProperty(arbitrary, check), { numRuns: 100 });
      // Most of them reach the service: the property is not passing on refusals alone.
      expect(server.requests.length - before).toBeGreaterThan(30);
    },
    limitFor(100),
  );

  it.each(specs.map((spec) => [spec.path.join(' ') || '(no command)', spec] as const))(
    'do the same for core %s (25 runs)',
    async (_name, spec) => {
      await fc.assert(fc.asyncProperty(argvFor(spec, commandNames), check), { numRuns: 25 });
    },
    limitFor(25),
  );
});
