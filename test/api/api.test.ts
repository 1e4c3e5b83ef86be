import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * `core api METHOD PATH`: a request core does not know yet, with the profile, the credential, the
 * network rules, --dry-run, --curl and masking as everywhere, and no payload rule (docs/commands/api.md).
 */

const TOKEN = 'tok-api-5c2e91';
const INTEGRATOR = 'tok-integrator-77aa10';
let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const folder = mkdtempSync(join(tmpdir(), 'core-api-'));
const file = (name: string, content: string) => {
  writeFileSync(join(folder, name), content);
  return join(folder, name);
};
const env = (url: string, extra: Record<string, string | undefined> = {}) =>
  baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, CORE_INTEGRATOR_TOKEN: INTEGRATOR, ...extra });

describe('core api', () => {
  it('sends the body as given, with no payload rule checked, identifiers exact, and the editors key dropped', async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const body = file('new-field.json', '{"$schema":"x","coreClientId":9223372036854775807,"text":"Hi","newField":{"deep":[1,2]}}');
    const result = await runInProcess(['api', 'post', '/api/v1/chatbot', '-f', body], { env: env(server.url) });
    expect(result.code).toBe(0);
    const [request] = server.requests;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/api/v1/chatbot');
    expect(request!.body.toString()).toBe('{"coreClientId":9223372036854775807,"text":"Hi","newField":{"deep":[1,2]}}');
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers['x-tenant-name']).toBe('acme');
    expect(request!.headers['content-type']).toBe('application/json');
  });

  it('sends a GET with no body and no Content-Type, keeps the query, and prints the JSON answer on stdout', async () => {
    server = await startRecordingServer([
      { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{"id":9223372036854775807,"items":["a"]}' },
    ]);
    const result = await runInProcess(['api', 'GET', '/api/v1/things?page=2'], { env: env(server.url) });
    expect(result.code).toBe(0);
    const [request] = server.requests;
    expect(request!.url).toBe('/api/v1/things?page=2');
    expect(request!.body.length).toBe(0);
    expect(request!.headers['content-type']).toBeUndefined();
    expect(result.stdout).toBe('{\n  "id": 9223372036854775807,\n  "items": [\n    "a"\n  ]\n}\n');
  });

  it('holds the answer in "body" with --json, identifiers exact', async () => {
    server = await startRecordingServer([{ status: 200, body: '{"id":9223372036854775807}' }]);
    const result = await runInProcess(['api', 'GET', '/api/v1/things', '--json'], { env: env(server.url) });
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout)).toMatchObject({ ok: true, status: 200n, method: 'GET', body: { id: 9223372036854775807n } });
  });

  it('uses the integrator token below /api/v1/inactivity, and the token elsewhere', async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const reason = file('reason.json', '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}]}');
    expect((await runInProcess(['api', 'PUT', '/api/v1/inactivity/reasons', '-f', reason], { env: env(server.url) })).code).toBe(0);
    expect((await runInProcess(['api', 'GET', '/api/v1/inactivity/other'], { env: env(server.url) })).code).toBe(0);
    expect((await runInProcess(['api', 'GET', '/api/v1/chatbot/other'], { env: env(server.url) })).code).toBe(0);
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([
      `Bearer ${INTEGRATOR}`,
      `Bearer ${INTEGRATOR}`,
      `Bearer ${TOKEN}`,
    ]);
  });

  it.each([
    { path: '/api/v1/inactivity/../chatbot', sent: '/api/v1/chatbot', token: TOKEN },
    { path: '/api/v1/%2e%2e/v1/inactivity/reasons', sent: '/api/v1/inactivity/reasons', token: INTEGRATOR },
    { path: '/api/v1/chatbot/./../inactivity/x?y=1', sent: '/api/v1/inactivity/x?y=1', token: INTEGRATOR },
    { path: '/api/v1/inactivityreport', sent: '/api/v1/inactivityreport', token: TOKEN },
    { path: '/../../api/v1/chatbot', sent: '/api/v1/chatbot', token: TOKEN },
  ])(
    'resolves the dot segments of $path before it chooses the credential, and prints the URL it sends to',
    async ({ path, sent, token }) => {
      server = await startRecordingServer([{ status: 200 }]);
      const result = await runInProcess(['api', 'GET', path, '--json'], { env: env(server.url) });
      expect(result.code).toBe(0);
      expect(server.requests.map((request) => [request.url, request.headers.authorization])).toEqual([[sent, `Bearer ${token}`]]);
      expect(parseJson(result.stdout)).toMatchObject({ url: `${server.url}${sent}` });
    },
  );

  it("keeps a path with dot segments below the base URL's own path", async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const result = await runInProcess(['api', 'GET', '/../../outside'], { env: env(`${server.url}/prefix`) });
    expect(result.code).toBe(0);
    expect(server.requests.map((request) => request.url)).toEqual(['/prefix/outside']);
  });

  it.each([
    ['a GET', ['GET', '/api/v1/things'], [], 2],
    ['a DELETE', ['DELETE', '/api/v1/things/1'], [], 2],
    ['a POST', ['POST', '/api/v1/things'], ['-f', 'body'], 1],
    ['a POST with --retry', ['POST', '/api/v1/things', '--retry'], ['-f', 'body'], 2],
    ['a reply carrying an answerId (the API delivers it once)', ['POST', '/api/v1/chatbot'], ['-f', 'answer'], 2],
  ])('repeats %s after a 503 as the retry rules say', async (_name, argv, fileArgs, attempts) => {
    // Without Retry-After: a wait the service asks for is not a retry (docs/security.md, "Retries").
    server = await startRecordingServer([{ status: 503 }, { status: 503 }]);
    const dir = mkdtempSync(join(tmpdir(), 'core-api-retry-'));
    writeFileSync(join(dir, 'body'), '{"x":1}');
    writeFileSync(join(dir, 'answer'), '{"coreClientId":1,"text":"Hi","answerId":"a-1"}');
    writeFileSync(
      join(dir, '.corerc.yaml'),
      `profiles:\n  p:\n    baseUrl: ${server.url}\n    tenant: acme\n    token: ${TOKEN}\n    retries: 1\n`,
    );
    const result = await runInProcess(['api', ...argv, ...fileArgs], { env: baseEnv(), cwd: dir });
    expect(result.code).toBe(5);
    expect(server.requests).toHaveLength(attempts);
  });

  it('--dry-run and --curl show the request, the token masked or as a variable, and send nothing', async () => {
    server = await startRecordingServer([{ status: 200 }]);
    const dry = await runInProcess(['api', 'GET', '/api/v1/things', '--dry-run'], { env: env(server.url) });
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`GET ${server.url}/api/v1/things`);
    expect(dry.stdout).toContain('Authorization: Bearer ********');
    expect(dry.stdout).toContain('(no body)');
    const curl = await runInProcess(['api', 'GET', '/api/v1/things', '--curl'], { env: env(server.url) });
    expect(curl.code).toBe(0);
    expect(curl.stdout).toContain('-H "Authorization: Bearer $CORE_TOKEN"');
    expect(curl.stdout).not.toContain('--data-binary');
    expect(`${dry.stdout}${curl.stdout}`).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(0);
  });

  it('fails a 4xx with exit 4, the error body and a hint', async () => {
    server = await startRecordingServer([{ status: 404, body: '{"message":"no such thing"}' }]);
    const result = await runInProcess(['api', 'GET', '/api/v1/nothing'], { env: env(server.url) });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('no such thing');
    expect(result.stderr).toContain('hint: the service knows no such target');
  });

  it.each([
    [
      'an absolute URL, which would take the credential elsewhere',
      ['GET', 'https://evil.example.com/x'],
      /takes a path below the base URL/,
    ],
    ['a path without its leading /', ['GET', 'api/v1/x'], /the path must start with \/.*\nhint: did you mean \/api\/v1\/x\?/],
    ['a method it does not send', ['TRACE', '/x'], /unknown method "TRACE"\nhint: use one of GET, POST, PUT, PATCH, DELETE/],
    ['a body on a GET', ['GET', '/x', '-f', '-'], /a GET request carries no body/],
    [
      'plain http to another host',
      ['GET', '/x', '--base-url', 'http://chat.example.com'],
      /refusing to send the token over plain http to chat\.example\.com/,
    ],
  ])('refuses %s with exit 2 and sends nothing', async (_name, argv, message) => {
    server = await startRecordingServer([{ status: 200 }]);
    const result = await runInProcess(['api', ...argv], { env: env(server.url), stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });
});
