import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { dryRunBody } from '../helpers/dry-run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * `core reply` run in-process against a recording loopback server, configured by the environment
 * alone (no config file), as CI users run it.
 */

const TOKEN = 'tok-3b1f9c2e-secret-value';
let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function envFor(url: string, extra: Record<string, string> = {}) {
  return baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, ...extra });
}

describe('core reply: argv to request body', () => {
  it.each<[string, string[], Record<string, unknown>]>([
    ['-t and --core-client-id', ['-t', 'Hello', '--core-client-id', '42'], { text: 'Hello', coreClientId: 42n }],
    ['--text long form', ['--text', 'Hi', '--question-id', '7'], { text: 'Hi', questionId: 7n }],
    [
      '--session-id with --question-index',
      ['-t', 'x', '--session-id', 's1', '--question-index', '0'],
      { sessionId: 's1', questionIndex: 0n },
    ],
    ['--client-id', ['-t', 'x', '--client-id', 'ext-1'], { clientId: 'ext-1' }],
    ['--answer-id', ['-t', 'x', '--core-client-id', '1', '--answer-id', 'ans-1'], { answerId: 'ans-1' }],
    [
      '--code with agent targets',
      [
        '-t',
        'x',
        '--core-client-id',
        '1',
        '--code',
        'SWITCH_TO_HUMAN',
        '--user-id',
        '5',
        '--user-id',
        '6',
        '--skill-id',
        '7',
        '--unit-id',
        '8',
      ],
      { code: 'SWITCH_TO_HUMAN', userIds: [5n, 6n], skillIds: [7n], unitIds: [8n] },
    ],
    [
      '--quick-reply and --contact-reply in order',
      ['-t', 'x', '--core-client-id', '1', '--contact-reply', 'Phone', '--quick-reply', 'No'],
      {
        quickReplies: [
          { type: 'CONTACT', text: 'Phone' },
          { type: 'TEXT', text: 'No' },
        ],
      },
    ],
    [
      '--block-input and --masked',
      ['-t', 'x', '--core-client-id', '1', '--quick-reply', 'a', '--block-input', '--masked'],
      { settings: { blockInput: true, masked: true } },
    ],
    [
      '--segment and --personal-manager',
      ['-t', 'x', '--core-client-id', '1', '--segment', 'k=v', '--personal-manager', 'agent7'],
      { segmentationInfo: { k: 'v', personal_manager: 'agent7' } },
    ],
    [
      '--received-at',
      ['-t', 'x', '--core-client-id', '1', '--received-at', '2026-01-02T03:04:05.678Z'],
      { receivedAt: '2026-01-02T03:04:05.678Z' },
    ],
    ['--action', ['-t', 'x', '--core-client-id', '1', '--action', 'INIT_CHAT'], { action: 'INIT_CHAT' }],
    [
      '--markdown alone fills text',
      ['--markdown', '**Bold** move', '--core-client-id', '1'],
      { formattedText: '**Bold** move', text: 'Bold move' },
    ],
    [
      '--attachment fills name and type',
      ['-t', 'x', '--core-client-id', '1', '--attachment', 'https://cdn.example.com/a/photo.jpg'],
      { attachments: [{ url: 'https://cdn.example.com/a/photo.jpg', name: 'photo.jpg', type: 'image/jpeg' }] },
    ],
  ])('%s', async (_name, args, expected) => {
    expect(await dryRunBody(['reply'], args)).toMatchObject(expected);
  });

  it('writes a new UUID answerId when none is given', async () => {
    const body = await dryRunBody(['reply'], ['-t', 'x', '--core-client-id', '1']);
    expect(body.answerId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
  it('keeps a --segment key named __proto__ as a key of segmentationInfo, as a file would', async () => {
    const body = await dryRunBody(['reply'], ['-t', 'x', '--core-client-id', '1', '--segment', '__proto__=x', '--segment', 'k=v']);
    const info = body.segmentationInfo as Record<string, unknown>;
    expect(Object.keys(info)).toEqual(['__proto__', 'k']);
    expect(Object.getOwnPropertyDescriptor(info, '__proto__')?.value).toBe('x');
  });
});

describe('core reply: sending', () => {
  it('sends the headers the API lists and exits 0 on 200', async () => {
    server = await startRecordingServer([{ status: 200, headers: { 'X-Request-Id': 'req-1' } }]);
    const result = await runInProcess(['reply', '-t', 'Hello', '--core-client-id', '9223372036854775807', '--answer-id', 'a-1', '--json'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(0);
    const request = server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v1/chatbot');
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.headers['x-tenant-name']).toBe('acme');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^core-cli\/\d+\.\d+\.\d+/);
    expect(request.body.toString()).toBe('{"text":"Hello","answerId":"a-1","coreClientId":9223372036854775807}');
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: true,
      status: 200,
      method: 'POST',
      url: `${server.url}/api/v1/chatbot`,
      requestId: 'req-1',
      answerId: 'a-1',
      error: null,
    });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it.each([['9223372036854775807'], ['9007199254740993'], ['1']])('sends the identifier %s exactly, digit for digit', async (id) => {
    server = await startRecordingServer();
    await runInProcess(['reply', '-t', 'x', '--core-client-id', id, '--question-id', id, '--code', 'SWITCH_TO_HUMAN', '--user-id', id], {
      env: envFor(server.url),
    });
    const body = server.requests[0]!.body.toString();
    expect(body).toContain(`"coreClientId":${id}`);
    expect(body).toContain(`"questionId":${id}`);
    expect(body).toContain(`"userIds":[${id}]`);
  });

  it('shows the service error body and exits 4 on a 404', async () => {
    const errorBody = { timestamp: '2026-01-01T00:00:00.000Z', method: 'POST', uri: '/api/v1/chatbot', message: 'No such question' };
    server = await startRecordingServer([
      { status: 404, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(errorBody) },
    ]);
    const human = await runInProcess(['reply', '-t', 'x', '--question-id', '1'], { env: envFor(server.url) });
    expect(human.code).toBe(4);
    expect(human.stderr).toContain('404 Not Found');
    expect(human.stderr).toContain('No such question');
    const json = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--json'], { env: envFor(server.url) });
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, status: 404, error: errorBody });
  });

  it('shows a non-JSON 5xx body raw, cut to 2 KB, and exits 5 after the retries', async () => {
    const html = `<html><body>${'Bad gateway '.repeat(400)}</body></html>`;
    server = await startRecordingServer([{ status: 502, headers: { 'Content-Type': 'text/html' }, body: html }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(5);
    const doc = JSON.parse(result.stdout) as { error: { message: string }; attempts: number };
    expect(doc.error.message.startsWith('<html><body>Bad gateway')).toBe(true);
    expect(Buffer.byteLength(doc.error.message)).toBeLessThanOrEqual(2048 + 10);
    expect(doc.error.message.endsWith('[cut]')).toBe(true);
    expect(server.requests).toHaveLength(3);
    expect(doc.attempts).toBe(3);
  });

  it('retries a 503 and the second attempt carries the same answerId', async () => {
    server = await startRecordingServer([{ status: 503 }, { status: 200 }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    const first = JSON.parse(server.requests[0]!.body.toString()) as { answerId: string };
    const second = JSON.parse(server.requests[1]!.body.toString()) as { answerId: string };
    expect(second.answerId).toBe(first.answerId);
    expect(JSON.parse(result.stdout).answerId).toBe(first.answerId);
  });

  it('exits 6 with ECONNREFUSED when nothing listens', async () => {
    server = await startRecordingServer();
    const url = server.url;
    await server.close();
    server = undefined;
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--json'], { env: envFor(url, {}) });
    expect(result.code).toBe(6);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status: null, error: { code: 'ECONNREFUSED' } });
  });

  it('exits 6 with ETIMEDOUT when the answer comes later than --timeout', async () => {
    server = await startRecordingServer([{ hang: true }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--timeout', '200ms', '--json'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(6);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status: null, error: { code: 'ETIMEDOUT' } });
  });

  it('sends nothing and exits 2 for an invalid payload, listing every problem', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(
      ['reply', '--core-client-id', '1', '--quick-reply', 'x'.repeat(4001), '--code', 'SUCCESS', '--user-id', '3', '--json'],
      { env: envFor(server.url) },
    );
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    const doc = JSON.parse(result.stdout) as { ok: boolean; validationErrors: { path: string }[] };
    expect(doc.ok).toBe(false);
    const paths = doc.validationErrors.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['text', 'quickReplies[0].text', 'userIds']));
    expect(result.stderr).toContain('quickReplies[0].text');
  });
});

describe('core reply: an answerId in the file that is not a string', () => {
  // docs/json-output.md: `answerId` is the answerId sent. One that is not a string is refused (exit 2,
  // nothing sent), and the document says null rather than a string made from it.
  it.each<[string, string]>([
    ['null', 'null'],
    ['a number', '5'],
    ['a number past the exact range of a JavaScript number', '9223372036854775807'],
    ['an object', '{"id": "a-1"}'],
    ['a list', '["a-1"]'],
    ['a boolean', 'true'],
  ])('is %s: refused with answerId null in the document, nothing sent', async (_case, value) => {
    server = await startRecordingServer();
    const dir = mkdtempSync(join(tmpdir(), 'core-answer-id-'));
    writeFileSync(join(dir, 'answer.json'), `{"coreClientId": 1, "text": "x", "answerId": ${value}}`);
    for (const extra of [[], ['--dry-run']]) {
      const result = await runInProcess(['reply', '-f', 'answer.json', '--json', ...extra], { env: envFor(server.url), cwd: dir });
      expect(result.code).toBe(2);
      const doc = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(doc).toMatchObject({ ok: false, status: null, answerId: null });
      expect(doc.validationErrors).toEqual([expect.objectContaining({ path: 'answerId' })]);
      expect(result.stderr).toMatch(/^ {2}answerId: /m);
    }
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, string, Record<string, unknown>]>([
    ['a string in the file is echoed as it is', '"from-file"', { ok: true, answerId: 'from-file' }],
    ['an empty string in the file is refused and echoed as it is', '""', { ok: false, answerId: '' }],
  ])('%s', async (_case, value, expected) => {
    server = await startRecordingServer();
    const dir = mkdtempSync(join(tmpdir(), 'core-answer-id-'));
    writeFileSync(join(dir, 'answer.json'), `{"coreClientId": 1, "text": "x", "answerId": ${value}}`);
    const result = await runInProcess(['reply', '-f', 'answer.json', '--json'], { env: envFor(server.url), cwd: dir });
    expect(JSON.parse(result.stdout)).toMatchObject(expected);
  });
});

describe('core reply: secrets', () => {
  // Each view shows the Authorization header (masked) and the service's answer quoting the token
  // (masked): the token is absent although the places that would hold it were printed.
  it.each<[string, string[], number, 'stdout' | 'stderr', string[]]>([
    ['--dry-run', ['--dry-run'], 0, 'stdout', ['Authorization: Bearer ********\n']],
    ['--dry-run --json', ['--dry-run', '--json'], 0, 'stdout', ['"Authorization":"Bearer ********"']],
    ['--curl', ['--curl'], 0, 'stdout', ['-H "Authorization: Bearer $CORE_TOKEN"']],
    [
      '--verbose',
      ['--verbose'],
      4,
      'stderr',
      ['> Authorization: Bearer ********\n', '✗ 401 Unauthorized', 'message     bad token ********'],
    ],
    ['--verbose --json', ['--verbose', '--json'], 4, 'stderr', ['> Authorization: Bearer ********\n', '< HTTP/1.1 401 Unauthorized']],
  ])('never prints the token with %s', async (_name, flags, code, stream, shown) => {
    server = await startRecordingServer([{ status: 401, body: `{"message":"bad token ${TOKEN}"}` }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', ...flags], { env: envFor(server.url) });
    expect(result.code).toBe(code);
    for (const text of shown) expect(result[stream]).toContain(text);
    if (flags.includes('--json'))
      expect(result.stdout).toContain(flags.includes('--verbose') ? '"message":"bad token ********"' : '"dryRun":true');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it('writes the token as $CORE_TOKEN in --curl', async () => {
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--curl'], { env: envFor('http://127.0.0.1:9') });
    expect(result.stdout).toContain('"Authorization: Bearer $CORE_TOKEN"');
    expect(result.stdout).toContain('--data-binary \'{"text":"x"');
  });

  it('with --curl --json prints one JSON document, the request with its curl command, and nothing else on stdout', async () => {
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--curl', '--json'], {
      env: envFor('http://127.0.0.1:9'),
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    const document = parseJson(result.stdout) as Record<string, unknown>;
    expect(document).toMatchObject({ dryRun: true, method: 'POST', url: 'http://127.0.0.1:9/api/v1/chatbot', body: { text: 'x' } });
    expect(document.curl).toContain('-H "Authorization: Bearer $CORE_TOKEN"');
    expect(document.curl).toContain('--data-binary \'{"text":"x"');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it('masks an Authorization header from the profile in --curl instead of naming $CORE_TOKEN', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-curl-'));
    const file = join(dir, 'core.yaml');
    writeFileSync(
      file,
      `profiles:\n  p:\n    baseUrl: http://127.0.0.1:9\n    tenant: acme\n    headers: {Authorization: "Basic ${TOKEN}"}\n`,
    );
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--curl'], { env: baseEnv({ CORE_CONFIG: file }) });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("-H 'Authorization: Basic ********'");
    expect(result.stdout).not.toContain('$CORE_TOKEN');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
  });

  it.each<[string, string[], Record<string, string>, string[], string[]]>([
    ['-k for --insecure', ['--insecure'], {}, ['-k \\'], ['--cacert']],
    ['--cacert for --ca-file', ['--ca-file', '/etc/ssl/private-ca.pem'], {}, ['--cacert /etc/ssl/private-ca.pem'], ['-k ']],
    [
      'the proxy that applies, credentials masked',
      [],
      { HTTPS_PROXY: 'http://proxyuser:proxy-pass-9@proxy.example:3128' },
      ["--proxy 'http://********@proxy.example:3128'"],
      ['proxy-pass-9', 'proxyuser'],
    ],
    [
      '--noproxy when NO_PROXY bypasses the proxy',
      [],
      { HTTPS_PROXY: 'http://proxy.example:3128', NO_PROXY: '.example.com' },
      ['--noproxy chat.example.com'],
      ['--proxy '],
    ],
  ])('--curl writes %s', async (_name, flags, env, present, absent) => {
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--curl', ...flags], {
      env: envFor('https://chat.example.com', env),
    });
    expect(result.code).toBe(0);
    for (const text of present) expect(result.stdout).toContain(text);
    for (const text of absent) expect(result.stdout).not.toContain(text);
  });

  it('masks the token in an error that echoes it back', async () => {
    server = await startRecordingServer([{ status: 401, body: `{"message":"bad token ${TOKEN}"}` }]);
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1'], { env: envFor(server.url) });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('bad token ********');
  });
});
