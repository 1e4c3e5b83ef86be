import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { onTestFinished } from 'vitest';
import { baseEnv } from '../helpers/run.js';
import { sandbox } from '../sandbox/helpers.js';

/**
 * The bot of test/test-command/fixtures/bot.mjs as a process of its own (values made at run time, a
 * random answer, a slow answer), with an in-process sandbox delivering to it: both on loopback.
 */
export async function botProcess() {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'fixtures', 'bot.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  // Closing its standard input ends it.
  onTestFinished(() => {
    child.stdin.end();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the bot process ended (${code}) before it listened`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve(Number(/listening on (\d+)/.exec(line)?.[1])));
  });
  const sb = await sandbox({ botUrl: `http://127.0.0.1:${port}/webhook`, webhookBackoffMs: 0 });
  child.stdin.write(`${sb.url}\n`);
  return { sb, env: baseEnv() };
}
