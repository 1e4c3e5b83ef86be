import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseSandboxFlags } from '../../src/platform/flags.js';
import { UsageError } from '../../src/errors.js';
import type { Answer, Exchange } from '../../src/sandbox/exchange.js';
import { pageHandlers } from '../../src/sandbox/page.js';
import { repoRoot } from '../helpers/run.js';
import { sandbox } from '../sandbox/helpers.js';

/**
 * What a request can reach (docs/security.md, "The sandbox"): the Host check on every path when the
 * sandbox is bound to loopback (DNS rebinding reached the API, whose default token is public), names
 * added with --allow-host, and the page's file route, which answered 500 with the install path to
 * `constructor`, `__proto__` and `toString`.
 */

interface Raw {
  status: number;
  text: string;
}

/** One request with a Host header of the test's choosing (fetch cannot set one). */
function raw(port: number, init: { method?: string; path: string; host: string; body?: string; token?: string }): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Host: init.host };
    if (init.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers.Authorization = `Bearer ${init.token ?? 'sandbox-token'}`;
      headers['X-Tenant-Name'] = 'sandbox';
    }
    const req = request({ host: '127.0.0.1', port, method: init.method ?? 'GET', path: init.path, setHost: false, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

const apiRequests = [
  { method: 'POST', path: '/api/v1/chatbot', body: '{"text":"forged","coreClientId":1}' },
  { method: 'POST', path: '/api/v1/chatbot/greet', body: '{"text":"forged","coreClientId":1}' },
  { method: 'PUT', path: '/api/v1/inactivity/reasons', body: '{"code":"LUNCH","reasons":[{"locale":"en","name":"x"}],"active":false}' },
  { method: 'GET', path: '/api/v1/nothing-here' },
];

describe('the Host check covers the API when the sandbox is bound to loopback', () => {
  it.each(apiRequests)('$method $path through a rebound name is 403, naming --allow-host, and changes nothing', async (init) => {
    const sb = await sandbox();
    const result = await raw(sb.port, { ...init, host: `rebound.attacker.example:${sb.port}` });
    expect(result.status).toBe(403);
    const message = (JSON.parse(result.text) as { message: string }).message;
    expect(message).toContain(`the Host 'rebound.attacker.example:${sb.port}' is not this sandbox's address`);
    expect(message).toContain('start it with --allow-host rebound.attacker.example');
    expect(sb.events()).toEqual([]);
  });

  it.each(['127.0.0.1', 'localhost', '[::1]'])('answers the API through %s with its port', async (name) => {
    const sb = await sandbox();
    const result = await raw(sb.port, { ...apiRequests[0]!, host: `${name}:${sb.port}` });
    expect(result.status).toBe(200);
  });

  it.each([
    ['host.docker.internal', 'host.docker.internal'],
    ['host.docker.internal', 'HOST.docker.internal.:8080'],
    ['abc.tunnel.example', 'abc.tunnel.example'],
  ])('with --allow-host %s, answers the API and the page addressed to %s (any port)', async (allowed, host) => {
    const sb = await sandbox({ allowHosts: [allowed] });
    expect((await raw(sb.port, { ...apiRequests[0]!, host })).status).toBe(200);
    expect((await raw(sb.port, { path: '/_sandbox/info', host })).status).toBe(200);
  });

  it('an allowed name does not open the door to its subdomains or to names that end like it', async () => {
    const sb = await sandbox({ allowHosts: ['tunnel.example'] });
    for (const host of ['a.tunnel.example', 'eviltunnel.example', 'tunnel.example.attacker.example']) {
      expect((await raw(sb.port, { ...apiRequests[0]!, host })).status).toBe(403);
    }
  });

  it.each([
    [
      ['host.docker.internal', 'abc.tunnel.example'],
      ['host.docker.internal', 'abc.tunnel.example'],
    ],
    [
      ['[::1]', '10.0.0.5'],
      ['[::1]', '10.0.0.5'],
    ],
  ])('core sandbox --allow-host %j is repeatable', async (names, expected) => {
    const options = await parseSandboxFlags({ allowHosts: names }, repoRoot);
    expect(options.allowHosts).toEqual(expected);
  });

  it.each(['', 'http://host.docker.internal', 'host.docker.internal:8080', 'a b', 'a..b', `${'a'.repeat(64)}.example`])(
    'core sandbox --allow-host %j is a usage error naming the flag',
    async (name) => {
      const refused = await parseSandboxFlags({ allowHosts: [name] }, repoRoot).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toMatch(/^--allow-host: /);
    },
  );
});

describe("the page's file route", () => {
  const notFiles = [
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '__defineGetter__',
    'isPrototypeOf',
    'propertyIsEnumerable',
    'toLocaleString',
    '..%2Fpackage.json',
    '%2e%2e%2f%2e%2e%2fpackage.json',
    'index.html%00',
    'app.js%2F..%2F..%2Fpackage.json',
    'nothing.js',
    '%E0%A4%A',
  ];

  it.each(notFiles)('GET /_sandbox/page/%s is 404 and names no path of this machine', async (name) => {
    const sb = await sandbox();
    const result = await raw(sb.port, { path: `/_sandbox/page/${name}`, host: `127.0.0.1:${sb.port}` });
    expect(result.status).toBe(404);
    expect(result.text).not.toContain(repoRoot);
    expect(result.text).not.toMatch(/file:|\/src\/|\/dist\/|\/home\/|\/tmp\/|\/usr\//);
  });

  it('a page file that cannot be read is a 500 that names the file, not where it was looked for', async () => {
    const missing = new URL('file:///nonexistent-core-install/page/');
    const answer = (await pageHandlers(missing).file({ params: ['app.js'] } as unknown as Exchange)) as Answer;
    expect(answer.status).toBe(500);
    expect(answer.error).toBe("the page's file app.js cannot be read (ENOENT): the installation of core is incomplete; reinstall it");
    expect(answer.what).toContain('nonexistent-core-install');
  });

  it('serves its real files still', async () => {
    const sb = await sandbox();
    expect((await raw(sb.port, { path: '/_sandbox/page/app.js', host: `127.0.0.1:${sb.port}` })).status).toBe(200);
  });
});
