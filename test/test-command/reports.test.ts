import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Parser as TapParser } from 'tap-parser';
import { describe, expect, it } from 'vitest';
import { REPORTER_CHOICES } from '../../src/commands/test-command/command.js';
import { REPORTERS } from '../../src/testing/report.js';
import { parseJson } from '../../src/payload/json.js';
import { runInProcess } from '../helpers/run.js';
import { sandbox, type TestSandbox } from '../sandbox/helpers.js';
import { platform, reply, testFolder, type Message } from './platform.js';

/**
 * The reports of `core test`, read back with real parsers: JUnit XML with fast-xml-parser (and the
 * structure CI systems read: testsuites > testsuite per file > testcase per conversation > failure),
 * TAP with tap-parser, JSON with the lossless parser. Then the exit codes 2 and 6.
 */

/** A bot whose answers hold what XML and TAP must escape, and an identifier past 2^53. */
async function tricky(message: Message, sb: TestSandbox) {
  return reply(sb, message, {
    text: 'Fish & <chips> "quoted" ]]> \u0001bell',
    code: 'SWITCH_TO_HUMAN',
    skillIds: [9223372036854775806n],
  });
}

const FILES = {
  'pass.yaml': 'name: "passes #1"\nsteps:\n  - customer: Hi\n  - bot: {code: SWITCH_TO_HUMAN}\n',
  'suite/fail.yaml': `name: orders
conversations:
  - name: "fails & <escapes>"
    steps:
      - customer: Where?
      - bot:
          text: /shipped/
          skillIds: [9223372036854775807]
  - name: passes too
    steps:
      - customer: Hi
      - bot: {text: /chips/}
`,
};

async function report(reporter: string, extra: string[] = []) {
  const { sb, env } = await platform(tricky);
  const folder = testFolder(FILES);
  const result = await runInProcess(['test', 'pass.yaml', 'suite', '--sandbox', sb.url, '--reporter', reporter, ...extra], {
    env,
    cwd: folder,
  });
  return { ...result, folder };
}

type Node = Record<string, unknown>;
const asList = (value: unknown): Node[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]) as Node[];

describe('the reporters', () => {
  it('that --reporter offers are the ones report.ts renders', () => {
    expect([...REPORTER_CHOICES]).toEqual([...REPORTERS]);
  });
});

describe('the junit reporter', () => {
  it('writes valid JUnit XML: a testsuite per file, a testcase per conversation, a failure with the step and the diff', async () => {
    const { stdout, stderr, code } = await report('junit');
    expect(code).toBe(3);
    expect(XMLValidator.validate(stdout)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false }).parse(stdout) as Node;
    const suites = doc.testsuites as Node;
    expect(suites).toMatchObject({ name: 'core test', tests: '3', failures: '1', errors: '0', skipped: '0' });
    const files = asList(suites.testsuite);
    expect(files.map((s) => [s.name, s.file, s.tests, s.failures, s.errors])).toEqual([
      ['pass', 'pass.yaml', '1', '0', '0'],
      ['orders', join('suite', 'fail.yaml'), '2', '1', '0'],
    ]);
    for (const suite of files) {
      const cases = asList(suite.testcase);
      expect(cases).toHaveLength(Number(suite.tests));
      expect(cases.filter((c) => c.failure !== undefined)).toHaveLength(Number(suite.failures));
      for (const testcase of cases) {
        expect(testcase.classname).toBe(suite.name);
        expect(Number(testcase.time)).toBeGreaterThanOrEqual(0);
      }
    }
    const failed = asList(files[1]!.testcase)[0]!;
    expect(failed).toMatchObject({ name: 'fails & <escapes>', file: join('suite', 'fail.yaml'), line: '3' });
    const failure = failed.failure as Node;
    expect(failure.message).toBe('step 2, line 6 (bot): the answer differs in text, skillIds[0]');
    expect(failure.type).toBe('ConversationFailure');
    const details = failure['#text'] as string;
    expect(details).toContain('text\n  - expected  /shipped/\n  + received  "Fish & <chips> \\"quoted\\" ]]> \\u0001bell"');
    expect(details).toContain('skillIds[0]\n  - expected  9223372036854775807\n  + received  9223372036854775806');
    expect(failed['system-out']).toMatch(/^sandbox conversation s-[0-9a-f]{12}$/);
    // The human summary goes to stderr, so a CI log shows the failure too.
    expect(stderr).toContain('✗ fails & <escapes> (suite/fail.yaml)');
    expect(stderr).toMatch(/^2 passed, 1 failed/m);
  });

  it('writes characters XML cannot hold as U+FFFD, and the report to --output with stdout left empty', async () => {
    const { sb, env } = await platform((message, s) => reply(s, message));
    const folder = testFolder({ 'a.yaml': 'name: "bell \\a, escape \\e"\nsteps:\n  - customer: Hi\n  - bot: {text: nothing}\n' });
    const missing = await runInProcess(['test', 'a.yaml', '--sandbox', sb.url, '--reporter', 'junit', '--output', 'out/report.xml'], {
      env,
      cwd: folder,
    });
    expect(missing.stderr).toContain('error: --output: the folder of out/report.xml does not exist');
    expect(missing.code).toBe(2);

    const written = await runInProcess(['test', 'a.yaml', '--sandbox', sb.url, '--reporter', 'junit', '--output', 'report.xml'], {
      env,
      cwd: folder,
    });
    expect(written.code).toBe(3);
    expect(written.stdout).toBe('');
    expect(written.stderr).toMatch(/^0 passed, 1 failed/m);
    const xml = readFileSync(join(folder, 'report.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).toContain('<testcase name="bell \ufffd, escape \ufffd"');
  });
});

describe('the junit reporter, conversations at once and repeated', () => {
  it("gives no level a time beyond its parent's: a testcase within its testsuite, a testsuite within the run", async () => {
    // Each answer comes a little later, so that runs overlap under --concurrency: their sum is well past
    // the run's time, the span of each level is not.
    const { sb, env } = await platform(async (message, s) => {
      await new Promise((done) => setTimeout(done, 5));
      return reply(s, message);
    });
    const conversation = (name: string) => `  - name: ${name}\n    steps:\n      - customer: Hi\n      - bot: {text: /Hi/}\n`;
    const folder = testFolder({ 'a.yaml': `conversations:\n${['one', 'two', 'three', 'four'].map(conversation).join('')}` });
    const args = ['test', 'a.yaml', '--sandbox', sb.url, '--repeat', '10', '--concurrency', '8'];
    const junit = await runInProcess([...args, '--reporter', 'junit', '--reporter', 'json=report.json'], { env, cwd: folder });
    expect(junit.code).toBe(0);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false }).parse(junit.stdout) as Node;
    const run = doc.testsuites as Node;
    const [file] = asList(run.testsuite);
    const cases = asList(file!.testcase);
    expect(cases).toHaveLength(4);
    for (const testcase of cases) expect(Number(testcase.time)).toBeLessThanOrEqual(Number(file!.time));
    expect(Number(file!.time)).toBeLessThanOrEqual(Number(run.time));
    const json = parseJson(readFileSync(join(folder, 'report.json'), 'utf8')) as {
      durationMs: number;
      files: { conversations: { durationMs: number }[] }[];
    };
    for (const summary of json.files[0]!.conversations) expect(summary.durationMs).toBeLessThanOrEqual(json.durationMs);
  });
});

describe('the tap reporter', () => {
  it('writes TAP 14 a parser reads: the plan, a test point per conversation, the failure in a YAML block', async () => {
    const { stdout, code } = await report('tap');
    expect(code).toBe(3);
    expect(stdout.startsWith('TAP version 14\n1..3\n')).toBe(true);
    const parser = new TapParser();
    const done = new Promise<{ ok: boolean; count: number; pass: number; fail: number; failures: Node[]; skip: number; todo: number }>(
      (resolve) => parser.on('complete', resolve),
    );
    parser.end(stdout);
    const result = await done;
    expect(result).toMatchObject({ ok: false, count: 3, pass: 2, fail: 1, skip: 0, todo: 0 });
    const [failure] = result.failures;
    expect(failure!.name).toBe('suite/fail.yaml: fails & <escapes>');
    expect(failure!.diag).toMatchObject({
      message: 'the answer differs in text, skillIds[0]',
      at: { file: 'suite/fail.yaml', line: 6 },
      step: 2,
      conversation: expect.stringMatching(/^s-[0-9a-f]{12}$/),
      diff: [
        { path: 'text', expected: '/shipped/', received: 'Fish & <chips> "quoted" ]]> \u0001bell' },
        // tap-parser reads YAML numbers as JavaScript numbers; the text below has every digit.
        { path: 'skillIds[0]', expected: expect.any(Number), received: expect.any(Number) },
      ],
    });
    expect(stdout).toContain('    - path: skillIds[0]\n      expected: 9223372036854775807\n      received: 9223372036854775806\n');
    // A "#" in a name is escaped, so it does not read as a directive.
    expect(stdout).toContain('ok 1 - pass.yaml: passes \\#1\n');
  });
});

describe('the tap reporter, a value met twice', () => {
  it('writes it twice, without YAML anchors or aliases', async () => {
    const { sb, env } = await platform(tricky);
    // The list differs as a whole: the answer's list is in the diff and in `received`.
    const folder = testFolder({ 'list.yaml': 'steps:\n  - customer: Hi\n  - bot: {skillIds: [1, 2]}\n' });
    const { stdout, code } = await runInProcess(['test', 'list.yaml', '--sandbox', sb.url, '--reporter', 'tap'], { env, cwd: folder });
    expect(code).toBe(3);
    expect(stdout).not.toMatch(/[&*]a\d/);
    expect(stdout.match(/- 9223372036854775806/g)).toHaveLength(2);
  });
});

describe('the json reporter', () => {
  it('writes one JSON document with the summary and every conversation, identifiers exact', async () => {
    const { stdout, code } = await report('json');
    expect(code).toBe(3);
    const document = parseJson(stdout) as Node;
    expect(document).toMatchObject({ ok: false, summary: { files: 2n, conversations: 3n, passed: 2n, failed: 1n }, error: null });
    const [first, second] = document.files as Node[];
    expect(first).toMatchObject({
      file: 'pass.yaml',
      name: 'pass',
      conversations: [{ name: 'passes #1', outcome: 'passed', failure: null }],
    });
    const failed = (second!.conversations as Node[])[0]!;
    expect(failed).toMatchObject({
      name: 'fails & <escapes>',
      line: 3n,
      channel: 'WEB',
      outcome: 'failed',
      steps: [
        { step: 1n, line: 5n, title: 'customer: Where?', outcome: 'passed' },
        { step: 2n, line: 6n, title: 'bot', outcome: 'failed' },
      ],
      failure: {
        step: 2n,
        line: 6n,
        message: 'the answer differs in text, skillIds[0]',
        expected: { text: '/shipped/', skillIds: [9223372036854775807n] },
        diff: [
          { path: 'text', expected: '/shipped/', absent: false },
          { path: 'skillIds[0]', expected: 9223372036854775807n, received: 9223372036854775806n, absent: false },
        ],
      },
    });
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('when the bot cannot be reached at all', () => {
  it.each([
    ['human', (out: string) => expect(out).toBe('')],
    ['junit', (out: string) => expect(out).toMatch(/<error message="the bot could not be reached: [^"]+" type="BotUnreachable"\/>/)],
    ['tap', (out: string) => expect(out).toMatch(/^TAP version 14\nBail out! the bot could not be reached: /)],
    ['json', (out: string) => expect((parseJson(out) as Node).error).toMatchObject({ code: 'EBOTUNREACHABLE' })],
  ])('says so once and exits 6 (--reporter %s)', async (reporter, check) => {
    const botUrl = `http://127.0.0.1:${await closedPort()}/webhook`;
    const sb = await sandbox({ botUrl, webhookRetries: 1, webhookBackoffMs: 0 });
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n', 'b.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' });
    const result = await runInProcess(['test', 'a.yaml', 'b.yaml', '--sandbox', sb.url, '--reporter', reporter], { cwd: folder });
    expect(result.code).toBe(6);
    expect(result.stderr.match(/could not be reached/g)).toHaveLength(1);
    expect(result.stderr).toContain(
      `error: the bot could not be reached: every webhook delivery to ${botUrl} failed to connect (ECONNREFUSED)`,
    );
    expect(result.stderr).not.toContain('✗');
    check(result.stdout);
  });

  it('stops at the first delivery that fails to connect, instead of playing every conversation (40 planned, --concurrency 2)', async () => {
    const botUrl = `http://127.0.0.1:${await closedPort()}/webhook`;
    const sb = await sandbox({ botUrl, webhookRetries: 1, webhookBackoffMs: 0 });
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`c${i}.yaml`, 'steps:\n  - customer: Hi\n  - bot: {}\n']));
    const folder = testFolder(many);
    const result = await runInProcess(['test', '.', '--sandbox', sb.url, '--concurrency', '2', '--reporter', 'json'], { cwd: folder });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(`error: the bot could not be reached: every webhook delivery to ${botUrl} failed to connect`);
    expect(result.stderr).toContain(`listening at ${botUrl}`);
    const report = parseJson(result.stdout) as { summary: { conversations: bigint }; error: { code: string } };
    expect(report.error.code).toBe('EBOTUNREACHABLE');
    expect(report.summary.conversations).toBe(40n);
    // Each conversation started is one the run did not stop before; two at a time, the first failed delivery stops it.
    const started = sb.events({}).filter((event) => event.type === 'conversation.started').length;
    expect(started).toBeLessThanOrEqual(4);
  });

  it.each([401, 403])(
    'says once that the bot refuses the signature when it answers every signed delivery %i, and stops (exit 3)',
    async (status) => {
      const { sb, env } = await platform(() => ({ status, body: 'invalid signature' }), { webhookRetries: 1 });
      const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`c${i}.yaml`, 'steps:\n  - customer: Hi\n  - bot: {}\n']));
      const folder = testFolder(many);
      const result = await runInProcess(['test', '.', '--sandbox', sb.url, '--concurrency', '2', '--reporter', 'json'], {
        env,
        cwd: folder,
      });
      expect(result.code).toBe(3);
      expect(result.stderr.match(/refuses the sandbox's signature/g)).toHaveLength(1);
      expect(result.stderr).toContain(
        `error: the bot refuses the sandbox's signature: it answered every correctly signed delivery (1) ${status}`,
      );
      expect(result.stderr).toContain('does the bot verify with the secret the sandbox signs with?');
      const report = parseJson(result.stdout) as { error: { code: string } };
      expect(report.error.code).toBe('EBOTREFUSESSIGNATURE');
      const started = sb.events({}).filter((event) => event.type === 'conversation.started').length;
      expect(started).toBeLessThanOrEqual(4);
    },
  );

  it('does not stop for a bot that refuses the signature of some deliveries only: each conversation says its own', async () => {
    const { sb, env } = await platform((message, s) => (message.text === 'bad' ? { status: 401 } : reply(s, message)), {
      webhookRetries: 0,
    });
    const folder = testFolder({
      'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n',
      'b.yaml': 'steps:\n  - customer: bad\n  - bot: {}\n',
    });
    const result = await runInProcess(['test', 'a.yaml', 'b.yaml', '--sandbox', sb.url, '--concurrency', '1'], { env, cwd: folder });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/1 passed, 1 failed/);
  });

  it('is a failure, not exit 6, when the bot answers the webhook with an error', async () => {
    const { sb, env } = await platform(() => ({ status: 503 }), { webhookRetries: 0 });
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' });
    const result = await runInProcess(['test', 'a.yaml', '--sandbox', sb.url], { env, cwd: folder });
    expect(result.code).toBe(3);
  });
});

/** Where a report goes: the arguments that send `reporter`'s report there, and the file it lands in (none: stdout). */
const DESTINATIONS: [string, (reporter: string) => string[], string | undefined][] = [
  ['stdout', (reporter) => ['--reporter', reporter], undefined],
  ['--output FILE', (reporter) => ['--reporter', reporter, '--output', 'out/report'], 'out/report'],
  ['--reporter NAME=FILE', (reporter) => ['--reporter', `${reporter}=out/report`], 'out/report'],
];

/** Each reporter's document read back with its parser, checked to say the sandbox could not be reached. */
const SANDBOX_GONE_CHECKS: Record<string, (document: string, message: string, sandboxUrl: string) => Promise<void>> = {
  json: async (document, message, sandboxUrl) => {
    const json = parseJson(document) as Node;
    expect(json).toMatchObject({
      ok: false,
      summary: { files: 2n, conversations: 3n, passed: 0n, failed: 3n },
      error: { code: 'ESANDBOXUNREACHABLE', message, sandboxUrl },
    });
    const files = json.files as { file: string; name: string; conversations: Node[] }[];
    expect(files.map((f) => [f.file, f.name, f.conversations.map((c) => [c.name, c.outcome, c.sessionId])])).toEqual([
      ['a.yaml', 'a', [['greets', 'failed', null]]],
      [
        join('suite', 'b.yaml'),
        'b',
        [
          ['echo alpha', 'failed', null],
          ['echo beta', 'failed', null],
        ],
      ],
    ]);
    // Never played: no run, every step skipped, the error as the failure at its start.
    expect(files[1]!.conversations[1]).toMatchObject({
      row: 1n,
      runs: 0n,
      failedRuns: 0n,
      latencyMs: null,
      steps: [
        { step: 1n, title: 'customer: beta', outcome: 'skipped' },
        { step: 2n, title: 'bot', outcome: 'skipped' },
      ],
      failure: { step: null, line: 1n, message },
    });
  },
  junit: async (document, message) => {
    expect(XMLValidator.validate(document)).toBe(true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false }).parse(document) as Node;
    const suites = doc.testsuites as Node;
    expect(suites).toMatchObject({ name: 'core test', tests: '3', failures: '0', errors: '3' });
    const files = asList(suites.testsuite);
    expect(files.map((s) => [s.name, s.file, s.tests, s.failures, s.errors])).toEqual([
      ['a', 'a.yaml', '1', '0', '1'],
      ['b', join('suite', 'b.yaml'), '2', '0', '2'],
    ]);
    const cases = files.map((suite) => asList(suite.testcase).map((c) => [c.name, c.classname, c.error]));
    const error = { message, type: 'SandboxUnreachable' };
    expect(cases).toEqual([
      [['greets', 'a', error]],
      [
        ['echo alpha', 'b', error],
        ['echo beta', 'b', error],
      ],
    ]);
  },
  tap: async (document, message) => {
    expect(document).toBe(`TAP version 14\nBail out! ${message}\n`);
    const parser = new TapParser();
    const done = new Promise<{ ok: boolean; bailout: string | boolean; count: number }>((resolve) => parser.on('complete', resolve));
    parser.end(document);
    expect(await done).toMatchObject({ ok: false, bailout: message, count: 0 });
  },
};

describe('when the sandbox at --sandbox does not answer at all', () => {
  const files = {
    'a.yaml': 'name: greets\nsteps:\n  - customer: Hi\n  - bot: {}\n',
    'suite/b.yaml': 'name: echo ${word}\nexamples: [{word: alpha}, {word: beta}]\nsteps:\n  - customer: ${word}\n  - bot: {}\n',
  };
  const cases = Object.keys(SANDBOX_GONE_CHECKS).flatMap((reporter) =>
    DESTINATIONS.map(([where, args, file]) => [reporter, where, args, file] as const),
  );

  it.each(cases)(
    'writes the %s report to %s, every planned conversation there, saying the sandbox could not be reached; exit 6',
    async (reporter, _where, args, file) => {
      const sandboxUrl = `http://127.0.0.1:${await closedPort()}`;
      const folder = testFolder(files);
      mkdirSync(join(folder, 'out'));
      const result = await runInProcess(['test', 'a.yaml', 'suite', '--sandbox', sandboxUrl, ...args(reporter)], { cwd: folder });
      expect(result.code).toBe(6);
      // The error and its hint on stderr, as before the report was written.
      const message = /^error: (.*)$/m.exec(result.stderr)?.[1] ?? '';
      expect(message).toMatch(new RegExp(`^no answer from the sandbox at ${sandboxUrl.replace(/\./g, '\\.')}: connect ECONNREFUSED`));
      expect(result.stderr).toContain(
        'hint: start one with core sandbox --bot-url URL and give core test the base URL it prints with --sandbox, or let core test start one: --bot-url URL',
      );
      const document = file === undefined ? result.stdout : readFileSync(join(folder, file), 'utf8');
      if (file !== undefined) expect(result.stdout).toBe('');
      await SANDBOX_GONE_CHECKS[reporter]!(document, message, sandboxUrl);
    },
  );

  it('writes no report when the sandbox answers but is not one, or has no bot: exit 2', async () => {
    const noBot = await sandbox();
    const notSandbox = createHttpServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => notSandbox.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(notSandbox.address() as { port: number }).port}`;
    try {
      for (const url of [noBot.url, elsewhere]) {
        const folder = testFolder(files);
        const result = await runInProcess(['test', 'a.yaml', '--sandbox', url, '--reporter', 'json', '--reporter', 'junit=report.xml'], {
          cwd: folder,
        });
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(existsSync(join(folder, 'report.xml'))).toBe(false);
      }
    } finally {
      notSandbox.close();
    }
  });
});

describe('files and usage core test refuses, exit 2, before anything is sent', () => {
  it('lists every problem of every file, with the file, the line and the path', async () => {
    const { sb, bot, env } = await platform(() => ({ status: 200 }));
    const folder = testFolder({
      'a.yaml': 'name: a\nsteps:\n  - customer: Hi\n  - bot:\n      txt: Hello\n  - press: ""\n',
      'b.json': '{"steps": [{"bot": {"text": "/(/"}}]}',
      'c.yaml': 'steps: [',
      'ok.yaml': 'steps:\n  - customer: Hi\n',
      // A folder gives its subfolders' files too, and leaves out a JSON Schema kept beside the tests.
      'sub/d.yaml': 'steps:\n  - customer: Hi\n',
      'test.schema.json': '{"$schema": "https://json-schema.org/draft/2020-12/schema"}',
    });
    const result = await runInProcess(['test', '.', '--sandbox', sb.url], { env, cwd: folder });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      [
        'error: 3 test files are not valid (5 problems)',
        '  a.yaml:5 steps[1].bot.txt: unknown field; did you mean "text"?',
        '  a.yaml:6 steps[2].press: must not be empty',
        '  b.json:1 steps[0]: the first step is customer: TEXT: a conversation starts with the customer writing',
        '  b.json:1 steps[0].bot.text: "/(/" is not a valid regular expression: Invalid regular expression: /(/: Unterminated group',
        '  c.yaml:1: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
        'hint: fix the files; core schema test prints the JSON Schema for editors, and docs/testing-bots.md describes the format',
        '',
      ].join('\n'),
    );
    expect(bot.requests).toHaveLength(0);
  });

  it.each([
    [['a.yaml'], 'core test needs a bot: --bot-url URL, or --sandbox URL of a running core sandbox that delivers to one'],
    [
      ['a.yaml', '--sandbox', 'http://127.0.0.1:1', '--bot-url', 'http://127.0.0.1:2/'],
      '--sandbox uses a running sandbox; --bot-url is for the one core test starts',
    ],
    [['a.yaml', '--sandbox', 'ftp://x'], '--sandbox: must be an http or https URL, not ftp'],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--timeout', 'soon'], '--timeout: invalid duration "soon"'],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--concurrency', '0'], "--concurrency: '0' is not a whole number from 1 to 64"],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--concurrency', '65'], "--concurrency: '65' is not a whole number from 1 to 64"],
    [['a.yaml', '--bot-url', 'ftp://x'], '--bot-url: '],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--port', '70000'], '--port: '],
    [['missing.yaml', '--bot-url', 'http://127.0.0.1:2/'], 'test file not found: missing.yaml'],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--reporter', 'xml'], "--reporter: 'xml' is not a reporter: human, junit, tap, json"],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--reporter', 'xml=out.xml'], "--reporter: 'xml' is not a reporter"],
    [
      ['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--reporter', 'junit='],
      '--reporter junit=: name the file after =, such as junit=report',
    ],
    [
      ['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--reporter', 'junit', '--reporter', 'tap'],
      '--reporter: junit and tap would both go to one output',
    ],
    [
      ['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--reporter', 'junit=r.xml', '--output', 'o.xml'],
      '--output goes with a --reporter NAME without a file',
    ],
    [
      ['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--reporter', 'junit=r', '--reporter', 'tap=r'],
      '--reporter: junit and tap both write r; give each its own file',
    ],
    [
      ['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--reporter', 'json=missing/r.json'],
      '--reporter json=missing/r.json: the folder of missing/r.json does not exist',
    ],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--repeat', '0'], "--repeat: '0' is not a whole number from 1 to 100000"],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--repeat', '100001'], "--repeat: '100001' is not a whole number from 1 to 100000"],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--repeat', '2.5'], "--repeat: '2.5' is not a whole number from 1 to 100000"],
    [['a.yaml', '--bot-url', 'http://127.0.0.1:2/', '--repeat', 'many'], "--repeat: 'many' is not a whole number from 1 to 100000"],
  ])('core test %j', async (argv, message) => {
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n' });
    const result = await runInProcess(['test', ...argv], { cwd: folder });
    expect(result.stderr).toContain(message);
    expect(result.code).toBe(2);
  });

  it.each([['1'], ['64']])('takes --concurrency %s, a bound', async (concurrency) => {
    const { sb, env } = await platform((message, s) => reply(s, message));
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' });
    const result = await runInProcess(['test', 'a.yaml', '--sandbox', sb.url, '--concurrency', concurrency], { env, cwd: folder });
    expect(result.code).toBe(0);
  });

  it('refuses a --sandbox that is not a sandbox, or has no bot, exit 2; one that does not answer, exit 6', async () => {
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n' });
    const noBot = await sandbox();
    const without = await runInProcess(['test', 'a.yaml', '--sandbox', noBot.url], { cwd: folder });
    expect(without.stderr).toContain(`error: --sandbox: the sandbox at ${noBot.url} has no bot connected, so no answer can come`);
    expect(without.code).toBe(2);
    const gone = await runInProcess(['test', 'a.yaml', '--sandbox', `http://127.0.0.1:${await closedPort()}`], { cwd: folder });
    expect(gone.stderr).toContain('error: no answer from the sandbox at http://127.0.0.1:');
    expect(gone.code).toBe(6);
  });
});
