import { expect } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { baseEnv, runInProcess, type RunInit } from './run.js';

/** Where a dry run's request would go: nothing listens there, and nothing is sent anyway. */
const NOWHERE = 'http://127.0.0.1:9';

/**
 * The request body that `core COMMAND --dry-run --json ARGS` shows, read losslessly (long
 * identifiers as bigint), once the dry run has exited 0 with nothing on stderr but warnings.
 * `command` is the command's words: ['reply'], ['reason', 'update'].
 */
export async function dryRunBody(command: string[], args: string[], init: Omit<RunInit, 'env'> = {}): Promise<Record<string, unknown>> {
  const env = baseEnv({ CORE_BASE_URL: NOWHERE, CORE_TENANT: 'acme', CORE_TOKEN: 'tok-dry-run-1' });
  const result = await runInProcess([...command, '--dry-run', '--json', ...args], { ...init, env });
  expect(result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('warning: '))).toEqual([]);
  expect(result.code).toBe(0);
  return (parseJson(result.stdout) as { body: Record<string, unknown> }).body;
}
