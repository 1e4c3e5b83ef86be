import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runBuilt, runInProcess } from '../helpers/run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';

/**
 * A service (or a file) that sends terminal control sequences: a window title, a cleared screen, a
 * carriage return that overwrites a line, a bidi override, an 8-bit CSI. The human views print them
 * escaped (src/output/terminal.ts), as --json already does. The table runs in-process, main() as
 * the binary runs it; one row runs the built binary too, whose standard streams carry what main() writes.
 */

const TITLE = '\u001b]0;pwned\u0007';
const CLEAR = '\u001b[2J\u001b[H';
const FORGE = 'denied\r✓ 200 OK  everything went fine';
const BIDI = 'abc\u202edcba';
const CSI8 = '\u009b31m';
const HOSTILE = `${TITLE}${CLEAR}${FORGE} ${BIDI} ${CSI8}`;
/** Characters that must never reach a terminal raw from outside. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer((request) => {
    const plain = request.url.includes('greet');
    return {
      status: 400,
      headers: {
        'Content-Type': plain ? 'text/plain' : 'application/json', // Node refuses C0 controls in a header, not the 8-bit CSI.
        'X-Hostile': `x${CSI8}y`,
      },
      body: plain ? HOSTILE : JSON.stringify({ timestamp: CLEAR, method: 'POST', uri: BIDI, message: HOSTILE, [`${CLEAR}key`]: CSI8 }),
    };
  });
});
afterAll(async () => {
  await server.close();
});

const env = () => baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: 'terminal-token-55' });
const dir = mkdtempSync(join(tmpdir(), 'core-terminal-'));
const reasons = join(dir, 'reasons.ndjson');
writeFileSync(
  reasons,
  `${JSON.stringify({ code: `A${CLEAR}`, reasons: [{ locale: 'en', name: 'A' }] })}\n${JSON.stringify({ code: 'B', reasons: [{ locale: 'en', name: 'B' }] })}\n`,
);

describe('control characters from the service or a file reach the terminal escaped', () => {
  it.each<[string, string[], typeof runInProcess]>([
    ['an error body in JSON (reply)', ['reply', '--core-client-id', '1', '-t', 'Hi'], runInProcess],
    ['an error body that is not JSON (greet)', ['greet', '--core-client-id', '1', '-t', 'Hi'], runInProcess],
    ['the answer headers with --verbose', ['reply', '--core-client-id', '1', '-t', 'Hi', '--verbose'], runInProcess],
    ['a batch: the codes of the file and the messages', ['reason', 'update', '-f', reasons], runInProcess],
    ['an error body in JSON (reply), the built binary', ['reply', '--core-client-id', '1', '-t', 'Hi'], runBuilt],
  ])('%s', async (_name, argv, runner) => {
    const run = await runner(argv, { env: env() });
    expect(run.code).toBe(4);
    const text = run.stdout + run.stderr;
    expect(text).not.toMatch(RAW_CONTROL);
    // Shown, escaped: the user still sees what the service sent.
    expect(text).toContain('\\u001b');
    if (!argv.includes('-f')) expect(text).toContain('denied\\r✓ 200 OK  everything went fine');
  });

  it('--json keeps them as JSON escapes, the document valid', async () => {
    const run = await runInProcess(['reply', '--core-client-id', '1', '-t', 'Hi', '--json'], { env: env() });
    expect(run.code).toBe(4);
    expect(run.stdout).not.toMatch(RAW_CONTROL);
    expect((JSON.parse(run.stdout) as { error: { message: string } }).error.message).toBe(HOSTILE);
  });
});
