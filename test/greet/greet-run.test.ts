import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { dryRunBody } from '../helpers/dry-run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * `core greet` run in-process against a recording loopback server, configured by the environment
 * alone, as CI users run it.
 */

const TOKEN = 'tok-greet-7c1d-secret-value';
let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function envFor(url: string, extra: Record<string, string> = {}) {
  return baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, ...extra });
}

const NOW = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('core greet: argv to request body', () => {
  it.each<[string, string[], Record<string, unknown>]>([
    ['-t and --core-client-id', ['-t', 'Hello', '--core-client-id', '42'], { text: 'Hello', coreClientId: 42n }],
    ['--text long form', ['--text', 'Hi', '--core-client-id', '1'], { text: 'Hi', coreClientId: 1n }],
    [
      'the largest long, exactly',
      ['-t', 'x', '--core-client-id', '9223372036854775807'],
      { text: 'x', coreClientId: 9223372036854775807n },
    ],
    ['--client-id', ['-t', 'x', '--client-id', 'ext-1'], { text: 'x', clientId: 'ext-1' }],
    [
      '--quick-reply and --contact-reply in the order typed',
      ['-t', 'x', '--core-client-id', '1', '--contact-reply', 'Share phone', '--quick-reply', 'No', '--quick-reply', 'Yes'],
      {
        text: 'x',
        coreClientId: 1n,
        quickReplies: [
          { type: 'CONTACT', text: 'Share phone' },
          { type: 'TEXT', text: 'No' },
          { type: 'TEXT', text: 'Yes' },
        ],
      },
    ],
    [
      '--block-input',
      ['-t', 'x', '--core-client-id', '1', '--quick-reply', 'a', '--block-input'],
      { text: 'x', coreClientId: 1n, quickReplies: [{ type: 'TEXT', text: 'a' }], settings: { blockInput: true } },
    ],
    ['--masked', ['-t', 'x', '--core-client-id', '1', '--masked'], { text: 'x', coreClientId: 1n, settings: { masked: true } }],
    [
      '--received-at',
      ['-t', 'x', '--core-client-id', '1', '--received-at', '2026-01-02T03:04:05.678Z'],
      { text: 'x', coreClientId: 1n, receivedAt: '2026-01-02T03:04:05.678Z' },
    ],
  ])('%s', async (_name, args, expected) => {
    expect(await dryRunBody(['greet'], args)).toEqual(expected);
  });

  it('turns --received-at now into the current UTC time', async () => {
    const body = await dryRunBody(['greet'], ['-t', 'x', '--core-client-id', '1', '--received-at', 'now']);
    expect(body.receivedAt).toMatch(NOW);
  });

  it("lets flags override a YAML file's fields and keeps the rest", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-greet-'));
    writeFileSync(
      join(dir, 'welcome.yaml'),
      'text: Welcome\ncoreClientId: 9223372036854775807\nquickReplies:\n  - {type: TEXT, text: Old}\nsettings: {masked: true}\n',
    );
    const body = await dryRunBody(['greet'], ['-f', 'welcome.yaml', '-t', 'Welcome back', '--quick-reply', 'New', '--block-input'], {
      cwd: dir,
    });
    expect(body).toEqual({
      text: 'Welcome back',
      coreClientId: 9223372036854775807n,
      quickReplies: [{ type: 'TEXT', text: 'New' }],
      settings: { masked: true, blockInput: true },
    });
  });

  it('reads the greeting from standard input with -f -', async () => {
    const body = await dryRunBody(['greet'], ['-f', '-'], { stdin: '{"text":"Hi","coreClientId":9007199254740993}' });
    expect(body).toEqual({ text: 'Hi', coreClientId: 9007199254740993n });
  });
});

describe('core greet: sending', () => {
  it('posts to /api/v1/chatbot/greet with the headers the API lists and exits 0 on 200', async () => {
    server = await startRecordingServer([{ status: 200, headers: { 'X-Request-Id': 'req-greet-1' } }]);
    const result = await runInProcess(
      ['greet', '-t', 'Hello', '--core-client-id', '9223372036854775807', '--quick-reply', 'Yes', '--json'],
      {
        env: envFor(server.url),
      },
    );
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/api/v1/chatbot/greet');
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.headers['x-tenant-name']).toBe('acme');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body.toString()).toBe(
      '{"text":"Hello","coreClientId":9223372036854775807,"quickReplies":[{"type":"TEXT","text":"Yes"}]}',
    );
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      ok: true,
      status: 200,
      method: 'POST',
      url: `${server.url}/api/v1/chatbot/greet`,
      requestId: 'req-greet-1',
      error: null,
    });
    // A greeting has no answerId (docs/api.md, "Greeting").
    expect(doc).not.toHaveProperty('answerId');
  });

  it('does not retry a 503 without --retry: one request, exit 5', async () => {
    server = await startRecordingServer([{ status: 503 }, { status: 200 }]);
    const result = await runInProcess(['greet', '-t', 'x', '--core-client-id', '1', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(5);
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, status: 503 });
  });

  it('does not retry a dropped connection without --retry: one request, exit 6', async () => {
    server = await startRecordingServer([{ reset: true }, { status: 200 }]);
    const result = await runInProcess(['greet', '-t', 'x', '--core-client-id', '1', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(6);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a 503 with --retry and sends the same body again', async () => {
    server = await startRecordingServer([{ status: 503 }, { status: 200 }]);
    const result = await runInProcess(['greet', '-t', 'x', '--core-client-id', '1', '--retry', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.toString()).toBe(server.requests[0]!.body.toString());
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, status: 200, attempts: 2 });
  });

  it('warns, and still sends, when both clientId and coreClientId are given', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(['greet', '-t', 'x', '--core-client-id', '1', '--client-id', 'ext-1'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toMatch(/warning: clientId: .*takes priority over coreClientId/);
    expect(result.stderr).toMatch(/warning: clientId: deprecated/);
  });

  it('exits 2 with a hint naming -i when neither id is given, and sends nothing', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(['greet', '-t', 'x'], { env: envFor(server.url) });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    expect(result.stderr).toContain('the greeting is invalid');
    expect(result.stderr).toContain('coreClientId');
    expect(result.stderr).toMatch(/hint: .*core greet -i/);
  });

  it('exits 2 naming the text when it is missing, with the validation document under --json', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(['greet', '--core-client-id', '1', '--quick-reply', 'x'.repeat(4001), '--json'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    const doc = JSON.parse(result.stdout) as { ok: boolean; status: null; validationErrors: { path: string; message: string }[] };
    expect(doc).toMatchObject({ ok: false, status: null, method: 'POST' });
    expect(doc.validationErrors).toEqual(
      expect.arrayContaining([
        { path: 'text', message: 'required' },
        { path: 'quickReplies[0].text', message: '4,001 characters, limit 4,000' },
      ]),
    );
  });

  it('refuses --dry-run with --curl', async () => {
    const result = await runInProcess(['greet', '-t', 'x', '--core-client-id', '1', '--dry-run', '--curl'], {
      env: envFor('http://127.0.0.1:9'),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--dry-run and --curl cannot be used together');
  });

  it('prints a curl command with the token as $CORE_TOKEN', async () => {
    const result = await runInProcess(['greet', '-t', 'x', '--core-client-id', '1', '--curl'], { env: envFor('http://127.0.0.1:9') });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('/api/v1/chatbot/greet');
    expect(result.stdout).toContain('"Authorization: Bearer $CORE_TOKEN"');
    expect(result.stdout).not.toContain(TOKEN);
  });
});

describe('core greet --save', () => {
  it('writes the greeting to FILE, every digit of the id kept, and sends it', async () => {
    server = await startRecordingServer();
    const dir = mkdtempSync(join(tmpdir(), 'core-greet-'));
    const result = await runInProcess(['greet', '-t', 'Hi', '--core-client-id', '9223372036854775807', '--save', 'hi.json'], {
      env: envFor(server.url),
      cwd: dir,
    });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const saved = readFileSync(join(dir, 'hi.json'), 'utf8');
    expect(saved).toContain('"coreClientId": 9223372036854775807');
    expect(parseJson(saved)).toEqual({ text: 'Hi', coreClientId: 9223372036854775807n });
    expect(result.stderr).toContain('saved the greeting to hi.json');
  });

  it('with --dry-run only writes the file: nothing is sent and nothing is printed on stdout', async () => {
    server = await startRecordingServer();
    const dir = mkdtempSync(join(tmpdir(), 'core-greet-'));
    const result = await runInProcess(
      ['greet', '-t', 'Hi', '--core-client-id', '5', '--quick-reply', 'Yes', '--save', 'hi.json', '--dry-run'],
      {
        env: envFor(server.url),
        cwd: dir,
      },
    );
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('nothing sent');
    expect(parseJson(readFileSync(join(dir, 'hi.json'), 'utf8'))).toEqual({
      text: 'Hi',
      coreClientId: 5n,
      quickReplies: [{ type: 'TEXT', text: 'Yes' }],
    });
  });

  it('writes nothing for an invalid greeting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-greet-'));
    const result = await runInProcess(['greet', '-t', 'Hi', '--save', 'hi.json', '--dry-run'], {
      env: envFor('http://127.0.0.1:9'),
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the greeting is invalid');
    expect(result.stderr).toContain('coreClientId');
    expect(existsSync(join(dir, 'hi.json'))).toBe(false);
  });

  it('exits 2 naming the path when the folder does not exist, and sends nothing', async () => {
    server = await startRecordingServer();
    const dir = mkdtempSync(join(tmpdir(), 'core-greet-'));
    const result = await runInProcess(['greet', '-t', 'Hi', '--core-client-id', '5', '--save', 'no/such/dir/hi.json'], {
      env: envFor(server.url),
      cwd: dir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot write the payload to no/such/dir/hi.json');
    expect(server.requests).toHaveLength(0);
  });
});

describe('core greet --help', () => {
  it('ends with real examples', async () => {
    const result = await runInProcess(['greet', '--help']);
    expect(result.code).toBe(0);
    const examples = result.stdout.slice(result.stdout.indexOf('Examples:'));
    expect(examples).toContain('$ core greet --core-client-id 1234567 -t');
    expect(examples).toContain('$ core greet -i');
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\s+\$ core greet /);
  });
});
