import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { decideColor, type OutStream } from '../../src/context.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

const ANSI = /\u001b\[/;

function stream(isTTY: boolean): OutStream {
  const s = new PassThrough() as PassThrough & { isTTY?: boolean };
  s.isTTY = isTTY;
  return s;
}

describe('decideColor', () => {
  it.each<[string, boolean, Record<string, string>, boolean | undefined, boolean]>([
    ['a terminal', true, {}, undefined, true],
    ['a pipe', false, {}, undefined, false],
    ['a terminal with NO_COLOR', true, { NO_COLOR: '1' }, undefined, false],
    ['a terminal with an empty NO_COLOR (unset, as no-color.org says)', true, { NO_COLOR: '' }, undefined, true],
    ['a terminal with --no-color', true, {}, false, false],
    ['a pipe with FORCE_COLOR=1', false, { FORCE_COLOR: '1' }, undefined, true],
    ['a terminal with FORCE_COLOR=0', true, { FORCE_COLOR: '0' }, undefined, false],
    ['a pipe with FORCE_COLOR=1 and --no-color', false, { FORCE_COLOR: '1' }, false, false],
    ['a terminal with NO_COLOR and FORCE_COLOR=1', true, { NO_COLOR: '1', FORCE_COLOR: '1' }, undefined, false],
    ['a dumb terminal', true, { TERM: 'dumb' }, undefined, false],
  ])('colours %s: %s', (_name, isTTY, env, flag, expected) => {
    expect(decideColor(stream(isTTY), env, flag)).toBe(expected);
  });
});

describe('colour in output', () => {
  let server: RecordingServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const run = async (extra: Record<string, string>, flags: string[] = []) => {
    server ??= await startRecordingServer();
    const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: 'tok-colour-1', ...extra });
    return runInProcess(['reply', '-t', 'x', '--question-id', '1', ...flags], { env });
  };

  it('colours the human result when forced', async () => {
    expect((await run({ FORCE_COLOR: '1' })).stdout).toMatch(ANSI);
  });

  it.each([
    ['NO_COLOR', { FORCE_COLOR: '1', NO_COLOR: '1' }, []],
    ['--no-color', { FORCE_COLOR: '1' }, ['--no-color']],
    ['a pipe', {}, []],
  ])('prints no colour codes with %s', async (_name, env, flags) => {
    const result = await run(env, flags);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✓ 200 OK {2}POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/chatbot\n/);
    expect(result.stdout + result.stderr).not.toMatch(ANSI);
  });

  it('never colours --json output', async () => {
    const result = await run({ FORCE_COLOR: '1' }, ['--json']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(ANSI);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true });
  });
});
