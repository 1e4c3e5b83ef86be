import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { baseEnv, ensureBuilt, killStillRunning, runBuilt, runningAsRoot, startBuilt, type BuiltProcess } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';
import { SnapshotRefusedError, startSandbox } from '../../src/library/sandbox.js';

/**
 * `core sandbox --state FILE` as a user runs it: a restart restores the conversations and the ids go
 * on; a torn last line is dropped with a warning naming it; a damaged line stops the start naming the
 * file and the line, the file untouched; a second sandbox on the file is refused naming the first's
 * pid; a read-only file and a full disk answer 503, write nothing, and the sandbox goes on once the
 * file can be written again; from code, a snapshot saved on a full disk is refused 503 and not kept.
 */

const LISTENING = /listening on (http:\/\/\S+)/;

async function start(file: string, cwd: string, unprivileged = false): Promise<{ sandbox: BuiltProcess; url: string }> {
  const sandbox = startBuilt(['sandbox', '--state', file], { env: baseEnv(), cwd, unprivileged });
  await happens(
    Promise.race([
      sandbox.printed('stdout', LISTENING),
      sandbox.exited.then((code) => Promise.reject(new Error(`exited ${code}: ${sandbox.stderr()}`))),
    ]),
    'the sandbox listens',
    30_000,
  );
  await happens(sandbox.printed('stderr', /stop with Ctrl-C/), 'the sandbox says how to stop it');
  return { sandbox, url: LISTENING.exec(sandbox.stdout())![1]! };
}

async function stop(sandbox: BuiltProcess): Promise<void> {
  sandbox.child.kill('SIGTERM');
  await sandbox.exited;
}

async function post(url: string, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: stringifyJson(body),
  });
  return { status: response.status, json: parseJson(await response.text()) as Record<string, unknown> };
}

async function get(url: string, path: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`);
  return { status: response.status, json: parseJson(await response.text()) as Record<string, unknown> };
}

const conversation = (url: string) => post(url, '/_sandbox/conversations', { channel: 'EMAIL' });

function folder(): string {
  return mkdtempSync(join(tmpdir(), 'core-state-'));
}

describe('core sandbox --state', () => {
  beforeAll(() => ensureBuilt());
  afterEach(() => killStillRunning());

  it('restores the conversations after a restart, and the ids go on where they stopped', async () => {
    const dir = folder();
    const file = join(dir, 'state.ndjson');
    let { sandbox, url } = await start(file, dir);
    expect(sandbox.stderr()).toContain(`state: kept in ${file} (a new state file)`);
    const first = await conversation(url);
    const asked = await post(url, `/_sandbox/conversations/${String(first.json.sessionId)}/messages`, { text: 'Hello' });
    expect(asked.status).toBe(201);
    await stop(sandbox);

    ({ sandbox, url } = await start(file, dir));
    expect(sandbox.stderr()).toContain(`state: restored from ${file} (2 events read)`);
    const shown = await get(url, `/_sandbox/conversations/${String(first.json.sessionId)}`);
    expect(shown.status).toBe(200);
    expect((shown.json.conversation as { questions: bigint }).questions).toBe(1n);
    const second = await conversation(url);
    expect(second.json.coreClientId).toBe((first.json.coreClientId as bigint) + 1n);
    const next = await post(url, `/_sandbox/conversations/${String(second.json.sessionId)}/messages`, { text: 'Hi' });
    expect(next.json.questionId).toBe((asked.json.questionId as bigint) + 1n);
    const info = await get(url, '/_sandbox/info');
    expect(info.json.state).toMatchObject({ file, restored: true, eventsRead: 2n });
    await stop(sandbox);
  });

  it('hands out no id twice in its life: after a reset, and after a reset and a restart, the ids go on', async () => {
    const dir = folder();
    const file = join(dir, 'state.ndjson');
    let { sandbox, url } = await start(file, dir);
    const first = await conversation(url);
    const asked = await post(url, `/_sandbox/conversations/${String(first.json.sessionId)}/messages`, { text: 'Hello' });
    expect((await post(url, '/_sandbox/reset', {})).status).toBe(200);
    const afterReset = await conversation(url);
    expect(afterReset.json.coreClientId).toBe((first.json.coreClientId as bigint) + 1n);
    const askedAfterReset = await post(url, `/_sandbox/conversations/${String(afterReset.json.sessionId)}/messages`, { text: 'Hi' });
    expect(askedAfterReset.json.questionId).toBe((asked.json.questionId as bigint) + 1n);
    expect((await post(url, '/_sandbox/reset', {})).status).toBe(200);
    await stop(sandbox);

    ({ sandbox, url } = await start(file, dir));
    const afterRestart = await conversation(url);
    expect(afterRestart.json.coreClientId).toBe((first.json.coreClientId as bigint) + 2n);
    const askedAfterRestart = await post(url, `/_sandbox/conversations/${String(afterRestart.json.sessionId)}/messages`, { text: 'Hey' });
    expect(askedAfterRestart.json.questionId).toBe((asked.json.questionId as bigint) + 2n);
    await stop(sandbox);
  });

  it('drops a torn last line with a warning naming the file and the line, and cuts it from the file', async () => {
    const dir = folder();
    const file = join(dir, 'state.ndjson');
    let { sandbox, url } = await start(file, dir);
    await conversation(url);
    await stop(sandbox);
    const whole = readFileSync(file);
    appendFileSync(file, '{"seq":2,"tenant":"sandbox","ti');

    ({ sandbox, url } = await start(file, dir));
    expect(sandbox.stderr()).toContain(`warning: state file ${file}, line 3: the last line was cut short`);
    expect((await conversation(url)).status).toBe(201);
    await stop(sandbox);
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(readFileSync(file).subarray(0, whole.length)).toEqual(whole);
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^\{"seq":2,/);
  });

  it.each([
    ['a line that is not JSON', 'not json at all'],
    ['an event of no known type', '{"seq":2,"tenant":"sandbox","time":"2026-01-01T00:00:00.000Z","type":"nothing","sessionId":null}'],
    ['an event out of seq order', '{"seq":1,"tenant":"sandbox","time":"2026-01-01T00:00:00.000Z","type":"sandbox.reset","sessionId":null}'],
  ])('refuses to start on %s in the middle, naming the file and the line, and leaves the file as it was', async (_name, damaged) => {
    const dir = folder();
    const file = join(dir, 'state.ndjson');
    const { sandbox, url } = await start(file, dir);
    await conversation(url);
    await stop(sandbox);
    const lines = readFileSync(file, 'utf8').split('\n');
    // The damaged line in the middle, a good one after it.
    const last = lines[1]!.replace('"seq":1,', '"seq":5,').replace(/"sessionId":"[^"]+"/, '"sessionId":"s-000000000005"');
    writeFileSync(file, `${lines[0]}\n${lines[1]}\n${damaged}\n${last}\n`);
    const before = readFileSync(file);
    const result = await runBuilt(['sandbox', '--state', file], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`state file ${file}, line 3:`);
    expect(result.stderr).toContain('the file is left as it is');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
    expect(readFileSync(file)).toEqual(before);
  });

  it('refuses a second sandbox on the same file, naming the first one by its pid', async () => {
    const dir = folder();
    const file = join(dir, 'state.ndjson');
    const { sandbox } = await start(file, dir);
    const second = await runBuilt(['sandbox', '--state', file], { cwd: dir });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(`${file} is in use by another sandbox (pid ${sandbox.child.pid})`);
    expect(second.stdout).toBe('');
    await stop(sandbox);
    // Once the first has stopped, the file is free.
    const { sandbox: third } = await start(file, dir);
    await stop(third);
  });

  it('answers 503 while the file is read-only, writes nothing, and goes on once it can write again', async () => {
    const dir = folder();
    const file = join(dir, 'state.ndjson');
    let { sandbox, url } = await start(file, dir);
    await conversation(url);
    await stop(sandbox);
    chmodSync(file, 0o444);
    const before = readFileSync(file);
    // Without root's capabilities, so that the file's mode counts.
    ({ sandbox, url } = await start(file, dir, true));
    const refused = await conversation(url);
    expect(refused.status).toBe(503);
    expect(String((refused.json as { message?: unknown }).message)).toMatch(
      /could not write its state file \(EACCES.*nothing of this request was kept/,
    );
    expect(readFileSync(file)).toEqual(before);
    const listed = await get(url, '/_sandbox/conversations');
    expect(listed.json.conversations).toHaveLength(1);
    chmodSync(file, 0o644);
    expect((await conversation(url)).status).toBe(201);
    await stop(sandbox);
    ({ sandbox, url } = await start(file, dir));
    expect((await get(url, '/_sandbox/conversations')).json.conversations).toHaveLength(2);
    await stop(sandbox);
  });

  it('answers 503 on a full disk, leaves no half-written line, and goes on once there is room', async () => {
    if (!runningAsRoot) throw new Error('this test mounts a small tmpfs: run it as root (the CI does)');
    const dir = folder();
    const disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', disk]);
    try {
      const file = join(disk, 'state.ndjson');
      let { sandbox, url } = await start(file, dir);
      await conversation(url);
      // Fill the disk, then ask until a write finds no room.
      const filler = join(disk, 'filler');
      try {
        writeFileSync(filler, Buffer.alloc(1024 * 1024));
      } catch {
        // ENOSPC: the disk is full, what fitted is written.
      }
      let refused: { status: number; json: Record<string, unknown> } | undefined;
      for (let attempt = 0; attempt < 200 && refused === undefined; attempt += 1) {
        const size = statSync(file).size;
        const answer = await post(url, '/_sandbox/conversations', { channel: 'EMAIL', clientId: 'x'.repeat(200) });
        if (answer.status === 503) {
          refused = answer;
          expect(statSync(file).size).toBe(size);
        } else expect(answer.status).toBe(201);
      }
      expect(refused?.status).toBe(503);
      expect(String(refused?.json.message)).toMatch(/could not write its state file \(ENOSPC/);
      expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
      const kept = (await get(url, '/_sandbox/conversations?limit=1000')).json.conversations as unknown[];
      rmSync(filler);
      expect((await conversation(url)).status).toBe(201);
      await stop(sandbox);
      ({ sandbox, url } = await start(file, dir));
      expect((await get(url, '/_sandbox/conversations?limit=1000')).json.conversations).toHaveLength(kept.length + 1);
      await stop(sandbox);
    } finally {
      execFileSync('umount', [disk]);
    }
  });
});

describe('snapshots from code (core-cli/sandbox) with a state file', () => {
  it('rejects a save on a full disk with 503 and keeps nothing of it, then saves once there is room', async () => {
    if (!runningAsRoot) throw new Error('this test mounts a small tmpfs: run it as root (the CI does)');
    const dir = folder();
    const disk = join(dir, 'disk');
    mkdirSync(disk);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', disk]);
    const file = join(disk, 'state.ndjson');
    const sandbox = await startSandbox({ state: file });
    try {
      const started = await post(sandbox.url, '/_sandbox/conversations', { channel: 'EMAIL', clientId: 'x'.repeat(200) });
      expect(started.status).toBe(201);
      await sandbox.snapshots.save('before-full');
      const filler = join(disk, 'filler');
      try {
        writeFileSync(filler, Buffer.alloc(1024 * 1024));
      } catch {
        // ENOSPC: the disk is full, what fitted is written.
      }
      // Each snapshot's line holds the tenant's events: save under new names until a write finds no room.
      let refused: unknown;
      let name = '';
      for (let attempt = 0; attempt < 200 && refused === undefined; attempt += 1) {
        name = `full-${attempt}`;
        const size = statSync(file).size;
        refused = await sandbox.snapshots.save(name).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (refused !== undefined) expect(statSync(file).size).toBe(size);
      }
      expect(refused).toBeInstanceOf(SnapshotRefusedError);
      expect(refused).toMatchObject({ status: 503 });
      expect((refused as Error).message).toMatch(/could not write its state file \(ENOSPC.*nothing of this request was kept/);
      expect(sandbox.snapshots.list().map((each) => each.name)).not.toContain(name);
      expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
      rmSync(filler);
      await expect(sandbox.snapshots.save(name)).resolves.toMatchObject({ name, replaced: false });
      expect(readFileSync(file, 'utf8')).toContain(`{"snapshot":{"name":"${name}"`);
    } finally {
      await sandbox.close();
      execFileSync('umount', [disk]);
    }
  });
});
