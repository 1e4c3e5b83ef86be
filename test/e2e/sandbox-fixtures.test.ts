import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, ensureBuilt, killStillRunning, repoRoot, runBuilt, startBuilt, type BuiltProcess } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';

/**
 * Fixtures as a user runs them through the built binary (docs/sandbox.md, "Fixtures" and
 * "Snapshots"; docs/testing-bots.md, "Starting mid-flow"): a seed with an EMAIL thread two questions
 * deep that a `core test` conversation continues with the example bot (its answer addressed by
 * sessionId and questionIndex, chatbot rule 2); a snapshot saved, restored, and kept over a restart
 * in the state file; a seed's problems named by file and path.
 */

afterEach(async () => {
  killStillRunning();
  await stopProcesses();
});

const LISTENING = /listening on (http:\/\/\S+)/;
const exampleBot = join(repoRoot, 'docs', 'examples', 'bot', 'bot.mjs');
const secret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;

const SEED = `tenants:
  - clients:
      - clientId: alice@example.com
        threads:
          - channel: email
            subject: Order 42 has not arrived
            steps:
              - customer: Where is order 42?
              - bot: It left our warehouse on Monday.
              - customer: It is Friday now.
              - bot: Let me look into it.
      - threads:
          - steps:
              - customer: I want a person
              - bot: {text: Passing you on, code: SWITCH_TO_HUMAN}
              - agent: Hello, Ann here.
`;

const CONTINUE = (from: string) => `name: the thread goes on
from: ${from}
steps:
  - customer: "Still nothing about \${questionId}"
  - bot:
      text: "/^You said: Still nothing about \\\\d+$/"
      sessionId: "\${sessionId}"
      questionIndex: 3
`;

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'core-fixtures-'));
  writeFileSync(join(dir, 'seed.yaml'), SEED);
  return dir;
}

async function startSandbox(args: string[], cwd: string): Promise<{ sandbox: BuiltProcess; url: string }> {
  const sandbox = startBuilt(['sandbox', ...args], { env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: secret }), cwd });
  await happens(
    Promise.race([
      sandbox.printed('stdout', LISTENING),
      sandbox.exited.then((code) => Promise.reject(new Error(`exited ${code}: ${sandbox.stderr()}`))),
    ]),
    'the sandbox listens',
    30_000,
  );
  await happens(sandbox.printed('stderr', /stop with Ctrl-C/), 'the sandbox says how to stop it');
  return { sandbox, url: LISTENING.exec(sandbox.stdout())![1]! };
}

async function conversations(url: string): Promise<Record<string, unknown>[]> {
  const json = parseJson(await (await fetch(`${url}/_sandbox/conversations`)).text()) as { conversations: Record<string, unknown>[] };
  return json.conversations;
}

describe('seeds and snapshots', () => {
  beforeAll(() => ensureBuilt());

  it('starts from a seed: an EMAIL thread two questions deep with its subject, and a thread with an agent after a hand-over', async () => {
    const dir = folder();
    const { url } = await startSandbox(['--seed', 'seed.yaml'], dir);
    const listed = await conversations(url);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({
      channel: 'EMAIL',
      subject: 'Order 42 has not arrived',
      clientId: 'alice@example.com',
      questions: 2n,
    });
    expect(listed[1]).toMatchObject({ channel: 'WEB', owner: 'agents', holder: 'agent', clientId: null, questions: 1n });
  });

  it('names the seed file and the path of every problem, and starts nothing', async () => {
    const dir = folder();
    writeFileSync(
      join(dir, 'bad.yaml'),
      'tenants:\n  - clients:\n      - threads:\n          - channel: SMS\n            steps: [{bot: hi}]\n',
    );
    const result = await runBuilt(['sandbox', '--seed', 'bad.yaml'], { env: baseEnv(), cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--seed: bad.yaml holds 2 problems');
    expect(result.stderr).toContain('tenants[0].clients[0].threads[0].channel');
    expect(result.stderr).toContain('tenants[0].clients[0].threads[0].steps[0]');
  });

  it('refuses a seed whose answer the rules refuse, naming its step, and applies nothing of it', async () => {
    const dir = folder();
    const { url } = await startSandbox([], dir);
    writeFileSync(
      join(dir, 'refused.yaml'),
      'tenants:\n  - clients:\n      - threads:\n          - steps:\n              - customer: hi\n              - bot: {text: bye, code: SWITCH_TO_HUMAN}\n              - bot: too late\n',
    );
    const result = await runBuilt(['sandbox', 'seed', 'refused.yaml', '--sandbox', url], { env: baseEnv(), cwd: dir });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('tenants[0].clients[0].threads[0].steps[2].bot: the sandbox refused the answer (409)');
    expect(await conversations(url)).toHaveLength(0);
  });

  it("lets a core test conversation continue the seed's EMAIL thread, the bot answering by sessionId and questionIndex", async () => {
    const dir = folder();
    writeFileSync(join(dir, 'continue.yaml'), CONTINUE('{seed: seed.yaml}'));
    // The seed's last thread is the one continued: this seed holds only the EMAIL thread.
    writeFileSync(join(dir, 'seed.yaml'), SEED.split('      - threads:')[0]!);
    const [sandboxPort, botPort] = [await freePort(), await freePort()];
    await startProcess(
      process.execPath,
      [exampleBot],
      baseEnv({
        CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        CORE_WEBHOOK_SECRET: secret,
        PORT: String(botPort),
      }),
      /bot listening on/,
    ).started;
    const result = await runBuilt(
      ['test', 'continue.yaml', '--port', String(sandboxPort), '--bot-url', `http://127.0.0.1:${botPort}/webhook`, '--reporter', 'json'],
      { env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: secret }), cwd: dir },
    );
    expect(result.stderr).toMatch(/^1 passed, 0 failed/m);
    expect(result.code).toBe(0);
  });

  it('saves a snapshot, restores it as it was, keeps it over a restart, and a core test conversation continues it', async () => {
    const dir = folder();
    const botPort = await freePort();
    const state = join(dir, 'state.ndjson');
    let { sandbox, url } = await startSandbox(
      ['--seed', 'seed.yaml', '--state', state, '--bot-url', `http://127.0.0.1:${botPort}/webhook`],
      dir,
    );
    const env = baseEnv({ CORE_BASE_URL: url });
    const saved = await runBuilt(['sandbox', 'snapshot', 'save', 'deep', '--json'], { env, cwd: dir });
    expect(saved.code).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ name: 'deep', tenant: 'sandbox', conversations: 2, replaced: false });
    const before = await conversations(url);
    // Something happens after the snapshot: a third conversation.
    await fetch(`${url}/_sandbox/conversations`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(await conversations(url)).toHaveLength(3);
    const restored = await runBuilt(['sandbox', 'snapshot', 'restore', 'deep'], { env, cwd: dir });
    expect(restored.code).toBe(0);
    const after = await conversations(url);
    const shape = (list: Record<string, unknown>[]) =>
      list.map(({ sessionId, channel, subject, clientId, owner, holder, questions, startedAt }) => ({
        sessionId,
        channel,
        subject,
        clientId,
        owner,
        holder,
        questions,
        startedAt,
      }));
    expect(shape(after)).toEqual(shape(before));
    // A restart reads the snapshot back from the state file.
    sandbox.child.kill('SIGTERM');
    await sandbox.exited;
    expect(readFileSync(state, 'utf8')).toMatch(/^\{"format":"core-sandbox-state","version":1,"tenants":\["sandbox"\]/);
    ({ sandbox, url } = await startSandbox(
      ['--seed', 'seed.yaml', '--state', state, '--bot-url', `http://127.0.0.1:${botPort}/webhook`],
      dir,
    ));
    const listed = await runBuilt(['sandbox', 'snapshot', 'list', '--json', '--sandbox', url], { env: baseEnv(), cwd: dir });
    expect(JSON.parse(listed.stdout)).toMatchObject({ snapshots: [{ name: 'deep', conversations: 2 }] });
    // The seed was not applied again: the file gave the sandbox its events.
    expect(await conversations(url)).toHaveLength(2);
    const missing = await runBuilt(['sandbox', 'snapshot', 'restore', 'nope', '--sandbox', url], { env: baseEnv(), cwd: dir });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("no snapshot 'nope' (it has deep)");

    // The latest thread of the snapshot is the hand-over's WEB thread: give it back to the bot first in a snapshot of its own.
    await fetch(`${url}/_sandbox/conversations/${String(after[1]!.sessionId)}/release`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    await runBuilt(['sandbox', 'snapshot', 'save', 'released', '--sandbox', url], { env: baseEnv(), cwd: dir });
    await startProcess(
      process.execPath,
      [exampleBot],
      baseEnv({
        CORE_BASE_URL: url,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        CORE_WEBHOOK_SECRET: secret,
        PORT: String(botPort),
      }),
      /bot listening on/,
    ).started;
    writeFileSync(
      join(dir, 'snapshot.yaml'),
      'name: from a snapshot\nfrom: {snapshot: released}\nsteps:\n  - customer: "Back with the bot in ${sessionId}"\n  - bot: {text: "/^You said: Back with the bot/", questionId: /\\d+/}\n',
    );
    const result = await runBuilt(['test', 'snapshot.yaml', '--sandbox', url], { env: baseEnv(), cwd: dir });
    expect(`${result.stdout}${result.stderr}`).toMatch(/^1 passed, 0 failed/m);
    expect(result.code).toBe(0);
  });
});
