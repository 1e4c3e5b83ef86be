import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startLines } from '../../src/output/sandbox-lines.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { withTool } from '../helpers/tools.js';

/**
 * `core sandbox > sandbox.out; . ./sandbox.out`: what the sandbox prints on stdout is only lines a
 * POSIX shell can source or eval, the first a comment, whatever the tenants and tokens hold (visible
 * characters a shell would act on: quotes, $( ), backticks, semicolons).
 */

const awkward = {
  tenants: ['acme', "o'brien;$(touch${IFS}pwned)`touch${IFS}pwned`"],
  token: 'tok-"$HOME"-`id`',
  integratorToken: "it's-$(id)",
};

async function printed(options: typeof awkward | Record<string, never>): Promise<string> {
  const sb = await startSandbox({ ...options, log: () => {} });
  onTestFinished(() => sb.close());
  return `${startLines(sb, options).join('\n')}\n`;
}

/** Sources `text` in `shell` (in an empty folder) and prints the variables back, one a line. */
function sourced(shell: string, text: string) {
  const dir = mkdtempSync(join(tmpdir(), 'core-source-'));
  writeFileSync(join(dir, 'sandbox.out'), text);
  const names = ['CORE_BASE_URL', 'CORE_TENANT', 'CORE_TOKEN', 'CORE_INTEGRATOR_TOKEN', 'CORE_WEBHOOK_SECRET'];
  const script = `set -eu; . ./sandbox.out; for name in ${names.join(' ')}; do eval "printf '%s=%s\\n' \\"\\$name\\" \\"\\\${$name-}\\""; done; ls`;
  // No start-up file of the user's: only the sourced lines may act.
  const flags = shell === 'bash' ? ['--norc', '--noprofile'] : [];
  const run = spawnSync(shell, [...flags, '-c', script], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: dir },
  });
  return {
    ...run,
    vars: Object.fromEntries(
      run.stdout
        .split('\n')
        .filter((l) => l.includes('='))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    ),
  };
}

describe("core sandbox's stdout", () => {
  it('starts with a comment saying where it listens, then only export lines', async () => {
    const lines = (await printed({})).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^# core sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(tenants: sandbox; duplicates: soft\)$/);
    for (const line of lines.slice(1)) expect(line).toMatch(/^export CORE_[A-Z_]+=\S+$/);
  });

  for (const shell of ['sh', 'bash'] as const) {
    const gated = shell === 'bash' ? withTool('bash') : { it };
    gated.it(`can be sourced by ${shell}, each value arriving as printed and nothing in it run`, async () => {
      const sb = await startSandbox({ ...awkward, log: () => {} });
      onTestFinished(() => sb.close());
      const run = sourced(shell, `${startLines(sb, awkward).join('\n')}\n`);
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.vars).toEqual({
        CORE_BASE_URL: sb.url,
        CORE_TENANT: 'acme',
        CORE_TOKEN: awkward.token,
        CORE_INTEGRATOR_TOKEN: awkward.integratorToken,
        CORE_WEBHOOK_SECRET: sb.webhookSecret,
      });
      expect(run.stdout).not.toContain('pwned');
    });
  }
});
