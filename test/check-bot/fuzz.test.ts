import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { FLAKY } from '../../src/testing/fuzz/fuzz.js';
import { freePort } from '../helpers/processes.js';
import { baseEnv, ensureBuilt, killStillRunning, runBuilt } from '../helpers/run.js';
import { startBot, type Flaws } from './bots.js';

/**
 * `core check-bot --fuzz N` (docs/check-bot.md, "Fuzzing"), the built binary against bots that each
 * have one hidden flaw: each flaw is found within N conversations of a fixed seed, reported as the
 * check of the rule it breaks, shrunk to its smallest case, and the replay command printed with it
 * reproduces the failure alone. A flawless bot gets no failure.
 *
 * The counts are counts of conversations, never of time: the --timeout below only bounds how long an
 * answer may take on loopback.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const TIMEOUT = '5s';
const SEED = '7';
const RUNS = '150';
/** Only catches a hang: a run of hundreds of conversations and their shrinking, on a loaded machine. */
const HANG_LIMIT = 900_000;

interface FuzzCheck {
  id: string;
  status: 'pass' | 'fail';
  message: string;
  replay?: string | null;
  command?: string | null;
  delivery?: string | null;
}

interface Report {
  ok: boolean;
  checks: FuzzCheck[];
}

afterEach(() => killStillRunning());
beforeAll(() => ensureBuilt());

/** A bot with `flaws`, and core check-bot run against it through the sandbox it starts on `port`. */
async function fuzz(flaws: Flaws, args: string[]) {
  const port = await freePort();
  const bot = await startBot(SECRET, flaws);
  bot.connect(`http://127.0.0.1:${port}`);
  const env = baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET });
  const run = async (more: string[]) => {
    const result = await runBuilt(
      ['check-bot', '--bot-url', bot.url, '--port', String(port), '--timeout', TIMEOUT, '--reporter', 'json', ...more],
      { env },
    );
    return { ...result, report: JSON.parse(result.stdout) as Report };
  };
  return { ...(await run(args)), env };
}

/** The words of a printed command line, as a POSIX shell splits them (single quotes only, as core writes them). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) words.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : match[2]!);
  return words;
}

/** The delivery's message, read as the bot reads it. */
const messageOf = (delivery: string) => (parseJson(delivery) as { message: Record<string, unknown> }).message;

const FLAWED: {
  flaw: string;
  flaws: Flaws;
  rule: string;
  /** What the shrunk delivery must be: the smallest that still breaks the rule. */
  minimal: (message: Record<string, unknown>) => void;
}[] = [
  {
    flaw: 'answers 500 to any text over 1,000 characters',
    flaws: { failsOverLength: 1000 },
    rule: 'fuzz.server-error',
    minimal: (message) => {
      expect((message.text as string).length).toBe(1001);
      expect(message.text).toBe('a'.repeat(1001));
    },
  },
  {
    flaw: 'crashes (drops the connection) on a right-to-left mark',
    flaws: { crashesOn: '\u200F' },
    rule: 'fuzz.no-response',
    minimal: (message) => expect(message.text).toBe('\u200F'),
  },
  {
    flaw: 'addresses an EMAIL answer by questionId alone from the second question on',
    flaws: { emailByQuestionIdAfterFirst: true },
    rule: 'fuzz.email-addressing',
    minimal: (message) => {
      expect(message.channel).toBe('EMAIL');
      expect(message.questionIndex).toBe(2n);
      expect(message.text).toBe('a');
    },
  },
  {
    flaw: 'answers a redelivered message anew, with a new answerId',
    flaws: { replay: 'new-answerId' },
    rule: 'fuzz.redelivery-answered',
    minimal: (message) => {
      expect(message.questionIndex).toBe(1n);
      expect(message.text).toBe('a');
    },
  },
  {
    flaw: 'reads identifiers as doubles, so an id past 2^53 comes back rounded',
    flaws: { readsIdsAsDoubles: true },
    rule: 'fuzz.ids',
    minimal: (message) => {
      const ids = [message.questionId, message.coreClientId] as bigint[];
      expect(ids.some((id) => id > 2n ** 53n)).toBe(true);
      expect(message.questionIndex).toBe(1n);
      expect(message.text).toBe('a');
    },
  },
];

describe('core check-bot --fuzz against a bot with one hidden flaw', () => {
  it.each(FLAWED)(
    'finds that the bot $flaw, shrinks it and prints a replay that reproduces it',
    async ({ flaws, rule, minimal }) => {
      const { code, report, env, stderr } = await fuzz(flaws, ['--fuzz', RUNS, '--seed', SEED]);
      expect(stderr).toContain(`core check-bot: ${RUNS} fuzzed conversations (seed ${SEED})`);
      expect(code).toBe(3);
      expect(report.ok).toBe(false);
      const found = report.checks.find((check) => check.id === rule);
      expect(found, JSON.stringify(report.checks, null, 2)).toBeDefined();
      // No other rule, unless it did not come again when played alone: a loaded machine can make a
      // delivery time out in a run of eight conversations at once.
      const others = report.checks.filter((check) => check.status === 'fail' && check.id !== rule && !check.message.includes(FLAKY));
      expect(others, JSON.stringify(report.checks, null, 2)).toEqual([]);
      expect(found!.replay).toMatch(new RegExp(`^${SEED}:\\d+(:\\d+)*$`));
      expect(found!.command).toContain(`core check-bot --fuzz-replay ${found!.replay}`);
      minimal(messageOf(found!.delivery!));

      // The printed command, run alone, breaks the same rule with the same delivery (its text and ids).
      const [core, command, ...args] = shellWords(found!.command!);
      expect([core, command]).toEqual(['core', 'check-bot']);
      const again = await runBuilt([command!, ...args, '--reporter', 'json'], { env });
      expect(again.code).toBe(3);
      const replayed = (JSON.parse(again.stdout) as Report).checks.find((check) => check.id === rule);
      expect(replayed, again.stdout).toBeDefined();
      expect(messageOf(replayed!.delivery!).text).toBe(messageOf(found!.delivery!).text);
    },
    HANG_LIMIT,
  );
});

describe('core check-bot --fuzz against a flawless bot', () => {
  it(
    'finds nothing, and the same seed gives the same run',
    async () => {
      const { code, report } = await fuzz({}, ['--fuzz', '100', '--seed', SEED]);
      expect(
        report.checks.filter((check) => check.status === 'fail'),
        JSON.stringify(report.checks, null, 2),
      ).toEqual([]);
      expect(report.checks.map((check) => check.id)).toEqual(['fuzz']);
      expect(report.checks[0]!.message).toMatch(new RegExp(`^100 conversations of seed ${SEED}: `));
      expect(code).toBe(0);
    },
    HANG_LIMIT,
  );
});
