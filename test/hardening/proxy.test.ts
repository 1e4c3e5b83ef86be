import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { requiring, withTool } from '../helpers/tools.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { TEST_HOST, makePki, outsideAddress, startProxy, writeConfig, type Pki, type TestProxy } from './helpers.js';

/**
 * Requests through a forward proxy on loopback that records what passes through it. The service is
 * addressed as https://api.example.test: only the proxy knows where that is (it routes every
 * target to the loopback test servers), so a request that reached the service went through it,
 * and one that bypassed it fails to resolve the name.
 */

const TOKEN = 'proxy-test-token-93be21';
const PROXY_USER = 'alice';
const PROXY_PASSWORD = 'pr0xy-pa55word';
const reply = ['reply', '--core-client-id', '42', '-t', 'Hello through a proxy'];
const outside = outsideAddress();
// Loopback is never proxied, so the NO_PROXY test needs an address of this machine that is not.
const withOutsideAddress = requiring(
  'a non-loopback IPv4 address',
  outside !== undefined,
  () =>
    'this machine has no IPv4 address but loopback: run the tests where it has a network interface, or set CORE_TEST_ALLOW_SKIP=1 to skip this test',
);

withTool('openssl').describe('a forward proxy', () => {
  let pki: Pki;
  let https: RecordingServer;
  let http: RecordingServer;
  let proxy: TestProxy;
  let guarded: TestProxy;
  let direct: RecordingServer | undefined;

  beforeAll(async () => {
    pki = makePki(outside ? [outside] : []);
    https = await startRecordingServer(undefined, { tls: pki });
    http = await startRecordingServer();
    if (outside) direct = await startRecordingServer(undefined, { tls: pki, host: outside });
    const route = (host: string, port: number) => (host === outside ? { host, port: direct!.port } : port === 80 ? http.port : https.port);
    proxy = await startProxy({ route });
    guarded = await startProxy({ route, credentials: `${PROXY_USER}:${PROXY_PASSWORD}` });
  });
  afterAll(async () => {
    await Promise.all([https.close(), http.close(), proxy.close(), guarded.close(), direct?.close()]);
  });

  /** An environment that reaches https://api.example.test through `variables`, with the test CA trusted. */
  const env = (variables: Record<string, string>, baseUrl = `https://${TEST_HOST}`) =>
    baseEnv({ CORE_BASE_URL: baseUrl, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, ...variables });
  const logSize = () => proxy.log.length;

  it('tunnels https through HTTPS_PROXY with CONNECT, and the service gets the request', async () => {
    const before = logSize();
    const served = https.requests.length;
    const run = await runInProcess([...reply, '--ca-file', pki.caFile, '--verbose'], { env: env({ HTTPS_PROXY: proxy.url }) });
    expect(run.code).toBe(0);
    expect(proxy.log.slice(before)).toEqual([expect.objectContaining({ method: 'CONNECT', target: `${TEST_HOST}:443` })]);
    expect(https.requests.length).toBe(served + 1);
    expect(https.requests.at(-1)!.headers).toMatchObject({ host: TEST_HOST, authorization: `Bearer ${TOKEN}` });
    expect(run.stderr).toContain(`* proxy ${proxy.url} (env HTTPS_PROXY)`);
  });

  it('reads https_proxy before HTTPS_PROXY', async () => {
    const before = logSize();
    const run = await runInProcess([...reply, '--ca-file', pki.caFile], {
      env: env({ https_proxy: proxy.url, HTTPS_PROXY: 'http://127.0.0.1:1' }),
    });
    expect(run.code).toBe(0);
    expect(logSize()).toBe(before + 1);
  });

  it('sends plain http through HTTP_PROXY as an absolute-URI request (with --allow-http, as the host is not loopback)', async () => {
    const before = logSize();
    const served = http.requests.length;
    const variables = { HTTP_PROXY: proxy.url };
    const refused = await runInProcess(reply, { env: env(variables, `http://${TEST_HOST}`) });
    expect(refused.code).toBe(2);
    expect(logSize()).toBe(before);
    const run = await runInProcess([...reply, '--allow-http', '--json'], { env: env(variables, `http://${TEST_HOST}`) });
    expect(run.code).toBe(0);
    expect(proxy.log.slice(before)).toEqual([expect.objectContaining({ method: 'POST', target: `http://${TEST_HOST}/api/v1/chatbot` })]);
    expect(http.requests.length).toBe(served + 1);
    expect(http.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(http.requests.at(-1)!.body.toString())).toMatchObject({ text: 'Hello through a proxy', coreClientId: 42 });
  });

  describe('NO_PROXY', () => {
    it.each([
      ['the domain', `example.test`],
      ['the domain with a leading dot', `.example.test`],
      ['the host itself', TEST_HOST],
      ['*.domain', '*.example.test'],
      ['the domain among others, with spaces', 'intranet.corp, example.test ,10.0.0.0/8'],
      ['the host with its port', `${TEST_HOST}:443`],
      ['*', '*'],
    ])('bypasses the proxy when it lists %s (the name then does not resolve: exit 6)', async (_case, noProxy) => {
      const before = logSize();
      const run = await runInProcess([...reply, '--ca-file', pki.caFile, '--json', '--timeout', '10s'], {
        env: env({ HTTPS_PROXY: proxy.url, NO_PROXY: noProxy }),
      });
      expect(run.code).toBe(6);
      expect((JSON.parse(run.stdout) as { error: { code: string } }).error.code).toMatch(/^(ENOTFOUND|EAI_AGAIN|ETIMEDOUT)$/);
      expect(logSize()).toBe(before);
    });

    it.each([
      ['another domain that ends the same way', 'ample.test'],
      ['a subdomain of the host', `eu.${TEST_HOST}`],
      ['the host on another port', `${TEST_HOST}:8443`],
      ['an IP range', '10.0.0.0/8'],
    ])('keeps the proxy when it lists only %s', async (_case, noProxy) => {
      const before = logSize();
      const run = await runInProcess([...reply, '--ca-file', pki.caFile], { env: env({ HTTPS_PROXY: proxy.url, no_proxy: noProxy }) });
      expect(run.code).toBe(0);
      expect(logSize()).toBe(before + 1);
    });

    withOutsideAddress.it('reaches an address that NO_PROXY lists directly, and through the proxy when it does not', async () => {
      const baseUrl = `https://${outside}:${direct!.port}`;
      const before = logSize();
      const served = direct!.requests.length;
      const bypass = await runInProcess([...reply, '--ca-file', pki.caFile], {
        env: env({ HTTPS_PROXY: proxy.url, NO_PROXY: outside! }, baseUrl),
      });
      expect(bypass.code).toBe(0);
      expect(logSize()).toBe(before);
      const proxied = await runInProcess([...reply, '--ca-file', pki.caFile], { env: env({ HTTPS_PROXY: proxy.url }, baseUrl) });
      expect(proxied.code).toBe(0);
      expect(proxy.log.at(-1)).toMatchObject({ method: 'CONNECT', target: `${outside}:${direct!.port}` });
      expect(direct!.requests.length).toBe(served + 2);
    });
  });

  it('never proxies loopback, whatever the variables say', async () => {
    const before = logSize();
    for (const baseUrl of [https.url, https.url.replace('127.0.0.1', 'localhost')]) {
      const run = await runInProcess([...reply, '--ca-file', pki.caFile], {
        env: env({ HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url }, baseUrl),
      });
      expect(run.code).toBe(0);
    }
    const plain = await runInProcess(reply, { env: env({ HTTP_PROXY: proxy.url }, http.url) });
    expect(plain.code).toBe(0);
    expect(logSize()).toBe(before);
  });

  it("uses the profile's proxy over HTTPS_PROXY, and shows it in config show", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-proxy-profile-'));
    const config = writeConfig(dir, {
      baseUrl: `https://${TEST_HOST}`,
      tenant: 'acme',
      token: { env: 'T' },
      proxy: proxy.url,
      caFile: pki.caFile,
    });
    const before = logSize();
    const variables = baseEnv({ T: TOKEN, HTTPS_PROXY: 'http://127.0.0.1:1' });
    const run = await runInProcess([...reply, '--config', config], { env: variables });
    expect(run.code).toBe(0);
    expect(logSize()).toBe(before + 1);
    const shown = await runInProcess(['config', 'show', '--config', config, '--json'], { env: variables });
    expect(JSON.parse(shown.stdout).proxy).toEqual({ value: proxy.url, source: `profile test in ${config}` });
    const fromEnv = await runInProcess(['config', 'show', '--json'], {
      env: baseEnv({ HTTPS_PROXY: 'http://u:p4ss-word@proxy.corp:3128', NO_PROXY: '.corp' }),
    });
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({
      proxy: { value: 'http://********@proxy.corp:3128', source: 'env HTTPS_PROXY' },
      noProxy: { value: '.corp', source: 'env NO_PROXY' },
    });
  });

  it('sends the proxy credentials to the proxy, and never prints them, whatever the flags', async () => {
    const proxyUrl = `http://${PROXY_USER}:${PROXY_PASSWORD}@127.0.0.1:${guarded.port}`;
    const dir = mkdtempSync(join(tmpdir(), 'core-proxy-auth-'));
    const config = writeConfig(dir, {
      baseUrl: `https://${TEST_HOST}`,
      tenant: 'acme',
      token: { env: 'T' },
      proxy: proxyUrl,
      caFile: pki.caFile,
    });
    const variables = baseEnv({ T: TOKEN, CORE_DEBUG: '1' });
    const before = guarded.log.length;
    const outputs: string[] = [];
    for (const extra of [['--verbose'], ['--json'], ['--dry-run'], ['--curl']]) {
      const run = await runInProcess([...reply, '--config', config, ...extra], { env: variables });
      expect(run.code).toBe(0);
      outputs.push(run.stdout, run.stderr);
    }
    const expected = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASSWORD}`).toString('base64')}`;
    expect(guarded.log.slice(before).map((entry) => entry.headers['proxy-authorization'])).toEqual([expected, expected]);
    for (const extra of [[], ['--json']]) {
      const shown = await runInProcess(['config', 'show', '--config', config, ...extra], { env: variables });
      outputs.push(shown.stdout, shown.stderr);
    }
    // A wrong password: the proxy answers 407, which is reported without the URL's credentials.
    writeFileSync(
      config,
      JSON.stringify({
        profiles: {
          test: {
            baseUrl: `https://${TEST_HOST}`,
            tenant: 'acme',
            token: { env: 'T' },
            proxy: proxyUrl.replace(PROXY_PASSWORD, `${PROXY_PASSWORD}-old`),
          },
        },
      }),
    );
    const refused = await runInProcess([...reply, '--config', config, '--json'], { env: variables });
    expect(refused.code).toBe(6);
    const error = (JSON.parse(refused.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('EPROXY');
    expect(error.message).toBe(
      `the proxy http://********@127.0.0.1:${guarded.port} answered 407 to CONNECT ${TEST_HOST}:443: proxy authentication required; check the user name and password in the proxy URL`,
    );
    outputs.push(refused.stdout, refused.stderr);
    const all = outputs.join('\n');
    expect(all).toContain(`http://********@127.0.0.1:${guarded.port}`);
    for (const secret of [PROXY_PASSWORD, `${PROXY_USER}:`, expected.slice(6), TOKEN]) expect(all).not.toContain(secret);
  });

  it('says when the proxy cannot be reached: exit 6', async () => {
    const run = await runInProcess([...reply, '--json', '--ca-file', pki.caFile], { env: env({ HTTPS_PROXY: 'http://127.0.0.1:1' }) });
    expect(run.code).toBe(6);
    expect(JSON.parse(run.stdout).error).toEqual({
      code: 'ECONNREFUSED',
      message: 'cannot reach the proxy http://127.0.0.1:1 (ECONNREFUSED)',
    });
  });

  it('refuses a proxy it cannot use (exit 2) without quoting it, unless the host is not proxied', async () => {
    const socks = 'socks5://bob:s0cks-secret@proxy.corp:1080';
    const run = await runInProcess(reply, { env: env({ HTTPS_PROXY: socks }) });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: the proxy from env HTTPS_PROXY is a socks5 proxy; only http and https proxies are supported');
    expect(run.stderr).not.toContain('s0cks-secret');
    const local = await runInProcess([...reply, '--ca-file', pki.caFile], { env: env({ HTTPS_PROXY: socks }, https.url) });
    expect(local.code).toBe(0);
  });

  it('keeps a batch on at most --concurrency tunnels through the proxy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-proxy-batch-'));
    const lines = Array.from({ length: 8 }, (_, i) => JSON.stringify({ code: `R${i}`, reasons: [{ locale: 'en', name: `Reason ${i}` }] }));
    writeFileSync(join(dir, 'reasons.ndjson'), `${lines.join('\n')}\n`);
    const before = logSize();
    const served = https.requests.length;
    const run = await runInProcess(['reason', 'update', '-f', 'reasons.ndjson', '--concurrency', '2', '--ca-file', pki.caFile], {
      env: env({ HTTPS_PROXY: proxy.url }),
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(https.requests.length).toBe(served + 8);
    const tunnels = proxy.log.slice(before);
    expect(tunnels.every((entry) => entry.method === 'CONNECT')).toBe(true);
    expect(tunnels.length).toBeGreaterThanOrEqual(1);
    expect(tunnels.length).toBeLessThanOrEqual(2);
  });
});
