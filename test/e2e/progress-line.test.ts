import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { baseEnv, binPath, ensureBuilt, runBuilt } from '../helpers/run.js';
import { hangLimit } from '../helpers/time-scale.js';
import { withTool } from '../helpers/tools.js';

/**
 * The live progress line of `core test` and `core check-bot` (docs/testing-bots.md, "Progress"): the
 * built binary in a real pseudo-terminal (tmux, 120x40), the screen read back with capture-pane. The
 * bot is the test's own and holds the deliveries it is told to hold, so the line is read while the
 * run cannot end, whatever the machine's speed; then it lets them go, and the line is gone from the
 * finished screen. Piped, or with a report for a program on stdout, no byte of the line is written.
 */

const socket = `core-progress-${randomUUID().slice(0, 8)}`;
const WAIT_MS = hangLimit(30_000);

let sandbox: Sandbox;
let bot: Server;
let work: string;
/** Deliveries the bot answers at once; past them it holds each until `release()`. */
let answerAtOnce = 0;
let delivered = 0;
let held: (() => void)[] = [];
const release = () => {
  answerAtOnce = Number.POSITIVE_INFINITY;
  for (const go of held.splice(0)) go();
};

/** The bot: 200 to each delivery; answers "pong", but "nope" to the second delivery (a failed run). */
function startBot(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { message } = JSON.parse(Buffer.concat(chunks).toString()) as { message: { questionId: number } };
      delivered += 1;
      const text = delivered === 2 ? 'nope' : 'pong';
      const answer = () => {
        res.writeHead(200).end();
        void fetch(`${sandbox.url}/api/v1/chatbot`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox' },
          body: JSON.stringify({ questionId: message.questionId, text }),
        }).then((r) => r.text());
      };
      if (delivered <= answerAtOnce) answer();
      else held.push(answer);
    });
  });
}

function tmux(...args: string[]): string {
  const result = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

const screen = (): string => tmux('capture-pane', '-p', '-t', 'core');

async function waitFor(what: RegExp): Promise<string> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const text = screen();
    if (what.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(what)}; it shows:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs `core ARGS` (and `tail` of the shell line, such as a pipe) in a new tmux session; the session stays for reading. */
function inTerminal(args: string[], tail = '', extraEnv: Record<string, string> = {}): void {
  const env = baseEnv({ TERM: 'xterm-256color', ...extraEnv });
  const line = `cd ${JSON.stringify(work)}; ${JSON.stringify(process.execPath)} ${JSON.stringify(binPath)} ${args.join(' ')}${tail}; echo "[core exited $?]"; sleep 600`;
  const started = spawnSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'core', '-x', '120', '-y', '40', line], {
    env: env as NodeJS.ProcessEnv,
    encoding: 'utf8',
  });
  expect(started.status, started.stderr).toBe(0);
}

const PROGRESS = /core test: \d+\/\d+ runs, \d+ failed/;

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'core-progress-'));
  writeFileSync(join(work, 'ping.yaml'), 'name: ping\nsteps:\n  - customer: ping\n  - bot: {text: pong}\n');
  bot = startBot();
  await new Promise<void>((resolve) => bot.listen(0, '127.0.0.1', resolve));
  sandbox = await startSandbox({ botUrl: `http://127.0.0.1:${(bot.address() as { port: number }).port}/webhook`, webhookBackoffMs: 0 });
});

afterEach(() => {
  release();
  spawnSync('tmux', ['-L', socket, 'kill-session', '-t', 'core']);
});

afterAll(async () => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
  const uid = process.getuid?.() ?? 0;
  rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${uid}`, socket), { force: true });
  await sandbox?.close();
  await new Promise((resolve) => bot?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

withTool('tmux').describe('the live progress line in a terminal', () => {
  it('core test --repeat shows the runs done and failed, the p95 so far and the time left, then takes the line away', async () => {
    delivered = 0;
    answerAtOnce = 2;
    inTerminal(['test', 'ping.yaml', '--repeat', '6', '--concurrency', '1', '--timeout', '60s', '--sandbox', sandbox.url]);
    // Two runs ended (the second failed), the third is held by the bot: the line cannot move on.
    const during = await waitFor(/core test: 2\/6 runs, 1 failed, p95 [\d.]+m?s, about .+ left/);
    expect(during).toMatch(PROGRESS);
    release();
    const after = await waitFor(/\[core exited 3\]/);
    expect(after).toMatch(/5 passed|1 failed/);
    expect(after).not.toMatch(PROGRESS);
  });

  it('core check-bot shows the checks done while they run, then takes the line away', async () => {
    delivered = 10;
    answerAtOnce = 10;
    inTerminal(['check-bot', '--only', 'answers', '--timeout', '60s', '--sandbox', sandbox.url]);
    await waitFor(/core check-bot: 0\/1 checks, 0 failed/);
    release();
    const after = await waitFor(/\[core exited \d\]/);
    expect(after).not.toMatch(/core check-bot: \d+\/1 checks/);
  });

  it.each([
    ['standard output is a pipe', ['test', 'ping.yaml', '--repeat', '3', '--sandbox', 'URL'], ' | cat'],
    ['standard error is a file', ['test', 'ping.yaml', '--repeat', '3', '--sandbox', 'URL'], ' 2>stderr.txt'],
    ['the JSON report goes to standard output', ['test', 'ping.yaml', '--repeat', '3', '--reporter', 'json', '--sandbox', 'URL'], ''],
  ])('core test draws nothing when %s', async (_what, args, tail) => {
    delivered = 10;
    answerAtOnce = 3;
    // The third run is held: were a line drawn, it would stand on the screen now.
    inTerminal(
      args.map((arg) => (arg === 'URL' ? sandbox.url : arg)),
      tail,
    );
    const deadline = Date.now() + WAIT_MS;
    while (held.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(held.length).toBeGreaterThan(0);
    expect(screen()).not.toMatch(/core test: \d+\/3 runs/);
    release();
    const after = await waitFor(/\[core exited \d\]/);
    expect(after).not.toMatch(/core test: \d+\/3 runs/);
    if (tail.includes('stderr.txt')) {
      const written = readFileSync(join(work, 'stderr.txt'), 'utf8');
      expect(written).toMatch(/core test: 1 conversation/);
      expect(written).not.toMatch(/\r|\x1b\[K|\d+\/3 runs/);
    }
  });
});

describe('the progress line where no terminal is', () => {
  it.each([
    ['core test --repeat', () => ['test', join(work, 'ping.yaml'), '--repeat', '3', '--sandbox', sandbox.url]],
    ['core check-bot', () => ['check-bot', '--only', 'answers', '--sandbox', sandbox.url]],
  ])('%s with its output piped writes no control sequence and no progress line', async (_what, argv) => {
    delivered = 10;
    answerAtOnce = Number.POSITIVE_INFINITY;
    const run = await runBuilt(argv(), { env: baseEnv({ TERM: 'xterm-256color', FORCE_COLOR: '1' }) });
    for (const text of [run.stdout, run.stderr]) {
      expect(text).not.toContain('\r');
      expect(text).not.toContain('\x1b[K');
      expect(text).not.toMatch(/\d+\/\d+ (runs|checks)/);
    }
  });
});
