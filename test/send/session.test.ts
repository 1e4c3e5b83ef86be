import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * Every operation goes through one sending session (src/send/session.ts): each behaviour below is
 * checked, with the same expectations, for `core reply`, `core greet` and `core reason update`
 * (one reason from flags, and a file of three). Where the operations differ, they differ by their
 * descriptor alone: the credential (the bot's token, or the integrator token for reasons).
 */

const TOKEN = 'tok_bot_5f1c2a9d';
const INTEGRATOR = 'tok_integrator_88e1c0';

interface Command {
  name: string;
  argv: string[];
  /** How many requests one run sends. */
  requests: number;
  /** The environment variable that holds this operation's own token, when it has one. */
  ownTokenVariable: 'CORE_TOKEN' | 'CORE_INTEGRATOR_TOKEN';
  /** How a missing credential is named. */
  missing: RegExp;
}

const folder = mkdtempSync(join(tmpdir(), 'core-session-'));
const reasons = ['LUNCH', 'TRAINING', 'BREAK'].map((code) =>
  JSON.stringify({ code, reasons: [{ locale: 'en', name: code.toLowerCase() }] }),
);
writeFileSync(join(folder, 'reasons.ndjson'), `${reasons.join('\n')}\n`);
writeFileSync(join(folder, 'answer.json'), '{"coreClientId":42,"text":"Hi","answerId":"a-1"}');
writeFileSync(join(folder, 'quoting.json'), JSON.stringify({ coreClientId: 42, text: `my token is ${TOKEN}` }));

const commands: Command[] = [
  {
    name: 'reply',
    argv: ['reply', '--core-client-id', '42', '-t', 'Hi', '--answer-id', 'a-1'],
    requests: 1,
    ownTokenVariable: 'CORE_TOKEN',
    missing: /missing token/,
  },
  {
    name: 'greet',
    argv: ['greet', '--core-client-id', '42', '-t', 'Hello'],
    requests: 1,
    ownTokenVariable: 'CORE_TOKEN',
    missing: /missing token/,
  },
  {
    name: 'reason update',
    argv: ['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch'],
    requests: 1,
    ownTokenVariable: 'CORE_INTEGRATOR_TOKEN',
    missing: /missing integrator token/,
  },
  {
    name: 'api POST /api/v1/chatbot -f',
    argv: ['api', 'POST', '/api/v1/chatbot', '-f', join(folder, 'answer.json')],
    requests: 1,
    ownTokenVariable: 'CORE_TOKEN',
    missing: /missing token/,
  },
  {
    name: 'reason update -f (three reasons)',
    argv: ['reason', 'update', '-f', join(folder, 'reasons.ndjson')],
    requests: 3,
    ownTokenVariable: 'CORE_INTEGRATOR_TOKEN',
    missing: /missing integrator token/,
  },
];

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(async () => {
  await server.close();
});

/** The environment of a configured run against the recording server. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN, CORE_INTEGRATOR_TOKEN: INTEGRATOR, ...extra });
}

/** Runs a command and returns its result with the requests it sent. */
async function run(argv: string[], runEnv: Record<string, string | undefined>, cwd?: string) {
  const before = server.requests.length;
  const result = await runInProcess(argv, { env: runEnv, ...(cwd ? { cwd } : {}) });
  return { ...result, sent: server.requests.slice(before) };
}

/** A config file with one profile, in a folder of its own; returns the folder. */
function profileFolder(profile: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'core-session-profile-'));
  writeFileSync(join(dir, '.corerc.yaml'), `profiles:\n  only:\n${profile.replace(/^/gm, '    ')}\n`);
  return dir;
}

describe.each(commands)('$name goes through the one sending session', (command) => {
  it('sends the credential of its operation, and the tenant, and answers 0', async () => {
    const result = await run(command.argv, env());
    expect(result.code).toBe(0);
    expect(result.sent).toHaveLength(command.requests);
    const wanted = command.ownTokenVariable === 'CORE_INTEGRATOR_TOKEN' ? INTEGRATOR : TOKEN;
    for (const request of result.sent) {
      expect(request.headers.authorization).toBe(`Bearer ${wanted}`);
      expect(request.headers['x-tenant-name']).toBe('acme');
      expect(request.headers['content-type']).toBe('application/json');
    }
  });

  it('--dry-run with nothing configured shows placeholders and a masked token, warns once, and sends nothing', async () => {
    const result = await run([...command.argv, '--dry-run'], baseEnv());
    expect(result.code).toBe(0);
    expect(result.sent).toHaveLength(0);
    expect(result.stdout).toContain('<base-url>');
    expect(result.stdout).toContain('X-Tenant-Name: <tenant>');
    expect(result.stdout).toContain('Authorization: Bearer ********');
    expect(result.stderr.match(/not configured: baseUrl, tenant, token/g)).toHaveLength(1);
  });

  it('--curl names the variable that holds its token, never the value, and sends nothing', async () => {
    const result = await run([...command.argv, '--curl'], env());
    expect(result.code).toBe(0);
    expect(result.sent).toHaveLength(0);
    expect(result.stdout).toContain(`-H "Authorization: Bearer $${command.ownTokenVariable}"`);
    expect(result.stdout.match(/^curl /gm)).toHaveLength(command.requests);
    expect(result.stdout).not.toContain(TOKEN);
    expect(result.stdout).not.toContain(INTEGRATOR);
  });

  it('--verbose shows the request headers with the token masked', async () => {
    const result = await run([...command.argv, '--verbose'], env());
    expect(result.code).toBe(0);
    expect(result.sent).toHaveLength(command.requests);
    expect(result.stderr).toContain('> Authorization: Bearer ********');
    expect(result.stderr).toContain('> X-Tenant-Name: acme');
    expect(result.stderr).not.toContain(TOKEN);
    expect(result.stderr).not.toContain(INTEGRATOR);
  });

  it('a missing credential is a configuration error naming it, and nothing is sent', async () => {
    const result = await run(command.argv, env({ CORE_TOKEN: undefined, CORE_INTEGRATOR_TOKEN: undefined }));
    expect(result.code).toBe(2);
    expect(result.sent).toHaveLength(0);
    expect(result.stderr).toMatch(command.missing);
  });

  it("an Authorization header in the profile's headers replaces the token, which is then not needed", async () => {
    const dir = profileFolder(`baseUrl: ${server.url}\ntenant: acme\nheaders: {Authorization: "Key gw-7781"}`);
    const result = await run(command.argv, baseEnv(), dir);
    expect(result.code).toBe(0);
    expect(result.sent).toHaveLength(command.requests);
    for (const request of result.sent) expect(request.headers.authorization).toBe('Key gw-7781');
    const shown = await run([...command.argv, '--dry-run'], baseEnv(), dir);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Authorization: ********');
    expect(shown.stdout).not.toContain('gw-7781');
    expect(shown.stderr).not.toContain('not configured');
  });

  it('runs a token command once per invocation, beside the config file', async () => {
    const dir = profileFolder(`baseUrl: ${server.url}\ntenant: acme\ntoken: {command: "echo run >> ran.log; echo ${TOKEN}"}`);
    const result = await run(command.argv, baseEnv(), dir);
    expect(result.code).toBe(0);
    expect(result.sent).toHaveLength(command.requests);
    for (const request of result.sent) expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(dir, 'ran.log'), 'utf8')).toBe('run\n');
  });

  it('refuses plain http to another host before the token command runs, and sends nothing', async () => {
    const dir = profileFolder(`baseUrl: http://chat.example.com\ntenant: acme\ntoken: {command: "echo run >> ran.log; echo ${TOKEN}"}`);
    const result = await run(command.argv, baseEnv(), dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('refusing to send the token over plain http to chat.example.com');
    expect(existsSync(join(dir, 'ran.log'))).toBe(false);
  });

  it('--insecure warns on every use', async () => {
    const result = await run([...command.argv, '--insecure'], env());
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('--insecure: TLS certificates are not checked');
  });

  it('masks the token where a payload quotes it, in --dry-run', async () => {
    const quoting =
      command.name === 'reply' || command.name === 'greet'
        ? [...command.argv.filter((word, i, all) => word !== '-t' && all[i - 1] !== '-t'), '-t', `my token is ${TOKEN}`]
        : command.argv[0] === 'api'
          ? ['api', 'POST', '/api/v1/chatbot', '-f', join(folder, 'quoting.json')]
          : ['reason', 'update', '--code', TOKEN, '--name', 'en=Lunch'];
    const result = await run([...quoting, '--dry-run'], env());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('********');
    expect(result.stdout).not.toContain(TOKEN);
  });
});
