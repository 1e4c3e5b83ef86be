import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import { loadSettings } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { runBuilt, runningAsRoot } from '../helpers/run.js';
import { hasTool, missingToolMessage, requiring } from '../helpers/tools.js';
import { happens } from '../helpers/wait.js';
import { sandbox } from './helpers.js';

/**
 * The file checked must be the file read (docs/security.md, "Configuration: trusted files only").
 * Root works in a folder another user owns, where root's own .corerc.yaml lies beside the other
 * user's file. The other user, in a process of their own, swaps the two under the name the search
 * reads, as fast as they can. Were the file read by its path and checked by its path again, the
 * other user's file could be read and root's checked, and the other user's token command would run
 * as root. Whatever the timing, each load must give root's settings, or refuse, or find no file
 * (in the moment the name is free): never the other user's.
 *
 * The verdict does not depend on the machine's speed: a build that checks the file it read passes
 * whatever the interleaving; one that does not fails when a swap falls between its read and its
 * check, which the number of loads makes likely (17 loads in 400 used the other user's file here,
 * before the fix).
 */

const OTHER_UID = 4242;
const LOADS = 1000;

// The exchange the attack used (renameat2 with RENAME_EXCHANGE, through Python's ctypes, as Node has
// no call for it): in one step, root's file and the other user's swap names, so the name always
// holds one of them. The folder's owner may rename any file in it, root's included. Until killed.
const SWAPPER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
os.chdir(sys.argv[1])
first = True
while True:
    if libc.renameat2(AT_FDCWD, b".corerc.yaml", AT_FDCWD, b"theirs.yaml", RENAME_EXCHANGE) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
    if first:
        open("swapping", "w").close()
        first = False
`;

const running: ChildProcess[] = [];
const restores: Array<() => void> = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  for (const restore of restores.splice(0).reverse()) restore();
});

/** Lets every user pass through each folder above `folder` (the run's temporary folder is 0700), until the test ends. */
function openPathTo(folder: string): void {
  for (let at = path.dirname(folder); at !== path.dirname(at); at = path.dirname(at)) {
    const mode = statSync(at).mode & 0o7777;
    if ((mode & 0o001) !== 0) continue;
    chmodSync(at, mode | 0o001);
    restores.push(() => chmodSync(at, mode));
  }
}

describe.skipIf(!runningAsRoot || process.platform === 'win32')('a config file swapped while root reads it', () => {
  const tools = requiring('setpriv and python3', hasTool('setpriv') && hasTool('python3'), () =>
    [hasTool('setpriv') ? '' : missingToolMessage('setpriv'), hasTool('python3') ? '' : missingToolMessage('python3')].join(' '),
  );
  tools.it("is read and checked as one file: the other user's settings are never used", async () => {
    const box = await sandbox();
    // The other user must reach their folder and the script.
    openPathTo(box.root);
    chmodSync(box.root, 0o755);
    const folder = path.join(box.root, 'theirs');
    mkdirSync(folder);
    const marker = path.join(box.root, 'ran');
    writeFileSync(
      path.join(folder, 'theirs.yaml'),
      `profiles:\n  planted:\n    baseUrl: https://attacker.example.com\n    tenant: acme\n    token: {command: "touch ${marker}"}\ndefaultProfile: planted\n`,
    );
    chownSync(path.join(folder, 'theirs.yaml'), OTHER_UID, OTHER_UID);
    writeFileSync(
      path.join(folder, '.corerc.yaml'),
      'profiles:\n  mine:\n    baseUrl: https://mine.example.com\n    tenant: acme\ndefaultProfile: mine\n',
    );
    chmodSync(path.join(folder, '.corerc.yaml'), 0o644);
    chownSync(folder, OTHER_UID, OTHER_UID);
    const script = path.join(box.root, 'swap.py');
    writeFileSync(script, SWAPPER);
    chmodSync(script, 0o644);

    const swapper = spawn(
      'setpriv',
      [`--reuid=${OTHER_UID}`, `--regid=${OTHER_UID}`, '--clear-groups', '--', 'python3', script, folder],
      // The system's python3: one in a folder of root's (a pyenv shim in /root) is out of the other user's reach.
      { stdio: 'ignore', env: { PATH: '/usr/local/bin:/usr/bin:/bin' } },
    );
    running.push(swapper);
    await happens(
      new Promise<void>((resolve, reject) => {
        swapper.once('exit', (code) => reject(new Error(`the swapping process ended (${code})`)));
        const poll = setInterval(() => {
          if (existsSync(path.join(folder, 'swapping'))) {
            clearInterval(poll);
            resolve();
          }
        }, 5);
      }),
      'the other user swapping the files',
    );

    const outcomes = { mine: 0, refused: 0, none: 0, theirs: 0 };
    for (let i = 0; i < LOADS; i++) {
      try {
        const settings = await loadSettings({ cwd: folder, env: box.env, flags: {} });
        const url = settings.baseUrl?.value;
        if (url === 'https://attacker.example.com') outcomes.theirs += 1;
        else if (url === 'https://mine.example.com') outcomes.mine += 1;
        else outcomes.none += 1;
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).message).toMatch(
          /^refusing the config file .*\/theirs\/\.corerc\.yaml: it (is owned by uid 4242|changed while it was read)/,
        );
        outcomes.refused += 1;
      }
    }
    expect(outcomes.theirs, JSON.stringify(outcomes)).toBe(0);

    // The command as a user runs it, which would run the token command of the settings it uses.
    for (let i = 0; i < 10; i++) {
      const run = await runBuilt(['config', 'check'], { cwd: folder, env: { ...box.env, HOME: box.home } });
      expect(run.stdout).not.toContain('attacker.example.com');
      expect([0, 2, 4]).toContain(run.code);
    }
    expect(existsSync(marker)).toBe(false);
  });
});
