import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, binPath, ensureBuilt, repoRoot, runBuilt } from '../helpers/run.js';

/**
 * docs/sandbox.md, "Develop a bot locally", as a user follows it: the built sandbox with --bot-url,
 * the example bot of docs/examples/bot/ started with the printed export lines, `core customer say`
 * and `press` through the built binary, and the transcript from GET /_sandbox/conversations/{id}.
 */

afterEach(() => stopProcesses());

describe('the example bot with the sandbox and core customer', () => {
  beforeAll(() => ensureBuilt());

  it('answers, hands over on request, and leaves a transcript, as docs/sandbox.md walks through', async () => {
    const botPort = await freePort();
    const env = baseEnv();
    const sandbox = startProcess(
      process.execPath,
      [binPath, 'sandbox', '--port', '0', '--bot-url', `http://127.0.0.1:${botPort}/webhook`],
      env,
      /CORE_WEBHOOK_SECRET=\S+\n/,
    );
    const lines = await sandbox.started;
    const exported = Object.fromEntries([...lines.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(exported)).toEqual(['CORE_BASE_URL', 'CORE_TENANT', 'CORE_TOKEN', 'CORE_WEBHOOK_SECRET']);

    const userEnv = { ...env, ...exported };
    const bot = startProcess(
      process.execPath,
      [join(repoRoot, 'docs', 'examples', 'bot', 'bot.mjs')],
      { ...userEnv, PORT: String(botPort) },
      /bot listening on/,
    );
    await bot.started;

    const said = await runBuilt(['customer', 'say', 'Where is my order?'], { env: userEnv });
    expect(said.stderr).toMatch(/started conversation s-[0-9a-f]{12}/);
    expect(said.code).toBe(0);
    expect(said.stdout).toContain('│ You said: Where is my order? │');
    expect(said.stdout).toContain('│ Talk to a person │');
    const sessionId = /go on with --session (s-[0-9a-f]{12})/.exec(said.stderr)![1]!;

    const pressed = await runBuilt(['customer', 'press', 'Talk to a person', '--session', sessionId, '--json'], { env: userEnv });
    expect(pressed.code).toBe(0);
    expect(parseJson(pressed.stdout)).toMatchObject({
      answers: [{ delivered: true, body: { code: 'SWITCH_TO_HUMAN' } }],
      handovers: [{ scope: 'thread', code: 'SWITCH_TO_HUMAN' }],
    });

    const ignored = await runBuilt(['customer', 'say', 'Hello?', '--session', sessionId], { env: userEnv });
    expect(ignored.code).toBe(6);
    expect(ignored.stderr).toContain('the thread is with agents');

    const email = await runBuilt(['customer', 'say', 'About my invoice', '--channel', 'email', '--json'], { env: userEnv });
    expect(email.code).toBe(0);
    expect(parseJson(email.stdout)).toMatchObject({ answers: [{ delivered: true, addressedBy: ['sessionId+questionIndex'] }] });

    const transcript = parseJson(await fetch(`${exported.CORE_BASE_URL}/_sandbox/conversations/${sessionId}`).then((r) => r.text())) as {
      conversation: { owner: string };
      events: { type: string }[];
    };
    expect(transcript.conversation.owner).toBe('agents');
    expect(transcript.events.map((e) => e.type)).toEqual([
      'conversation.started',
      'customer.message',
      'bot.answer',
      'webhook.attempt',
      'customer.message',
      'bot.answer',
      'handover',
      expect.stringMatching(/^handover\.(routed|queued)$/),
      'webhook.attempt',
      'customer.message',
    ]);
  });

  it('refuses a delivery whose signature does not verify, and one replayed too late', async () => {
    const port = await freePort();
    const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    const env = baseEnv({
      CORE_BASE_URL: 'http://127.0.0.1:9',
      CORE_TENANT: 'sandbox',
      CORE_TOKEN: 'sandbox-token',
      CORE_WEBHOOK_SECRET: secret,
      PORT: String(port),
    });
    const bot = startProcess(process.execPath, [join(repoRoot, 'docs', 'examples', 'bot', 'bot.mjs')], env, /bot listening on/);
    await bot.started;
    const { createHmac } = await import('node:crypto');
    const body = '{"type":"MESSAGE","message":{}}';
    const post = (timestamp: number, signedBody: string) =>
      fetch(`http://127.0.0.1:${port}/webhook`, {
        method: 'POST',
        headers: {
          'webhook-id': 'msg_test',
          'webhook-timestamp': String(timestamp),
          'webhook-signature': `v1,${createHmac('sha256', Buffer.alloc(32, 5)).update(`msg_test.${timestamp}.${signedBody}`).digest('base64')}`,
        },
        body,
      }).then(async (r) => [r.status, await r.text()]);
    const now = Math.floor(Date.now() / 1000);
    expect(await post(now, '{"type":"MESSAGE","message":{"text":"other"}}')).toEqual([401, 'no valid signature']);
    expect(await post(now - 3600, body)).toEqual([401, 'timestamp too old or too new']);
  });
});
