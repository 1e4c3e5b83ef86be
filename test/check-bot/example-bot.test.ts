import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_IDS } from '../../src/testing/check-bot/ids.js';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, ensureBuilt, repoRoot, runBuilt } from '../helpers/run.js';

/**
 * The example bot of docs/examples/bot/ passes every check of `core check-bot`, run as a user runs
 * them both: the bot as its own process with the variables the sandbox prints, and the built binary.
 */

afterEach(() => stopProcesses());

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('the example bot under core check-bot', () => {
  beforeAll(() => ensureBuilt());

  it('passes every check', async () => {
    const [sandboxPort, botPort] = [await freePort(), await freePort()];
    const env = baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: SECRET });
    const bot = startProcess(
      process.execPath,
      [join(repoRoot, 'docs', 'examples', 'bot', 'bot.mjs')],
      {
        ...env,
        CORE_BASE_URL: `http://127.0.0.1:${sandboxPort}`,
        CORE_TENANT: 'sandbox',
        CORE_TOKEN: 'sandbox-token',
        CORE_WEBHOOK_SECRET: SECRET,
        PORT: String(botPort),
      },
      /bot listening on/,
    );
    await bot.started;
    const result = await runBuilt(
      [
        'check-bot',
        '--bot-url',
        `http://127.0.0.1:${botPort}/webhook`,
        '--port',
        String(sandboxPort),
        '--timeout',
        '10s',
        '--reporter',
        'json',
      ],
      { env },
    );
    const report = JSON.parse(result.stdout) as { checks: { id: string; status: string; message: string }[] };
    expect(report.checks.filter((check) => check.status !== 'pass')).toEqual([]);
    expect(report.checks.map((check) => check.id)).toEqual([...CHECK_IDS]);
    expect(result.code).toBe(0);
  });
});
