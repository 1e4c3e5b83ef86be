import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import type { DoctorCheck, DoctorReport } from '../../src/commands/doctor/report.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, ensureBuilt, killStillRunning, runBuilt, runInProcess, type RunResult } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';
import { makePki, writeConfig, type Pki } from '../hardening/helpers.js';

/**
 * `core doctor`, run as users run it (the built binary): against a sandbox, a service whose clock is
 * off (that table in-process), a service whose certificate the configured CA did not sign, and a token command that fails.
 * Exit 0 when every check passed, 1 when one failed; no secret is ever printed.
 */

const TOKEN = 'doctor-token-4f1c9e2a7b';
const COMMAND_TOKEN = 'doctor-command-token-9a8b7c6d';

beforeAll(() => ensureBuilt());
afterEach(() => killStillRunning());

function report(run: RunResult): DoctorReport {
  return JSON.parse(run.stdout) as DoctorReport;
}

function check(run: RunResult, id: string): DoctorCheck {
  const found = report(run).checks.find((candidate) => candidate.id === id);
  expect(found, `check ${id} in ${run.stdout}`).toBeDefined();
  return found!;
}

/** Both outputs of a doctor run, human and JSON, for the assertions that hold for each. */
async function both(argv: string[], env: Record<string, string | undefined>, cwd?: string): Promise<[RunResult, RunResult]> {
  const init = { env, ...(cwd ? { cwd } : {}) };
  return [await runBuilt(['doctor', ...argv], init), await runBuilt(['doctor', '--json', ...argv], init)];
}

describe('core doctor against a sandbox', () => {
  let sandbox: Sandbox;
  let bot: RecordingServer;
  beforeAll(async () => {
    bot = await startRecordingServer();
    sandbox = await startSandbox({ botUrl: `${bot.url}/webhook`, log: () => {} });
  });
  afterAll(async () => {
    await sandbox.close();
    await bot.close();
  });

  const env = (extra: Record<string, string | undefined> = {}) =>
    baseEnv({
      CORE_BASE_URL: sandbox.url,
      CORE_TENANT: 'sandbox',
      CORE_TOKEN: 'sandbox-token',
      CORE_WEBHOOK_SECRET: sandbox.webhookSecret,
      ...extra,
    });

  it('passes every check with the lines the sandbox printed and a bot that listens: exit 0', async () => {
    const [human, json] = await both([], env());
    expect(json.code).toBe(0);
    expect(report(json)).toMatchObject({ ok: true, summary: { failed: 0 } });
    expect(check(json, 'sandbox').status).toBe('pass');
    expect(check(json, 'sandbox.webhook-secret').status).toBe('pass');
    expect(check(json, 'sandbox.bot').status).toBe('pass');
    expect(check(json, 'clock').status).toBe('pass');
    expect(check(json, 'network.connection')).toMatchObject({ status: 'pass' });
    expect(check(json, 'token')).toMatchObject({ status: 'pass', source: 'env CORE_TOKEN' });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^✓ node /m);
    expect(human.stdout).toMatch(/0 failed: core is ready\.\n$/);
    for (const run of [human, json]) expect(`${run.stdout}${run.stderr}`).not.toContain(sandbox.webhookSecret);
  });

  it("fails, naming the fix, when this shell's CORE_WEBHOOK_SECRET is not the sandbox's, and shows neither", async () => {
    const stale = 'whsec_c3RhbGUtc2VjcmV0LW9mLWFub3RoZXItcnVuLTAxMjM0NQ==';
    const [human, json] = await both([], env({ CORE_WEBHOOK_SECRET: stale }));
    expect(json.code).toBe(1);
    expect(check(json, 'sandbox.webhook-secret')).toMatchObject({ status: 'fail', fix: expect.stringContaining('core sandbox printed') });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^✗ webhook secret .*\n\s+fix: source the lines core sandbox printed/m);
    for (const run of [human, json]) {
      expect(`${run.stdout}${run.stderr}`).not.toContain(stale);
      expect(`${run.stdout}${run.stderr}`).not.toContain(sandbox.webhookSecret);
    }
  });

  it('fails when nothing listens at the bot URL, and skips the bot for a sandbox without one', async () => {
    const lonely = await startSandbox({ botUrl: 'http://127.0.0.1:9/webhook', log: () => {} });
    const quiet = await startSandbox({ log: () => {} });
    try {
      const down = await runBuilt(['doctor', '--json', '--base-url', lonely.url], {
        env: env({ CORE_WEBHOOK_SECRET: lonely.webhookSecret }),
      });
      expect(down.code).toBe(1);
      expect(check(down, 'sandbox.bot')).toMatchObject({ status: 'fail', message: expect.stringContaining('127.0.0.1:9') });
      const none = await runBuilt(['doctor', '--json', '--base-url', quiet.url], {
        env: env({ CORE_WEBHOOK_SECRET: quiet.webhookSecret }),
      });
      expect(none.code).toBe(0);
      expect(check(none, 'sandbox.bot')).toMatchObject({ status: 'skip', message: expect.stringContaining('no bot connected') });
    } finally {
      await lonely.close();
      await quiet.close();
    }
  });
});

describe("core doctor and the service's clock", () => {
  let servers: RecordingServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    servers = [];
  });

  /** A service whose Date header is `offsetMs` from this machine's clock, read as each answer is made. */
  async function skewed(offsetMs: number): Promise<RecordingServer> {
    const server = await startRecordingServer(() => ({ status: 200, headers: { Date: new Date(Date.now() + offsetMs).toUTCString() } }));
    servers.push(server);
    return server;
  }

  // The Date header counts whole seconds and the answer takes its time: the skew read is within a
  // second or so of the one set, so the words allow a second either way. A table of the clock's rule:
  // in-process (main(), as the binary calls it), over the same HTTP client.
  it.each([
    [
      '10 minutes ahead',
      10 * 60_000,
      1,
      'fail',
      /is (?:9m59s|10m|10m\ds) ahead of this machine's: webhook timestamps more than 5m off are refused/,
    ],
    ['10 minutes behind', -10 * 60_000, 1, 'fail', /is (?:9m59s|10m|10m\ds) behind this machine's/],
    ['4 minutes 50 seconds ahead, inside the 5 minutes', 4 * 60_000 + 50_000, 0, 'pass', /is 4m[45]\ds ahead of this machine's$/],
    ['in step', 0, 0, 'pass', /agrees with this machine's/],
  ] as const)('a service %s: %s', async (_what, offset, code, status, message) => {
    const server = await skewed(offset);
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN });
    const run = await runInProcess(['doctor', '--json'], { env });
    expect(run.code).toBe(code);
    expect(check(run, 'clock')).toMatchObject({ status, message: expect.stringMatching(message) });
    if (status === 'fail') expect(check(run, 'clock').fix).toMatch(/NTP/);
    // No token goes to the service: the doctor only looks.
    expect(server.requests.every((request) => request.headers.authorization === undefined)).toBe(true);
    expect(run.stdout).not.toContain(TOKEN);
  });
});

withTool('openssl').describe('core doctor and TLS with the configured CA', () => {
  let pki: Pki;
  let server: RecordingServer;
  beforeAll(async () => {
    pki = makePki();
    server = await startRecordingServer(undefined, { tls: pki });
  });
  afterAll(() => server.close());

  it("fails the connection when the profile's CA did not sign the service's certificate, with the fix", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-doctor-ca-'));
    const config = writeConfig(dir, { baseUrl: server.url, tenant: 'acme', token: { env: 'DOCTOR_TOKEN' }, caFile: pki.otherCaFile });
    const env = baseEnv({ DOCTOR_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: undefined });
    const [human, json] = await both(['--config', config], env);
    expect(json.code).toBe(1);
    expect(check(json, 'network.connection')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^TLS failure talking to 127\.0\.0\.1:\d+: .*not signed by the CA of /),
      fix: expect.stringMatching(/--ca-file/),
    });
    expect(check(json, 'clock').status).toBe('skip');
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^✗ connection +TLS failure/m);
    for (const run of [human, json]) expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
  });

  it('passes with --ca-file naming the CA that did', async () => {
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: undefined });
    const run = await runBuilt(['doctor', '--json', '--ca-file', pki.caFile], { env });
    expect(check(run, 'network.connection')).toMatchObject({
      status: 'pass',
      message: expect.stringContaining('TLS certificate verified'),
    });
    expect(run.code).toBe(0);
  });
});

describe('core doctor and the settings', () => {
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer();
  });
  afterAll(() => server.close());

  it('fails the token whose command fails, with its fix, and runs the command that prints one without showing it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-doctor-token-'));
    const failing = writeConfig(dir, { baseUrl: server.url, tenant: 'acme', token: { command: 'echo "vault sealed" >&2; exit 3' } });
    const [human, json] = await both(['--config', failing], baseEnv());
    expect(json.code).toBe(1);
    expect(check(json, 'token')).toMatchObject({ status: 'fail', message: expect.stringContaining('exit') });
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/^✗ token /m);
    expect(human.stderr).not.toMatch(/\bat \S+:\d+:\d+/);

    const other = mkdtempSync(join(tmpdir(), 'core-doctor-token-'));
    const working = writeConfig(other, { baseUrl: server.url, tenant: 'acme', token: { command: `printf ${COMMAND_TOKEN}` } });
    const [ok, okJson] = await both(['--config', working], baseEnv({ CORE_INTEGRATOR_TOKEN: TOKEN }));
    expect(okJson.code).toBe(0);
    expect(check(okJson, 'token')).toMatchObject({ status: 'pass', message: expect.stringContaining('ran, and printed a token') });
    expect(check(okJson, 'integrator-token')).toMatchObject({ status: 'pass', source: 'env CORE_INTEGRATOR_TOKEN' });
    for (const run of [ok, okJson]) {
      expect(`${run.stdout}${run.stderr}`).not.toContain(COMMAND_TOKEN);
      expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
    }
  });

  it('lists each config file the search finds, refusing one others may write and naming the fix', async () => {
    const home = mkdtempSync(join(tmpdir(), 'core-doctor-home-'));
    const project = join(home, 'project');
    writeConfig(home, { baseUrl: server.url, tenant: 'acme' }); // home/.corerc.yaml, shadowed
    const { mkdirSync } = await import('node:fs');
    mkdirSync(project);
    const file = join(project, '.corerc.yaml');
    writeFileSync(file, `profiles:\n  p:\n    baseUrl: ${server.url}\n    tenant: acme\n`);
    chmodSync(file, 0o666);
    writeFileSync(join(project, '.corerc.js'), 'export default {};\n');
    const env = { ...baseEnv({ CORE_TOKEN: TOKEN }), HOME: home, XDG_CONFIG_HOME: join(home, '.config') };
    const run = await runBuilt(['doctor', '--json'], { env, cwd: project, unprivileged: true });
    expect(run.code).toBe(1);
    const files = report(run).checks.filter((candidate) => candidate.id === 'config.file');
    expect(files.map((candidate) => [candidate.status, candidate.message.split(':')[0]])).toEqual([
      ['fail', file],
      ['pass', join(project, '.corerc.js')],
      ['pass', join(home, '.corerc.json')],
    ]);
    expect(files[0]).toMatchObject({
      message: expect.stringContaining('can be written by'),
      fix: `if the file is yours, run: chmod go-w ${file}`,
    });
    expect(files[1]!.message).toContain('not loaded');

    chmodSync(file, 0o600);
    const fixed = await runBuilt(['doctor', '--json'], { env, cwd: project, unprivileged: true });
    expect(report(fixed).checks.find((candidate) => candidate.id === 'config.file')).toMatchObject({
      status: 'pass',
      message: `${file}: in use; yours and writable by you alone`,
    });
  });

  it('fails a cache folder others may write, which core passes over, with the chmod that fixes it', async () => {
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN });
    const cache = mkdtempSync(join(tmpdir(), 'core-doctor-cache-'));
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(cache, 'core'));
    chmodSync(join(cache, 'core'), 0o777);
    const run = await runBuilt(['doctor', '--json'], { env: { ...env, XDG_CACHE_HOME: cache } });
    expect(run.code).toBe(1);
    expect(check(run, 'folder.cache')).toMatchObject({ status: 'fail', fix: `chmod go-w ${join(cache, 'core')}` });
    expect(check(run, 'folder.state').status).toBe('pass');
  });
});
