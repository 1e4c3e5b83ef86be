import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, binPath, ensureBuilt, repoRoot, runBuilt } from '../helpers/run.js';
import { testFolder } from '../test-command/platform.js';

/**
 * docs/testing-bots.md as a user follows it, through the built binary and the example bot of
 * docs/examples/bot/: its tests run in CI style (core test starts the sandbox, a JUnit report), a
 * conversation saved as a test passes again, and a bot that is not running gives exit 6.
 */

afterEach(() => stopProcesses());

/** Starts a Node program; resolves once its stdout matches `ready`, with what it printed so far. */
const start = (args: string[], env: Record<string, string | undefined>, ready: RegExp) =>
  startProcess(process.execPath, args, env, ready).started;

const exampleBot = join(repoRoot, 'docs', 'examples', 'bot', 'bot.mjs');
const exampleTests = join(repoRoot, 'docs', 'examples', 'bot', 'tests');
const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe('core test with the example bot', () => {
  beforeAll(() => ensureBuilt());

  it('runs the example tests in CI style: a sandbox on --port delivering to --bot-url, JUnit and JSON reports from one run', async () => {
    const [sandboxPort, botPort] = [await freePort(), await freePort()];
    await start(
      [exampleBot],
      baseEnv({
        CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        CORE_WEBHOOK_SECRET: secret,
        PORT: String(botPort),
      }),
      /bot listening on/,
    );
    const folder = testFolder({});
    const result = await runBuilt(
      [
        'test',
        exampleTests,
        '--port',
        String(sandboxPort),
        '--bot-url',
        `http://127.0.0.1:${botPort}/webhook`,
        '--reporter',
        'junit=report.xml',
        '--reporter',
        'json=report.json',
      ],
      { env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: secret }), cwd: folder },
    );
    // Three files of one conversation each, and one of three examples rows.
    expect(result.stderr).toMatch(/^6 passed, 0 failed/m);
    const json = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as { summary: Record<string, number> };
    expect(json.summary).toMatchObject({ files: 4, conversations: 6, passed: 6, failed: 0 });
    expect(result.code).toBe(0);
    const xml = readFileSync(join(folder, 'report.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const suites = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).testsuites as Record<string, unknown>;
    expect(suites).toMatchObject({ tests: '6', failures: '0', errors: '0' });
  });

  it("expects the example bot's hand-over routed to an agent who answers, and names where it went when the routing differs", async () => {
    const [sandboxPort, botPort] = [await freePort(), await freePort()];
    await start(
      [exampleBot],
      baseEnv({
        CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        CORE_WEBHOOK_SECRET: secret,
        PORT: String(botPort),
      }),
      /bot listening on/,
    );
    // The example bot hands over with no targets: any agent, the least busy first, so Ann (101) of the default agents.
    const steps = (agent: number) => `name: a person answers, then the bot again
channel: IM
steps:
  - customer: Hello
  - bot: {text: "You said: Hello"}
  - press: Talk to a person
  - bot: {code: SWITCH_TO_HUMAN}
    handover: {agent: ${agent}}
  - agent: Ann here, how can I help?
  - customer: Are you there?
  - bot: none
  - release: true
  - customer: Thanks
  - bot: {text: "You said: Thanks"}
`;
    const folder = testFolder({ 'ann.yaml': steps(101), 'boris.yaml': steps(102) });
    const play = (file: string) =>
      runBuilt(['test', file, '--port', String(sandboxPort), '--bot-url', `http://127.0.0.1:${botPort}/webhook`], {
        env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: secret }),
        cwd: folder,
      });
    const passed = await play('ann.yaml');
    expect(passed.stdout).toMatch(/^1 passed, 0 failed/m);
    expect(passed.code).toBe(0);
    const failed = await play('boris.yaml');
    expect(failed.stdout).toContain('step 4, line 7 (bot)');
    expect(failed.stdout).toContain(
      '  the hand-over went to agent 101 (Ann), it named no targets, so any agent; the step expects agent 102\n',
    );
    expect(failed.code).toBe(3);
  });

  it('saves a conversation with the example bot as a test that passes against the same bot', async () => {
    const botPort = await freePort();
    const env = baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: secret });
    const lines = await start(
      [binPath, 'sandbox', '--port', '0', '--bot-url', `http://127.0.0.1:${botPort}/webhook`],
      env,
      /CORE_WEBHOOK_SECRET=\S+\n/,
    );
    const exported = Object.fromEntries([...lines.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(exported.CORE_WEBHOOK_SECRET).toBe(secret);
    const userEnv = { ...baseEnv(), ...exported };
    await start([exampleBot], { ...userEnv, PORT: String(botPort) }, /bot listening on/);

    const said = await runBuilt(['customer', 'say', 'Where is my order?', '--channel', 'im'], { env: userEnv });
    expect(said.code).toBe(0);
    const sessionId = /go on with --session (s-[0-9a-f]{12})/.exec(said.stderr)![1]!;
    expect((await runBuilt(['customer', 'press', 'Talk to a person', '--session', sessionId], { env: userEnv })).code).toBe(0);
    expect((await runBuilt(['customer', 'say', 'Hello?', '--session', sessionId], { env: userEnv })).code).toBe(6);

    const response = await fetch(`${exported.CORE_BASE_URL}/_sandbox/conversations/${sessionId}/test`);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="where-is-my-order.yaml"');
    const folder = testFolder({});
    writeFileSync(join(folder, 'where-is-my-order.yaml'), await response.text());
    const result = await runBuilt(['test', 'where-is-my-order.yaml', '--sandbox', exported.CORE_BASE_URL!], {
      env: baseEnv(),
      cwd: folder,
    });
    expect(result.stdout).toMatch(/^✓ Where is my order\? \(where-is-my-order\.yaml:4, /m);
    expect(result.code).toBe(0);
  });

  it('exits 6, saying so once, when the bot is not running', async () => {
    const botUrl = `http://127.0.0.1:${await freePort()}/webhook`;
    const result = await runBuilt(['test', exampleTests, '--bot-url', botUrl], { env: baseEnv(), cwd: repoRoot });
    expect(result.stderr).toContain(
      `error: the bot could not be reached: every webhook delivery to ${botUrl} failed to connect (ECONNREFUSED)`,
    );
    expect(result.stderr.match(/could not be reached/g)).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(6);
  });
});
