import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runBuilt, runInProcess, type RunInit, type RunResult } from '../helpers/run.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer, type ScriptedAnswer } from '../helpers/recording-server.js';

/**
 * The masking rule of docs/security.md, through main() as the binary runs it and a server that
 * echoes what it received in every form a service could: as is, JSON-escaped (with `\/` for a
 * slash, as PHP writes it), percent-encoded in a URL, in a response header and in a body that is not
 * JSON. No form of a secret may appear in any output, --json must stay valid JSON whatever the secret
 * holds, and a token that cannot be told apart from ordinary output is refused before anything is
 * sent. The tables run in-process; one case of each runs the built binary too, whose standard
 * streams carry what main() writes.
 */

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer(echo);
});

type Run = (argv: string[], init: RunInit) => Promise<RunResult>;

/** The rows of a table, run in-process, and the row at `index` once more through the built binary. */
function withBinaryRun<Row extends readonly [string, ...unknown[]]>(rows: Row[], index: number): Array<[...Row, Run]> {
  const row = rows[index]!;
  return [
    ...rows.map((r): [...Row, Run] => [...r, runInProcess]),
    [...([`${row[0]} (the built binary)`, ...row.slice(1)] as unknown as Row), runBuilt],
  ];
}
afterAll(async () => {
  await server.close();
});

/** What a service could send back of a value it received. */
function formsOf(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const bytes = Buffer.from(value);
  return [
    value,
    json,
    json.replace(/\//g, '\\/'),
    encodeURIComponent(value),
    encodeURIComponent(value).toLowerCase(),
    value.toUpperCase(),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    ...latin1Forms(value),
  ];
}

/**
 * The forms of the bytes a header value is sent as, one a character (it may hold Latin-1 characters): hex, base64
 * and percent-encoded (`%E4` for ä). The same as those of its UTF-8 bytes for ASCII.
 */
function latin1Forms(value: string): string[] {
  const bytes = Buffer.from(value, 'latin1');
  const percent = [...bytes].map((byte) => (byte < 0x80 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase()}`)).join('');
  return [bytes.toString('hex'), bytes.toString('hex').toUpperCase(), bytes.toString('base64'), bytes.toString('base64url'), percent];
}

/** The encoded and upper-case forms a service may echo too. */
const encodedForms = (value: string) => {
  const bytes = Buffer.from(value);
  return `${value.toUpperCase()} ${bytes.toString('hex')} ${bytes.toString('hex').toUpperCase()} ${bytes.toString('base64')} ${bytes.toString('base64url')} ${latin1Forms(value).join(' ')}`;
};

/** A 401 that echoes the credential and the gateway key it received (trimmed, as any HTTP server reads them). */
function echo(request: RecordedRequest): ScriptedAnswer {
  const credential = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
  const key = String(request.headers['x-gateway-credential'] ?? '');
  const plain = request.url.includes('inactivity');
  const body = plain
    ? `denied: ${JSON.stringify({ token: credential, key }).replace(/\//g, '\\/')} ${encodeURIComponent(credential)}`
    : JSON.stringify({
        timestamp: '2026-11-23T00:00:00.000Z',
        method: request.method,
        uri: `/login?token=${encodeURIComponent(credential)}&key=${encodeURIComponent(key)}`,
        message: `token ${credential} (key ${key}) is not valid here; as echoed by a gateway: ${encodedForms(credential)} ${encodedForms(key)}`,
      });
  return {
    status: 401,
    headers: { 'Content-Type': plain ? 'text/plain' : 'application/json', 'X-Echo': `${credential} ${key}` },
    body,
  };
}

const dir = mkdtempSync(join(tmpdir(), 'core-masking-'));
const reasons = join(dir, 'reasons.ndjson');
writeFileSync(reasons, '{"code":"M1","reasons":[{"locale":"en","name":"One"}]}\n{"code":"M2","reasons":[{"locale":"en","name":"Two"}]}\n');

/** Every place the output goes: stdout, stderr, and the report when there is one. */
function output(run: RunResult, report?: string): string {
  return `${run.stdout}\n${run.stderr}\n${report ? readFileSync(report, 'utf8') : ''}`;
}

function expectNoForm(text: string, secret: string): void {
  for (const form of formsOf(secret.trim())) expect(text, `a form of the secret: ${form}`).not.toContain(form);
}

const reply = ['reply', '--core-client-id', '91234', '-t', 'Hello'];

describe('no form of the token in any output', () => {
  // A token the service echoes back: with spaces around it (the server sees it trimmed), with the
  // characters JSON escapes, with those a URL escapes.
  const tokens: Array<[string, string]> = [
    ['with spaces around it', '   spaced-token-8f2a1c   '],
    ['holding " and \\', 'q"uo\\te-token-77a'],
    ['holding / + and =', 'b64/tok+en/9x=='],
    ['shaped to break JSON', '"}],"ok":true,"x":["'],
  ];
  const argvs: Array<[string, string[]]> = [
    ['reply --json', [...reply, '--json']],
    ['reply --verbose', [...reply, '--verbose']],
    ['reply --dry-run --json', [...reply, '--dry-run', '--json']],
    ['reason update -f --json --report (an answer that is not JSON)', ['reason', 'update', '-f', reasons, '--json', '--report']],
    ['reason update -f --verbose --report', ['reason', 'update', '-f', reasons, '--verbose', '--report']],
  ];
  const cases = tokens.flatMap(([tokenName, token]) =>
    argvs.map(([argvName, argv]) => [`${tokenName}: ${argvName}`, token, argv] as const),
  );

  // The binary's case: the token shaped to break JSON, with reply --json.
  it.each(withBinaryRun([...cases], 15))('a token %s', async (_name, token, argv, runner) => {
    const report = argv.at(-1) === '--report' ? join(mkdtempSync(join(dir, 'r-')), 'report.ndjson') : undefined;
    const run = await runner([...argv, ...(report ? [report] : [])], {
      env: baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: token }),
    });
    expect(run.stderr).not.toContain('unexpected');
    expect([0, 4]).toContain(run.code);
    expectNoForm(output(run, report), token);
    // Masked where it was, and the JSON documents still JSON.
    expect(output(run, report)).toContain('********');
    if (argv.includes('--json')) for (const line of run.stdout.trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
    if (report) for (const line of readFileSync(report, 'utf8').trim().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });
});

describe('a token that cannot be told apart from ordinary output, or sent unchanged, is refused: exit 2, nothing sent', () => {
  const configDir = mkdtempSync(join(tmpdir(), 'core-masking-config-'));
  const config = (token: unknown) => {
    const file = join(mkdtempSync(join(configDir, 'c-')), 'core.json');
    writeFileSync(file, JSON.stringify({ profiles: { p: { tenant: 'acme', token } } }), { mode: 0o600 });
    return file;
  };
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['CORE_TOKEN true (a JSON literal)', { CORE_TOKEN: 'true' }, /^error: CORE_TOKEN is shorter than 8 characters/],
    ['CORE_TOKEN 1234 (part of coreClientId 91234)', { CORE_TOKEN: '1234' }, /^error: CORE_TOKEN is shorter than 8 characters/],
    ['CORE_TOKEN chatbot (part of the path)', { CORE_TOKEN: 'chatbot' }, /^error: CORE_TOKEN is shorter than 8 characters/],
    ['CORE_TOKEN a number of 8 digits', { CORE_TOKEN: '12345678' }, /^error: CORE_TOKEN is a number/],
    [
      'CORE_TOKEN equal to the tenant',
      { CORE_TOKEN: 'acme-tenant-01', CORE_TENANT: 'acme-tenant-01' },
      /^error: CORE_TOKEN is part of the base URL, the tenant/,
    ],
    ['CORE_TOKEN a word of a path', { CORE_TOKEN: 'inactivity' }, /^error: CORE_TOKEN is part of the base URL, the tenant or a path/],
    [
      'CORE_TOKEN with a line break inside',
      { CORE_TOKEN: 'abcd1234\nefgh5678' },
      /^error: CORE_TOKEN holds a line break or control character/,
    ],
    [
      'CORE_TOKEN ending with a line break',
      { CORE_TOKEN: 'abcd1234efgh5678\n' },
      /^error: CORE_TOKEN holds a line break or control character/,
    ],
    ['CORE_TOKEN with a tab', { CORE_TOKEN: 'abcd1234\tefgh' }, /^error: CORE_TOKEN holds a line break or control character/],
    ['CORE_TOKEN with a space inside', { CORE_TOKEN: 'abcd1234 efgh' }, /^error: CORE_TOKEN holds white space/],
    ['CORE_TOKEN with a Latin-1 letter', { CORE_TOKEN: 'tökén-secret-1' }, /^error: CORE_TOKEN holds a character outside printable ASCII/],
    [
      'CORE_TOKEN with a character beyond Latin-1',
      { CORE_TOKEN: 'token-令牌-secret' },
      /^error: CORE_TOKEN holds a character outside printable ASCII/,
    ],
    [
      '{env: NAME} with a control character',
      { CORE_CONFIG: config({ env: 'MY_TOKEN' }), MY_TOKEN: 'abcd1234\u0007x' },
      /^error: token of profile "p": the value of environment variable MY_TOKEN holds a line break/,
    ],
    [
      '{env: NAME} too short',
      { CORE_CONFIG: config({ env: 'MY_TOKEN' }), MY_TOKEN: 'short' },
      /^error: token of profile "p": the value of environment variable MY_TOKEN is shorter than 8/,
    ],
    [
      'a command printing a character beyond Latin-1',
      { CORE_CONFIG: config({ command: "printf 'secret-\\342\\202\\254-token'" }) },
      /^error: token of profile "p": the command .* printed a token that holds a character outside printable ASCII/,
    ],
    [
      'a literal token of the file, too short',
      { CORE_CONFIG: config('true') },
      /^error: invalid config file .*\n {2}profiles\.p\.token: is shorter than 8 characters/,
    ],
    [
      'a literal token of the file, with a line break',
      { CORE_CONFIG: config('abcd1234\nefgh') },
      /^error: invalid config file .*\n {2}profiles\.p\.token: holds a line break or control character/,
    ],
  ];

  it.each(withBinaryRun(cases, 6))('%s', async (_name, env, message, runner) => {
    const before = server.requests.length;
    const run = await runner([...reply, '--json'], { env: baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', ...env }) });
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(server.requests.length).toBe(before);
  });
});

describe('profile headers: every value masked unless its header is on the short list of those that never carry a credential', () => {
  const secret = 'gw-cred-19f3-x7';
  const names = ['X-Gateway-Credential', 'X-Client-Key', 'X-JWT', 'X-Private', 'X-Bearer', 'X-Anything-Else'];
  const file = join(mkdtempSync(join(tmpdir(), 'core-masking-headers-')), 'core.json');
  beforeAll(() => {
    const headers = Object.fromEntries([...names.map((name, i) => [name, `${secret}-${i}`]), ['Accept-Language', 'de-CH']]);
    writeFileSync(file, JSON.stringify({ profiles: { p: { baseUrl: server.url, tenant: 'acme', token: { env: 'T' }, headers } } }), {
      mode: 0o600,
    });
  });

  const table: Array<[string, string[], boolean]> = [
    ['--dry-run', [...reply, '--dry-run'], true],
    ['--dry-run --json', [...reply, '--dry-run', '--json'], true],
    ['--curl', [...reply, '--curl'], true],
    ['--verbose, echoed by the service', [...reply, '--verbose'], true],
    ['--json, echoed by the service', [...reply, '--json'], false],
    ['config show', ['config', 'show'], true],
    ['config show --json', ['config', 'show', '--json'], true],
  ];
  it.each(withBinaryRun(table, 3))('%s', async (_name, argv, showsHeaders, runner) => {
    const run = await runner(argv, { env: baseEnv({ CORE_CONFIG: file, T: 'header-test-token-1' }) });
    expect([0, 4]).toContain(run.code);
    const text = output(run);
    for (const [i] of names.entries()) expectNoForm(text, `${secret}-${i}`);
    if (showsHeaders) expect(text).toContain('de-CH');
    if (!argv.includes('--json') && argv[0] !== 'config') expect(text).toMatch(/X-Gateway-Credential: \*{8}/);
  });

  it.each<[string, string[]]>([
    ['--verbose', [...reply, '--verbose']],
    ['--json', [...reply, '--json']],
  ])('a value with Latin-1 characters, sent as its Latin-1 bytes and echoed by the service in every form: %s', async (_name, argv) => {
    const value = 'pässwörd-gw-19f3';
    const latin1 = join(mkdtempSync(join(tmpdir(), 'core-masking-latin1-')), 'core.json');
    const profile = { baseUrl: server.url, tenant: 'acme', token: { env: 'T' }, headers: { 'X-Gateway-Credential': value } };
    writeFileSync(latin1, JSON.stringify({ profiles: { p: profile } }), { mode: 0o600 });
    const run = await runBuilt(argv, { env: baseEnv({ CORE_CONFIG: latin1, T: 'header-test-token-1' }) });
    expect(run.code).toBe(4);
    expectNoForm(output(run), value);
    expect(output(run)).toContain('********');
  });
});
