import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, runBuilt } from '../helpers/run.js';

/** JavaScript config files through the built binary: loaders that need CommonJS globals inside the bundle. */
describe('a JavaScript config file in the built binary', () => {
  beforeAll(() => ensureBuilt());

  // Named with --config: the search does not load JavaScript (docs/configuration.md, "Trusted files only").
  it.each(['.corerc.cjs', '.corerc.js', 'core.config.cjs'])('is loaded from %s when named', async (name) => {
    const dir = mkdtempSync(join(tmpdir(), 'core-js-config-'));
    writeFileSync(join(dir, name), 'module.exports = { profiles: { js: { tenant: "from-js" } } };\n');
    writeFileSync(join(dir, 'package.json'), '{"type":"commonjs"}\n');
    const result = await runBuilt(['config', 'show', '--config', join(dir, name)], { cwd: dir, env: baseEnv({ HOME: dir }) });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/tenant\s+from-js/);
    const searched = await runBuilt(['config', 'show'], { cwd: dir, env: baseEnv({ HOME: dir }) });
    expect(searched.code).toBe(0);
    expect(searched.stderr).toContain(`warning: ${join(dir, name)} is not loaded`);
    expect(searched.stdout).not.toContain('from-js');
  });

  it('that throws is reported by its line, and CORE_DEBUG=1 shows its own message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-js-config-'));
    writeFileSync(join(dir, '.corerc.cjs'), 'throw new Error("boom from config");\n');
    const plain = await runBuilt(['config', 'show'], { cwd: dir, env: baseEnv({ HOME: dir, CORE_CONFIG: join(dir, '.corerc.cjs') }) });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('.corerc.cjs:1: cannot be loaded (Error)');
    const debug = await runBuilt(['config', 'show'], {
      cwd: dir,
      env: baseEnv({ HOME: dir, CORE_DEBUG: '1', CORE_CONFIG: join(dir, '.corerc.cjs') }),
    });
    expect(debug.code).toBe(2);
    expect(debug.stderr).toContain('boom from config');
    expect(debug.stderr).not.toContain('__filename');
  });
});
