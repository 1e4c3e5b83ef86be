import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSandboxFlags } from '../../src/platform/flags.js';
import { PayloadError, UsageError } from '../../src/errors.js';
import { main } from '../../src/main.js';
import { browserCommand } from '../../src/platform/open.js';
import { memoryStreams } from '../helpers/streams.js';
import { happens } from '../helpers/wait.js';
import { call, messages, paths, replyBody, sandbox } from './helpers.js';

const folder = () => mkdtempSync(join(tmpdir(), 'core-sandbox-'));

/** Runs `core ...` in this process with in-memory streams; returns once the sandbox has printed its start lines. */
async function startCli(argv: string[], environment: Record<string, string | undefined> = {}) {
  let started!: () => void;
  const startLines = new Promise<void>((resolve) => (started = resolve));
  const stderrWaits: { pattern: RegExp; resolve: () => void }[] = [];
  const io = memoryStreams({
    onStdout: (text) => text.includes('export CORE_TOKEN') && started(),
    onStderr: (text) => {
      for (const wait of stderrWaits.filter((w) => w.pattern.test(text))) {
        stderrWaits.splice(stderrWaits.indexOf(wait), 1);
        wait.resolve();
      }
    },
  });
  io.streams.stdin.end();
  const controller = new AbortController();
  // A home of its own, unless the test names one: the sandbox keeps its webhook secret there.
  const exit = main({ argv, streams: io.streams, env: { HOME: folder(), ...environment }, cwd: folder(), signal: controller.signal });
  // The start lines, or the end of a command that never printed them.
  await Promise.race([startLines, exit]);
  const out = io.stdout();
  const env = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2]])) as Record<string, string>;
  return {
    env,
    out: io.stdout,
    err: io.stderr,
    /** Resolves once standard error matches `pattern`. */
    stderrMatches: (pattern: RegExp, what: string) =>
      happens(pattern.test(io.stderr()) ? Promise.resolve() : new Promise<void>((resolve) => stderrWaits.push({ pattern, resolve })), what),
    exit,
    /** Sends what Ctrl-C sends to the command: an abort of ctx.signal. */
    stop: async () => {
      controller.abort('SIGINT');
      return exit;
    },
  };
}

/** Runs `core ...` to the end with in-memory streams. */
async function runCli(argv: string[], environment?: Record<string, string | undefined>) {
  const cli = await startCli(argv, environment);
  const code = await cli.exit;
  return { code, stdout: cli.out(), stderr: cli.err() };
}

describe('core sandbox', () => {
  it('prints its base URL and the environment lines, serves requests, logs them on stderr, and exits 0 on Ctrl-C', async () => {
    const cli = await startCli(['sandbox', '--port', '0']);
    const [first] = cli.out().split('\n');
    expect(first).toMatch(/^# core sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(tenants: sandbox; duplicates: soft\)$/);
    expect(cli.env).toEqual({
      CORE_BASE_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      CORE_TENANT: 'sandbox',
      CORE_TOKEN: 'sandbox-token',
      CORE_WEBHOOK_SECRET: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(cli.err()).toContain('no bot connected');

    const target = { url: cli.env.CORE_BASE_URL as string };
    const sent = await call(target, paths.reply, {
      body: replyBody({ answerId: 'from-cli' }),
      token: cli.env.CORE_TOKEN,
      tenant: cli.env.CORE_TENANT,
    });
    expect(sent.status).toBe(200);
    // The request log is written in batches, a few milliseconds after the answer (src/output/request-log.ts).
    await cli.stderrMatches(/POST \/api\/v1\/chatbot tenant=sandbox 200 \S+ delivered answerId=from-cli/, "the request's log line");

    expect(await cli.stop()).toBe(0);
    expect(cli.err()).toContain('core sandbox stopped');
    await expect(fetch(`${target.url}${paths.messages}`)).rejects.toThrow();
  });

  it("prints the page's address on stderr, and with --open opens it in $BROWSER", async () => {
    const dir = folder();
    const browser = join(dir, 'browser');
    // A stand-in browser: it loads the page it is given, as a browser would.
    writeFileSync(browser, `#!/bin/sh\nexec "${process.execPath}" -e 'fetch(process.argv[1]).then((r) => r.text())' "$1"\n`, {
      mode: 0o755,
    });
    const cli = await startCli(['sandbox', '--open'], { BROWSER: browser });
    try {
      const page = `${cli.env.CORE_BASE_URL}/`;
      expect(cli.err()).toContain(`page: ${page} (every conversation as the customer sees it, live)\n`);
      await cli.stderrMatches(/^GET \/ tenant=- 200 \S+ page index\.html$/m, 'the browser to load the page');
      expect(cli.err()).not.toContain('warning');
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });

  it('says --open opens the page when it is not given', async () => {
    const cli = await startCli(['sandbox']);
    try {
      expect(cli.err()).toContain(`page: ${cli.env.CORE_BASE_URL}/ (every conversation as the customer sees it, live; --open opens it)\n`);
    } finally {
      await cli.stop();
    }
  });

  it.each([
    ['cannot be found', '/nonexistent/browser', /\(\/nonexistent\/browser: not found\)/],
    ['fails', '/bin/false', /\(\/bin\/false: exit status 1\)/],
  ])('warns, and goes on serving, when the browser %s', async (_what, browser, why) => {
    const cli = await startCli(['sandbox', '--open'], { BROWSER: browser });
    try {
      const page = `${cli.env.CORE_BASE_URL}/`;
      await cli.stderrMatches(/warning: could not open the page/, 'the warning');
      expect(cli.err()).toMatch(why);
      expect(cli.err()).toContain(`open ${page} yourself`);
      expect((await fetch(`${cli.env.CORE_BASE_URL}/_sandbox/info`)).status).toBe(200);
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  });

  it.each([
    ['linux', {}, { command: 'xdg-open', args: ['http://127.0.0.1:8080/'], verbatim: false }],
    ['freebsd', {}, { command: 'xdg-open', args: ['http://127.0.0.1:8080/'], verbatim: false }],
    ['darwin', {}, { command: 'open', args: ['http://127.0.0.1:8080/'], verbatim: false }],
    ['win32', {}, { command: 'cmd', args: ['/s', '/c', 'start', '""', '/b', '"http://127.0.0.1:8080/"'], verbatim: true }],
    ['linux', { BROWSER: '/usr/bin/firefox' }, { command: '/usr/bin/firefox', args: ['http://127.0.0.1:8080/'], verbatim: false }],
    ['darwin', { BROWSER: ' ' }, { command: 'open', args: ['http://127.0.0.1:8080/'], verbatim: false }],
  ] as const)('opens the page on %s with %o as %o', (platform, env, expected) => {
    expect(browserCommand('http://127.0.0.1:8080/', platform, env)).toEqual(expected);
  });

  it('serves every tenant given with a repeated --tenant, though the root command has a --tenant too', async () => {
    const cli = await startCli([
      'sandbox',
      '--tenant',
      'acme',
      '--tenant=globex',
      '--duplicates',
      'strict',
      '--token',
      'bot-token-1',
      '--integrator-token',
      'int-token-1',
    ]);
    try {
      expect(cli.out()).toContain('(tenants: acme, globex; duplicates: strict)');
      expect(cli.env).toMatchObject({ CORE_TENANT: 'acme', CORE_TOKEN: 'bot-token-1', CORE_INTEGRATOR_TOKEN: 'int-token-1' });
      const target = { url: cli.env.CORE_BASE_URL as string };
      for (const tenant of ['acme', 'globex']) {
        expect((await call(target, paths.reply, { body: replyBody(), token: 'bot-token-1', tenant })).status).toBe(200);
      }
      expect((await messages(target)).map((m) => m.tenant)).toEqual(['acme', 'globex']);
    } finally {
      await cli.stop();
    }
  });

  it('warns when --host binds an address other machines can reach', async () => {
    const cli = await startCli(['sandbox', '--host', '0.0.0.0']);
    try {
      expect(cli.err()).toMatch(/warning: binding 0\.0\.0\.0: other machines can reach this sandbox/);
      expect(cli.env.CORE_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await cli.stop();
    }
  });

  it('exits 2 naming the port when the port is taken', async () => {
    const busy = await sandbox();
    const result = await runCli(['sandbox', '--port', String(busy.port)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`port ${busy.port} on 127.0.0.1 is already in use`);
    expect(result.stdout).toBe('');
  });

  it.each([
    { argv: ['--port', '70000'], message: '--port: 70000 is not a port' },
    { argv: ['--port', 'eighty'], message: "--port: 'eighty' is not a whole number" },
    { argv: ['--fail', '503:1.5'], message: '--fail: 1.5 is not a rate' },
    { argv: ['--fail', '200:0.5'], message: '--fail: 200 is not an error status' },
    { argv: ['--fail', 'often'], message: "--fail: 'often' is not STATUS:RATE" },
    { argv: ['--duplicates', 'lenient'], message: "--duplicates: 'lenient' is not a mode" },
    { argv: ['--latency', '-5'], message: "--latency: '-5' is not a whole number" },
    { argv: ['--tenant', 'two words'], message: "--tenant: 'two words' is not a tenant name" },
    { argv: ['--bot-url', 'localhost:3000'], message: "--bot-url: 'localhost:3000' is not an http or https URL" },
    { argv: ['--bot-url', 'ftp://127.0.0.1/hook'], message: "--bot-url: 'ftp://127.0.0.1/hook' is not an http or https URL" },
    { argv: ['--webhook-secret', 'hunter2hunter2hunter2hunter2'], message: '--webhook-secret: must start with whsec_' },
    { argv: ['--webhook-secret', 'whsec_c2hvcnQ='], message: '--webhook-secret: the key is 5 bytes; use 24 to 64 bytes' },
    { argv: ['--webhook-secret', 'whsec_not base64!'], message: '--webhook-secret: the part after whsec_ must be base64' },
    { argv: ['--webhook-timeout', 'soon'], message: '--webhook-timeout: invalid duration "soon"' },
    { argv: ['--webhook-timeout', '11m'], message: '--webhook-timeout: 660000 is not a time limit' },
    { argv: ['--webhook-retries', '101'], message: '--webhook-retries: 101 is not a count of retries' },
    { argv: ['--max-events', '0'], message: '--max-events: 0 is not a count of events' },
    {
      argv: ['--max-active-reasons', '2'],
      message: '--max-active-reasons: 2 is below the 3 active reasons of the built-in seed (LUNCH, MEETING, OTHER)',
    },
  ])('exits 2 without starting for sandbox $argv', async ({ argv, message }) => {
    const result = await runCli(['sandbox', ...argv]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
  });

  describe('signs with the webhook secret kept for the user', () => {
    /** The CORE_WEBHOOK_SECRET line and the stderr line about the secret of one run, stopped at once. */
    async function secretOf(argv: string[], environment: Record<string, string | undefined>) {
      const cli = await startCli(['sandbox', ...argv], environment);
      await cli.stop();
      return { secret: cli.env.CORE_WEBHOOK_SECRET, said: cli.err().match(/^webhook secret: .*$/m)?.[0] };
    }

    it('makes one on the first run, keeps it in the user data folder, signs with it on the next, and makes a new one when asked', async () => {
      const home = folder();
      const environment = { HOME: home, XDG_DATA_HOME: join(home, 'data') };
      const file = join(home, 'data', 'core', 'webhook-secret');
      const first = await secretOf([], environment);
      expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(first.said).toBe(`webhook secret: a new one, kept in ${file} for the next runs (--new-webhook-secret makes a new one)`);
      expect(readFileSync(file, 'utf8')).toBe(`${first.secret}\n`);

      const second = await secretOf([], environment);
      expect(second).toEqual({
        secret: first.secret,
        said: `webhook secret: the one kept in ${file} since an earlier run (--new-webhook-secret makes a new one)`,
      });

      const renewed = await secretOf(['--new-webhook-secret'], environment);
      expect(renewed.secret).toMatch(/^whsec_/);
      expect(renewed.secret).not.toBe(first.secret);
      expect(renewed.said).toBe(
        `webhook secret: a new one, kept in ${file} in place of the last: give it to your bot (CORE_WEBHOOK_SECRET)`,
      );
      expect((await secretOf([], environment)).secret).toBe(renewed.secret);
    });

    it('signs with the one --webhook-secret or CORE_SANDBOX_WEBHOOK_SECRET names, and leaves the kept one alone', async () => {
      const home = folder();
      const kept = (await secretOf([], { HOME: home })).secret;
      const named = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
      const fromEnv = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const said = 'webhook secret: the one --webhook-secret or CORE_SANDBOX_WEBHOOK_SECRET names';
      expect(await secretOf(['--webhook-secret', named], { HOME: home })).toEqual({ secret: named, said });
      expect(await secretOf([], { HOME: home, CORE_SANDBOX_WEBHOOK_SECRET: fromEnv })).toEqual({ secret: fromEnv, said });
      expect(readFileSync(join(home, '.local', 'share', 'core', 'webhook-secret'), 'utf8').trim()).toBe(kept);
    });

    it.each([
      { argv: ['--new-webhook-secret', '--webhook-secret', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], env: {}, named: '--webhook-secret' },
      {
        argv: ['--new-webhook-secret'],
        env: { CORE_SANDBOX_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        named: 'CORE_SANDBOX_WEBHOOK_SECRET',
      },
    ])('exits 2 for --new-webhook-secret with $named, making nothing', async ({ argv, env, named }) => {
      const home = folder();
      const result = await runCli(['sandbox', ...argv], { HOME: home, ...env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`--new-webhook-secret makes a new kept secret, but ${named} names the secret to sign with`);
      expect(result.stdout).toBe('');
      expect(existsSync(join(home, '.local'))).toBe(false);
    });

    it('exits 2 naming the file and the fix when the kept secret is readable by others, starting nothing', async () => {
      const home = folder();
      await secretOf([], { HOME: home });
      const file = join(home, '.local', 'share', 'core', 'webhook-secret');
      chmodSync(file, 0o644);
      const result = await runCli(['sandbox'], { HOME: home });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`refusing the kept webhook secret ${file}: it has mode 0644, not 0600`);
      expect(result.stderr).toContain(`chmod 600 ${file}`);
      expect(result.stdout).toBe('');
    });
  });

  it('ends its help with examples', async () => {
    const result = await runCli(['sandbox', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd()).toMatch(/Examples:\n(\s+\$ core sandbox.*\n?)+/);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^\s+\$ core /);
  });
});

describe('the flags of core sandbox', () => {
  it.each([
    { flags: { fail: '503:0.2' }, options: { fail: { status: 503, rate: 0.2 } } },
    { flags: { fail: '429:25%' }, options: { fail: { status: 429, rate: 0.25 } } },
    { flags: { fail: '500' }, options: { fail: { status: 500, rate: 1 } } },
    { flags: { fail: '503:0' }, options: { fail: { status: 503, rate: 0 } } },
    { flags: { port: '65535', latency: '250ms' }, options: { port: 65535, latencyMs: 250 } },
    { flags: { duplicates: 'STRICT', maxActiveReasons: '3', reasons: undefined }, options: { duplicates: 'strict', maxActiveReasons: 3 } },
    {
      flags: { botUrl: 'http://127.0.0.1:3000/webhook', webhookTimeout: '2500ms', webhookRetries: '0', maxEvents: '1' },
      options: { botUrl: 'http://127.0.0.1:3000/webhook', webhookTimeoutMs: 2500, webhookRetries: 0, maxEvents: 1 },
    },
    { flags: { maxConnections: '1', webhookConcurrency: '1' }, options: { maxConnections: 1, webhookConcurrency: 1 } },
    {
      flags: { maxConnections: '1000000', webhookConcurrency: '10000' },
      options: { maxConnections: 1_000_000, webhookConcurrency: 10_000 },
    },
    { flags: { allowHosts: ['host.docker.internal'] }, options: { allowHosts: ['host.docker.internal'] } },
    {
      // 8 characters: the shortest token core takes.
      flags: { token: 'sandbox1' },
      options: { token: 'sandbox1' },
    },
    {
      flags: { tenants: ['a', 'b'], token: 'bot-token-1', integratorToken: 'int-token-1', host: '::1' },
      options: { tenants: ['a', 'b'], token: 'bot-token-1', integratorToken: 'int-token-1', host: '::1' },
    },
  ])('reads $flags', async ({ flags, options }) => {
    expect(await parseSandboxFlags(flags, folder())).toEqual(options);
  });

  it.each([
    { flags: { port: '-1' }, message: "--port: '-1' is not a whole number" },
    { flags: { port: '65536' }, message: '--port: 65536 is not a port' },
    { flags: { fail: '600:0.1' }, message: '--fail: 600 is not an error status' },
    { flags: { fail: '399:0.1' }, message: '--fail: 399 is not an error status' },
    { flags: { fail: '503:101%' }, message: '--fail: 1.01 is not a rate' },
    { flags: { fail: '503:-0.1' }, message: "--fail: '503:-0.1' is not STATUS:RATE" },
    { flags: { latency: '600001' }, message: '--latency: 600001 is not a delay' },
    { flags: { tenants: ['a', 'a'] }, message: "--tenant: 'a' is named twice" },
    { flags: { token: '' }, message: '--token: is empty; core refuses such a token' },
    { flags: { token: 'sandbox' }, message: '--token: is shorter than 8 characters' },
    { flags: { integratorToken: '12345678' }, message: '--integrator-token: is a number' },
    { flags: { token: 'tök-1234567' }, message: '--token: holds a character outside printable ASCII' },
    { flags: { maxConnections: '0' }, message: '--max-connections: 0 is not a count of connections' },
    { flags: { maxConnections: '1000001' }, message: '--max-connections: 1000001 is not a count of connections' },
    { flags: { webhookConcurrency: '0' }, message: '--webhook-concurrency: 0 is not a count of attempts' },
    { flags: { webhookConcurrency: '10001' }, message: '--webhook-concurrency: 10001 is not a count of attempts' },
    { flags: { webhookConcurrency: 'many' }, message: "--webhook-concurrency: 'many' is not a whole number" },
    { flags: { allowHosts: ['a/b'] }, message: "--allow-host: 'a/b' is not a host name" },
  ])('refuses $flags with a UsageError', async ({ flags, message }) => {
    const parsing = parseSandboxFlags(flags, folder());
    await expect(parsing).rejects.toBeInstanceOf(UsageError);
    await expect(parsing).rejects.toThrow(message);
  });

  it('takes the webhook secret from CORE_SANDBOX_WEBHOOK_SECRET, and --webhook-secret over it', async () => {
    const fromEnv = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const fromFlag = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(await parseSandboxFlags({}, folder(), { CORE_SANDBOX_WEBHOOK_SECRET: fromEnv })).toEqual({ webhookSecret: fromEnv });
    expect(await parseSandboxFlags({ webhookSecret: fromFlag }, folder(), { CORE_SANDBOX_WEBHOOK_SECRET: fromEnv })).toEqual({
      webhookSecret: fromFlag,
    });
  });

  it('names CORE_SANDBOX_WEBHOOK_SECRET, not the flag, when the secret from the environment is bad', async () => {
    const parsing = parseSandboxFlags({}, folder(), { CORE_SANDBOX_WEBHOOK_SECRET: 'secret' });
    await expect(parsing).rejects.toBeInstanceOf(UsageError);
    await expect(parsing).rejects.toThrow(/^CORE_SANDBOX_WEBHOOK_SECRET: must start with whsec_/);
  });

  it('accepts a --max-active-reasons below the built-in seed when --reasons has few enough active reasons', async () => {
    const cwd = folder();
    const seed = [{ code: 'A', reasons: [{ locale: 'en', name: 'A' }], active: false }];
    writeFileSync(join(cwd, 'reasons.json'), JSON.stringify(seed));
    expect(await parseSandboxFlags({ reasons: 'reasons.json', maxActiveReasons: '0' }, cwd)).toEqual({
      reasons: seed,
      maxActiveReasons: 0,
    });
  });

  it('reads --reasons from a JSON array, relative to the working folder', async () => {
    const cwd = folder();
    const seed = [{ code: 'BREAK', reasons: [{ locale: 'en', name: 'Break' }], active: true }];
    writeFileSync(join(cwd, 'reasons.json'), JSON.stringify(seed));
    expect(await parseSandboxFlags({ reasons: 'reasons.json' }, cwd)).toEqual({ reasons: seed });
  });

  it('refuses a --reasons file whose reasons break the schema, listing each problem with its path', async () => {
    const cwd = folder();
    const seed = [
      { code: 'OK', reasons: [{ locale: 'en', name: 'Fine' }] },
      { code: 'BAD', reasons: [{ locale: 'en', name: 'x'.repeat(51) }], color: 'teal' },
    ];
    writeFileSync(join(cwd, 'reasons.json'), JSON.stringify(seed));
    const error = await parseSandboxFlags({ reasons: 'reasons.json' }, cwd).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PayloadError);
    const paths = (error as PayloadError).problems.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['[1].reasons[0].name', '[1].color']));
    expect(paths.every((p) => p.startsWith('[1]'))).toBe(true);
  });

  it('refuses a --reasons file with more active reasons than --max-active-reasons', async () => {
    const cwd = folder();
    const seed = ['A', 'B', 'C'].map((code) => ({ code, reasons: [{ locale: 'en', name: code }] }));
    writeFileSync(join(cwd, 'reasons.json'), JSON.stringify(seed));
    await expect(parseSandboxFlags({ reasons: 'reasons.json', maxActiveReasons: '2' }, cwd)).rejects.toBeInstanceOf(PayloadError);
  });

  it.each([
    { content: undefined, message: '--reasons: cannot read reasons.json (ENOENT)' },
    { content: '{"code": "LUNCH"', message: '--reasons: reasons.json is not valid JSON' },
    { content: '{"code": "LUNCH", "reasons": []}', message: '--reasons: reasons.json must hold a JSON array' },
  ])('refuses an unusable --reasons file: $message', async ({ content, message }) => {
    const cwd = folder();
    if (content !== undefined) writeFileSync(join(cwd, 'reasons.json'), content);
    const parsing = parseSandboxFlags({ reasons: 'reasons.json' }, cwd);
    await expect(parsing).rejects.toBeInstanceOf(UsageError);
    await expect(parsing).rejects.toThrow(message);
  });
});
