import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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

// Only a regular file of the user's is written, checked on the descriptor opened, reached through no
// symbolic link of another user anywhere on the way (docs/security.md, "Files core writes").
describe('a file core may not write', () => {
  const writers: Array<[string, (path: string) => Promise<void>]> = [
    ['synchronously (--report)', async (path) => closeSync(openOutputFileSync(path, path, '--report'))],
    ['as a whole (--output, --reporter NAME=FILE, --save)', (path) => writeOutputFile(path, 'text', path, '--output')],
  ];

  const refusal = async (writing: Promise<unknown>): Promise<UsageError> => {
    const error = await writing.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  };

  it.each(writers)('%s: a FIFO that nobody reads is refused at once, without waiting for a reader', async (_how, write) => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'core-output-')), 'report');
    execFileSync('mkfifo', [fifo]);
    const error = await refusal(write(fifo));
    expect(error.message).toBe(
      `--${error.message.startsWith('--report') ? 'report' : 'output'} ${fifo} is a named pipe (FIFO): core writes only to a regular file`,
    );
  });

  it.each(writers)('%s: a FIFO that someone reads is refused, and nothing is written into it', async (_how, write) => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'core-output-')), 'report');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const error = await refusal(write(fifo));
      expect(error.message).toContain(`${fifo} is a named pipe (FIFO): core writes only to a regular file`);
      const buffer = Buffer.alloc(16);
      // Nothing was written, and the writer is gone: a read of a FIFO with no writer and no data is 0 bytes.
      expect(readSync(reader, buffer)).toBe(0);
    } finally {
      closeSync(reader);
    }
  });

  it.each(writers)('%s: a socket is refused', async (_how, write) => {
    const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
    const socket = join(folder, 'report');
    const listening = createServer().listen(socket);
    await once(listening, 'listening');
    try {
      const error = await refusal(write(socket));
      expect(error.message).toContain(`${socket} is a socket: core writes only to a regular file`);
    } finally {
      listening.close();
    }
  });

  it.each(writers)('%s: a character device, which only root can make, is written as named (/dev/null)', async (_how, write) => {
    await write('/dev/null');
  });

  it.skipIf(!runningAsRoot).each(writers)(
    "%s: another user's file, even one anyone may write (0666), is refused and left as it was",
    async (_how, write) => {
      const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
      const theirs = join(folder, 'report');
      writeFileSync(theirs, 'theirs\n', { mode: 0o666 });
      chmodSync(theirs, 0o666);
      chownSync(theirs, 4242, 4242);
      const error = await refusal(write(theirs));
      expect(error.message).toContain(`${theirs} is a file of uid 4242, not yours: core does not write into another user's file`);
      expect(readFileSync(theirs, 'utf8')).toBe('theirs\n');
    },
  );

  it.skipIf(!runningAsRoot).each(writers)(
    "%s: a path through another user's link to a folder is refused, and the folder it points at is left alone",
    async (_how, write) => {
      const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
      const elsewhere = join(folder, 'elsewhere');
      mkdirSync(elsewhere);
      writeFileSync(join(elsewhere, 'report'), 'precious\n', { mode: 0o600 });
      const link = join(folder, 'shared');
      symlinkSync(elsewhere, link);
      lchownSync(link, 4242, 4242);
      const error = await refusal(write(join(link, 'report')));
      expect(error.message).toContain(`${join(link, 'report')} is reached through the symbolic link ${link}, owned by uid 4242, not yours`);
      expect(readFileSync(join(elsewhere, 'report'), 'utf8')).toBe('precious\n');
      expect(existsSync(join(elsewhere, 'new'))).toBe(false);
      await refusal(write(join(link, 'new')));
      expect(existsSync(join(elsewhere, 'new'))).toBe(false);
    },
  );

  it.skipIf(!runningAsRoot).each(writers)(
    "%s: the user's link to another user's link is refused: the whole chain is the name's",
    async (_how, write) => {
      const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
      const victim = join(folder, 'victim');
      writeFileSync(victim, 'precious\n');
      const theirs = join(folder, 'theirs');
      symlinkSync(victim, theirs);
      lchownSync(theirs, 4242, 4242);
      const mine = join(folder, 'report');
      symlinkSync(theirs, mine);
      const error = await refusal(write(mine));
      expect(error.message).toContain(`${mine} is a symbolic link to the symbolic link ${theirs}, owned by uid 4242, not yours`);
      expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    },
  );

  it.each(writers)("%s: a path through the user's own link to a folder is followed", async (_how, write) => {
    const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
    mkdirSync(join(folder, 'real'));
    symlinkSync(join(folder, 'real'), join(folder, 'linked'));
    await write(join(folder, 'linked', 'report'));
    expect(existsSync(join(folder, 'real', 'report'))).toBe(true);
  });
});

describe('the files of core test and core check-bot, checked before anything runs', () => {
  it('refuses two reporters whose files are one file, through a link or a linked folder, with exit 2', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
    writeFileSync(join(folder, 'report.xml'), '');
    symlinkSync(join(folder, 'report.xml'), join(folder, 'also.tap'));
    symlinkSync(folder, join(folder, 'here'));
    const cases: Array<[string, string]> = [
      ['tap=also.tap', 'also.tap'],
      ['tap=here/report.xml', 'here/report.xml'],
      ['json=here/new.json', 'here/new.json'],
    ];
    for (const [second, shown] of cases) {
      const first = second.startsWith('json') ? 'junit=new.json' : 'junit=report.xml';
      const run = await runInProcess(
        ['test', 'missing.yaml', '--bot-url', 'http://127.0.0.1:9/', '--reporter', first, '--reporter', second],
        { cwd: folder },
      );
      expect(run.code, second).toBe(2);
      expect(run.stderr, second).toContain(
        `--reporter: junit and ${second.split('=')[0]} both write one file: ${first.split('=')[1]} and ${shown} are the same file`,
      );
    }
  });

  it('refuses a report file that is a FIFO at once, with exit 2, before anything runs (core test, core check-bot)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-output-'));
    execFileSync('mkfifo', [join(folder, 'report.xml')]);
    for (const argv of [
      ['test', 'missing.yaml', '--bot-url', 'http://127.0.0.1:9/', '--reporter', 'junit=report.xml'],
      ['test', 'missing.yaml', '--bot-url', 'http://127.0.0.1:9/', '--reporter', 'junit', '--output', 'report.xml'],
      ['check-bot', '--bot-url', 'http://127.0.0.1:9/', '--reporter', 'junit', '--output', 'report.xml'],
    ]) {
      const run = await runInProcess(argv, { cwd: folder });
      expect(run.code, argv.join(' ')).toBe(2);
      expect(run.stderr, argv.join(' ')).toContain('report.xml is a named pipe (FIFO): core writes only to a regular file');
    }
  });
});
