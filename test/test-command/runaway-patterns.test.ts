import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, killStillRunning, runBuilt, startBuilt } from '../helpers/run.js';
import { happens } from '../helpers/wait.js';
import { platform, reply, testFolder } from './platform.js';

/**
 * A /pattern/ that backtracks without end (docs/testing-bots.md, "Matching"). `/^(\w+\s?)*$/` against
 * 40 letters and a `!` takes V8's backtracking engine longer than any run: on the main thread it held
 * `core test` at 100% CPU, deaf to --timeout, Ctrl-C and SIGTERM (only SIGKILL ended it). Patterns
 * are matched in a worker, within the step's time limit: the step fails in time, naming the pattern,
 * the other conversations run and the reports are written; a signal stops the run as it stops any.
 */

afterEach(() => killStillRunning());
beforeAll(() => ensureBuilt());

const RUNAWAY = String.raw`/^(\w+\s?)*$/`;
const TEXT = `${'a'.repeat(40)}!`;

/** A bot answering "runaway" with the text the pattern cannot finish on, anything else with "You said: ...". */
async function runawayBot() {
  let answered!: () => void;
  const answeredRunaway = new Promise<void>((resolve) => (answered = resolve));
  const world = await platform(async (message, sb) => {
    if (message.text !== 'runaway') return reply(sb, message);
    await reply(sb, message, { text: TEXT });
    answered();
  });
  return { ...world, answeredRunaway };
}

const FILE = `conversations:
  - name: meets a runaway pattern
    steps:
      - customer: runaway
      - bot: {text: "${RUNAWAY.replaceAll('\\', '\\\\')}"}
  - name: captures with a runaway pattern
    steps:
      - customer: runaway
      - bot: {}
        capture: {word: "${RUNAWAY.replaceAll('\\', '\\\\')}"}
  - name: passes
    steps:
      - customer: Hi
      - bot: {text: "/^You said: (\\\\w+)$/"}
`;

describe('a pattern that backtracks without end', () => {
  it('fails its step within --timeout, naming the pattern; the other conversations pass and the reports are written', async () => {
    const { sb, env } = await runawayBot();
    const folder = testFolder({ 'a.yaml': FILE });
    const result = await happens(
      runBuilt(['test', 'a.yaml', '--sandbox', sb.url, '--timeout', '3s', '--reporter', 'human', '--reporter', 'json=report.json'], {
        env,
        cwd: folder,
      }),
      'core test ends',
      60_000,
    );
    expect(result.stdout + result.stderr).toMatch(/1 passed, 2 failed/);
    expect(result.code).toBe(3);
    const said = result.stdout + result.stderr;
    expect(said).toContain(`"${RUNAWAY.replaceAll('\\', '\\\\')}" did not finish matching a text of 41 characters within 3s`);
    expect(said).toContain('capture word: "/^(\\\\w+\\\\s?)*$/" did not finish matching');
    expect(existsSync(join(folder, 'report.json'))).toBe(true);
    expect(readFileSync(join(folder, 'report.json'), 'utf8')).toContain('"passes"');
  });

  // Exit 130: the run stops within the grace a signal gives it, and says so (docs/exit-codes.md, "Stopping").
  it.each(['SIGTERM', 'SIGINT'] as const)('is stopped by %s while it matches, though --timeout is ten minutes', async (signal) => {
    const { sb, env, answeredRunaway } = await runawayBot();
    const folder = testFolder({
      'a.yaml': `steps:\n  - customer: runaway\n  - bot: {text: "${RUNAWAY.replaceAll('\\', '\\\\')}"}\n`,
    });
    const run = startBuilt(['test', 'a.yaml', '--sandbox', sb.url, '--timeout', '10m'], { env, cwd: folder });
    await happens(answeredRunaway, 'the bot answers with the text the pattern cannot finish on', 60_000);
    // The answer is recorded: it reaches core test through its event stream, and the match runs. Sent before
    // the match begins, the signal still finds the answer in flight, which is matched as the run stops.
    run.child.kill(signal);
    expect(await happens(run.exited, `core test ends after ${signal}`, 30_000)).toBe(130);
    expect(run.stderr()).toMatch(/interrupted|SIGTERM/);
  });
});
