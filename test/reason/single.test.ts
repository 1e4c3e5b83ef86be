import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { envFor } from './helpers.js';

/**
 * One reason, sent to the sandbox (the API's rules for PUT /api/v1/inactivity/reasons) or to a
 * counting server (to see the credentials on the wire).
 */

let sandbox: Sandbox | undefined;
let server: RecordingServer | undefined;
afterEach(async () => {
  await sandbox?.close();
  await server?.close();
  sandbox = undefined;
  server = undefined;
});

describe('core reason update: one reason against the sandbox', () => {
  it('updates an existing reason and exits 0, with the ordinary result view', async () => {
    sandbox = await startSandbox({ port: 0 });
    const result = await runInProcess(['reason', 'update', '--code', 'LUNCH', '--name', 'en=Long lunch', '--inactive'], {
      env: envFor(sandbox.url),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✓ 200 OK {2}PUT http:\/\/127\.0\.0\.1:\d+\/api\/v1\/inactivity\/reasons\n/);
    expect(result.stdout).toMatch(/code\s+LUNCH/);
    expect(result.stdout).toMatch(/request id\s+[0-9a-f-]{36}/);
    expect(result.stderr).toBe('');
    const stored = sandbox.reasons('sandbox').find((r) => r.code === 'LUNCH');
    expect(stored).toMatchObject({ reason: { reasons: [{ locale: 'en', name: 'Long lunch' }], active: false } });
  });

  it('exits 4 on 404 and shows the message that names the missing code', async () => {
    sandbox = await startSandbox({ port: 0 });
    const result = await runInProcess(['reason', 'update', '--code', 'NO_SUCH_REASON', '--name', 'en=x'], { env: envFor(sandbox.url) });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/✗ 404 Not Found/);
    expect(result.stderr).toMatch(/message\s+.*NO_SUCH_REASON/);
  });

  it('exits 4 on 404 with --json, one result document naming the code', async () => {
    sandbox = await startSandbox({ port: 0 });
    const result = await runInProcess(['reason', 'update', '--code', 'NO_SUCH_REASON', '--name', 'en=x', '--json'], {
      env: envFor(sandbox.url),
    });
    expect(result.code).toBe(4);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const doc = JSON.parse(lines[0]!) as { error: { message: string } };
    expect(doc).toMatchObject({
      ok: false,
      status: 404,
      method: 'PUT',
      code: 'NO_SUCH_REASON',
      error: { method: 'PUT', uri: '/api/v1/inactivity/reasons' },
    });
    expect(doc.error.message).toContain('NO_SUCH_REASON');
  });

  it('says on stderr when it repeats the request, as reply does, and shows the attempts', async () => {
    server = await startRecordingServer([{ status: 503, headers: { 'Retry-After': '0' } }, { status: 200 }]);
    const result = await runInProcess(['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('HTTP 503: trying again in 0 ms, as Retry-After asks (attempt 2; such waits are not counted as retries)\n');
    expect(result.stdout).toMatch(/duration\s+\d+ ms \(2 attempts\)/);
  });

  it('exits 4 on 409 when the limit of active reasons would be exceeded', async () => {
    // The sandbox's seed has three active reasons and TRAINING inactive; a limit of 3 leaves no room.
    sandbox = await startSandbox({ port: 0, maxActiveReasons: 3 });
    const result = await runInProcess(['reason', 'update', '--code', 'TRAINING', '--name', 'en=Training', '--active', '--json'], {
      env: envFor(sandbox.url),
    });
    expect(result.code).toBe(4);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status: 409, code: 'TRAINING' });
    expect(sandbox.reasons('sandbox').find((r) => r.code === 'TRAINING')).toMatchObject({ reason: { active: false } });
  });

  it('leaves active out when neither --active nor --inactive is given, so the service default applies', async () => {
    sandbox = await startSandbox({ port: 0 });
    const result = await runInProcess(['reason', 'update', '--code', 'TRAINING', '--name', 'en=Training'], { env: envFor(sandbox.url) });
    expect(result.code).toBe(0);
    // The sandbox applies the API's default (true, docs/api.md, reason field rule 4): the inactive reason became active.
    expect(sandbox.reasons('sandbox').find((r) => r.code === 'TRAINING')).toMatchObject({ reason: { active: true } });
  });
});

describe('core reason update: credentials', () => {
  const args = ['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch'];

  it('sends the integrator token when CORE_INTEGRATOR_TOKEN is set, rather than the token', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(args, {
      env: envFor(server.url, { CORE_TOKEN: 'bot-token-1234', CORE_INTEGRATOR_TOKEN: 'integrator-5678' }),
    });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer integrator-5678');
    expect(server.requests[0]!.headers['x-tenant-name']).toBe('sandbox');
    expect(server.requests[0]!.method).toBe('PUT');
    expect(server.requests[0]!.url).toBe('/api/v1/inactivity/reasons');
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('falls back to the token when no integrator token is set', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(args, { env: envFor(server.url, { CORE_TOKEN: 'bot-token-1234' }) });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer bot-token-1234');
  });

  it('is refused with exit 2, and nothing sent, when no token is configured', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(args, { env: envFor(server.url, { CORE_TOKEN: undefined }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/missing integrator token/);
    expect(server.requests).toHaveLength(0);
  });

  it("sends the profile's own Authorization header, and needs no token then", async () => {
    server = await startRecordingServer();
    const env = baseEnv();
    writeFileSync(
      join(env.HOME!, '.corerc.json'),
      JSON.stringify({ profiles: { ci: { baseUrl: server.url, tenant: 'acme', headers: { Authorization: 'Integrator key-abcdef123' } } } }),
      { mode: 0o600 },
    );
    const result = await runInProcess([...args, '--json', '-v'], { env });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBe('Integrator key-abcdef123');
    expect(server.requests[0]!.headers['x-tenant-name']).toBe('acme');
    // --verbose shows the header's name, never its value.
    expect(result.stderr).toMatch(/> Authorization: \*{8}/);
    expect(result.stderr).not.toContain('key-abcdef123');
  });

  it('never prints the token, not even with --verbose', async () => {
    server = await startRecordingServer();
    const result = await runInProcess([...args, '-v'], { env: envFor(server.url, { CORE_INTEGRATOR_TOKEN: 'integrator-secret-9876' }) });
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('integrator-secret-9876');
    expect(result.stderr).toContain('Authorization: Bearer ********');
  });
});

describe('core reason update --dry-run and a token quoted in the payload', () => {
  it.each([
    ['CORE_TOKEN', { CORE_TOKEN: 'tok-quoted-7f3a' }],
    ['CORE_INTEGRATOR_TOKEN', { CORE_INTEGRATOR_TOKEN: 'tok-quoted-7f3a' }],
  ])('masks the %s value wherever it appears', async (_name, tokens) => {
    const env = baseEnv({ CORE_BASE_URL: 'https://chat.example.com', CORE_TENANT: 'acme', ...tokens });
    for (const flag of ['--dry-run', '--curl']) {
      const result = await runInProcess(['reason', 'update', '--code', 'LUNCH', '--name', 'en=tok-quoted-7f3a', flag], { env });
      expect(result.code).toBe(0);
      // The name that quotes the token is printed, masked, in the request's body.
      expect(result.stdout).toMatch(/"name": ?"\*{8}"/);
      expect(result.stdout + result.stderr).not.toContain('tok-quoted-7f3a');
    }
  });
});
