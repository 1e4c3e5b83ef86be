import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { startRecordingServer } from '../helpers/recording-server.js';
import { baseEnv, emptyHome, runBuilt, startBuilt, type BuiltProcess } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';

/**
 * The agent's side end to end, as users run it: the built `core sandbox --agents FILE` with a bot on
 * loopback that hands every thread over with skillIds [12]; `core customer say`, `core agent` and
 * `core reason update` as child processes. Ann (7) has skill 12, Bob (8) skill 13.
 */

const AGENTS = 'agents:\n  - {id: 7, name: Ann, skills: [12], capacity: 5}\n  - {id: 8, name: Bob, skills: [13]}\n';

let sandbox: BuiltProcess;
let env: Record<string, string | undefined>;
let url: string;
let closeBot: () => Promise<void>;

beforeAll(async () => {
  const home = emptyHome();
  const file = join(home, 'agents.yaml');
  writeFileSync(file, AGENTS);
  // The bot answers each question through the API, handing the thread to agents with skill 12.
  const bot = await startRecordingServer((request) => {
    const { message } = parseJson(request.text) as { message: { questionId: bigint } };
    const answered = fetch(`${url}/api/v1/chatbot`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox' },
      body: stringifyJson({ questionId: message.questionId, text: 'Passing you on', code: 'SWITCH_TO_HUMAN', skillIds: [12n] }),
    });
    return { status: 200, until: answered };
  });
  closeBot = () => bot.close();
  sandbox = startBuilt(['sandbox', '--port', '0', '--agents', file, '--bot-url', `${bot.url}/webhook`], { env: baseEnv({ HOME: home }) });
  await happens(sandbox.printed('stdout', /export CORE_BASE_URL=\S+/), 'the sandbox to start', 30_000);
  url = /export CORE_BASE_URL=(\S+)/.exec(sandbox.stdout())![1]!;
  env = baseEnv({ HOME: home, CORE_BASE_URL: url, CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token' });
}, 60_000);

afterAll(async () => {
  sandbox?.child.kill('SIGINT');
  await sandbox?.exited;
  await closeBot?.();
});

interface SayDocument {
  ok: boolean;
  sessionId: string;
  routings: { type: string; agentId?: bigint; matched?: string[]; why?: string }[];
  agentMessages: { agentId: bigint; text: string }[];
  holder: { by: string; agentId: bigint | null };
}

const say = async (...args: string[]) => {
  const result = await runBuilt(['customer', 'say', ...args, '--json', '--wait', '2s'], { env });
  return { ...result, document: parseJson(result.stdout) as SayDocument };
};

const conversation = async (sessionId: string) =>
  (
    parseJson(await (await fetch(`${url}/_sandbox/conversations/${sessionId}?limit=0`)).text()) as {
      conversation: { questions: bigint; holder: string };
    }
  ).conversation;

describe('agents of the built sandbox', () => {
  it('routes a hand-over with skillIds [12] to the online agent with skill 12', async () => {
    const { document } = await say('A person, please');
    expect(document.routings).toMatchObject([{ type: 'handover.routed', agentId: 7n, matched: ['skillIds'] }]);
    expect(document.holder).toEqual({ by: 'agent', agentId: 7n });
  });

  it('queues it while that agent is away, and routes it when the agent comes back', async () => {
    const away = await runBuilt(['agent', 'status', '7', 'away', '--reason', 'LUNCH'], { env });
    expect(away.code).toBe(0);
    const { document } = await say('Anyone there?');
    expect(document.routings).toMatchObject([{ type: 'handover.queued', why: 'all matching agents are away or full' }]);
    expect(document.holder).toEqual({ by: 'queue', agentId: null });
    const back = await runBuilt(['agent', 'status', '7', 'online', '--json'], { env });
    expect(back.code).toBe(0);
    const changed = parseJson(back.stdout) as { events: { type: string; sessionId: string | null; fromQueue?: boolean }[] };
    expect(changed.events).toMatchObject([
      { type: 'agent.status' },
      { type: 'handover.routed', sessionId: document.sessionId, fromQueue: true },
    ]);
    expect((await conversation(document.sessionId)).holder).toBe('agent');
  });

  it("shows the customer an agent's answer written from the CLI while the customer waits", async () => {
    const first = await say('I need help');
    const { sessionId } = first.document;
    const waiting = startBuilt(['customer', 'say', 'Hello?', '--session', sessionId, '--json', '--wait', '60s'], { env });
    // The agent writes once the customer's second message is recorded, so it comes after it.
    await happens(
      (async () => {
        while ((await conversation(sessionId)).questions < 2n) await new Promise((resolve) => setImmediate(resolve));
      })(),
      'the customer message',
      30_000,
    );
    const answered = await runBuilt(['agent', 'say', '--session', sessionId, 'Ann here, how can I help?'], { env });
    expect(answered).toMatchObject({ code: 0, stdout: `agent 7 (Ann) wrote in ${sessionId}\n` });
    expect(await happens(waiting.exited, 'the customer to see the answer', 30_000)).toBe(0);
    const document = parseJson(waiting.stdout()) as SayDocument;
    expect(document).toMatchObject({ ok: true, agentMessages: [{ agentId: 7n, text: 'Ann here, how can I help?' }] });
  });

  it('refuses an agent who does not hold the thread (exit 4), and gives the thread back to the bot', async () => {
    const { document } = await say('One more');
    const refused = await runBuilt(['agent', 'say', '--session', document.sessionId, '--agent', '8', 'Bob here'], { env });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain(`agent 8 does not hold thread '${document.sessionId}': it is with agent 7`);
    const released = await runBuilt(['agent', 'release', '--session', document.sessionId], { env });
    expect(released).toMatchObject({ code: 0, stdout: `${document.sessionId} is back with the bot\n` });
    expect((await conversation(document.sessionId)).holder).toBe('bot');
  });

  it('takes an inactive reason out of what an agent may pick; an agent already away with it stays so', async () => {
    expect((await runBuilt(['agent', 'status', '8', 'away', '--reason', 'MEETING'], { env })).code).toBe(0);
    const update = await runBuilt(['reason', 'update', '--code', 'MEETING', '--name', 'en=Meeting', '--inactive'], { env });
    expect(update.stderr).toBe('');
    expect(update.code).toBe(0);
    const list = await runBuilt(['agent', 'list'], { env });
    expect(list.stdout).toContain('8  Bob  away (MEETING, reason no longer active)');
    const refused = await runBuilt(['agent', 'status', '7', 'away', '--reason', 'MEETING'], { env });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain("the inactivity reason 'MEETING' is not active");
  });
});
