import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Parser as TapParser } from 'tap-parser';
import { describe, expect, it, type TestContext } from 'vitest';
import { stringifyJson } from '../../src/payload/json.js';
import { parseEvent } from '../../src/sandbox/event-json.js';
import type { SandboxEvent } from '../../src/sandbox/events.js';
import { CHECK_IDS } from '../../src/testing/check-bot/ids.js';
import { freePort } from '../helpers/processes.js';
import { gate, startRecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { sandbox } from '../sandbox/helpers.js';
import { startBot, type Flaws } from './bots.js';

/**
 * `core check-bot` (docs/check-bot.md): each check against a bot with exactly that flaw, a flawless
 * bot passing them all, through a sandbox the command starts and a running one; an unreachable bot
 * (exit 6) and bad usage (exit 2).
 *
 * The time limit below only bounds how long an answer, and the acknowledgement of a delivery (the
 * sandbox check-bot starts waits --timeout for it), may take on loopback while the cases run at once on
 * a loaded machine; a check that expects no answer waits it out, so it is the length of a run, not a
 * measure of anything.
 */

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const TIMEOUT = '10s';

interface Report {
  ok: boolean;
  checks: { id: string; status: 'pass' | 'fail'; message: string; fix: string | null; sessionId: string | null }[];
  summary: { checks: number; passed: number; failed: number };
  error: { code: string; message: string } | null;
}

/**
 * The tests run side by side (each has its own bot and sandbox, and most wait out a time limit), so
 * each registers its closing with its own context's onTestFinished, passed here as `finished`.
 */
type Finished = TestContext['onTestFinished'];

/** Runs core check-bot against a bot with `flaws`, through the sandbox it starts. */
async function check(finished: Finished, flaws: Flaws, args: string[] = []) {
  const port = await freePort();
  const bot = await startBot(SECRET, flaws, finished);
  bot.connect(`http://127.0.0.1:${port}`);
  const result = await runInProcess(['check-bot', '--bot-url', bot.url, '--port', String(port), '--timeout', TIMEOUT, ...args], {
    env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET }),
  });
  return { ...result, bot };
}

async function checkJson(finished: Finished, flaws: Flaws, args: string[] = []) {
  const result = await check(finished, flaws, ['--reporter', 'json', ...args]);
  return { ...result, report: readReport(result.stdout) };
}

/** The report as plain JSON: it holds no identifier, so numbers are numbers. */
const readReport = (text: string) => JSON.parse(text) as Report;

const failing = (report: Report) => report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
const messageOf = (report: Report, id: string) => report.checks.find((c) => c.id === id)?.message;

// First and one test at a time: the first run loads the command's modules (transformed by vitest on
// first import), which five batteries started together would wait on while their time limits run.
describe('core check-bot against a flawless bot', () => {
  it('passes every check, in the order of the table, and exits 0', async ({ onTestFinished }) => {
    const { code, report, stderr } = await checkJson(onTestFinished, {});
    expect(stderr).toContain('core check-bot: 13 checks of the bot at');
    expect(failing(report), stringifyJson(report.checks, 2)).toEqual([]);
    expect(code).toBe(0);
    expect(report.checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
    expect(report.summary).toEqual({ checks: 13, passed: 13, failed: 0 });
    expect(report.ok).toBe(true);
    expect(report.error).toBeNull();
    for (const c of report.checks) {
      expect(c.fix).toBeNull();
      expect(c.sessionId).toMatch(/^s-/);
    }
    // Each check has a conversation of its own.
    expect(new Set(report.checks.map((c) => c.sessionId)).size).toBe(13);
  });

  it('prints a table: the check, pass, and what happened', async ({ onTestFinished }) => {
    const { code, stdout } = await check(onTestFinished, {});
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^check\s+result\s+what happened$/);
    for (const id of CHECK_IDS) expect(stdout).toMatch(new RegExp(`^${id.replace('.', '\\.')}\\s+pass\\s+\\S`, 'm'));
    expect(stdout).not.toContain('fix:');
    expect(stdout).toMatch(/^13 passed, 0 failed \(13 checks of the bot at http:\/\/127\.0\.0\.1:\d+\/webhook, [\d.]+s\)$/m);
  });
});

/** Each flaw, and the checks a full battery fails with it (the flaw's own, and only those it cannot help failing). */
const FLAWS: { flaw: string; flaws: Flaws; fails: string[]; message?: RegExp }[] = [
  {
    flaw: 'accepts a delivery without webhook-* headers',
    flaws: { signature: 'unsigned-accepted' },
    fails: ['signature.missing'],
    message: /the bot accepted it \(200 in/,
  },
  {
    flaw: 'does not compare the signature (so both a changed body and another secret pass)',
    flaws: { signature: 'not-compared' },
    fails: ['signature.tampered', 'signature.wrong-secret'],
    message: /accepted it .*: /,
  },
  {
    flaw: 'signs the body it parsed and wrote again, not the bytes it received',
    flaws: { signature: 'reserialised' },
    fails: ['signature.raw-body'],
    message: /^a delivery signed over bytes a re-serialiser changes: the bot answered it 401 in \S+: "no valid signature", not 2xx$/,
  },
  {
    flaw: 'reads identifiers as doubles (JSON.parse)',
    flaws: { doubles: true },
    fails: ['ids.precision'],
    message:
      /^a delivery of questionId 900719925\d+ and coreClientId 9007199254740993: the answer named questionId 900719925\d+, not 900719925\d+: the ids were read as doubles/,
  },
  {
    flaw: 'compares only the first signature of the header',
    flaws: { signature: 'first-only' },
    fails: ['signature.rotation'],
    message: /answered it 401/,
  },
  { flaw: 'lets an old timestamp through', flaws: { timestamp: 'old' }, fails: ['timestamp.stale'], message: /accepted it/ },
  { flaw: 'lets a future timestamp through', flaws: { timestamp: 'future' }, fails: ['timestamp.future'], message: /accepted it/ },
  { flaw: 'checks no timestamp', flaws: { timestamp: 'any' }, fails: ['timestamp.stale', 'timestamp.future'] },
  {
    flaw: 'answers a replay with a new answerId',
    flaws: { replay: 'new-answerId' },
    fails: ['replay'],
    message: /answered again with a new answerId/,
  },
  { flaw: 'answers a replay with the same answerId (the platform drops it: no flaw)', flaws: { replay: 'same-answerId' }, fails: [] },
  {
    flaw: 'does not retry an answer refused with 503',
    flaws: { retry: 'none' },
    fails: ['retry.answerId'],
    message: /not sent again within 10s: the answer is lost/,
  },
  {
    flaw: 'retries under a new answerId',
    flaws: { retry: 'new-answerId' },
    fails: ['retry.answerId'],
    message: /tried again with a new answerId/,
  },
  {
    flaw: 'addresses an EMAIL answer by questionId',
    flaws: { emailByQuestionId: true },
    fails: ['email.addressing'],
    message: /addressed by questionId and refused: 400 .*chatbot rule 2/,
  },
  {
    flaw: 'refuses fields it does not know',
    flaws: { strictFields: true },
    fails: ['unknown-fields'],
    message: /answered it 400 .*unknown fields: futureField, futureField/,
  },
  {
    flaw: 'turns away an invalid delivery with a redirect (302), which is no refusal',
    flaws: { refusesWith: 302 },
    fails: ['signature.missing', 'signature.tampered', 'signature.wrong-secret', 'timestamp.stale', 'timestamp.future'],
    message: /the bot answered it 302 in \S+, a redirect, not a refusal \(4xx or 5xx\)/,
  },
  {
    flaw: 'answers a delivery before refusing it',
    flaws: { answersBeforeVerifying: true },
    fails: ['signature.missing', 'signature.tampered', 'signature.wrong-secret', 'timestamp.stale', 'timestamp.future'],
    message: /refused it \(401\) but answered it anyway/,
  },
];

describe.concurrent('core check-bot against a bot with one flaw', () => {
  it.for(FLAWS)('a bot that $flaw fails exactly $fails', async ({ flaws, fails, message }, { onTestFinished }) => {
    const { code, report } = await checkJson(onTestFinished, flaws);
    expect(failing(report), stringifyJson(report.checks, 2)).toEqual(fails);
    expect(code).toBe(fails.length === 0 ? 0 : 3);
    expect(report.summary).toEqual({ checks: 13, passed: 13 - fails.length, failed: fails.length });
    for (const id of fails) {
      const failed = report.checks.find((c) => c.id === id)!;
      if (message) expect(failed.message).toMatch(message);
      expect(failed.fix).toMatch(/\w/);
    }
  });
});

describe.concurrent('core check-bot --only answers, against bots that do not answer as they should', () => {
  it.for([
    { flaw: 'acknowledges with 500', flaws: { ackStatus: 500 }, message: /^a signed delivery: the bot answered it 500 in \S+, not 2xx$/ },
    { flaw: 'never answers', flaws: { silent: true }, message: /acknowledged 200 in \S+, but no answer within 2s$/ },
    {
      flaw: 'answers with a wrong token',
      flaws: { token: 'not-the-token' },
      message: /acknowledged 200 in \S+, but the bot's answer was refused: 401 invalid bearer token$/,
    },
    {
      flaw: 'answers naming a tenant the sandbox does not serve',
      flaws: { tenant: 'elsewhere' },
      message:
        /but no answer within 2s; meanwhile the sandbox refused 1 request of the bot that named no conversation: 403 tenant 'elsewhere' is not served here/,
    },
    { flaw: 'answers without text', flaws: { invalidAnswer: true }, message: /the bot's answer was refused: 400 .*text/ },
  ])('a bot that $flaw fails it, saying why', async ({ flaws, message }, { onTestFinished }) => {
    const { code, report } = await checkJson(onTestFinished, flaws, ['--only', 'answers', '--timeout', '2s']);
    expect(code).toBe(3);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([['answers', 'fail']]);
    expect(messageOf(report, 'answers')).toMatch(message);
    expect(report.checks[0]!.fix).toBe(
      'answer 2xx to a verified delivery and POST the answer to /api/v1/chatbot with the token, the tenant and the questionId',
    );
  });
});

describe.concurrent('core check-bot against a bot that verifies with another secret', () => {
  it('says so once, as the diagnosis, instead of a fix per failed check', async ({ onTestFinished }) => {
    const { code, report, stdout } = await checkJson(onTestFinished, {
      secret: `whsec_${Buffer.from('another key of thirty-two bytes!').toString('base64')}`,
    });
    expect(code).toBe(3);
    const typed = report as Report & { diagnosis: { message: string; fix: string } | null };
    expect(typed.diagnosis?.message).toMatch(
      /^the bot refuses the sandbox's signature: it answered every correctly signed delivery \(\d+\) 401$/,
    );
    expect(typed.diagnosis?.fix).toMatch(/^does the bot verify with the secret the sandbox signs with\? Give it CORE_WEBHOOK_SECRET/);
    // The refusals it should make, it makes; every check that needs an answer fails, with no fix of its own.
    expect(failing(report)).toEqual([
      'answers',
      'signature.rotation',
      'signature.raw-body',
      'replay',
      'retry.answerId',
      'email.addressing',
      'unknown-fields',
      'ids.precision',
    ]);
    expect(report.checks.filter((c) => c.fix !== null)).toEqual([]);
    expect(stdout).not.toContain('fix: split webhook-signature');
  });

  it('gives no diagnosis for a bot that refuses some signed deliveries only', async ({ onTestFinished }) => {
    const { report } = await checkJson(onTestFinished, { signature: 'first-only' });
    expect((report as Report & { diagnosis: unknown }).diagnosis).toBeNull();
  });
});

describe.concurrent('core check-bot against a bot answering with a wrong token', () => {
  it('fails answers as soon as the sandbox refuses the answer, naming the 401 and its message', async ({ onTestFinished }) => {
    // The answer names its question, so the sandbox ties the refusal to the check's conversation: the check does not
    // wait out its time limit (ten minutes here, which would outlast the test's own time-out).
    const { code, report } = await checkJson(onTestFinished, { token: 'not-the-token' }, ['--only', 'answers', '--timeout', '10m']);
    expect(code).toBe(3);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([['answers', 'fail']]);
    expect(messageOf(report, 'answers')).toMatch(
      /^a signed delivery: acknowledged 200 in \S+, but the bot's answer was refused: 401 invalid bearer token$/,
    );
  });
});

describe.concurrent('core check-bot --only', () => {
  it.for<[string[], string[]]>([
    [['signature'], ['signature.missing', 'signature.tampered', 'signature.wrong-secret', 'signature.rotation', 'signature.raw-body']],
    [
      ['timestamp.future', 'answers'],
      ['answers', 'timestamp.future'],
    ],
    [['replay,email.addressing'], ['replay', 'email.addressing']],
  ])('--only %j runs %j', async ([only, ids], { onTestFinished }) => {
    const { code, report } = await checkJson(onTestFinished, { signature: 'unsigned-accepted' }, ['--only', ...only, '--timeout', '1ms']);
    expect(report.checks.map((c) => c.id)).toEqual(ids);
    expect([0, 3]).toContain(code);
  });
});

describe.concurrent('core check-bot reports', () => {
  const failed = (onTestFinished: Finished) => check(onTestFinished, { signature: 'unsigned-accepted' }, ['--only', 'signature.missing']);

  it('shows a failed check as FAIL with the fix in one line under it', async ({ onTestFinished }) => {
    const { code, stdout } = await failed(onTestFinished);
    expect(code).toBe(3);
    expect(stdout).toMatch(
      /^signature\.missing\s+FAIL\s+a delivery without webhook-\* headers: the bot accepted it \(200 in \S+\): anyone who finds/m,
    );
    expect(stdout).toMatch(
      /^\s+fix: refuse \(401\) a delivery without webhook-id, webhook-timestamp and webhook-signature before reading its body$/m,
    );
    expect(stdout).toMatch(/^0 passed, 1 failed /m);
  });

  it('writes JUnit XML with a failure per failed check', async ({ onTestFinished }) => {
    const { code, stdout, stderr } = await check(onTestFinished, { signature: 'unsigned-accepted' }, [
      '--only',
      'signature',
      '--reporter',
      'junit',
    ]);
    expect(code).toBe(3);
    expect(stdout).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="core check-bot" tests="5" failures="1" errors="0"/,
    );
    expect(stdout).toContain('<testcase name="signature.missing" classname="core check-bot"');
    expect(stdout).toMatch(/<failure message="a delivery without webhook-\* headers: the bot accepted it[^"]*" type="CheckFailure">sent: /);
    expect(stdout).toContain('fix: refuse (401) a delivery without webhook-id');
    expect(stdout.match(/<testcase /g)).toHaveLength(5);
    expect(stdout.match(/<failure /g)).toHaveLength(1);
    expect(stderr).toMatch(/4 passed, 1 failed/);
  });

  it('writes TAP 14 with the message and the fix of a failure in its YAML block', async ({ onTestFinished }) => {
    const { code, stdout } = await check(onTestFinished, { signature: 'unsigned-accepted' }, [
      '--only',
      'signature.missing',
      'answers',
      '--reporter',
      'tap',
    ]);
    expect(code).toBe(3);
    const lines = stdout.split('\n');
    expect(lines.slice(0, 4)).toEqual(['TAP version 14', '1..2', 'ok 1 - answers', 'not ok 2 - signature.missing']);
    expect(stdout).toMatch(/^ {2}---\n {2}message: "a delivery without webhook-\* headers: the bot accepted it/m);
    expect(stdout).toMatch(/^ {2}fix: refuse \(401\)/m);
    expect(stdout).toMatch(/^ {2}\.\.\.$/m);
  });

  it('writes the report to --output, and the closing line to stderr', async ({ onTestFinished }) => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'check-bot-')), 'report.json');
    const { code, stdout, stderr } = await check(onTestFinished, {}, ['--only', 'answers', '--reporter', 'json', '--output', file]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/1 passed, 0 failed/);
    expect(readReport(readFileSync(file, 'utf8')).checks).toMatchObject([{ id: 'answers', status: 'pass' }]);
  });
});

describe.concurrent('core check-bot --sandbox URL', () => {
  it('runs every check through a running sandbox, whose conversations stay to be read', async ({ onTestFinished }) => {
    const bot = await startBot(SECRET, {}, onTestFinished);
    const sb = await sandbox({ botUrl: bot.url, webhookSecret: SECRET }, onTestFinished);
    bot.connect(sb.url);
    const result = await runInProcess(['check-bot', '--sandbox', sb.url, '--timeout', TIMEOUT, '--reporter', 'json']);
    const report = readReport(result.stdout);
    expect(failing(report), stringifyJson(report.checks, 2)).toEqual([]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`each check's conversation is in the sandbox at ${sb.url}`);
    const replay = sb.conversation(report.checks.find((c) => c.id === 'replay')!.sessionId!);
    expect(replay?.channel).toBe('WEB');
    const email = sb.conversation(report.checks.find((c) => c.id === 'email.addressing')!.sessionId!);
    expect(email?.channel).toBe('EMAIL');
  });

  it.for([
    ['new-answerId', 'fails', /answered again with a new answerId/],
    ['same-answerId', 'passes', /answered again with the same answerId \(answer-msg_\S+\), which the platform drops/],
  ] as const)(
    'under strict duplicates, a bot that answers a replay with the %s %s replay',
    async ([replay, outcome, message], { onTestFinished }) => {
      const bot = await startBot(SECRET, { replay }, onTestFinished);
      const sb = await sandbox({ botUrl: bot.url, webhookSecret: SECRET, duplicates: 'strict' }, onTestFinished);
      bot.connect(sb.url);
      const result = await runInProcess(['check-bot', '--sandbox', sb.url, '--only', 'replay', '--timeout', '2s', '--reporter', 'json']);
      const report = readReport(result.stdout);
      expect(report.checks[0]!.status).toBe(outcome === 'fails' ? 'fail' : 'pass');
      expect(report.checks[0]!.message).toMatch(message);
      expect(result.code).toBe(outcome === 'fails' ? 3 : 0);
    },
  );

  it('stops on Ctrl-C while a delivery is out, exit 130, with no report', async ({ onTestFinished }) => {
    const bot = await startBot(SECRET, {}, onTestFinished);
    const sb = await sandbox({ botUrl: bot.url, webhookSecret: SECRET }, onTestFinished);
    bot.connect(sb.url);
    const abort = new AbortController();
    // Interrupted once the bot has refused the crafted delivery, before the check has its answer.
    const stop = sb.subscribe((event) => {
      if (event.type === 'webhook.attempt' && event.status === 401) abort.abort();
    });
    const result = await runInProcess(
      ['check-bot', '--sandbox', sb.url, '--only', 'signature.missing', '--timeout', '10m', '--reporter', 'json'],
      {
        signal: abort.signal,
      },
    );
    stop();
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: interrupted');
  });

  it('refuses a sandbox with no bot connected (exit 2)', async ({ onTestFinished }) => {
    const sb = await sandbox({}, onTestFinished);
    const result = await runInProcess(['check-bot', '--sandbox', sb.url]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`the sandbox at ${sb.url} has no bot connected, so there is nothing to check`);
  });

  it('exits 6 when nothing answers at the sandbox URL', async () => {
    const port = await freePort();
    const result = await runInProcess(['check-bot', '--sandbox', `http://127.0.0.1:${port}`]);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/no answer from the sandbox at http:\/\/127\.0\.0\.1:\d+/);
  });
});

describe.concurrent('core check-bot against a bot that cannot be reached', () => {
  it.each([['human'], ['json']])('exits 6 and says so (--reporter %s), without waiting out the time limit', async (reporter) => {
    const [port, botPort] = [await freePort(), await freePort()];
    const result = await runInProcess(
      ['check-bot', '--bot-url', `http://127.0.0.1:${botPort}/webhook`, '--port', String(port), '--reporter', reporter, '--timeout', '10m'],
      { env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET }) },
    );
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/the bot could not be reached: every delivery failed to connect \(ECONNREFUSED\)/);
    expect(result.stderr).toContain('start the bot before core check-bot');
    if (reporter === 'json') {
      expect(readReport(result.stdout).error).toMatchObject({ code: 'EBOTUNREACHABLE' });
    } else expect(result.stdout).toBe('');
  });
});

describe.concurrent('core check-bot --sandbox URL where nothing answers', () => {
  const selected = [
    'answers',
    'signature.missing',
    'signature.tampered',
    'signature.wrong-secret',
    'signature.rotation',
    'signature.raw-body',
  ];

  /** Each reporter's document read back with its parser, checked to say the sandbox could not be reached. */
  const checks: Record<string, (document: string, message: string, sandboxUrl: string) => Promise<void>> = {
    json: async (document, message, sandboxUrl) => {
      const report = JSON.parse(document) as Report & { botUrl: unknown; sandboxUrl: unknown; tenant: unknown };
      expect(report).toMatchObject({
        ok: false,
        botUrl: null,
        sandboxUrl,
        tenant: null,
        summary: { checks: 6, passed: 0, failed: 6 },
        error: { code: 'ESANDBOXUNREACHABLE', message, sandboxUrl },
      });
      expect(report.checks.map((c) => [c.id, c.status, c.message, c.sessionId])).toEqual(selected.map((id) => [id, 'fail', message, null]));
    },
    junit: async (document, message) => {
      expect(XMLValidator.validate(document)).toBe(true);
      const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', parseAttributeValue: false }).parse(document) as {
        testsuites: Record<string, unknown> & { testsuite: Record<string, unknown> & { testcase: Record<string, unknown>[] } };
      };
      expect(doc.testsuites).toMatchObject({ name: 'core check-bot', tests: '6', failures: '0', errors: '6' });
      expect(doc.testsuites.testsuite.testcase.map((c) => [c.name, c.error])).toEqual(
        selected.map((id) => [id, { message, type: 'SandboxUnreachable' }]),
      );
    },
    tap: async (document, message) => {
      expect(document).toBe(`TAP version 14\nBail out! ${message}\n`);
      const parser = new TapParser();
      const done = new Promise<{ ok: boolean; bailout: string | boolean; count: number }>((resolve) => parser.on('complete', resolve));
      parser.end(document);
      expect(await done).toMatchObject({ ok: false, bailout: message, count: 0 });
    },
  };
  const cases = Object.keys(checks).flatMap((reporter) => [
    [reporter, 'stdout'],
    [reporter, '--output FILE'],
  ]);

  it.each(cases)('writes the %s report to %s, every selected check an error of the sandbox; exit 6', async (reporter, where) => {
    const sandboxUrl = `http://127.0.0.1:${await freePort()}`;
    const file = join(mkdtempSync(join(tmpdir(), 'check-bot-')), 'report');
    const args = ['check-bot', '--sandbox', sandboxUrl, '--only', 'answers,signature', '--reporter', reporter];
    const result = await runInProcess(where === 'stdout' ? args : [...args, '--output', file]);
    expect(result.code).toBe(6);
    // The error and its hint on stderr, as before the report was written.
    const message = /^error: (.*)$/m.exec(result.stderr)?.[1] ?? '';
    expect(message).toMatch(new RegExp(`^no answer from the sandbox at ${sandboxUrl.replace(/\./g, '\\.')}: connect ECONNREFUSED`));
    expect(result.stderr).toContain(
      'hint: start one with core sandbox --bot-url URL and give core check-bot the base URL it prints with --sandbox, or let core check-bot start one: --bot-url URL',
    );
    if (where !== 'stdout') expect(result.stdout).toBe('');
    await checks[reporter]!(where === 'stdout' ? result.stdout : readFileSync(file, 'utf8'), message, sandboxUrl);
  });

  it('prints only the error with the human reporter', async () => {
    const result = await runInProcess(['check-bot', '--sandbox', `http://127.0.0.1:${await freePort()}`]);
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(result.stderr.match(/no answer from the sandbox/g)).toHaveLength(1);
  });
});

describe.concurrent('core check-bot usage errors (exit 2)', () => {
  it.each([
    [[], /core check-bot needs a bot: --bot-url URL, or --sandbox URL/],
    [
      ['--sandbox', 'http://127.0.0.1:1', '--bot-url', 'http://127.0.0.1:2/'],
      /--sandbox uses a running sandbox; --bot-url is for the one core check-bot starts/,
    ],
    [['--sandbox', 'http://127.0.0.1:1', '--port', '8080'], /--port is for the one core check-bot starts/],
    [['--sandbox', 'ftp://x'], /--sandbox: /],
    [['--bot-url', 'http://127.0.0.1:2/', '--timeout', 'soon'], /--timeout: invalid duration "soon"/],
    [['--bot-url', 'http://127.0.0.1:2/', '--timeout', '0'], /--timeout: invalid duration "0": must be at least 1ms/],
    [['--bot-url', 'http://127.0.0.1:2/', '--timeout', '11m'], /--timeout: 11m is longer than the limit of 10m/],
    [
      ['--bot-url', 'http://127.0.0.1:2/', '--only', 'signature.mising', 'nonsense'],
      /--only: no check 'signature\.mising' \(did you mean signature\.missing\?\), 'nonsense'/,
    ],
    [
      ['--bot-url', 'http://127.0.0.1:2/', '--only', 'sig.missing,future'],
      /--only: no check 'sig\.missing' \(did you mean signature\.missing\?\), 'future' \(did you mean timestamp\.future\?\)/,
    ],
    [['--bot-url', 'http://127.0.0.1:2/', '--only', 'signatur'], /--only: no check 'signatur' \(did you mean signature\.\*\?\)/],
    [['--bot-url', 'http://127.0.0.1:2/', '--only', 'timestmp.*'], /--only: no check 'timestmp\.\*' \(did you mean timestamp\.\*\?\)/],
    [
      ['--bot-url', 'http://127.0.0.1:2/', '--only', 'signatur'],
      /hint: the checks: answers, .+; or all of a group: signature\.\*, timestamp\.\*, retry\.\*, email\.\*/,
    ],
    [['--bot-url', 'http://127.0.0.1:2/', '--only', ','], /--only: name at least one check/],
    [['--bot-url', 'http://127.0.0.1:2/', '--reporter', 'xml'], /argument 'xml' is invalid/],
    [
      ['--bot-url', 'http://127.0.0.1:2/', '--output', '/no/such/folder/report.xml'],
      /--output: the folder of \/no\/such\/folder\/report\.xml does not exist/,
    ],
    [['--bot-url', 'not a url'], /--bot-url/],
  ])('core check-bot %j', async (args, message) => {
    const result = await runInProcess(['check-bot', ...args]);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(2);
  });

  it('accepts the longest time limit, 10m (the bound passes; 11m above does not)', async () => {
    const { selectChecks } = await import('../../src/commands/check-bot/plan.js');
    expect(selectChecks(['timestamp'])).toEqual(['timestamp.stale', 'timestamp.future']);
    // A group written as its suggestion says, `signature.*`, names the same checks.
    expect(selectChecks(['timestamp.*'])).toEqual(['timestamp.stale', 'timestamp.future']);
    expect(selectChecks(['signature.*', 'replay'])).toEqual([
      'signature.missing',
      'signature.tampered',
      'signature.wrong-secret',
      'signature.rotation',
      'signature.raw-body',
      'replay',
    ]);
    const result = await runInProcess([
      'check-bot',
      '--bot-url',
      'http://127.0.0.1:2/',
      '--timeout',
      '10m',
      '--output',
      '/no/such/folder/r',
    ]);
    // The time limit passed its check: the next option is the one refused.
    expect(result.stderr).toMatch(/--output: the folder/);
    expect(result.code).toBe(2);
  });
});

describe('core check-bot labels each check’s conversation with its check and verdict', () => {
  it('in the sandbox it starts for --bot-url: the check’s id when it starts, then the verdict, before the sandbox stops', async ({
    onTestFinished,
  }) => {
    const port = await freePort();
    // A bot that holds the first delivery until the test follows the sandbox's events, then acknowledges and never answers.
    const held = gate();
    const bot = await startRecordingServer((_, index) => (index === 0 ? { status: 200, until: held.promise } : { status: 200 }));
    onTestFinished(() => bot.close());
    const running = runInProcess(
      [
        'check-bot',
        '--bot-url',
        `${bot.url}/webhook`,
        '--port',
        String(port),
        '--only',
        'answers',
        '--timeout',
        '1s',
        '--reporter',
        'json',
      ],
      { env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET }) },
    );
    await bot.received(1);
    const labels: SandboxEvent[] = [];
    const response = await fetch(`http://127.0.0.1:${port}/_sandbox/events?after=0`);
    const reader = response.body!.getReader();
    let text = '';
    const followed = (async () => {
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (chunk.done) return;
        text += Buffer.from(chunk.value).toString('utf8');
        const blocks = text.split('\n\n');
        text = blocks.pop() ?? '';
        for (const block of blocks) {
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data === undefined) continue;
          const event = parseEvent(data.slice('data: '.length));
          if (event.type === 'probe.check') labels.push(event);
        }
      }
    })();
    held.open();
    const result = await running;
    // The stream ends when the sandbox stops, after every event it recorded.
    await followed;
    const report = readReport(result.stdout);
    expect(report.checks).toMatchObject([{ id: 'answers', status: 'fail' }]);
    const sessionId = report.checks[0]!.sessionId;
    expect(labels).toMatchObject([
      { sessionId, check: 'answers', verdict: null, message: null },
      { sessionId, check: 'answers', verdict: 'fail', message: report.checks[0]!.message },
    ]);
  });

  it('in a running sandbox (--sandbox URL): every check’s conversation is listed with its check and verdict', async ({
    onTestFinished,
  }) => {
    const bot = await startBot(SECRET, { signature: 'not-compared' }, onTestFinished);
    const sb = await sandbox({ botUrl: bot.url, webhookSecret: SECRET }, onTestFinished);
    bot.connect(sb.url);
    const result = await runInProcess(['check-bot', '--sandbox', sb.url, '--timeout', '2s', '--reporter', 'json']);
    const report = readReport(result.stdout);
    expect(report.checks.map((check) => check.id)).toEqual([...CHECK_IDS]);
    for (const check of report.checks) {
      expect(sb.conversation(check.sessionId!)?.check, check.id).toEqual({
        check: check.id,
        verdict: check.status,
        message: check.message,
      });
    }
    expect(failing(report)).toEqual(['signature.tampered', 'signature.wrong-secret']);
  });
});
