import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, ftruncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runBuilt, runInProcess } from '../helpers/run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

/**
 * Payload files that are not payloads: random bytes, invalid UTF-8, 50 MB, a folder, deep nesting.
 * Each is a clear error with exit 2 before anything is sent (the tool reads at most 5 MB of payload:
 * src/input/files.ts), never a crash.
 */

describe('a payload file that is not a payload', () => {
  let server: RecordingServer;
  let dir: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    server = await startRecordingServer();
    dir = mkdtempSync(join(tmpdir(), 'core-files-'));
    env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: 'files-token' });
    mkdirSync(join(dir, 'folder.json'));
    writeFileSync(join(dir, 'latin1.json'), Buffer.from('{"text":"caf\xe9","coreClientId":1}', 'latin1'));
    writeFileSync(join(dir, 'truncated-utf8.yaml'), Buffer.concat([Buffer.from('text: "'), Buffer.from([0xe2, 0x82]), Buffer.from('"\n')]));
    writeFileSync(join(dir, 'overlong.json'), Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]));
    writeFileSync(
      join(dir, 'surrogate.json'),
      Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    );
    writeFileSync(join(dir, 'nul.json'), Buffer.from([0x00, 0x00, 0x00]));
    writeFileSync(join(dir, 'deep.json'), `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    writeFileSync(join(dir, 'deep-object.json'), `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    // The files read as YAML are nested 20,000 deep: past the stack of the YAML parser (under 1,000
    // levels) and of the JSON one that a file without an extension meets first (under 5,000), on
    // Node 20 and 24, by a wide margin; the YAML parser's time before it gives up grows with the depth.
    writeFileSync(join(dir, 'deep.yaml'), `${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    writeFileSync(join(dir, 'deep-auto'), `${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    // "Billion laughs": each anchor holds ten of the one before, 10^13 strings once expanded.
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 12; i += 1) {
      const [name, previous] = [String.fromCharCode(97 + i), String.fromCharCode(96 + i)];
      laughs.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    writeFileSync(join(dir, 'aliases.yaml'), `${laughs.join('\n')}\n`);
    writeFileSync(join(dir, 'tagged.yaml'), 'code: LUNCH\ntext: !secret Hello\n');
    // 50 MB without writing 50 MB: a sparse file.
    const fd = openSync(join(dir, 'huge.json'), 'w');
    ftruncateSync(fd, 50 * 1024 * 1024);
    closeSync(fd);
  });
  afterAll(() => server.close());

  it.each<[string, string, RegExp]>([
    ['a folder', 'folder.json', /folder\.json is a folder, not a (payload file|file of reasons)/],
    ['Latin-1 text', 'latin1.json', /latin1\.json is not valid UTF-8 text/],
    ['a cut UTF-8 sequence', 'truncated-utf8.yaml', /is not valid UTF-8 text/],
    ['an overlong UTF-8 encoding', 'overlong.json', /is not valid UTF-8 text/],
    ['an encoded surrogate', 'surrogate.json', /is not valid UTF-8 text/],
    ['NUL bytes', 'nul.json', /nul\.json is not valid JSON/],
    // A batch file is read a line at a time, so `reason update` names the line that is too long.
    ['50 MB', 'huge.json', /huge\.json(?: is 50\.0 MB, more than a payload can be \(limit 5\.0 MB\)|: line 1 is longer than 1\.0 MB)/],
    ['a YAML alias bomb', 'aliases.yaml', /aliases\.yaml is not a usable YAML payload: its aliases expand too far/],
    // The yaml library would read it as the text "Hello" with only a warning.
    ['an unknown YAML tag', 'tagged.yaml', /tagged\.yaml, line 2: unknown YAML tag !secret/],
    ['a file that does not exist', 'nope.json', /(payload )?file not found: nope\.json/],
  ])('%s: exit 2 with a clear message, nothing sent', async (_case, file, message) => {
    for (const command of [['reply'], ['greet'], ['reason', 'update']]) {
      const run = await runInProcess([...command, '-f', file], { env, cwd: dir });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/^error: /m);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.code).toBe(2);
    }
    expect(server.requests).toHaveLength(0);
  });

  // Run by the built binary: a stack overflow inside vitest's workers makes its own stack-trace
  // handling run out of memory, which says nothing about core.
  it.each([
    ['100,000 nested arrays (JSON)', 'deep.json', /deep\.json is not valid JSON: Maximum call stack size exceeded/],
    ['100,000 nested objects (JSON)', 'deep-object.json', /deep-object\.json is not valid JSON: Maximum call stack size exceeded/],
    ['20,000 nested arrays (YAML)', 'deep.yaml', /deep\.yaml is neither valid JSON nor valid YAML: Maximum call stack size exceeded/],
    ['20,000 nested arrays (no extension)', 'deep-auto', /deep-auto is neither valid JSON nor valid YAML/],
  ])('%s: exit 2 with a clear message (built binary)', async (_case, file, message) => {
    for (const command of [['reply'], ['greet']]) {
      const run = await runBuilt([...command, '-f', file], { env, cwd: dir });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
      expect(run.code).toBe(2);
    }
    const batch = await runBuilt(['reason', 'update', '-f', file], { env, cwd: dir });
    expect(batch.code).toBe(2);
    expect(batch.stderr).toMatch(/Maximum call stack size exceeded|is not valid|invalid/);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses more than 5 MB on standard input too', async () => {
    const run = await runInProcess(['reply', '-f', '-'], { env, cwd: dir, stdin: `{"text":"${'a'.repeat(6 * 1024 * 1024)}"}` });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('standard input holds more than a payload can be (limit 5.0 MB)');
  });

  it('answers any random bytes with exit 2 and a message, never a crash (property)', async () => {
    const bytes = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 512 }),
      fc.constantFrom(8, 64, 4096).map((size) => new Uint8Array(randomBytes(size))),
      // Bytes that start like JSON or YAML, then turn to noise.
      fc
        .tuple(fc.constantFrom('{"text":', '[', 'text: ', '---\n', '{'), fc.uint8Array({ maxLength: 64 }))
        .map(([start, rest]) => new Uint8Array(Buffer.concat([Buffer.from(start), Buffer.from(rest)]))),
    );
    await fc.assert(
      fc.asyncProperty(bytes, fc.constantFrom('payload.json', 'payload.yaml', 'payload'), async (content, name) => {
        writeFileSync(join(dir, name), content);
        const run = await runInProcess(['reply', '-f', name, '--core-client-id', '1', '--dry-run'], { env, cwd: dir });
        // Random bytes are occasionally a valid YAML scalar or mapping: then the flags make it a valid reply.
        expect([0, 2], run.stderr).toContain(run.code);
        if (run.code === 2) expect(run.stderr).toMatch(/^error: /m);
        expect(run.stderr).not.toMatch(/\n\s+at /);
      }),
      { numRuns: 150 },
    );
    expect(server.requests).toHaveLength(0);
  });
});
