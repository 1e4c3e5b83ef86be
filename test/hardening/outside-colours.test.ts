import { describe, expect, it, onTestFinished } from 'vitest';
import { main } from '../../src/main.js';
import { neutralize, outsideValue, plainText, printable } from '../../src/output/terminal.js';
import { parseJson } from '../../src/payload/json.js';
import { startRecordingServer, type RecordedRequest } from '../helpers/recording-server.js';
import { baseEnv, emptyHome, runInProcess } from '../helpers/run.js';
import { memoryStreams } from '../helpers/streams.js';
import { happens } from '../helpers/wait.js';
import { call, paths, replyBody, sandbox, type TestSandbox } from '../sandbox/helpers.js';

/**
 * Colour from outside (docs/security.md, "Hostile input"): SGR sequences in a bot's text, a button's
 * label, an answerId or a reason code are shown escaped, in `core customer say` and in the sandbox's
 * log alike; only core's own styling reaches the terminal as escapes. Before, the last guard let
 * every colour through, core's or not: black text, dim text.
 */

const BLACK = '\u001b[30m';
const DIM = '\u001b[2m';
const HIDDEN = '\u001b[8m';
const RED = '\u001b[31m';
const RESET = '\u001b[0m';
// eslint-disable-next-line no-control-regex
const ESCAPE = /\u001b/;

describe('the functions that make outside text plain (src/output/terminal.ts)', () => {
  it.each([
    ['black', `${BLACK}x`],
    ['dim', `${DIM}x`],
    ['red, a colour core uses itself', `${RED}x${RESET}`],
    ['hidden', `${HIDDEN}x`],
    ['a window title', '\u001b]0;pwned\u0007x'],
  ])('plainText and outsideValue escape %s and keep line breaks and tabs', (_name, hostile) => {
    const text = `line one\n\t${hostile}`;
    expect(plainText(text)).not.toMatch(ESCAPE);
    expect(plainText(text)).toContain('line one\n\t\\u001b');
    expect(outsideValue({ a: [text, 1n, null, true], [hostile]: 2 })).toEqual({
      a: [plainText(text), 1n, null, true],
      [plainText(hostile)]: 2,
    });
    expect(printable(text)).toBe(`line one\\n\\t${plainText(hostile)}`);
  });

  it.each([
    ['black (30)', false, BLACK],
    ['white (37)', false, '\u001b[37m'],
    ['bright white (97)', false, '\u001b[97m'],
    ['hidden (8)', false, HIDDEN],
    ['red (31), which core uses', true, RED],
    ['cyan (36), which core uses', true, '\u001b[36m'],
    ['dim (2), which core uses', true, DIM],
    ['gray (90), which core uses', true, '\u001b[90m'],
    ['the reset of the foreground (39), which core uses', true, '\u001b[39m'],
  ])('the last guard keeps %s as colour: %s', (_name, kept, sequence) => {
    expect(neutralize(`${sequence}x`) === `${sequence}x`).toBe(kept);
  });
});

interface Message {
  questionId: bigint;
}

describe('core customer say, with a bot that answers in colour', () => {
  it('shows the text, the buttons and the answerId escaped, with or without colour of its own', async () => {
    let sb!: TestSandbox;
    let answers = 0;
    const bot = await startRecordingServer((request: RecordedRequest) => {
      const { message } = parseJson(request.text) as { message: Message };
      const answered = call(sb, paths.reply, {
        body: replyBody({
          coreClientId: undefined,
          questionId: message.questionId,
          answerId: `${BLACK}answer-${(answers += 1)}`,
          text: `${BLACK}black${RESET} and ${DIM}dim${RESET} and ${RED}red${RESET}`,
          quickReplies: [{ type: 'TEXT', text: `${HIDDEN}Yes`, shown_text: 'yes' }],
        }),
      });
      return { status: 200, until: answered };
    });
    onTestFinished(() => bot.close());
    sb = await sandbox({ botUrl: `${bot.url}/webhook`, webhookBackoffMs: 0 });
    for (const colour of [{ FORCE_COLOR: '1' }, { NO_COLOR: '1' }]) {
      const run = await runInProcess(['customer', 'say', 'Hello'], { env: baseEnv({ CORE_BASE_URL: sb.url, ...colour }) });
      expect(run.code).toBe(0);
      // Every escape the bot sent is shown as text; what is left raw is core's own styling.
      const withoutCore = (run.stdout + run.stderr).replace(/\u001b\[(?:0|1|2|22|3[1-69]|9[0-6])m/g, '');
      expect(withoutCore).not.toMatch(ESCAPE);
      expect(run.stdout).toContain('\\u001b[30mblack\\u001b[0m and \\u001b[2mdim\\u001b[0m and');
      expect(run.stdout).toContain('\\u001b[31mred\\u001b[0m');
      expect(run.stdout).toContain('\\u001b[8mYes');
      if (colour.NO_COLOR) expect(run.stdout + run.stderr).not.toMatch(ESCAPE);
    }
  });
});

describe("the sandbox's log on stderr (core sandbox)", () => {
  it('shows a reason code and an answerId in colour escaped', async () => {
    const io = memoryStreams({});
    io.streams.stdin.end();
    const controller = new AbortController();
    const exit = main({
      argv: ['sandbox', '--port', '0'],
      streams: io.streams,
      // A home of its own: the sandbox keeps its webhook secret there.
      env: { FORCE_COLOR: '1', HOME: emptyHome() },
      cwd: process.cwd(),
      signal: controller.signal,
    });
    const url = await happens(
      (async () => {
        for (;;) {
          const found = /^export CORE_BASE_URL=(\S+)$/m.exec(io.stdout());
          if (found) return found[1]!;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })(),
      'the sandbox printed its base URL',
      60_000,
    );
    try {
      const target = { url };
      const updated = await call(target, paths.reasons, {
        method: 'PUT',
        body: { code: `${BLACK}LUNCH`, reasons: [{ locale: 'en', name: 'Lunch' }] },
      });
      // An unknown reason: refused, and logged with its code.
      expect(updated.status).toBe(404);
      const sent = await call(target, paths.reply, { body: replyBody({ answerId: `${DIM}from-bot` }) });
      expect(sent.status).toBeLessThan(500);
      await happens(
        (async () => {
          while (!io.stderr().includes('from-bot')) await new Promise((resolve) => setImmediate(resolve));
        })(),
        'the sandbox logged the reply',
        60_000,
      );
    } finally {
      controller.abort('SIGINT');
      await exit;
    }
    const log = io.stderr();
    expect(log).toContain('code=\\u001b[30mLUNCH');
    expect(log).toContain('\\u001b[2mfrom-bot');
    expect(log.replace(/\u001b\[(?:0|1|2|22|3[1-69]|9[0-6])m/g, '')).not.toMatch(ESCAPE);
  });
});
