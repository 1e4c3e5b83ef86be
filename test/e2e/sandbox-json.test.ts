import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import { startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, binPath, ensureBuilt } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';
import { call, customerSays, replyBody, sendReply, startConversation } from '../sandbox/helpers.js';

/**
 * `core sandbox --json`, run as a user runs it: stdout is NDJSON, read here line by line as the
 * sandbox writes it while a conversation runs: a first line with the CORE_* values, then each event in
 * the JSON form GET /_sandbox/conversations/{sessionId} lists (docs/sandbox.md, "Events"), and nothing else.
 */

beforeAll(() => ensureBuilt());
afterEach(() => stopProcesses());

interface Line {
  text: string;
  value: Record<string, unknown>;
}

/** Starts `core sandbox --json` and reads its stdout line by line, each parsed as it comes. */
function sandboxJson(args: string[] = []) {
  const child = spawn(process.execPath, ['--', binPath, 'sandbox', '--json', '--port', '0', ...args], {
    env: baseEnv() as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Line[] = [];
  const waiters: Array<() => void> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (text) => {
    // Every line must be one JSON document: a line that is not fails here, as jq would.
    lines.push({ text, value: parseJson(text) as Record<string, unknown> });
    for (const wake of waiters.splice(0)) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  /** Resolves once `count` lines have come. */
  const until = (count: number) =>
    happens(
      new Promise<void>((resolve) => {
        const check = () => (lines.length >= count ? resolve() : waiters.push(check));
        check();
      }),
      `${count} lines of core sandbox --json (had ${lines.length}; stderr: ${stderr})`,
    );
  const stop = async () => {
    child.kill('SIGTERM');
    return exited;
  };
  return { lines, until, stop, stderr: () => stderr };
}

describe('core sandbox --json', () => {
  it('prints the CORE_* values as the first line, then each event as one JSON line while the conversation runs, and nothing else', async () => {
    const run = sandboxJson();
    await run.until(1);
    const settings = run.lines[0]!.value;
    expect(Object.keys(settings)).toEqual(['CORE_BASE_URL', 'CORE_TENANT', 'CORE_TOKEN', 'CORE_WEBHOOK_SECRET']);
    expect(settings).toMatchObject({ CORE_TENANT: 'sandbox', CORE_TOKEN: 'sandbox-token' });
    expect(settings.CORE_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(settings.CORE_WEBHOOK_SECRET).toMatch(/^whsec_/);
    const sb = { url: settings.CORE_BASE_URL as string };

    const conversation = await startConversation(sb);
    await run.until(2);
    expect(run.lines[1]!.value).toMatchObject({ type: 'conversation.started', sessionId: conversation.sessionId });

    await customerSays(sb, conversation.sessionId, 'Where is my order?');
    await run.until(3);
    expect(run.lines[2]!.value).toMatchObject({ type: 'customer.message', text: 'Where is my order?' });

    const answered = await sendReply(sb, replyBody({ coreClientId: conversation.coreClientId }));
    expect(answered.status).toBe(200);
    const refused = await sendReply(sb, { text: 'no answerId' });
    expect(refused.status).toBe(400);
    await run.until(5);

    // Each line is the event in the JSON form the sandbox lists it in, identifiers exact.
    const thread = await call(sb, `/_sandbox/conversations/${conversation.sessionId}`, { token: null, tenant: null });
    const listed = (thread.json as { events: unknown[] }).events;
    expect(listed.length).toBe(3);
    const printed = run.lines.slice(1).map((line) => line.value);
    for (const event of listed) expect(printed).toContainEqual(event);

    const types = run.lines.slice(1).map((line) => line.value.type);
    expect(types).toEqual(['conversation.started', 'customer.message', 'bot.answer', 'api.request']);
    const seqs = run.lines.slice(1).map((line) => Number(line.value.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    expect(await run.stop()).toBe(0);
    // Nothing but the JSON lines on stdout: the log and the stop go to stderr.
    expect(run.lines.every((line) => typeof line.value === 'object' && line.value !== null)).toBe(true);
    expect(run.stderr()).toContain('core sandbox stopped');
  });

  it('keeps the values of a run with an integrator token, as the export lines do', async () => {
    const started = startProcess(
      process.execPath,
      ['--', binPath, 'sandbox', '--json', '--port', '0', '--integrator-token', "it's-mine"],
      baseEnv(),
      /\n/,
    );
    const first = (await started.started).split('\n')[0]!;
    expect(JSON.parse(first)).toMatchObject({ CORE_TOKEN: 'sandbox-token', CORE_INTEGRATOR_TOKEN: "it's-mine" });
    expect(started.output()).not.toMatch(/^export /m);
  });
});
