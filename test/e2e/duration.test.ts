import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, ensureBuilt, runBuilt } from '../helpers/run.js';

/**
 * The `duration` a request prints is the exchange's, not the time it took to load the HTTP library
 * (docs/json-output.md, `durationMs`). No timing is asserted: the built binary runs with a preload
 * that moves the clock the program reads (`performance.now`) forward by a million seconds at the
 * moment got's file is read, before got runs. A duration measured from before loading got would
 * include that jump; one measured from after it cannot.
 */

const JUMP_MS = 1e9;
const preload = `
const fs = require('node:fs');
const realNow = performance.now.bind(performance);
let offset = 0;
performance.now = () => realNow() + offset;
const realRead = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  const content = realRead.call(this, path, ...rest);
  if (offset === 0 && /[\\\\/]vendor[\\\\/]got\\.c?js$/.test(String(path))) {
    offset = ${JUMP_MS};
    fs.writeFileSync(process.env.DURATION_TEST_MARK, String(path));
  }
  return content;
};
`;

let server: RecordingServer | undefined;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const runs: Array<[string, Record<string, string>]> = [
  ['with the compile cache (its first run and a run that uses it)', {}],
  ["without it, through Node's own loader", { CORE_NO_COMPILE_CACHE: '1' }],
];

describe('the duration of a request', () => {
  it.each(runs)('is measured after got is loaded, %s', async (_name, extra) => {
    server = await startRecordingServer();
    const folder = mkdtempSync(join(tmpdir(), 'core-duration-'));
    const file = join(folder, 'jump-clock.cjs');
    writeFileSync(file, preload);
    const mark = join(folder, 'got-loaded');
    const env = {
      ...baseEnv({ CORE_BASE_URL: server.url, CORE_TENANT: 'acme', CORE_TOKEN: 'bot-token-1', ...extra }),
      NODE_OPTIONS: `--require ${file}`,
      DURATION_TEST_MARK: mark,
    };
    for (let run = 0; run < 2; run++) {
      writeFileSync(mark, '');
      const result = await runBuilt(['reply', '-t', 'Hi', '--core-client-id', '42', '--json'], { env });
      expect(result.code).toBe(0);
      // The clock did jump during the run: got was read from dist/vendor/.
      expect(readFileSync(mark, 'utf8')).toMatch(/vendor[\\/]got\.c?js$/);
      const printed = JSON.parse(result.stdout) as { ok: boolean; durationMs: number };
      expect(printed.ok).toBe(true);
      expect(printed.durationMs).toBeGreaterThanOrEqual(0);
      expect(printed.durationMs).toBeLessThan(JUMP_MS);
    }
    expect(server.requests).toHaveLength(2);
  });
});
