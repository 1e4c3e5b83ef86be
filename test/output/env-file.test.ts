import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { envFileTarget, withLines, writeEnvFile } from '../../src/output/env-file.js';

/**
 * `core sandbox --env-file FILE`: core's NAME=value lines written into the file, each replacing the
 * line that set its name where it stood, every other line kept; mode 0600; never a FIFO, a folder,
 * a link or a file of another user.
 */

const MANAGED = ['CORE_BASE_URL', 'CORE_TENANT', 'CORE_TOKEN', 'CORE_INTEGRATOR_TOKEN', 'CORE_WEBHOOK_SECRET'];
const lines = [
  ['CORE_BASE_URL', 'http://127.0.0.1:8080'],
  ['CORE_TOKEN', 'sandbox-token'],
  ['CORE_WEBHOOK_SECRET', 'whsec_abc='],
] as const;

describe('withLines', () => {
  it.each([
    [
      'an empty file: the lines alone',
      '',
      'CORE_BASE_URL=http://127.0.0.1:8080\nCORE_TOKEN=sandbox-token\nCORE_WEBHOOK_SECRET=whsec_abc=\n',
    ],
    [
      "other lines kept, core's replaced where they stand, new ones at the end",
      '# my bot\nPORT=3000\nCORE_TOKEN=old\nDEBUG=1\n',
      '# my bot\nPORT=3000\nCORE_TOKEN=sandbox-token\nDEBUG=1\nCORE_BASE_URL=http://127.0.0.1:8080\nCORE_WEBHOOK_SECRET=whsec_abc=\n',
    ],
    [
      "export lines and spaces before = are core's lines too; a repeat is dropped",
      'export CORE_BASE_URL=http://old\nCORE_BASE_URL =http://older\nKEEP=yes\n',
      'CORE_BASE_URL=http://127.0.0.1:8080\nKEEP=yes\nCORE_TOKEN=sandbox-token\nCORE_WEBHOOK_SECRET=whsec_abc=\n',
    ],
    [
      'a managed name this run does not set is dropped (a stale integrator token)',
      'CORE_INTEGRATOR_TOKEN=stale\nA=1\n',
      'A=1\nCORE_BASE_URL=http://127.0.0.1:8080\nCORE_TOKEN=sandbox-token\nCORE_WEBHOOK_SECRET=whsec_abc=\n',
    ],
    [
      "names that only start alike, and commented lines, are not core's",
      'CORE_TOKENS=x\n# CORE_TOKEN=y\nMY_CORE_TOKEN=z',
      'CORE_TOKENS=x\n# CORE_TOKEN=y\nMY_CORE_TOKEN=z\nCORE_BASE_URL=http://127.0.0.1:8080\nCORE_TOKEN=sandbox-token\nCORE_WEBHOOK_SECRET=whsec_abc=\n',
    ],
    [
      'CRLF lines are read',
      'A=1\r\nCORE_TOKEN=old\r\n',
      'A=1\nCORE_TOKEN=sandbox-token\nCORE_BASE_URL=http://127.0.0.1:8080\nCORE_WEBHOOK_SECRET=whsec_abc=\n',
    ],
  ])('%s', (_what, before, after) => {
    expect(withLines(before, lines, MANAGED)).toBe(after);
    // Written again, nothing moves.
    expect(withLines(after, lines, MANAGED)).toBe(after);
  });
});

describe('writeEnvFile', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'core-env-file-'));

  it('creates the file with mode 0600, and makes a wider one 0600 when it updates it', async () => {
    const folder = dir();
    const file = join(folder, '.env');
    await writeEnvFile(file, '.env', lines, MANAGED);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, 'PORT=3000\n');
    chmodSync(file, 0o644);
    await writeEnvFile(file, '.env', lines, MANAGED);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(`PORT=3000\n${lines.map(([n, v]) => `${n}=${v}`).join('\n')}\n`);
  });

  it("writes through the user's own link, into its target", async () => {
    const folder = dir();
    writeFileSync(join(folder, 'real.env'), 'A=1\n');
    symlinkSync(join(folder, 'real.env'), join(folder, '.env'));
    await writeEnvFile(join(folder, '.env'), '.env', lines, MANAGED);
    expect(lstatSync(join(folder, '.env')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(folder, 'real.env'), 'utf8')).toMatch(/^A=1\nCORE_BASE_URL=/);
  });

  it.each([
    ['a folder', (file: string) => mkdirSync(file), /is a folder/],
    ['in a folder that does not exist', (_file: string) => {}, /the folder of .* does not exist/],
  ])(
    'refuses %s with exit 2, before anything is written (a FIFO and the files of others: test/e2e/sandbox-env-file.test.ts)',
    async (what, make, message) => {
      const folder = dir();
      const file = what.startsWith('in a folder') ? join(folder, 'missing', '.env') : join(folder, '.env');
      make(file);
      const refused = await envFileTarget(file, file).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as UsageError).message).toMatch(message);
      expect((refused as UsageError).exitCode).toBe(2);
    },
  );
});
