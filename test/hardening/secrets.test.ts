import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runInProcess, type RunResult } from '../helpers/run.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from '../helpers/recording-server.js';

/**
 * No token value in any output, whatever the flags (docs/security.md, "Secrets"): every command and
 * flag that prints something is run here with a token from each place a token can come from, against
 * servers that echo the credential back, and the token must appear nowhere in stdout, stderr or the
 * report file.
 */

const TOKEN = 'sk_live_7Hq2-SECRET-zz81';
const INTEGRATOR = 'ik_live_Pp0-INTEGRATOR-44';
const HEADER_KEY = 'gw-KEY-90210-abc';
const ALL_SECRETS = [TOKEN, INTEGRATOR, HEADER_KEY];

const posix = process.platform !== 'win32';

/** Echoes the request's credentials back in the answer's body and headers, as a careless service might. */
function echo(status: number) {
  return (request: RecordedRequest) => {
    const credential = String(request.headers.authorization ?? '');
    return {
      status,
      headers: {
        'X-Echo-Authorization': credential,
        'X-Echo-Key': String(request.headers['x-api-key'] ?? ''),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        timestamp: '2026-01-01T00:00:00.000Z',
        method: request.method,
        uri: request.url,
        message: `token ${credential} is not valid here (key ${String(request.headers['x-api-key'] ?? '')}); got ${request.body.toString()}`,
      }),
    };
  };
}

interface Case {
  argv: string[];
  /** Where the server is: an echoing 401, an echoing 200, or a closed port. */
  server: 'unauthorized' | 'ok' | 'closed';
  debug?: boolean;
  stdin?: string;
  /** Exit codes the case may end with. */
  codes: number[];
  /**
   * What the output must show (stdout and stderr together): the place where a secret would be,
   * masked, so the case cannot pass by printing nothing.
   */
  shows: RegExp;
}

const reply = ['reply', '--core-client-id', '1', '-t', `hi`];
const greet = ['greet', '--core-client-id', '1', '-t', 'hello'];
const reason = ['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch'];
const reasonFile = ['reason', 'update', '-f', 'reasons.ndjson', '--report', 'report.ndjson'];

const masked = /Bearer \*{8}/;
const curl = /Bearer \$CORE_(INTEGRATOR_)?TOKEN"/;
const echoedHeader = /< x-echo-authorization: \*{8}\n/;
const echoedMessage = /token Bearer \*{8} is not valid here/;
const refused = /ECONNREFUSED/;

const cases: Array<[string, Case]> = [];
for (const [name, base] of [
  ['reply', reply],
  ['greet', greet],
  ['reason update', reason],
] as const) {
  cases.push(
    [`${name} --dry-run`, { argv: [...base, '--dry-run'], server: 'ok', codes: [0], shows: masked }],
    [`${name} --dry-run --json`, { argv: [...base, '--dry-run', '--json'], server: 'ok', codes: [0], shows: masked }],
    [`${name} --curl`, { argv: [...base, '--curl'], server: 'ok', codes: [0], shows: curl }],
    [
      `${name} --verbose (an answer echoing the token in a header)`,
      { argv: [...base, '--verbose'], server: 'ok', codes: [0], shows: echoedHeader },
    ],
    [`${name} --json --verbose`, { argv: [...base, '--json', '--verbose'], server: 'ok', codes: [0], shows: echoedHeader }],
    [`${name}: a 401 echoing the token`, { argv: base, server: 'unauthorized', codes: [4], shows: echoedMessage }],
    [`${name} --json: a 401 echoing the token`, { argv: [...base, '--json'], server: 'unauthorized', codes: [4], shows: echoedMessage }],
    [
      `${name} --verbose: a 401 echoing the token`,
      { argv: [...base, '--verbose'], server: 'unauthorized', codes: [4], shows: echoedMessage },
    ],
    [
      `${name} CORE_DEBUG=1: a 401 echoing the token`,
      { argv: [...base, '--verbose'], server: 'unauthorized', debug: true, codes: [4], shows: echoedMessage },
    ],
    [
      `${name} CORE_DEBUG=1: a network failure`,
      { argv: [...base, '--verbose'], server: 'closed', debug: true, codes: [6], shows: refused },
    ],
    [
      `${name} CORE_DEBUG=1 --json: a network failure`,
      { argv: [...base, '--json'], server: 'closed', debug: true, codes: [6], shows: refused },
    ],
  );
}
cases.push(
  ['reason update -f --report: a 401 echoing the token', { argv: reasonFile, server: 'unauthorized', codes: [4], shows: echoedMessage }],
  [
    'reason update -f --report --json CORE_DEBUG=1: a 401 echoing the token',
    { argv: [...reasonFile, '--json'], server: 'unauthorized', debug: true, codes: [4], shows: echoedMessage },
  ],
  [
    'reason update -f --report --verbose: 200s echoing the token',
    { argv: [...reasonFile, '--verbose'], server: 'ok', codes: [0], shows: echoedHeader },
  ],
  [
    'reason update -f --report CORE_DEBUG=1: a network failure',
    { argv: reasonFile, server: 'closed', debug: true, codes: [6], shows: refused },
  ],
  [
    'reason update -f --dry-run --json',
    { argv: ['reason', 'update', '-f', 'reasons.ndjson', '--dry-run', '--json'], server: 'ok', codes: [0], shows: masked },
  ],
  ['reason update -f --curl', { argv: ['reason', 'update', '-f', 'reasons.ndjson', '--curl'], server: 'ok', codes: [0], shows: curl }],
  [
    'reply -f - --dry-run, the payload quoting the token',
    {
      argv: ['reply', '-f', '-', '--dry-run'],
      stdin: `{"text":"${TOKEN}","coreClientId":1}`,
      server: 'ok',
      codes: [0],
      shows: /"text": "\*{8}"/,
    },
  ],
  ['config show', { argv: ['config', 'show'], server: 'ok', codes: [0], shows: /^token {2,}\S/m }],
  ['config show --json', { argv: ['config', 'show', '--json'], server: 'ok', codes: [0], shows: /"token": \{/ }],
  ['config show CORE_DEBUG=1', { argv: ['config', 'show'], server: 'ok', debug: true, codes: [0], shows: /^token {2,}\S/m }],
);

/** The places a token comes from: the environment, a literal in the file, {env: NAME}, {command: ...}. */
const sources = ['env CORE_TOKEN', 'a literal in the config file', '{env: NAME}', ...(posix ? ['{command: ...}'] : [])] as const;

describe('no secret in any output', () => {
  let unauthorized: RecordingServer;
  let ok: RecordingServer;
  let closed: string;
  let dir: string;

  beforeAll(async () => {
    unauthorized = await startRecordingServer(echo(401));
    ok = await startRecordingServer(echo(200));
    const gone = await startRecordingServer();
    closed = gone.url;
    await gone.close();
    dir = mkdtempSync(join(tmpdir(), 'core-secrets-'));
    writeFileSync(
      join(dir, 'reasons.ndjson'),
      ['LUNCH', 'MEETING'].map((code) => JSON.stringify({ code, reasons: [{ locale: 'en', name: code }] })).join('\n'),
    );
  });
  afterAll(async () => {
    await Promise.all([unauthorized.close(), ok.close()]);
  });

  /** A config file and environment giving the token from `source`, and an API key header. */
  function setup(
    source: (typeof sources)[number],
    baseUrl: string,
    debug: boolean,
  ): { env: Record<string, string | undefined>; config: string } {
    // No retries: a refused connection would otherwise wait for two backoffs in every case.
    const profile: Record<string, unknown> = { baseUrl, tenant: 'acme', headers: { 'X-Api-Key': HEADER_KEY }, retries: 0 };
    const env = baseEnv(debug ? { CORE_DEBUG: '1' } : {});
    if (source === 'env CORE_TOKEN') Object.assign(env, { CORE_TOKEN: TOKEN, CORE_INTEGRATOR_TOKEN: INTEGRATOR });
    if (source === 'a literal in the config file') Object.assign(profile, { token: TOKEN, integratorToken: INTEGRATOR });
    if (source === '{env: NAME}') {
      Object.assign(profile, { token: { env: 'BOT_TOKEN' }, integratorToken: { env: 'INT_TOKEN' } });
      Object.assign(env, { BOT_TOKEN: TOKEN, INT_TOKEN: INTEGRATOR });
    }
    if (source === '{command: ...}') {
      // config show prints a command as it is written, so the commands read the tokens from files.
      writeFileSync(join(dir, 'bot.token'), `${TOKEN}\n`);
      writeFileSync(join(dir, 'integrator.token'), `${INTEGRATOR}\n`);
      Object.assign(profile, { token: { command: 'cat bot.token' }, integratorToken: { command: 'cat integrator.token' } });
    }
    const config = join(dir, `core-${source.replace(/\W+/g, '-')}.json`);
    writeFileSync(config, JSON.stringify({ profiles: { p: profile } }), { mode: 0o600 });
    return { env, config };
  }

  describe.each(sources)('with the token from %s', (source) => {
    // A token command is not run for --dry-run (nothing is sent), so its token is not known there.
    const applicable = cases.filter(([, c]) => !(source === '{command: ...}' && c.stdin !== undefined));
    it.each(applicable)('%s', async (_name, c) => {
      const baseUrl = c.server === 'unauthorized' ? unauthorized.url : c.server === 'ok' ? ok.url : closed;
      const { env, config } = setup(source, baseUrl, c.debug === true);
      const report = join(dir, 'report.ndjson');
      writeFileSync(report, '');
      const run: RunResult = await runInProcess([...c.argv, '--config', config], {
        env,
        cwd: dir,
        ...(c.stdin !== undefined ? { stdin: c.stdin } : {}),
      });
      expect(c.codes).toContain(run.code);
      expect(run.stdout + run.stderr).toMatch(c.shows);
      const written = existsSync(report) ? readFileSync(report, 'utf8') : '';
      for (const secret of ALL_SECRETS) {
        expect(run.stdout).not.toContain(secret);
        expect(run.stderr).not.toContain(secret);
        expect(written).not.toContain(secret);
      }
      if (c.debug && c.server === 'closed') {
        // The debug trace is there (stacks and causes), and holds no request options.
        expect(run.stderr).toMatch(/\n\s+at /);
        expect(run.stderr).not.toMatch(/headers:\s*\{|authorization['"]?\s*:\s*['"]/i);
      }
      if (c.argv.includes('--report') && c.server !== 'closed') expect(written.split('\n').filter(Boolean)).toHaveLength(2);
    });
  });
});

describe.runIf(posix)('a config file holding a literal token', () => {
  it.each([
    [0o644, true],
    [0o640, true],
    [0o604, true],
    [0o600, false],
    [0o400, false],
  ])('mode %s: warns naming the file and chmod 600: %s (on config show and on a send)', async (mode, warns) => {
    const dir = mkdtempSync(join(tmpdir(), 'core-mode-'));
    const file = join(dir, '.corerc');
    writeFileSync(file, `profiles:\n  p:\n    baseUrl: http://127.0.0.1:1\n    tenant: acme\n    integratorToken: "${TOKEN}"\n`);
    chmodSync(file, mode);
    for (const argv of [
      ['config', 'show'],
      ['reason', 'update', '--code', 'X', '--name', 'en=X', '--dry-run'],
    ]) {
      const run = await runInProcess(argv, { env: baseEnv(), cwd: dir });
      expect(run.code).toBe(0);
      const warning = `warning: ${file} holds a literal token and can be read by other users; run: chmod 600 ${file}`;
      if (warns) expect(run.stderr).toContain(warning);
      else expect(run.stderr).not.toContain('holds a literal token');
      expect(run.stdout + run.stderr).not.toContain(TOKEN);
    }
  });

  it('does not warn about a file whose tokens are {env} or {command}, whatever its mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-mode-'));
    const file = join(dir, '.corerc');
    writeFileSync(file, 'profiles:\n  p:\n    token: {env: X}\n    integratorToken: {command: "pass show x"}\n');
    chmodSync(file, 0o644);
    const run = await runInProcess(['config', 'show'], { env: baseEnv(), cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^token +env X /m);
    expect(run.stderr).toBe('');
  });
});

describe.runIf(posix)('a failing token command, through a sending command', () => {
  it('reports its exit status and standard error, never its standard output: exit 2, nothing sent', async () => {
    const server = await startRecordingServer();
    const dir = mkdtempSync(join(tmpdir(), 'core-token-command-'));
    const partial = 'sk_live_PARTIAL_OUTPUT_77';
    const command = `printf '%s\\n' "$PARTIAL"; echo "pass: core/prod is not in the password store." >&2; exit 1`;
    writeFileSync(
      join(dir, 'core.json'),
      JSON.stringify({ profiles: { prod: { baseUrl: server.url, tenant: 'acme', token: { command } } } }),
    );
    for (const argv of [reply, [...reply, '--json'], [...reply, '--verbose'], greet, reason]) {
      const run = await runInProcess([...argv, '--config', 'core.json'], { env: baseEnv({ PARTIAL: partial, CORE_DEBUG: '1' }), cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`the command ${JSON.stringify(command)} failed with exit status 1`);
      expect(run.stderr).toContain('  stderr: pass: core/prod is not in the password store.');
      expect(run.stdout + run.stderr).not.toContain(partial);
    }
    expect(server.requests).toHaveLength(0);
    await server.close();
  });
});

describe('a non-JSON error body cut to 2 KB with a token across the cut', () => {
  // 2,030 bytes before the token: the 2 KB cut falls inside it, after 18 of its characters.
  const body = `${'x'.repeat(2030)}${TOKEN}${'y'.repeat(100)}`;
  let server: RecordingServer;
  let dir: string;
  beforeAll(async () => {
    server = await startRecordingServer(() => ({ status: 400, headers: { 'Content-Type': 'text/plain' }, body }));
    dir = mkdtempSync(join(tmpdir(), 'core-cut-'));
    writeFileSync(join(dir, 'reasons.ndjson'), JSON.stringify({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }));
  });
  afterAll(() => server.close());

  it.each<[string, string[]]>([
    ['reply', reply],
    ['reply --json', [...reply, '--json']],
    ['greet --verbose', [...greet, '--verbose']],
    ['api POST', ['api', 'POST', '/api/v1/chatbot']],
    ['reason update -f --report', ['reason', 'update', '-f', 'reasons.ndjson', '--report', 'rep.ndjson']],
  ])('%s prints the body masked, no part of the token', async (_name, argv) => {
    const env = baseEnv({ CORE_TOKEN: TOKEN, CORE_INTEGRATOR_TOKEN: INTEGRATOR, CORE_BASE_URL: server.url, CORE_TENANT: 'acme' });
    const run = await runInProcess(argv, { env, cwd: dir });
    const report = existsSync(join(dir, 'rep.ndjson')) ? readFileSync(join(dir, 'rep.ndjson'), 'utf8') : '';
    const printed = run.stdout + run.stderr + report;
    expect(printed).toContain('xxx********');
    // Not the token, and not its first 8 characters either.
    expect(printed).not.toContain(TOKEN.slice(0, 8));
  });
});

describe('every secret is registered before anything is printed', () => {
  let server: RecordingServer;
  let dir: string;
  beforeAll(async () => {
    server = await startRecordingServer(echo(401));
    dir = mkdtempSync(join(tmpdir(), 'core-early-'));
    writeFileSync(join(dir, 'reasons.ndjson'), JSON.stringify({ code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }));
  });
  afterAll(() => server.close());

  /** A config file with the token and the integrator token from `source`, and an API key header. */
  function setup(source: 'env' | 'literal'): { env: Record<string, string | undefined>; config: string } {
    const profile: Record<string, unknown> = { baseUrl: server.url, tenant: 'acme', headers: { 'X-Api-Key': HEADER_KEY }, retries: 0 };
    const env = baseEnv();
    if (source === 'env') Object.assign(env, { CORE_TOKEN: TOKEN, CORE_INTEGRATOR_TOKEN: INTEGRATOR });
    else Object.assign(profile, { token: TOKEN, integratorToken: INTEGRATOR });
    const config = join(dir, `core-${source}.json`);
    writeFileSync(config, JSON.stringify({ profiles: { p: profile } }), { mode: 0o600 });
    return { env, config };
  }

  const cases: Array<[string, (secret: string) => string[], RegExp]> = [
    ['reply: a field that fails its rule', (s) => [...reply, '--received-at', s], /got "\*{8}"/],
    ['reply --json: a field that fails its rule', (s) => [...reply, '--received-at', s, '--json'], /got \\"\*{8}\\"/],
    ['reply: an address that is not a number', (s) => ['reply', '--core-client-id', s, '-t', 'hi'], /\*{8}/],
    [
      'reply --dry-run: a warning quoting an attachment',
      (s) => [...reply, '--attachment', `https://files.example/${s}`, '--dry-run'],
      /warning:.*\*{8}/,
    ],
    ['greet: a field that fails its rule', (s) => ['greet', '--core-client-id', s, '-t', 'hello'], /\*{8}/],
  ];
  const secrets: Array<[string, string]> = [
    ['the token', TOKEN],
    ['the integrator token', INTEGRATOR],
    ['a header value', HEADER_KEY],
  ];
  for (const source of ['env', 'literal'] as const) {
    describe(`with the tokens from ${source === 'env' ? 'the environment' : 'literals in the config file'}`, () => {
      it.each(cases.flatMap(([name, argv, shows]) => secrets.map(([what, secret]) => [`${name} (${what})`, argv(secret), shows] as const)))(
        '%s',
        async (_name, argv, shows) => {
          const { env, config } = setup(source);
          const run = await runInProcess([...argv, '--config', config], { env, cwd: dir });
          expect(run.stdout + run.stderr).toMatch(shows);
          for (const secret of ALL_SECRETS) expect(run.stdout + run.stderr).not.toContain(secret);
        },
      );
    });
  }

  it.each<[string, string[], string]>([
    ['reply: the integrator token echoed back', reply, INTEGRATOR],
    ['greet: the integrator token echoed back', greet, INTEGRATOR],
    ['reason update: the token echoed back', reason, TOKEN],
    ['reason update -f --report: the token echoed back', reasonFile, TOKEN],
  ])('%s, though the command does not use it, is masked', async (_name, argv, unused) => {
    const echoUnused = await startRecordingServer(() => ({
      status: 401,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: `try ${unused} instead` }),
    }));
    for (const source of ['env', 'literal'] as const) {
      const { env, config } = setup(source);
      writeFileSync(config, readFileSync(config, 'utf8').replace(server.url, echoUnused.url));
      writeFileSync(join(dir, 'report.ndjson'), '');
      const run = await runInProcess([...argv, '--config', config], { env, cwd: dir });
      const written = readFileSync(join(dir, 'report.ndjson'), 'utf8');
      expect(run.stdout + run.stderr).toContain('try ******** instead');
      for (const secret of ALL_SECRETS) expect(run.stdout + run.stderr + written).not.toContain(secret);
    }
    await echoUnused.close();
  });
});

describe('a secret never masks what core prints beside it', () => {
  it.each<[string, string]>([
    ['answerId', 'answerId'],
    ['durationMs', 'durationMs'],
  ])('a token equal to the key %s is refused: exit 2, nothing sent', async (_name, token) => {
    const server = await startRecordingServer(echo(200));
    const env = baseEnv({ CORE_TOKEN: token, CORE_BASE_URL: server.url, CORE_TENANT: 'acme' });
    const run = await runInProcess([...reply, '--json'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('CORE_TOKEN is a key or label that core prints');
    expect(server.requests).toHaveLength(0);
    await server.close();
  });

  it('a header value of several words masks its distinctive words, never an ordinary one (config show)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-words-'));
    const profile = {
      baseUrl: 'http://127.0.0.1:1',
      tenant: 'acme',
      integratorToken: { env: 'INT' },
      headers: { 'X-Api-Key': 'Integrator Wordy_Secret_777' },
    };
    writeFileSync(join(dir, 'core.json'), JSON.stringify({ profiles: { p: profile } }), { mode: 0o600 });
    for (const argv of [
      ['config', 'show'],
      ['config', 'show', '--json'],
    ]) {
      const run = await runInProcess([...argv, '--config', 'core.json'], { env: baseEnv(), cwd: dir });
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/integratorToken/);
      expect(run.stdout + run.stderr).not.toContain('********Token');
      expect(run.stdout + run.stderr).not.toContain('Wordy_Secret_777');
    }
  });
});

describe('a base URL with a password that does not parse', () => {
  it.each<[string, Record<string, string>, string[]]>([
    ['CORE_BASE_URL', { CORE_BASE_URL: 'http://u:Passw0rdXyz@127.0.0.1:99999' }, []],
    ['--base-url', {}, ['--base-url', 'https://admin:Passw0rdXyz@chat.example.com:70000']],
  ])('%s: the error masks its user name and password', async (_name, vars, flags) => {
    const env = baseEnv({ CORE_TOKEN: TOKEN, CORE_TENANT: 'acme', ...vars });
    const run = await runInProcess([...reply, ...flags], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/"https?:\/\/\*{8}@[^"]+" is not an absolute URL/);
    expect(run.stderr).not.toContain('Passw0rdXyz');
    expect(run.stderr).not.toMatch(/u:|admin/);
  });
});
