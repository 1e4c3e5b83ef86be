import { closeSync, existsSync, lchownSync, lstatSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openOutputFileSync, writeOutputFile } from '../../src/output/file.js';
import { UsageError } from '../../src/errors.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { runInProcess, runningAsRoot } from '../helpers/run.js';
import { envFor, ndjson, reason, tempFile } from '../reason/helpers.js';

/**
 * Files core writes for the user (docs/security.md, "Files core writes"): `--report`, `core test
 * --output` and `--save` create their file with mode 0600, and refuse a path that is a symbolic link
 * of another user's (planted in /tmp, it would let core truncate the file it points at). A link of the
 * user's own is followed.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A symbolic link at `link` to `target` that is not the user's: as root, given to another uid; as
 * any other user, who cannot give a link away, one of root's is named instead (root's is not theirs).
 */
function foreignLink(folder: string, target: string): string {
  if (runningAsRoot) {
    const link = join(folder, 'report.ndjson');
    symlinkSync(target, link);
    lchownSync(link, 4242, 4242);
    return link;
  }
  const owned = ['/etc/mtab', '/etc/localtime', '/etc/os-release', '/bin', '/lib'].find((path) => {
    try {
      const info = lstatSync(path);
      return info.isSymbolicLink() && info.uid === 0;
    } catch {
      return false;
    }
  });
  if (owned === undefined) throw new Error("no symbolic link of root found to stand for another user's link");
  return owned;
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('core reason update --report FILE', () => {
  it('creates a new report readable and writable by the user alone (0600)', async () => {
    server = await startRecordingServer(() => ({ status: 200 }));
    const report = join(mkdtempSync(join(tmpdir(), 'core-report-')), 'applied.ndjson');
    const run = await runInProcess(['reason', 'update', '-f', tempFile('in.ndjson', ndjson([reason('A1')])), '--report', report], {
      env: envFor(server.url),
    });
    expect(run.code).toBe(0);
    expect(modeOf(report)).toBe(0o600);
    expect(readFileSync(report, 'utf8')).toContain('"A1"');
  });

  it("refuses a path that is another user's symbolic link, with exit 2, before anything is sent, and leaves its target alone", async () => {
    server = await startRecordingServer(() => ({ status: 200 }));
    const folder = mkdtempSync(join(tmpdir(), 'core-report-'));
    const victim = join(folder, 'victim');
    writeFileSync(victim, 'precious\n', { mode: 0o600 });
    const link = foreignLink(folder, victim);
    const before = runningAsRoot ? readFileSync(victim, 'utf8') : undefined;
    const run = await runInProcess(['reason', 'update', '-f', tempFile('in.ndjson', ndjson([reason('A1')])), '--report', link], {
      env: envFor(server.url),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`error: --report ${link} is a symbolic link owned by uid `);
    expect(run.stderr).toContain("not yours: core does not write through it (it may point at another user's file)");
    expect(run.stderr).toContain('hint: remove the link, or give --report another path');
    expect(server.requests).toHaveLength(0);
    if (before !== undefined) expect(readFileSync(victim, 'utf8')).toBe(before);
  });

  it("follows a symbolic link of the user's own", async () => {
    server = await startRecordingServer(() => ({ status: 200 }));
    const folder = mkdtempSync(join(tmpdir(), 'core-report-'));
    const target = join(folder, 'target.ndjson');
    const link = join(folder, 'report.ndjson');
    symlinkSync(target, link);
    const run = await runInProcess(['reason', 'update', '-f', tempFile('in.ndjson', ndjson([reason('A1')])), '--report', link], {
      env: envFor(server.url),
    });
    expect(run.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toContain('"A1"');
    expect(modeOf(target)).toBe(0o600);
  });
});

describe('the rule every written file shares (src/output/file.ts)', () => {
  it.each([
    ['synchronously (--report)', async (path: string) => closeSync(openOutputFileSync(path, path, '--report'))],
    ['as a whole (--output, --save)', (path: string) => writeOutputFile(path, 'text', path, '--output')],
  ])('%s: a new file is 0600, an existing one keeps its mode, a foreign link is refused', async (_how, write) => {
    const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
    const fresh = join(folder, 'new');
    await write(fresh);
    expect(modeOf(fresh)).toBe(0o600);
    const existing = join(folder, 'existing');
    writeFileSync(existing, 'old', { mode: 0o640 });
    await write(existing);
    expect(modeOf(existing)).toBe(0o640);
    const victim = join(folder, 'victim');
    writeFileSync(victim, 'precious');
    const link = foreignLink(folder, victim);
    await expect(write(link)).rejects.toBeInstanceOf(UsageError);
    expect(existsSync(victim) && readFileSync(victim, 'utf8')).toBe('precious');
  });
});
