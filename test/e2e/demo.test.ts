import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, repoRoot } from '../helpers/run.js';
import { hangLimit } from '../helpers/time-scale.js';

/** The README's main job must work on a fresh clone: this runs it as `npm run demo` does after the build. */
describe('the demo', () => {
  beforeAll(() => ensureBuilt());

  it('starts the sandbox, sends a reply, a greeting and two reason updates, plays the customer of the example bot, and stops cleanly', () => {
    const run = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'demo.mjs')], { encoding: 'utf8', timeout: hangLimit(60_000) });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('core sandbox listening on http://127.0.0.1:');
    expect(run.stdout).toMatch(/✓ 200 OK {2}POST \S+\/api\/v1\/chatbot\n/);
    expect(run.stdout).toMatch(/✓ 200 OK {2}POST \S+\/api\/v1\/chatbot\/greet\n/);
    expect(run.stdout).toMatch(/✓ 200 OK {2}PUT \S+\/api\/v1\/inactivity\/reasons\n {2}code +LUNCH/);
    expect(run.stdout).toMatch(/✗ 404 Not Found {2}PUT [\s\S]*NAP[\s\S]*\(exit 4\)/);
    expect(run.stdout).toContain('"coreClientId": 9223372036854775807');
    expect(run.stdout).toContain('│ You said: Where is my order? │');
    expect(run.stdout).toContain('→ the thread is now with agents (SWITCH_TO_HUMAN)');
    expect(run.stdout).toMatch(/no answer from the bot or an agent within 2s: the thread is with agents[\s\S]*\(exit 6\)/);
    expect(run.stdout).toMatch(
      /handover\n {2}handover\.(routed|queued)\n {2}webhook\.attempt \(status 200\)\n {2}customer\.message "Hello\?"/,
    );
    expect(run.stdout).toContain('Demo complete: the sandbox has stopped.');
  });
});
