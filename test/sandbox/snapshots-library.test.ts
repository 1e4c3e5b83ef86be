import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { SnapshotRefusedError, startSandbox, type Sandbox } from '../../src/library/sandbox.js';

/**
 * Snapshots from code (docs/sandbox.md, "From code"): `sandbox.snapshots.save`, `restore` and `list`
 * of core-cli/sandbox, on a real sandbox over loopback, with a state file: what they do is what the
 * HTTP endpoints do, a snapshot saved from code is on disk once `save` resolves and survives a
 * restart, and each refusal rejects with the status and message the endpoint answers.
 */

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function start(options: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  const sandbox = await startSandbox(options);
  open.push(sandbox);
  return sandbox;
}

async function post(sandbox: Sandbox, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${sandbox.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: stringifyJson(body),
  });
  return { status: response.status, json: parseJson(await response.text()) as Record<string, unknown> };
}

/** A conversation with one customer message: its sessionId and the message's questionId. */
async function conversation(sandbox: Sandbox, text: string): Promise<{ sessionId: string; questionId: bigint }> {
  const started = await post(sandbox, '/_sandbox/conversations', {});
  const sessionId = started.json.sessionId as string;
  const asked = await post(sandbox, `/_sandbox/conversations/${sessionId}/messages`, { text });
  expect(asked.status).toBe(201);
  return { sessionId, questionId: asked.json.questionId as bigint };
}

const stateFile = () => join(mkdtempSync(join(tmpdir(), 'core-snapshots-')), 'state.ndjson');

describe('sandbox.snapshots from code', () => {
  it('saves a snapshot and goes back to it: the conversations as they were, the one written in last with its question', async () => {
    const sandbox = await start();
    const kept = await conversation(sandbox, 'Where is order 42?');
    const saved = await sandbox.snapshots.save('mid-flow');
    expect(saved).toMatchObject({ name: 'mid-flow', tenant: 'sandbox', events: 2, conversations: 1, replaced: false });
    const later = await conversation(sandbox, 'Something else');
    expect(sandbox.conversation(later.sessionId)).toBeDefined();

    const restored = await sandbox.snapshots.restore('mid-flow');
    expect(restored).toMatchObject({ name: 'mid-flow', tenant: 'sandbox', events: 2 });
    expect(restored.conversations.map((each) => each.sessionId)).toEqual([kept.sessionId]);
    expect(restored.latest).toMatchObject({ sessionId: kept.sessionId, questionId: kept.questionId, questions: 1 });
    expect(sandbox.conversation(later.sessionId)).toBeUndefined();
    expect(sandbox.conversation(kept.sessionId)?.questions).toBe(1);
  });

  it('lists what the HTTP endpoint lists, and saving under a name the tenant has replaces that snapshot', async () => {
    const sandbox = await start({ tenants: ['north', 'south'] });
    await sandbox.snapshots.save('first');
    await sandbox.snapshots.save('other', 'south');
    expect((await sandbox.snapshots.save('first')).replaced).toBe(true);
    expect(sandbox.snapshots.list().map(({ name, tenant }) => [name, tenant])).toEqual([
      ['first', 'north'],
      ['other', 'south'],
    ]);
    expect(sandbox.snapshots.list('south').map(({ name }) => name)).toEqual(['other']);
    const listed = parseJson(await (await fetch(`${sandbox.url}/_sandbox/snapshots`)).text()) as { snapshots: Record<string, unknown>[] };
    expect(stringifyJson(listed.snapshots)).toBe(stringifyJson(sandbox.snapshots.list()));
  });

  it('has the snapshot in the state file once save resolves, and it survives a restart', async () => {
    const file = stateFile();
    const first = await start({ state: file });
    const kept = await conversation(first, 'Where is order 42?');
    await first.snapshots.save('mid-flow');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.filter((line) => line.startsWith('{"snapshot":{"name":"mid-flow"'))).toHaveLength(1);
    await conversation(first, 'Something else');
    await first.close();
    open.splice(open.indexOf(first), 1);

    const second = await start({ state: file });
    expect(second.snapshots.list().map(({ name }) => name)).toEqual(['mid-flow']);
    const restored = await second.snapshots.restore('mid-flow');
    expect(restored.conversations.map((each) => each.sessionId)).toEqual([kept.sessionId]);
    // The restore is events in the file too: a third start has the tenant as restored.
    await second.close();
    open.splice(open.indexOf(second), 1);
    const third = await start({ state: file });
    expect(third.events({ tenant: 'sandbox' }).filter((event) => event.type === 'conversation.started')).toHaveLength(1);
    expect(third.conversation(kept.sessionId)?.questions).toBe(1);
  });

  it.each<[string, (sandbox: Sandbox) => Promise<unknown>, number, string]>([
    ['a name with a space', (sandbox) => sandbox.snapshots.save('mid flow'), 400, "name: required: the snapshot's name, letters, digits"],
    ['a name of 65 characters', (sandbox) => sandbox.snapshots.save('a'.repeat(65)), 400, "the snapshot's name"],
    ['a tenant not served', (sandbox) => sandbox.snapshots.save('mid', 'nowhere'), 404, "no tenant 'nowhere' (tenants: sandbox)"],
    [
      'a snapshot the tenant has not',
      (sandbox) => sandbox.snapshots.restore('missing'),
      404,
      "tenant 'sandbox' has no snapshot 'missing' (it has kept)",
    ],
    ['a restore in a tenant not served', (sandbox) => sandbox.snapshots.restore('kept', 'nowhere'), 404, "no tenant 'nowhere'"],
    ['a listing of a tenant not served', async (sandbox) => sandbox.snapshots.list('nowhere'), 404, "no tenant 'nowhere'"],
  ])('refuses %s with the status and message of the endpoint', async (_, act, status, message) => {
    const sandbox = await start();
    await sandbox.snapshots.save('kept');
    const refused = await act(sandbox).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(SnapshotRefusedError);
    expect(refused).toMatchObject({ status });
    expect((refused as Error).message).toContain(message);
  });

  it.each([
    ['of 1 character', 'a', true],
    ['of 64 characters, the limit', 'a'.repeat(64), true],
    ['of 65 characters, one past it', 'a'.repeat(65), false],
    ["with '.', '_' and '-' after its first character", 'v1.2_mid-flow', true],
    ["starting with '.'", '.hidden', false],
    ["starting with '-'", '-x', false],
    ['with a space', 'mid flow', false],
    ['with a slash', 'mid/flow', false],
    ['empty', '', false],
    ['not a string', 42, false],
  ])('takes or refuses a name %s alike from code and over HTTP', async (_, name, taken) => {
    const sandbox = await start();
    const http = await post(sandbox, '/_sandbox/snapshots', { name });
    const library = await sandbox.snapshots.save(name as string).then(
      () => null,
      (error: unknown) => error as SnapshotRefusedError,
    );
    if (taken) {
      expect(http.status).toBe(201);
      expect(library).toBeNull();
      return;
    }
    expect(http.status).toBe(400);
    expect(library).toMatchObject({ status: 400 });
    expect(JSON.stringify(http.json)).toContain("required: the snapshot's name, letters, digits");
    expect(library!.message).toBe(
      "name: required: the snapshot's name, letters, digits, '.', '_' and '-', starting with a letter or a digit, at most 64 characters",
    );
  });

  it('takes a name of 64 characters, and 100 snapshots a tenant; the 101st is refused 409, replacing one is not', async () => {
    const sandbox = await start();
    await expect(sandbox.snapshots.save('a'.repeat(64))).resolves.toMatchObject({ name: 'a'.repeat(64) });
    for (let n = 2; n <= 100; n += 1) await sandbox.snapshots.save(`s${n}`);
    expect(sandbox.snapshots.list()).toHaveLength(100);
    await expect(sandbox.snapshots.save('one-more')).rejects.toMatchObject({ status: 409 });
    await expect(sandbox.snapshots.save('s50')).resolves.toMatchObject({ replaced: true });
  });
});
