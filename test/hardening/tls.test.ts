import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSECURE_WARNING } from '../../src/send/transport.js';
import { baseEnv, runBuilt, runInProcess } from '../helpers/run.js';
import { withTool } from '../helpers/tools.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { makePki, writeConfig, type Pki } from './helpers.js';

/**
 * TLS against a loopback HTTPS server whose certificate comes from a CA made for the test: the
 * system's trust store does not know it, so only --ca-file, a profile's caFile or
 * NODE_EXTRA_CA_CERTS make it trusted, and only --insecure skips the check (docs/security.md).
 */

const TOKEN = 'tls-test-token-6d1f0c';
const reply = ['reply', '--core-client-id', '42', '-t', 'Hello over TLS'];

withTool('openssl').describe('TLS with a private CA', () => {
  let pki: Pki;
  let server: RecordingServer;
  beforeAll(async () => {
    pki = makePki();
    server = await startRecordingServer(undefined, { tls: pki });
  });
  afterAll(() => server.close());

  const env = (extra: Record<string, string> = {}) =>
    baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, NODE_EXTRA_CA_CERTS: undefined, ...extra });

  it('rejects the certificate without the CA: exit 6 with the TLS error code and a hint, nothing delivered', async () => {
    const before = server.requests.length;
    const run = await runInProcess([...reply, '--json'], { env: env() });
    expect(run.code).toBe(6);
    const result = JSON.parse(run.stdout) as { ok: boolean; status: null; error: { code: string; message: string } };
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(result.error.message).toMatch(/^TLS failure talking to 127\.0\.0\.1:\d+: .*--ca-file FILE$/);
    expect(server.requests.length).toBe(before);
  });

  it('accepts it with --ca-file, which adds to the trust store', async () => {
    const before = server.requests.length;
    const run = await runInProcess([...reply, '--ca-file', pki.caFile], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('warning');
    expect(server.requests.length).toBe(before + 1);
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("accepts it with the profile's caFile, a path relative to the config file's folder", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-cafile-'));
    mkdirSync(join(dir, 'certs'));
    writeFileSync(join(dir, 'certs', 'ca.pem'), readFileSync(pki.caFile));
    const config = writeConfig(dir, { baseUrl: server.url, tenant: 'acme', token: { env: 'MY_TOKEN' }, caFile: 'certs/ca.pem' });
    const run = await runInProcess([...reply, '--config', config], { env: baseEnv({ MY_TOKEN: TOKEN }) });
    expect(run.code).toBe(0);
    const shown = await runInProcess(['config', 'show', '--config', config, '--json'], { env: baseEnv() });
    expect(JSON.parse(shown.stdout).caFile).toEqual({ value: join(dir, 'certs', 'ca.pem'), source: `profile test in ${config}` });
  });

  it('does not trust a CA that did not sign the certificate, and says the CA given did not sign it', async () => {
    const run = await runInProcess([...reply, '--ca-file', pki.otherCaFile], { env: env() });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('TLS failure');
    expect(run.stderr).toContain(`the certificate is not signed by the CA of ${pki.otherCaFile} nor by one the system trusts`);
    expect(run.stderr).not.toContain('give its certificate with --ca-file');
  });

  it('says an expired certificate of the CA given is expired, not that the CA did not sign it: exit 6', async () => {
    // Signed by the trusted CA, valid until yesterday.
    execFileSync(
      'openssl',
      [
        'x509',
        '-req',
        '-in',
        'server.csr',
        '-CA',
        'core-test-ca.pem',
        '-CAkey',
        'core-test-ca.key',
        '-out',
        'expired.pem',
        '-days',
        '-1',
        '-extfile',
        'server.ext',
      ],
      { cwd: pki.dir, stdio: 'ignore' },
    );
    const expired = await startRecordingServer(undefined, { tls: { ...pki, cert: readFileSync(join(pki.dir, 'expired.pem'), 'utf8') } });
    try {
      const run = await runInProcess([...reply, '--ca-file', pki.caFile], { env: env({ CORE_BASE_URL: expired.url }) });
      expect(run.code).toBe(6);
      expect(run.stderr).toContain('CERT_HAS_EXPIRED');
      expect(run.stderr).toContain('outside its dates of validity');
      expect(run.stderr).not.toContain('is not signed by the CA');
      expect(expired.requests).toHaveLength(0);
    } finally {
      await expired.close();
    }
  });

  it('says a certificate for other host names is for other names, not to give a CA file (one was given): exit 6', async () => {
    // The certificate names 127.0.0.1, localhost and api.example.test; 127.0.0.2 is this machine too.
    const other = await startRecordingServer(undefined, { tls: pki, host: '127.0.0.2' });
    try {
      const run = await runInProcess([...reply, '--ca-file', pki.caFile, '--json'], { env: env({ CORE_BASE_URL: other.url }) });
      expect(run.code).toBe(6);
      const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
      expect(error.code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
      expect(error.message).toMatch(/its certificate is for other host names \(.*127\.0\.0\.2.*\); use a host name the certificate names/);
      expect(error.message).not.toContain('--ca-file');
      expect(other.requests).toHaveLength(0);
    } finally {
      await other.close();
    }
  });

  it('accepts it with --insecure, and warns on every use, with --json too', async () => {
    for (const extra of [[], ['--json']]) {
      const run = await runInProcess([...reply, '--insecure', ...extra], { env: env() });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`warning: ${INSECURE_WARNING}`);
    }
    const dry = await runInProcess([...reply, '--insecure', '--dry-run'], { env: env() });
    expect(dry.stderr).toContain(INSECURE_WARNING);
  });

  it('keeps checking when NODE_TLS_REJECT_UNAUTHORIZED=0 is in the environment: only --insecure turns it off', async () => {
    const run = await runBuilt(reply, { env: env({ NODE_TLS_REJECT_UNAUTHORIZED: '0' }) });
    expect(run.code).toBe(6);
    expect(run.stderr).toContain('TLS failure');
  });

  it('trusts NODE_EXTRA_CA_CERTS, and still does when --ca-file adds another CA (Node drops it when a CA list is given)', async () => {
    const extra = env({ NODE_EXTRA_CA_CERTS: pki.caFile });
    expect((await runBuilt(reply, { env: extra })).code).toBe(0);
    const both = await runBuilt([...reply, '--ca-file', pki.otherCaFile], { env: extra });
    expect(both.stderr).toBe('');
    expect(both.code).toBe(0);
  });

  it('sends a batch of reasons over kept-alive TLS connections with --ca-file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-tls-batch-'));
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ code: `R${i}`, reasons: [{ locale: 'en', name: `Reason ${i}` }] }));
    writeFileSync(join(dir, 'reasons.ndjson'), `${lines.join('\n')}\n`);
    const before = server.requests.length;
    const run = await runInProcess(['reason', 'update', '-f', 'reasons.ndjson', '--concurrency', '2', '--ca-file', pki.caFile], {
      env: env(),
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(server.requests.length).toBe(before + 6);
    const failed = await runInProcess(['reason', 'update', '-f', 'reasons.ndjson', '--json'], { env: env(), cwd: dir });
    expect(failed.code).toBe(6);
  });

  describe('a CA file that cannot be used is exit 2 before anything is sent or any token command runs', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'core-bad-ca-'));
      mkdirSync(join(dir, 'folder'));
      writeFileSync(join(dir, 'notes.txt'), 'this is not a certificate\n');
      writeFileSync(join(dir, 'ca.der'), Buffer.from([0x30, 0x82, 0x01, 0x0a, 0x02, 0x82, 0x01, 0x01, 0x00]));
      writeFileSync(join(dir, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n');
    });

    it.each([
      ['missing', 'nope.pem', /--ca-file: .*nope\.pem does not exist/],
      ['a folder', 'folder', /--ca-file: .*folder is a folder, not a certificate file/],
      ['not PEM', 'notes.txt', /--ca-file: .*notes\.txt holds no PEM certificate/],
      ['DER', 'ca.der', /holds no PEM certificate\nhint: it looks like DER; convert it: openssl x509 -inform der/],
      ['a PEM block that is no certificate', 'broken.pem', /certificate 1 of 1 in .*broken\.pem cannot be read/],
    ])('%s', async (_case, file, message) => {
      const marker = join(dir, `ran-${file}`);
      const config = join(dir, `core-${file}.json`);
      const command = `touch '${marker}' && echo ${TOKEN}`;
      writeFileSync(config, JSON.stringify({ profiles: { p: { baseUrl: server.url, tenant: 'acme', token: { command } } } }));
      const before = server.requests.length;
      const run = await runInProcess([...reply, '--config', config, '--ca-file', file], { env: baseEnv(), cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(server.requests.length).toBe(before);
      expect(existsSync(marker)).toBe(false);
    });
  });
});
