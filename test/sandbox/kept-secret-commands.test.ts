import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keptWebhookSecret } from '../../src/platform/secret.js';
import { startBot } from '../check-bot/bots.js';
import { freePort } from '../helpers/processes.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { testFolder } from '../test-command/platform.js';

/**
 * `core test` and `core check-bot`, when they start a sandbox, sign with the secret kept for the
 * user, as `core sandbox` does: a bot started once with the CORE_WEBHOOK_SECRET that `core sandbox`
 * printed verifies their deliveries too, with no CORE_SANDBOX_WEBHOOK_SECRET set. Each test has a home
 * of its own (baseEnv), where the kept secret is made first, as an earlier `core sandbox` would.
 */

async function keptIn(env: Record<string, string | undefined>) {
  return (await keptWebhookSecret(env)).secret;
}

describe('the secret kept for the user, in the commands that start a sandbox', () => {
  it('core check-bot --bot-url signs with it: a bot verifying with it passes every signature check', async () => {
    const env = baseEnv();
    const bot = await startBot(await keptIn(env));
    const port = await freePort();
    bot.connect(`http://127.0.0.1:${port}`);
    const result = await runInProcess(
      [
        'check-bot',
        '--bot-url',
        bot.url,
        '--port',
        String(port),
        '--only',
        'answers',
        'signature',
        '--timeout',
        '5s',
        '--reporter',
        'json',
      ],
      { env },
    );
    const report = JSON.parse(result.stdout) as { checks: { id: string; status: string }[] };
    expect(report.checks.map((check) => [check.id, check.status])).toEqual([
      ['answers', 'pass'],
      ['signature.missing', 'pass'],
      ['signature.tampered', 'pass'],
      ['signature.wrong-secret', 'pass'],
      ['signature.rotation', 'pass'],
      ['signature.raw-body', 'pass'],
    ]);
    expect(result.code).toBe(0);
  });

  it('core test --bot-url signs with it: a bot verifying with it answers', async () => {
    const env = baseEnv();
    const bot = await startBot(await keptIn(env));
    const port = await freePort();
    bot.connect(`http://127.0.0.1:${port}`);
    const folder = testFolder({ 'hello.yaml': 'steps:\n  - customer: Hi\n  - bot: {text: "You said 2 characters."}\n' });
    const result = await runInProcess(['test', 'hello.yaml', '--bot-url', bot.url, '--port', String(port), '--timeout', '30s'], {
      env,
      cwd: folder,
    });
    expect(result.stdout).toMatch(/^1 passed, 0 failed/m);
    expect(result.code).toBe(0);
  });

  it('CORE_SANDBOX_WEBHOOK_SECRET still names another one, and the kept one is then not used', async () => {
    const env = baseEnv();
    const kept = await keptIn(env);
    const bot = await startBot(kept);
    const port = await freePort();
    bot.connect(`http://127.0.0.1:${port}`);
    const folder = testFolder({ 'hello.yaml': 'steps:\n  - customer: Hi\n  - bot: {text: "You said 2 characters."}\n' });
    const result = await runInProcess(['test', 'hello.yaml', '--bot-url', bot.url, '--port', String(port), '--timeout', '3s'], {
      env: { ...env, CORE_SANDBOX_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      cwd: folder,
    });
    // The bot refuses every delivery signed with another secret than the one it was given.
    expect(result.stdout).toMatch(/^0 passed, 1 failed/m);
    expect(result.stdout).toContain('no answer from the bot within 3s');
    expect(result.code).toBe(3);
  });

  it('warns and signs with a secret of the run’s own when the data folder cannot hold one', async () => {
    const env = baseEnv();
    // A file where the data folder would be.
    const blocked = join(env.HOME!, 'blocked');
    writeFileSync(blocked, '');
    const bot = await startBot('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const port = await freePort();
    bot.connect(`http://127.0.0.1:${port}`);
    const result = await runInProcess(
      ['check-bot', '--bot-url', bot.url, '--port', String(port), '--only', 'answers', '--timeout', '3s', '--reporter', 'json'],
      { env: { ...env, XDG_DATA_HOME: blocked } },
    );
    expect(result.stderr).toContain(`warning: cannot keep the webhook secret in ${join(blocked, 'core', 'webhook-secret')} (ENOTDIR)`);
    expect(result.code).toBe(3);
  });
});
