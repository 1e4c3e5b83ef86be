import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv } from '../helpers/run.js';
import { memoryStreams } from '../helpers/streams.js';

/** The progress bar of a batch: on a terminal that can redraw a line, and nowhere else. */

let server: RecordingServer;
const folder = mkdtempSync(join(tmpdir(), 'core-progress-'));
const file = join(folder, 'reasons.ndjson');
writeFileSync(file, ['A', 'B', 'C'].map((code) => JSON.stringify({ code, reasons: [{ locale: 'en', name: code }] })).join('\n'));

beforeAll(async () => {
  server = await startRecordingServer();
});
afterAll(async () => {
  await server.close();
});

async function batchOnTerminal(term: string | undefined): Promise<{ code: number; stderr: string; stdout: string }> {
  const io = memoryStreams();
  io.streams.stdin.end();
  Object.assign(io.streams.stderr, { isTTY: true, columns: 100 });
  const env = baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: 'tok-progress-1', TERM: term, FORCE_COLOR: '0' });
  const code = await main({ argv: ['reason', 'update', '-f', file], streams: io.streams, env, cwd: folder });
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

describe('the progress bar of a batch', () => {
  it('is drawn on a terminal that can redraw a line', async () => {
    const run = await batchOnTerminal('xterm-256color');
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/\d+\/3 done \| 0 failed/);
    expect(run.stderr).toContain('\u001b[');
  });

  it('is not drawn for TERM=dumb: the outcomes and the summary are plain lines', async () => {
    const run = await batchOnTerminal('dumb');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').filter((line) => line !== '')).toHaveLength(3);
    expect(run.stderr).toContain('3 succeeded, 0 failed, 0 skipped');
    expect(run.stderr).not.toMatch(/done \| /);
    expect(run.stderr).not.toContain('\u001b[');
  });
});
