import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/run.js';

/**
 * Every module of src/payload/ loads. Most of them build their schemas when they load (a `text()`
 * field, a check, a whole payload's object), so a mistake there fails at import. The modules are
 * imported inside the tests, not at the top of the file: an import that throws at the top leaves a
 * file with no test to fail, and the other files of this folder, which import the payloads at the
 * top, would then report nothing rather than a failure.
 */
const modules = readdirSync(join(repoRoot, 'src/payload'))
  .filter((name) => name.endsWith('.ts'))
  .sort();

describe('the modules of src/payload', () => {
  it.each(modules)('%s loads, and every value it exports is defined', async (name) => {
    const exported = (await import(`../../src/payload/${name.replace(/\.ts$/, '.js')}`)) as Record<string, unknown>;
    const undefinedExports = Object.entries(exported)
      .filter(([, value]) => value === undefined)
      .map(([key]) => key);
    expect(undefinedExports).toEqual([]);
    expect(Object.keys(exported).length).toBeGreaterThan(0);
  });

  it('index.ts gathers a validator for each payload, each of which answers', async () => {
    const payload = await import('../../src/payload/index.js');
    expect(payload.validateReply({ text: 'Hi', coreClientId: 1n }).ok).toBe(true);
    expect(payload.validateGreeting({ text: 'Hi', coreClientId: 1n }).ok).toBe(true);
    expect(payload.validateReason({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }).ok).toBe(true);
  });
});
