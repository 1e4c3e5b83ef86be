import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, ensureBuilt, killStillRunning, runBuilt, startBuilt } from '../helpers/run.js';

/**
 * Configuration that never finishes on its own, through the built binary: a JavaScript config file
 * whose top-level await never settles, and `config init` into a folder that mkdir can never create.
 * Each ends with a message and exit 2, or at the first SIGTERM, never by hanging or spinning.
 */

beforeAll(() => ensureBuilt());
afterEach(() => killStillRunning());

/**
 * A project folder holding a .corerc.mjs of `source`, named by CORE_CONFIG (the search does not load
 * JavaScript), and the environment that reaches a service.
 */
function project(source: string) {
  const dir = mkdtempSync(join(tmpdir(), 'core-stuck-'));
  writeFileSync(join(dir, '.corerc.mjs'), source);
  const env = baseEnv({
    CORE_BASE_URL: 'http://127.0.0.1:9',
    CORE_TENANT: 'acme',
    CORE_TOKEN: 'stuck-token-1234',
    CORE_CONFIG: join(dir, '.corerc.mjs'),
  });
  return { dir, env, file: join(dir, '.corerc.mjs') };
}

const reply = ['reply', '--core-client-id', '1', '-t', 'Hello'];

describe('a JavaScript config file that never finishes loading', () => {
  it('awaiting a promise that nothing can settle: exit 2 naming the file, at once', async () => {
    const { dir, env, file } = project('await new Promise(() => {});\nexport default { profiles: {} };\n');
    const run = await runBuilt(reply, { env, cwd: dir });
    expect(run.stderr).toContain(`error: ${file} never finishes loading: its top-level await waits for nothing that can happen`);
    expect(run.code).toBe(2);
  });

  it('waiting on a timer for ever: one SIGTERM ends it, exit 130', async () => {
    const { dir, env } = project(
      "process.stderr.write('loading\\n');\nawait new Promise(() => setInterval(() => {}, 1000));\nexport default { profiles: {} };\n",
    );
    const run = startBuilt(reply, { env, cwd: dir });
    await run.printed('stderr', /loading\n/);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toContain('error: cancelled while loading the config file; nothing sent');
  });
});

describe('core config init into a folder mkdir cannot create (under /proc)', () => {
  it('stops with exit 2 naming the file, instead of spinning', async () => {
    const run = await runBuilt(
      ['config', 'init', '--base-url', 'https://chat.example.com', '--tenant', 'acme', '--token-env', 'ACME_TOKEN'],
      {
        env: baseEnv({ XDG_CONFIG_HOME: '/proc/self/no-such-folder' }),
      },
    );
    expect(run.stderr).toContain('error: cannot write the config file /proc/self/no-such-folder/core/config.yaml (ENOENT)');
    expect(run.code).toBe(2);
  });
});
