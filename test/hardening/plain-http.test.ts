import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPlainHttp } from '../../src/send/transport.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

/** No credential goes over plain http to a host other than this machine without --allow-http. */

const TOKEN = 'plain-http-token-4411aa';

describe('checkPlainHttp', () => {
  it.each([
    ['https://chat.example.com', false, true],
    ['http://127.0.0.1:8080', false, true],
    ['http://127.1.2.3', false, true],
    ['http://localhost:3000', false, true],
    ['http://[::1]:3000', false, true],
    ['http://chat.example.com', false, false],
    ['http://10.0.0.5:8080', false, false],
    ['http://0.0.0.0:8080', false, false],
    ['http://localhost.example.com', false, false],
    ['http://chat.example.com', true, true],
  ])('%s with --allow-http %s: allowed %s', (url, allowHttp, allowed) => {
    const check = () => checkPlainHttp(new URL(url), { allowHttp });
    if (allowed) expect(check).not.toThrow();
    else expect(check).toThrow(/^refusing to send the token over plain http to /);
  });
});

describe('a sending command with a plain http base URL', () => {
  let server: RecordingServer;
  let dir: string;
  beforeAll(async () => {
    server = await startRecordingServer();
    dir = mkdtempSync(join(tmpdir(), 'core-plain-http-'));
    writeFileSync(join(dir, 'reasons.ndjson'), '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}]}\n');
  });
  afterAll(() => server.close());

  const commands: Array<[string, string[]]> = [
    ['reply', ['reply', '--core-client-id', '1', '-t', 'hi']],
    ['greet', ['greet', '--core-client-id', '1', '-t', 'hi', '--retry']],
    ['reason update', ['reason', 'update', '--code', 'LUNCH', '--name', 'en=Lunch']],
    ['reason update -f', ['reason', 'update', '-f', 'reasons.ndjson']],
  ];

  it.each(commands)(
    '%s refuses a host other than loopback (exit 2, with a hint), before running the token command',
    async (_name, argv) => {
      const marker = join(dir, `ran-${argv.join('-').replace(/\W/g, '')}`);
      const config = join(dir, 'core.json');
      writeFileSync(
        config,
        JSON.stringify({
          profiles: { p: { baseUrl: 'http://chat.example.com', tenant: 'acme', token: { command: `touch '${marker}'; echo ${TOKEN}` } } },
        }),
      );
      const run = await runInProcess([...argv, '--config', config], { env: baseEnv(), cwd: dir });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        'error: refusing to send the token over plain http to chat.example.com: anyone on the network path could read it; nothing was sent',
      );
      expect(run.stderr).toContain(
        'hint: use an https base URL (https://chat.example.com), or pass --allow-http if you trust every network in between',
      );
      expect(existsSync(marker)).toBe(false);
    },
  );

  it.each(commands)('%s goes ahead with --allow-http (here to a name that does not resolve: exit 6)', async (_name, argv) => {
    const env = baseEnv({ CORE_BASE_URL: 'http://api.example.test', CORE_TENANT: 'acme', CORE_TOKEN: TOKEN });
    const run = await runInProcess([...argv, '--allow-http', '--timeout', '10s'], { env, cwd: dir });
    expect(run.code).toBe(6);
  });

  it.each(commands)('%s sends to loopback over plain http, by address or as localhost', async (_name, argv) => {
    for (const baseUrl of [server.url, server.url.replace('127.0.0.1', 'localhost')]) {
      const before = server.requests.length;
      const run = await runInProcess(argv, { env: baseEnv({ CORE_BASE_URL: baseUrl, CORE_TENANT: 'acme', CORE_TOKEN: TOKEN }), cwd: dir });
      expect(run.code).toBe(0);
      expect(server.requests.length).toBe(before + 1);
    }
  });

  it('shows the request with --dry-run and --curl, as nothing is sent', async () => {
    const env = baseEnv({ CORE_BASE_URL: 'http://chat.example.com', CORE_TENANT: 'acme', CORE_TOKEN: TOKEN });
    for (const flag of ['--dry-run', '--curl']) {
      const run = await runInProcess(['reply', '--core-client-id', '1', '-t', 'hi', flag], { env });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('http://chat.example.com/api/v1/chatbot');
    }
  });
});
