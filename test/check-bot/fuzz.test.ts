import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Parser as TapParser } from 'tap-parser';
import { afterAll, beforeAll, describe, it, type ExpectStatic as Expect } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { FLAKY } from '../../src/testing/fuzz/fuzz.js';
import { freePort } from '../helpers/processes.js';
import { baseEnv, ensureBuilt, killStillRunning, runBuilt } from '../helpers/run.js';
import { startBot, type Flaws, type TestBot } from './bots.js';

/**
 * `core check-bot --fuzz N` (docs/check-bot.md, "Fuzzing"), the built binary against bots that each
 * have one hidden flaw: each flaw is found within N conversations of a fixed seed, reported as the
 * check of the rule it breaks, shrunk to its smallest case, and both the replay command printed with
 * it and the case --fuzz-save kept reproduce the failure alone. A flawless bot gets no failure.
 *
 * Every case has its own bot and sandbox, so the cases run at once. The counts are counts of
 * conversations, never of time: the --timeout below only bounds how long an answer, and the bot's
 * acknowledgement of a delivery (the sandbox check-bot starts waits --timeout for it), may take on
 * loopback. With seed 7, each flaw is met within the first six conversations (the generator makes
 * long texts, right-to-left marks, EMAIL threads, redeliveries and large ids often), so 20 finds each.
 * A flawless bot over 1,000 conversations is bench/fuzz.mjs's run.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const TIMEOUT = '10s';
const SEED = '7';
const RUNS = '20';
/** Only catches a hang: a run and its shrinking, on a loaded machine. */
const HANG_LIMIT = 600_000;

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

// The cases run at once: a child still running is killed once they all end (afterEach would kill
// the children of the cases still running), and each bot is closed then.
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  killStillRunning();
  await Promise.all(closers.map((close) => close()));
});
beforeAll(() => ensureBuilt());

const keep = (close: () => Promise<void>) => void closers.push(close);

/**
 * The built tool, at most two runs at once (the cases wait their turn): each run has a sandbox
 * delivering eight conversations at once to bots that all answer from this one process, and more
 * runs than cores would make a loaded machine miss the sandbox's webhook timeout.
 */
const LANES = 2;
let busy = 0;
const queue: (() => void)[] = [];
async function run(argv: string[], init: Parameters<typeof runBuilt>[1]) {
  if (busy >= LANES) await new Promise<void>((go) => queue.push(go));
  busy += 1;
  try {
    return await runBuilt(argv, init);
  } finally {
    busy -= 1;
    queue.shift()?.();
  }
}

/** Where core check-bot finds the bot: the sandbox it starts on a port, or a running one. */
interface Target {
  bot: TestBot;
  args: string[];
  env: Record<string, string | undefined>;
}

/** A bot with `flaws`, and the sandbox core check-bot starts for it on a free port. */
async function botBehindItsSandbox(flaws: Flaws): Promise<Target> {
  const port = await freePort();
  const bot = await startBot(SECRET, flaws, keep);
  bot.connect(`http://127.0.0.1:${port}`);
  return { bot, args: ['--bot-url', bot.url, '--port', String(port)], env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET }) };
}

/** core check-bot against `target` with `more`; the report read from JSON unless another reporter is named. */
async function checkBot(target: Target, more: string[]) {
  const reporter = more.includes('--reporter') ? [] : ['--reporter', 'json'];
  const result = await run(['check-bot', ...target.args, '--timeout', TIMEOUT, ...reporter, ...more], { env: target.env });
  return { ...result, report: (reporter.length > 0 ? JSON.parse(result.stdout) : null) as Report };
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

/** A failed check of `rule`, and no other rule broken but what did not come again alone (a loaded machine's timeout). */
function foundOnly(report: Report, rule: string, expect: Expect): FuzzCheck {
  const found = report.checks.find((check) => check.id === rule);
  expect(found, JSON.stringify(report.checks, null, 2)).toBeDefined();
  const others = report.checks.filter((check) => check.status === 'fail' && check.id !== rule && !check.message.includes(FLAKY));
  expect(others, JSON.stringify(report.checks, null, 2)).toEqual([]);
  return found!;
}

/** The printed command, run alone, breaks `rule` again with the same delivery (its text). */
async function replaysAlone(found: FuzzCheck, rule: string, env: Target['env'], expect: Expect, more: string[] = []) {
  const [core, command, ...args] = shellWords(found.command!);
  expect([core, command]).toEqual(['core', 'check-bot']);
  const again = await run([command!, ...args, ...more, '--reporter', 'json'], { env });
  expect(again.code, again.stderr).toBe(3);
  const replayed = (JSON.parse(again.stdout) as Report).checks.find((check) => check.id === rule);
  expect(replayed, again.stdout).toBeDefined();
  expect(messageOf(replayed!.delivery!).text).toBe(messageOf(found.delivery!).text);
}

const FLAWED: {
  flaw: string;
  flaws: Flaws;
  rule: string;
  /** What the shrunk delivery must be: the smallest that still breaks the rule. */
  minimal: (message: Record<string, unknown>, expect: Expect) => void;
}[] = [
  {
    flaw: 'answers 500 to any text over 1,000 characters',
    flaws: { failsOverLength: 1000 },
    rule: 'fuzz.server-error',
    minimal: (message, expect) => expect(message.text).toBe('a'.repeat(1001)),
  },
  {
    flaw: 'crashes (drops the connection) on a right-to-left mark',
    flaws: { crashesOn: '\u200F' },
    rule: 'fuzz.no-response',
    minimal: (message, expect) => expect(message.text).toBe('\u200F'),
  },
  {
    flaw: 'addresses an EMAIL answer by questionId alone from the second question on',
    flaws: { emailByQuestionIdAfterFirst: true },
    rule: 'fuzz.email-addressing',
    minimal: (message, expect) => {
      expect(message.channel).toBe('EMAIL');
      expect(message.questionIndex).toBe(2n);
      expect(message.text).toBe('a');
    },
  },
  {
    flaw: 'answers a redelivered message anew, with a new answerId',
    flaws: { replay: 'new-answerId' },
    rule: 'fuzz.redelivery-answered',
    minimal: (message, expect) => {
      expect(message.questionIndex).toBe(1n);
      expect(message.text).toBe('a');
    },
  },
  {
    flaw: 'reads identifiers as doubles, so an id past 2^53 comes back rounded',
    flaws: { readsIdsAsDoubles: true },
    rule: 'fuzz.ids',
    minimal: (message, expect) => {
      const ids = [message.questionId, message.coreClientId] as bigint[];
      expect(ids.some((id) => id > 2n ** 53n)).toBe(true);
      expect(message.questionIndex).toBe(1n);
      expect(message.text).toBe('a');
    },
  },
];

/** The fuzz run of each flaw, once: its case's test and the test of its saved core test file read the same run. */
const runs = new Map<string, ReturnType<typeof fuzzRun>>();
async function fuzzRun(flaws: Flaws) {
  const target = await botBehindItsSandbox(flaws);
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-save-'));
  const result = await checkBot(target, ['--fuzz', RUNS, '--seed', SEED, '--fuzz-save', dir]);
  return { ...result, target, dir };
}
const runOf = (flaws: Flaws) => {
  const key = JSON.stringify(flaws);
  if (!runs.has(key)) runs.set(key, fuzzRun(flaws));
  return runs.get(key)!;
};

/** A --fuzz-replay file of one plain message (the text `a`, on WEB), shaped as `over` says. */
function caseFile(over: Record<string, unknown>): string {
  const message = {
    text: { segments: [], length: 1, blank: false },
    action: 'text',
    attachments: [],
    unknownFields: false,
    largeIds: false,
    format: { indent: 0, spaced: false, order: 'contract', escape: 'none' },
    burst: false,
    redeliver: false,
    ...over,
  };
  const file = join(mkdtempSync(join(tmpdir(), 'fuzz-case-')), 'case.fuzz.json');
  const conversation = { channel: 'WEB', coreClientId: null, messages: [message] };
  writeFileSync(file, JSON.stringify({ kind: 'core check-bot fuzz case', conversation }));
  return file;
}

/** The files --fuzz-save wrote for `rule`'s case: the core test file and the --fuzz-replay file. */
function savedCase(dir: string, rule: string, replay: string) {
  const base = `${rule.replace(/\./g, '-')}-${replay.replace(/:/g, '-')}`;
  const files = readdirSync(dir);
  return { files, test: join(dir, `${base}.yaml`), replay: join(dir, `${base}.fuzz.json`) };
}

describe.concurrent('core check-bot --fuzz against a bot with one hidden flaw', () => {
  it.for(FLAWED)(
    'finds that the bot $flaw, shrinks it, and both its replay command and its --fuzz-save file reproduce it alone',
    { timeout: HANG_LIMIT },
    async ({ flaws, rule, minimal }, { expect }) => {
      const { code, report, stderr, target, dir } = await runOf(flaws);
      expect(stderr).toContain(`core check-bot: ${RUNS} fuzzed conversations (seed ${SEED})`);
      expect(code).toBe(3);
      expect(report.ok).toBe(false);
      const found = foundOnly(report, rule, expect);
      expect(found.replay).toMatch(new RegExp(`^${SEED}:\\d+(:\\d+)*$`));
      expect(found.command).toContain(`core check-bot --fuzz-replay ${found.replay}`);
      minimal(messageOf(found.delivery!), expect);

      const saved = savedCase(dir, rule, found.replay!);
      expect(saved.files).toContain(`${saved.replay.slice(dir.length + 1)}`);
      expect(stderr).toContain(`core check-bot: saved ${saved.test} (core test)`);
      const byFile = { ...found, command: `core check-bot --fuzz-replay ${saved.replay} ${target.args.join(' ')} --timeout ${TIMEOUT}` };
      // One after the other: both start a sandbox on the port the bot answers to.
      await replaysAlone(found, rule, target.env, expect);
      await replaysAlone(byFile, rule, target.env, expect);
    },
  );

  it(
    'keeps the shrunk case as a core test file (--fuzz-save DIR) that fails against the flawed bot and passes against a fixed one',
    { timeout: HANG_LIMIT },
    async ({ expect }) => {
      const { report, dir } = await runOf(FLAWED[0]!.flaws);
      const found = report.checks.find((check) => check.id === 'fuzz.server-error')!;
      const file = savedCase(dir, found.id, found.replay!).test;
      expect(readFileSync(file, 'utf8')).toContain(`customer: ${'a'.repeat(1001)}`);
      const test = async (flaws: Flaws) => {
        const bot = await startBot(SECRET, flaws, keep);
        const port = await freePort();
        bot.connect(`http://127.0.0.1:${port}`);
        const env = baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET });
        // 5 s: the answer is waited for less long than the webhook's four attempts take (1 + 2 + 4 s of backoff).
        return run(['test', file, '--bot-url', bot.url, '--port', String(port), '--timeout', '5s'], { env });
      };
      const [flawed, fixed] = await Promise.all([test(FLAWED[0]!.flaws), test({})]);
      // The delivery of the 1,001 characters is answered 500, every attempt: no answer comes.
      expect(flawed.stdout + flawed.stderr).toMatch(/step 2, line \d+ \(bot\)[\s\S]*no answer from the bot within/);
      expect(flawed.code, flawed.stdout + flawed.stderr).toBe(3);
      expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    },
  );

  /** A running sandbox in strict mode, and a bot that answers each question twice, connected to it. */
  async function strictSandboxWithBotAnsweringTwice() {
    const bot = await startBot(SECRET, { answersTwice: true }, keep);
    const sandbox = await startSandbox({ botUrl: bot.url, webhookSecret: SECRET, duplicates: 'strict' });
    keep(() => sandbox.close());
    bot.connect(sandbox.url);
    return { bot, sandbox };
  }

  it(
    'finds a second answer to one question through a running sandbox in strict mode (--sandbox URL), and replays it there',
    { timeout: HANG_LIMIT },
    async ({ expect }) => {
      const { bot, sandbox } = await strictSandboxWithBotAnsweringTwice();
      const target: Target = { bot, args: ['--sandbox', sandbox.url], env: baseEnv() };
      // Both rules judged: its second answer comes before any redelivery, so a redelivered question is its second answer
      // too, never a redelivery answered (this bot leaves a redelivery alone).
      const only = 'fuzz.second-answer,fuzz.redelivery-answered';
      const { code, report, stderr } = await checkBot(target, ['--fuzz', RUNS, '--seed', SEED, '--only', only]);
      expect(stderr).toContain(`through the sandbox at ${sandbox.url}`);
      expect(code).toBe(3);
      const found = foundOnly(report, 'fuzz.second-answer', expect);
      expect(found.command).toContain(`--sandbox ${sandbox.url}`);
      expect(found.command).toContain(`--only ${only}`);
      const message = messageOf(found.delivery!);
      expect(message.questionIndex).toBe(1n);
      expect(message.text).toBe('a');
      await replaysAlone(found, 'fuzz.second-answer', target.env, expect);
    },
  );

  it(
    'reports a question answered twice and then redelivered as its second answer, not as the redelivery answered',
    { timeout: HANG_LIMIT },
    async ({ expect }) => {
      const { bot, sandbox } = await strictSandboxWithBotAnsweringTwice();
      const file = caseFile({ redeliver: true });
      const { code, report } = await checkBot({ bot, args: ['--sandbox', sandbox.url], env: baseEnv() }, ['--fuzz-replay', file]);
      expect(code).toBe(3);
      expect(report.checks.map((check) => check.id)).toEqual(['fuzz.second-answer']);
      expect(report.checks[0]!.message).toMatch(/^message 1 was answered twice: 409 /);
    },
  );

  it(
    "gives up on a delivery the bot never acknowledges after --timeout, not after the sandbox's default 10 s",
    { timeout: HANG_LIMIT },
    async ({ expect }) => {
      const target = await botBehindItsSandbox({ hangs: true });
      const { code, report } = await checkBot(target, ['--fuzz-replay', caseFile({}), '--timeout', '1500ms']);
      expect(code).toBe(3);
      expect(report.checks.map((check) => check.id)).toEqual(['fuzz.no-response']);
      expect(report.checks[0]!.message).toContain('message 1 got no answer (timeout after 1500 ms)');
    },
  );

  it(
    'writes each failure as one case with its replay command in JUnit and TAP, the same cases for the same seed',
    { timeout: HANG_LIMIT },
    async ({ expect }) => {
      const twoFlaws: Flaws = { failsOverLength: 1000, crashesOn: '\u200F' };
      const [junit, tap] = await Promise.all(
        ['junit', 'tap'].map(async (reporter) =>
          checkBot(await botBehindItsSandbox(twoFlaws), ['--fuzz', RUNS, '--seed', SEED, '--reporter', reporter]),
        ),
      );
      expect(junit!.code, junit!.stderr).toBe(3);
      expect(tap!.code, tap!.stderr).toBe(3);
      const replayOf = (text: string) => /replay: core check-bot --fuzz-replay (\S+)/.exec(text)?.[1];

      expect(XMLValidator.validate(junit!.stdout)).toBe(true);
      const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junit!.stdout) as {
        testsuites: { testsuite: { testcase: { name: string; failure?: { '#text'?: string } }[] } };
      };
      const failedCases = [xml.testsuites.testsuite.testcase].flat().filter((testcase) => testcase.failure !== undefined);
      expect(failedCases.map((testcase) => testcase.name).sort()).toEqual(['fuzz.no-response', 'fuzz.server-error']);

      const points: { ok: boolean; name: string; diag?: Record<string, unknown> }[] = [];
      const parser = new TapParser({ strict: true });
      parser.on('assert', (point: (typeof points)[number]) => points.push(point));
      await new Promise((done) => parser.end(tap!.stdout, done));
      const failedPoints = points.filter((point) => !point.ok);
      expect(failedPoints.map((point) => point.name).sort()).toEqual(['fuzz.no-response', 'fuzz.server-error']);

      for (const rule of ['fuzz.server-error', 'fuzz.no-response']) {
        const testcase = failedCases.find((c) => c.name === rule)!;
        const point = failedPoints.find((p) => p.name === rule)!;
        const replay = replayOf(JSON.stringify(testcase.failure));
        expect(replay, JSON.stringify(testcase)).toMatch(new RegExp(`^${SEED}:\\d+(:\\d+)*$`));
        expect(String(point.diag?.replay)).toContain(`core check-bot --fuzz-replay ${replay} `);
      }
    },
  );
});

describe.concurrent('core check-bot --fuzz against a flawless bot', () => {
  it('finds nothing in 100 conversations', { timeout: HANG_LIMIT }, async ({ expect }) => {
    const { code, report } = await checkBot(await botBehindItsSandbox({}), ['--fuzz', '100', '--seed', SEED]);
    expect(
      report.checks.filter((check) => check.status === 'fail'),
      JSON.stringify(report.checks, null, 2),
    ).toEqual([]);
    expect(report.checks.map((check) => check.id)).toEqual(['fuzz']);
    expect(report.checks[0]!.message).toMatch(new RegExp(`^100 conversations of seed ${SEED}: `));
    expect(code).toBe(0);
  });
});
