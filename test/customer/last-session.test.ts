import { chownSync, existsSync, mkdirSync, mkdtempSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAST_SESSIONS_FILE, lastSession, rememberSession, userStateDir } from '../../src/customer/last-session.js';

/**
 * Where `core customer say` keeps the last conversation per base URL (docs/sandbox.md, "`core customer`"):
 * the user's state folder, made 0700, and never another user's. Root run with another user's HOME or
 * XDG_STATE_HOME (`sudo -E`) changed the mode of that user's folder and wrote a file of root's into it.
 */

const me = process.getuid?.();
const runningAsRoot = me === 0;
const mode = (path: string) => statSync(path).mode & 0o777;
const home = () => mkdtempSync(join(tmpdir(), 'core-state-home-'));

describe('the folder core customer keeps its last conversations in', () => {
  it('is made 0700 and remembers the conversation, and an own folder of another mode is made 0700', async () => {
    const env = { HOME: home() };
    const dir = userStateDir(env);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    await rememberSession(env, 'http://127.0.0.1:1', 's-1');
    expect(mode(dir)).toBe(0o700);
    expect(await lastSession(env, 'http://127.0.0.1:1')).toBe('s-1');
  });

  it('is left as it is when another user owns it: no mode changed, no file written, the reason said', async () => {
    const env = { HOME: home() };
    const dir = userStateDir(env);
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    // As root, the folder is given away; as anyone else, who cannot, the writer is told it runs as someone else.
    if (runningAsRoot) chownSync(dir, 4242, 4242);
    const owner = runningAsRoot ? 4242 : me;
    const writer = runningAsRoot ? 0 : 4242;
    const attempt = rememberSession(env, 'http://127.0.0.1:1', 's-1', runningAsRoot ? {} : { uid: 4242 });
    await expect(attempt).rejects.toThrow(`${dir} is owned by uid ${owner}, not by you (uid ${writer}): it is left as it is`);
    expect(mode(dir)).toBe(0o755);
    expect(existsSync(join(dir, LAST_SESSIONS_FILE))).toBe(false);
  });

  it('is not followed through a symbolic link', async () => {
    const env = { HOME: home() };
    const dir = userStateDir(env);
    const elsewhere = join(home(), 'elsewhere');
    mkdirSync(elsewhere, { mode: 0o755 });
    mkdirSync(join(dir, '..'), { recursive: true });
    symlinkSync(elsewhere, dir);
    await expect(rememberSession(env, 'http://127.0.0.1:1', 's-1')).rejects.toThrow(
      `${dir} is a symbolic link or not a folder: it is left as it is`,
    );
    expect(mode(elsewhere)).toBe(0o755);
    expect(existsSync(join(elsewhere, LAST_SESSIONS_FILE))).toBe(false);
  });
});
