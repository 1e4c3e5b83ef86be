import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, runBuilt } from '../helpers/run.js';
import { randomId } from '../../src/uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function fileWith(content: Buffer): string {
  const file = join(mkdtempSync(join(tmpdir(), 'core-uuid-')), 'source');
  writeFileSync(file, content);
  return file;
}

describe('the answerId core reply makes', () => {
  it('is a version 4 UUID, a new one each time', () => {
    const ids = Array.from({ length: 1000 }, () => randomId());
    for (const id of ids) expect(id).toMatch(V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('takes its 122 random bits from the system source and sets the version and variant bits', () => {
    expect(randomId(fileWith(Buffer.alloc(16, 0)))).toBe('00000000-0000-4000-8000-000000000000');
    expect(randomId(fileWith(Buffer.alloc(16, 0xff)))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
  });

  it.each([
    ['does not exist', join(tmpdir(), 'core-no-such-random-source')],
    ['gives fewer than 16 bytes', fileWith(Buffer.alloc(5, 0))],
  ])('comes from node:crypto when the system source %s', (_name, source) => {
    const id = randomId(source);
    expect(id).toMatch(V4);
    expect(id).not.toMatch(/^00000000/);
  });

  it('is made without loading node:crypto in a dry run (~2 ms of its start-up)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-modules-'));
    const preload = join(folder, 'modules.cjs');
    const report = join(folder, 'modules.txt');
    writeFileSync(
      preload,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, process.moduleLoadList.join('\\n')));\n`,
    );
    const env = {
      ...baseEnv({ CORE_BASE_URL: 'http://127.0.0.1:9', CORE_TENANT: 'acme', CORE_TOKEN: 'bot-token-1' }),
      NODE_OPTIONS: `--require ${preload}`,
    };
    const result = await runBuilt(['reply', '-t', 'Hi', '--core-client-id', '42', '--dry-run', '--json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).body.answerId).toMatch(V4);
    const loaded = readFileSync(report, 'utf8').split('\n');
    expect(loaded).toContain('NativeModule fs');
    expect(loaded).not.toContain('NativeModule crypto');
  });
});
