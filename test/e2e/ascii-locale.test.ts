import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, stopProcesses } from '../helpers/processes.js';
import { baseEnv, binPath, ensureBuilt, repoRoot, runBuilt, runInProcess, type RunResult } from '../helpers/run.js';
import { hangLimit } from '../helpers/time-scale.js';

/**
 * Under a locale that is not UTF-8 (LC_ALL=C, LANG=C, LC_CTYPE=POSIX), core's human output holds no
 * byte above 0x7F: its marks, arrows, boxes and ellipses are drawn in ASCII (src/output/glyphs.ts).
 * Each output a user sees is run against a sandbox (the built binary) and the example bot, whose
 * texts are ASCII, so that any other byte is one core added. The same runs under a UTF-8 locale draw
 * the Unicode glyphs, which shows the check can fail.
 *
 * The built binary runs once per locale (`core customer say`: the locale read from the process's own
 * environment); the table of outputs runs in-process (main() with that environment, as the binary
 * calls it), where the choice of glyphs is made from the same variables (src/output/glyphs.ts).
 */

/** Fails with the line that holds a byte above 0x7F, naming the output it came from. */
function expectAscii(text: string, what: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at === -1) return;
  const start = text.lastIndexOf('\n', Buffer.from(bytes.subarray(0, at)).toString('utf8').length) + 1;
  expect.fail(`${what}: a byte above 0x7F in the line ${JSON.stringify(text.slice(start, text.indexOf('\n', start)))}`);
}

function expectAsciiRun(run: RunResult, what: string): void {
  expectAscii(run.stdout, `${what} (stdout)`);
  expectAscii(run.stderr, `${what} (stderr)`);
}

let userEnv: Record<string, string | undefined>;
let sandboxOutput: () => string;
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'core-ascii-'));
  const botPort = await freePort();
  const env = baseEnv({ LC_ALL: 'C' });
  const sandbox = startProcess(
    process.execPath,
    [binPath, 'sandbox', '--port', '0', '--bot-url', `http://127.0.0.1:${botPort}/webhook`, '--tenant', 'sandbox', '--tenant', 'apart'],
    env,
    /CORE_WEBHOOK_SECRET=\S+\n/,
  );
  const lines = await sandbox.started;
  sandboxOutput = () => lines;
  const exported = Object.fromEntries([...lines.matchAll(/^export (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  userEnv = { ...env, ...exported };
  const bot = startProcess(
    process.execPath,
    [join(repoRoot, 'docs', 'examples', 'bot', 'bot.mjs')],
    { ...userEnv, PORT: String(botPort) },
    /bot listening on/,
  );
  await bot.started;
  writeFileSync(join(dir, 'passes.yaml'), 'name: echoes\nsteps:\n  - customer: Where is my order?\n  - bot:\n      text: /You said/\n');
  writeFileSync(
    join(dir, 'fails.yaml'),
    'name: expects another text\nsteps:\n  - customer: Hello\n  - bot:\n      text: Something else entirely\n',
  );
  writeFileSync(
    join(dir, 'reasons.ndjson'),
    '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}]}\n{"code":"NOPE","reasons":[{"locale":"en","name":"Nope"}]}\n{"code":"X","reasons":[{"locale":"english","name":"' +
      'n'.repeat(80) +
      '"}]}\n',
  );
  writeFileSync(join(dir, '.corerc.yaml'), 'profiles:\n  local:\n    tenant: sandbox\n    token: {env: CORE_TOKEN}\n');
}, hangLimit(120_000));

afterAll(() => stopProcesses());

// The locales run side by side, each remembering its own last conversation (`--session last`).
describe.concurrent.each([
  ['LC_ALL=C', { LC_ALL: 'C' }],
  ['LANG=C', { LC_ALL: undefined, LANG: 'C' }],
  ['LC_CTYPE=POSIX', { LC_ALL: undefined, LC_CTYPE: 'POSIX', LANG: 'en_US.UTF-8' }],
] as const)('human output under %s', (name, locale) => {
  const env = () => ({ ...userEnv, ...locale, XDG_STATE_HOME: join(dir, 'state', name) });

  it("core sandbox's lines", () => {
    expectAscii(sandboxOutput(), 'core sandbox');
  });

  it('core customer say and press: boxes, buttons and the hand-over arrow in ASCII', async () => {
    const said = await runBuilt(['customer', 'say', 'Where is my order?'], { env: env() });
    expect(said.code).toBe(0);
    expect(said.stdout).toContain('| You said: Where is my order? |');
    expect(said.stdout).toContain('+--');
    expectAsciiRun(said, 'core customer say (built binary)');
    const pressed = await runInProcess(['customer', 'press', 'Talk to a person', '--session', 'last'], { env: env() });
    expect(pressed.code).toBe(0);
    expect(pressed.stdout).toContain('-> the thread is now with agents');
    expectAsciiRun(pressed, 'core customer press');
  });

  it("core test's and core check-bot's reports", async () => {
    // A step waits for its answer up to a limit that only catches a hang: the failing one fails at
    // the first answer that does not match, the passing one ends at its answer.
    const timeout = `${Math.ceil(hangLimit(30_000) / 1000)}s`;
    const argv = ['test', join(dir, 'passes.yaml'), join(dir, 'fails.yaml'), '--sandbox', userEnv.CORE_BASE_URL!, '--timeout', timeout];
    const tested = await runInProcess(argv, { env: env() });
    const output = `core test's output:\n${tested.stdout}${tested.stderr}`;
    expect(tested.code, output).toBe(3);
    expect(tested.stdout, output).toMatch(/^ok echoes /m);
    expect(tested.stdout, output).toMatch(/^x expects another text /m);
    expectAsciiRun(tested, 'core test');
    const checked = await runInProcess(['check-bot', '--sandbox', userEnv.CORE_BASE_URL!, '--only', 'answers', 'replay'], { env: env() });
    expectAsciiRun(checked, 'core check-bot');
  });

  // In a tenant of its own: a request the sandbox refuses that names no conversation (the reason NOPE
  // below), made while deliveries of its tenant are in flight, is counted against them (docs/sandbox.md,
  // "Refusals during a delivery"), and core test fails every step then waiting (docs/testing-bots.md).
  it('core reply, a refused one, and a reason batch', async () => {
    const env = () => ({ ...userEnv, ...locale, XDG_STATE_HOME: join(dir, 'state', name), CORE_TENANT: 'apart' });
    const sent = await runInProcess(['reply', '--core-client-id', '42', '-t', 'Hello'], { env: env() });
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/^ok 200 OK /m);
    expectAsciiRun(sent, 'core reply');
    const invalid = await runInProcess(['reply', '--core-client-id', '42', '-t', 'x', '--quick-reply', 'q'.repeat(4001)], { env: env() });
    expect(invalid.code).toBe(2);
    expectAsciiRun(invalid, 'core reply (invalid)');
    const batch = await runInProcess(['reason', 'update', '-f', join(dir, 'reasons.ndjson')], { env: env() });
    expectAsciiRun(batch, 'core reason update -f');
    const valid = await runInProcess(['reason', 'update', '-f', '-'], {
      env: env(),
      stdin: '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}]}\n{"code":"NOPE","reasons":[{"locale":"en","name":"Nope"}]}\n',
    });
    expect(valid.stdout).toMatch(/^ok 200 /m);
    expect(`${valid.stdout}${valid.stderr}`).toMatch(/^x 404 /m);
    expectAsciiRun(valid, 'core reason update -f (sent)');
  });

  it('core config show, core config check, core doctor and the help', async () => {
    for (const argv of [
      ['config', 'show'],
      ['config', 'check'],
      ['doctor'],
      ['help'],
      ['--help'],
      ['sandbox', '--help'],
      ['help', 'environment'],
      [],
    ]) {
      const run = await runInProcess(argv, { env: env(), cwd: dir });
      expectAsciiRun(run, `core ${argv.join(' ')}`);
    }
    const doctor = await runInProcess(['doctor'], { env: env(), cwd: dir });
    expect(doctor.stdout).toMatch(/^ok node /m);
  });
});

describe('human output under a UTF-8 locale', () => {
  it('draws the Unicode glyphs, so the checks above can fail', async () => {
    const env = { ...userEnv, LC_ALL: 'C.UTF-8' };
    const said = await runBuilt(['customer', 'say', 'Where is my order?'], { env });
    expect(said.stdout).toContain('│ You said: Where is my order? │');
    const doctor = await runInProcess(['doctor'], { env, cwd: dir });
    expect(doctor.stdout).toMatch(/^✓ node /m);
    expect(() => expectAscii(doctor.stdout, 'core doctor')).toThrow(/byte above 0x7F/);
  });
});
