import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lchownSync, lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, binPath, ensureBuilt, runningAsRoot, type RunResult } from '../helpers/run.js';
import { hangLimit } from '../helpers/time-scale.js';

/**
 * `core sandbox --env-file FILE`, run as a user runs it: the CORE_* lines of stdout written into FILE
 * as NAME=value (mode 0600), updated in place on the next start with the file's other lines kept;
 * a FIFO, a folder, a link or a file of another user refused before the sandbox starts (exit 2).
 *
 * Node (20 and 24 alike) reads `--env-file FILE` anywhere on its command line, after the script's
 * name too: it stops with "node: FILE: not found" (exit 9) when FILE does not exist, and waits for
 * ever on a FIFO, before core runs. `node -- core ...` ends Node's own options, and so do these
 * tests (docs/sandbox.md, "An env file for your bot", says what users can do).
 */

beforeAll(() => ensureBuilt());
afterEach(() => stopProcesses());

/** The built core after `node --`, so Node leaves --env-file to core. */
const core = (args: string[]) => ['--', binPath, ...args];

/** Starts the built sandbox, waits for its lines, stops it; returns what it printed. */
async function runSandbox(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const sandbox = startProcess(process.execPath, core(['sandbox', '--port', '0', ...args]), baseEnv(), /CORE_WEBHOOK_SECRET=\S+\n/);
  await sandbox.started;
  await stopProcesses();
  return { stdout: sandbox.output(), stderr: sandbox.errors() };
}

/** A run of the built core that is expected to end by itself. */
function run(args: string[], cwd: string): RunResult {
  const result = spawnSync(process.execPath, core(args), {
    cwd,
    env: baseEnv() as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: hangLimit(60_000),
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const exports = (stdout: string) => [...stdout.matchAll(/^export (\w+=\S+)$/gm)].map((m) => m[1]!);

describe('core sandbox --env-file', () => {
  it('writes the export lines as NAME=value, 0600, and updates them in place on the next start, other lines kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-env-'));
    const file = join(dir, '.env');
    const first = await runSandbox(['--env-file', file]);
    expect(readFileSync(file, 'utf8')).toBe(`${exports(first.stdout).join('\n')}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.stderr).toContain(`env file: the CORE_* lines are in ${file} too`);

    writeFileSync(file, `# my bot's settings\nPORT=3000\n${readFileSync(file, 'utf8')}DEBUG=bot\n`);
    const second = await runSandbox(['--env-file', file, '--token', 'another-token-123', '--integrator-token', 'integrator-456']);
    const now = readFileSync(file, 'utf8');
    const names = exports(second.stdout);
    expect(names).toContain('CORE_TOKEN=another-token-123');
    expect(now).toBe(
      [
        "# my bot's settings",
        'PORT=3000',
        ...names.filter((line) => !line.startsWith('CORE_INTEGRATOR_TOKEN=')),
        'DEBUG=bot',
        ...names.filter((line) => line.startsWith('CORE_INTEGRATOR_TOKEN=')),
      ].join('\n') + '\n',
    );
    // A shell reads it as the sandbox's own lines.
    const sourced = execFileSync('sh', ['-c', 'set -a; . ./.env; printf %s "$CORE_TOKEN $CORE_WEBHOOK_SECRET"'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(sourced).toBe(`another-token-123 ${/CORE_WEBHOOK_SECRET=(\S+)/.exec(second.stdout)![1]}`);
  });

  it('refuses a FIFO at once (it would wait for a reader), before the sandbox starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-env-'));
    execFileSync('mkfifo', [join(dir, '.env')]);
    const refused = run(['sandbox', '--port', '0', '--env-file', '.env'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: --env-file \.env is a FIFO: core writes its lines only into a regular file$/m);
    expect(refused.stdout).toBe('');
    expect(lstatSync(join(dir, '.env')).isFIFO()).toBe(true);
  });

  it.runIf(runningAsRoot)("refuses another user's link and another user's file, and leaves both as they are", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-env-'));
    const victim = join(dir, 'victim');
    writeFileSync(victim, 'untouched\n');
    symlinkSync(victim, join(dir, 'link.env'));
    lchownSync(join(dir, 'link.env'), 4242, 4242);
    const link = run(['sandbox', '--port', '0', '--env-file', 'link.env'], dir);
    expect(link.code).toBe(2);
    expect(link.stderr).toContain('--env-file link.env is a symbolic link owned by uid 4242, not yours');
    writeFileSync(join(dir, 'theirs.env'), 'THEIRS=1\n');
    chownSync(join(dir, 'theirs.env'), 4242, 4242);
    const theirs = run(['sandbox', '--port', '0', '--env-file', 'theirs.env'], dir);
    expect(theirs.code).toBe(2);
    expect(theirs.stderr).toContain(
      "--env-file theirs.env is owned by uid 4242, not by you (uid 0): core does not write another user's file",
    );
    expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
    expect(readFileSync(join(dir, 'theirs.env'), 'utf8')).toBe('THEIRS=1\n');
    expect(existsSync(join(dir, '.env'))).toBe(false);
  });
});
