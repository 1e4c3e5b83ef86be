import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { call, replyBody, type TestSandbox } from '../sandbox/helpers.js';
import { botProcess } from './bot-process.js';
import { platform, reply, testFolder, type Message } from './platform.js';

/**
 * `core test` end to end when the sandbox refuses the bot's API requests (docs/testing-bots.md, "How a
 * conversation runs"): a bot step fails at once, naming the status and the sandbox's message. A
 * refusal tied to the conversation (the body named its question) fails that conversation; one the
 * sandbox could tie to none (an unknown questionId, an unknown tenant) fails every conversation still
 * waiting for an answer, marked "not tied to a conversation".
 *
 * Every run is given --timeout 10m: a step that waited for its time limit would hang the test (and
 * the test's own time-out would catch it), so each test ending at all shows that the refusal ended
 * the wait. Nothing is timed.
 */

const LONG = ['--timeout', '10m'];

interface JsonConversation {
  name: string;
  outcome: string;
  failure: { step: number | null; message: string } | null;
}

const conversationsOf = (stdout: string) =>
  (JSON.parse(stdout) as { files: { conversations: JsonConversation[] }[] }).files.flatMap((file) => file.conversations);

describe('core test fails a bot step at once on a refused request of the bot', () => {
  it('a wrong token on an answer naming the question: the step fails with 401 and the sandbox message, tied to the conversation', async () => {
    // The bot process answers "wrong token" with a token the sandbox does not know, naming the questionId.
    const { sb, env } = await botProcess();
    const folder = testFolder({ 'token.yaml': 'steps:\n  - customer: wrong token\n  - bot: {}\n' });
    const result = await runInProcess(['test', 'token.yaml', '--sandbox', sb.url, ...LONG], { env, cwd: folder });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('✗ token (token.yaml)\n  step 2, line 3 (bot), conversation s-');
    expect(result.stdout).toContain(
      '  the sandbox refused a request of the bot: POST /api/v1/chatbot answered 401: invalid bearer token\n',
    );
    expect(result.stdout).not.toContain('not tied');
    expect(result.stdout).not.toContain('no answer from the bot');
  });

  it('an answer naming a questionId the sandbox does not have, sent while its delivery is the only one in flight: the step fails with 404, tied to that conversation', async () => {
    const unknown = (message: Message, sb: TestSandbox) => reply(sb, message, { questionId: 99n });
    const { sb, env } = await platform(unknown);
    const folder = testFolder({ 'unknown.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' });
    const result = await runInProcess(['test', 'unknown.yaml', '--sandbox', sb.url, ...LONG], { env, cwd: folder });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('  step 2, line 3 (bot), conversation s-');
    // The bot answers inside its webhook handler: the delivery is in flight, so the refusal is its exchange's.
    expect(result.stdout).toContain(
      "  the bot's answer was not delivered (404: unknown question): no question with questionId 99 in tenant 'sandbox'",
    );
    expect(result.stdout).not.toContain('not tied');
  });
});

/**
 * The untied refusals, each sent once while three conversations wait for their bot's answer and a
 * fourth has had its own: `send` is what the bot posts, given a message of a waiting conversation.
 */
const UNTIED: { name: string; message: RegExp; send: (sb: TestSandbox, message: Message) => Promise<unknown> }[] = [
  {
    name: 'an unknown questionId (404)',
    message:
      /^the bot's answer \(not tied to a conversation\) was not delivered \(404: unknown question\): no question with questionId 99 /,
    send: (sb, message) => reply(sb, message, { questionId: 99n }),
  },
  {
    name: 'a tenant the sandbox does not have (403)',
    message:
      /^the sandbox refused a request of the bot \(not tied to a conversation\): POST \/api\/v1\/chatbot answered 403: tenant 'elsewhere' is not served here .*\(it named questionId \d+\)$/,
    // It names a real question, but of no tenant served here: the refusal is sandbox-wide.
    send: (sb, message) =>
      call(sb, '/api/v1/chatbot', { tenant: 'elsewhere', body: replyBody({ coreClientId: undefined, questionId: message.questionId }) }),
  },
];

describe('core test with several conversations at once', () => {
  it.each(UNTIED)(
    'reports $name in every conversation still waiting, marked not tied, and not in one already answered',
    async ({ message, send }) => {
      const waiting: Message[] = [];
      let answered = false;
      let sent: Promise<unknown> | undefined;
      let release!: () => void;
      const acknowledged = new Promise<void>((resolve) => (release = resolve));
      // The refusal goes once the three waiting conversations have sent their message and the fourth has its answer;
      // each webhook is acknowledged only then, so all four are in flight together: a refusal made during
      // several deliveries stays tied to none.
      const bot = async (received: Message, sb: TestSandbox) => {
        if (received.text === 'answer me') {
          await reply(sb, received);
          answered = true;
        } else waiting.push(received);
        if (waiting.length === 3 && answered) sent ??= send(sb, waiting[0]!).finally(release);
        await acknowledged;
      };
      const { sb, env } = await platform(bot);
      const conversation = (name: string, text: string) => `  - name: ${name}\n    steps:\n      - customer: ${text}\n      - bot: {}\n`;
      const folder = testFolder({
        'many.yaml': `conversations:\n${conversation('one', 'Hi')}${conversation('two', 'Hi')}${conversation('three', 'Hi')}${conversation('answered', 'answer me')}`,
      });
      const result = await runInProcess(['test', 'many.yaml', '--sandbox', sb.url, '--concurrency', '4', '--reporter', 'json', ...LONG], {
        env,
        cwd: folder,
      });
      expect(result.code).toBe(3);
      const conversations = conversationsOf(result.stdout);
      expect(conversations.map((c) => [c.name, c.outcome])).toEqual([
        ['one', 'failed'],
        ['two', 'failed'],
        ['three', 'failed'],
        ['answered', 'passed'],
      ]);
      for (const failed of conversations.slice(0, 3)) {
        expect(failed.failure?.step).toBe(2);
        expect(failed.failure?.message).toMatch(message);
      }
    },
  );
});
