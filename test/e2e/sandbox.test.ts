import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, runBuilt, runInProcess } from '../helpers/run.js';

/** `core sandbox` refusals: one through the built binary exactly as a user runs it, one in-process. */
describe('core sandbox, built', () => {
  beforeAll(() => ensureBuilt());

  it('exits 2 naming --max-active-reasons and the seed when the limit is below the built-in active reasons', async () => {
    const result = await runBuilt(['sandbox', '--max-active-reasons', '2']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-active-reasons: 2 is below the 3 active reasons of the built-in seed (LUNCH, MEETING, OTHER)');
    expect(result.stderr).toContain('hint: use --max-active-reasons 3 or more, or give --reasons FILE');
    expect(result.stderr).not.toContain('unexpected failure');
    expect(result.stdout).toBe('');
  });

  it('exits 2 naming CORE_SANDBOX_WEBHOOK_SECRET when the secret it holds is not a whsec_ secret', async () => {
    const result = await runInProcess(['sandbox'], { env: baseEnv({ CORE_SANDBOX_WEBHOOK_SECRET: 'not-a-secret' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('CORE_SANDBOX_WEBHOOK_SECRET: must start with whsec_');
    expect(result.stderr).not.toContain('not-a-secret');
    expect(result.stdout).toBe('');
  });
});
