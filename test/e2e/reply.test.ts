import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { baseEnv, binPath, ensureBuilt, runBuilt, runInProcess } from '../helpers/run.js';

/**
 * The built binary, run exactly as a user types it: a pipe from the shell, --version, a config file
 * found from a nested folder, standard input, a refusal (exit 2 and no stack trace). The tables of
 * the same refusals and the rest run main() in-process, as the binary does.
 */

const TOKEN = 'e2e-token-7d2c1a9b';
let server: RecordingServer | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function project(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(join(tmpdir(), 'core-e2e-'));
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, content);
  }
  return dir;
}

describe('the built core binary', () => {
  it('reads -f <(...) from a shell, a pipe rather than a file, as reason update does', async () => {
    server = await startRecordingServer();
    const script = `"$NODE" "$CORE" reply -f <(printf '{"text":"From a pipe","coreClientId":7}') --json`;
    const env = {
      ...baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN }),
      NODE: process.execPath,
      CORE: binPath,
    };
    const { stdout } = await promisify(execFile)('bash', ['-c', script], { env: env as NodeJS.ProcessEnv });
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, status: 200 });
    expect(JSON.parse(server.requests[0]!.text)).toMatchObject({ text: 'From a pipe', coreClientId: 7 });
  });

  it('prints its version', async () => {
    const result = await runBuilt(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('ends the help of reply with examples', async () => {
    const result = await runInProcess(['reply', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Examples:\n(\s+\$ core reply .*\n)+\s*$/);
  });

  it('sends a reply configured by a profile in a .corerc file found in a parent folder', async () => {
    server = await startRecordingServer([{ status: 200, headers: { 'X-Request-Id': 'rid-e2e' } }]);
    const dir = project({
      '.corerc.yaml': `defaultProfile: local\nprofiles:\n  local:\n    baseUrl: ${server.url}\n    tenant: acme\n    token: {env: E2E_TOKEN}\n    headers: {Accept-Language: de-CH}\n`,
      'deep/down/.keep': '',
    });
    const env = baseEnv({ E2E_TOKEN: TOKEN });
    const result = await runBuilt(['reply', '-t', 'Hello', '--core-client-id', '9223372036854775807', '--answer-id', 'a-e2e'], {
      env,
      cwd: join(dir, 'deep/down'),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('200 OK');
    expect(result.stdout).toContain('rid-e2e');
    expect(result.stdout).toContain('a-e2e');
    const request = server.requests[0]!;
    expect(request.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request.headers['x-tenant-name']).toBe('acme');
    expect(request.headers['accept-language']).toBe('de-CH');
    expect(request.body.toString()).toBe('{"text":"Hello","answerId":"a-e2e","coreClientId":9223372036854775807}');
  });

  it('reads a YAML payload from standard input and keeps long identifiers exact', async () => {
    server = await startRecordingServer();
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN });
    const yaml =
      'text: From YAML\ncoreClientId: 9223372036854775807\ncode: SWITCH_TO_HUMAN\nuserIds: [9223372036854775806]\nanswerId: y-1\n';
    const result = await runBuilt(['reply', '-f', '-', '--json'], { env, stdin: yaml });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.body.toString()).toBe(
      '{"text":"From YAML","coreClientId":9223372036854775807,"code":"SWITCH_TO_HUMAN","userIds":[9223372036854775806],"answerId":"y-1"}',
    );
  });

  it('lets flags override the fields of a JSON payload file', async () => {
    server = await startRecordingServer();
    const dir = project({ 'answer.json': '{"text":"from file","questionId":12345678901234567890,"answerId":"f-1"}' });
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN });
    const bad = await runInProcess(['reply', '-f', 'answer.json'], { env, cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('questionId: expected an integer from 0 to 9,223,372,036,854,775,807, got 12345678901234567890');
    const good = await runInProcess(['reply', '-f', 'answer.json', '--question-id', '77', '-t', 'from flag'], { env, cwd: dir });
    expect(good.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.body.toString()).toBe('{"text":"from flag","questionId":77,"answerId":"f-1"}');
  });

  it.each<[string, string[], Record<string, string | Buffer>, RegExp, typeof runInProcess]>([
    ['an unknown option, the built binary', ['reply', '--bogus'], {}, /unknown option '--bogus'/, runBuilt],
    ['an unknown option', ['reply', '--bogus'], {}, /unknown option '--bogus'/, runInProcess],
    ['a --code outside the enumeration', ['reply', '-t', 'x', '--code', 'MAYBE'], {}, /--code.*MAYBE/s, runInProcess],
    ['a payload file that does not exist', ['reply', '-f', 'nope.json'], {}, /not found: nope.json/, runInProcess],
    ['a payload that is a folder', ['reply', '-f', 'folder'], { 'folder/.keep': '' }, /is a folder/, runInProcess],
    [
      'a payload of invalid UTF-8',
      ['reply', '-f', 'bad.json'],
      { 'bad.json': Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) },
      /not valid UTF-8/,
      runInProcess,
    ],
    [
      'a payload that is neither JSON nor YAML',
      ['reply', '-f', 'bad.txt'],
      { 'bad.txt': '{"text": [' },
      /neither valid JSON nor valid YAML/,
      runInProcess,
    ],
    ['a missing base URL', ['reply', '-t', 'x', '--core-client-id', '1'], {}, /base URL/i, runInProcess],
  ])('exits 2 with a message and no stack trace for %s', async (_name, args, files, message, run) => {
    const dir = project(files);
    const result = await run(args, { cwd: dir, env: baseEnv() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)/);
  });

  it('shows a dry run with the token masked and sends nothing', async () => {
    server = await startRecordingServer();
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN });
    const result = await runInProcess(['reply', '-t', 'x', '--question-id', '1', '--dry-run', '--verbose'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Authorization: Bearer ********');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(server.requests).toHaveLength(0);
  });
});
