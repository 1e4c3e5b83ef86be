import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LAST_SESSIONS_FILE } from '../../src/customer/last-session.js';
import { choose } from '../../src/customer/choose.js';
import { parseJson } from '../../src/payload/json.js';
import { startRecordingServer, type RecordedRequest, type ScriptedAnswer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { call, replyBody, sandbox, type TestSandbox } from '../sandbox/helpers.js';

/**
 * `core customer say` and `press` against an in-process sandbox and a bot on loopback (the recording
 * server, answering the API from its webhook handler as the script says). The wait ends on events,
 * never on the clock, except where --wait itself is what is tested.
 */

interface Message {
  questionId: bigint;
  questionIndex: bigint;
  sessionId: string;
  text: string;
  type: string;
}

const messageOf = (request: RecordedRequest) => (parseJson(request.text) as { message: Message }).message;

/**
 * A sandbox delivering to a bot whose webhook handler does what `handle` says with each customer
 * message: a scripted answer at once, or a promise (the bot's own API calls) after which it answers 200.
 */
async function platform(
  handle: (message: Message, sb: TestSandbox) => ScriptedAnswer | Promise<unknown>,
  options: Parameters<typeof sandbox>[0] = {},
) {
  let sb!: TestSandbox;
  const bot = await startRecordingServer((request) => {
    const handled = handle(messageOf(request), sb);
    return handled instanceof Promise ? { status: 200, until: handled } : handled;
  });
  onTestFinished(() => bot.close());
  sb = await sandbox({ botUrl: `${bot.url}/webhook`, webhookBackoffMs: 0, ...options });
  return { sb, bot, env: baseEnv({ CORE_BASE_URL: sb.url }) };
}

/** The bot answers the question through the API, addressed as chatbot rule 2 wants. */
const reply = (sb: TestSandbox, message: Message, extra: Record<string, unknown> = {}) =>
  call(sb, '/api/v1/chatbot', {
    body: replyBody({
      coreClientId: undefined,
      ...(message.type === 'EMAIL'
        ? { sessionId: message.sessionId, questionIndex: message.questionIndex }
        : { questionId: message.questionId }),
      text: `You said: ${message.text}`,
      ...extra,
    }),
  });

const echo = (message: Message, sb: TestSandbox) =>
  reply(sb, message, { quickReplies: [{ type: 'TEXT', text: 'Talk to a person', shown_text: 'I want a person' }] });

describe('core customer say', () => {
  it("starts a conversation, prints its sessionId on stderr and the bot's answer as a preview on stdout, exit 0", async () => {
    const { env } = await platform(echo);
    const result = await runInProcess(['customer', 'say', 'Where is my order?'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^started conversation (s-[0-9a-f]{12}) \(WEB, coreClientId 1001, tenant sandbox\); go on with --session \1$/m,
    );
    expect(result.stderr).toMatch(/webhook msg_\S+ attempt 1: 200 in \d+ ms, delivered/);
    expect(result.stdout).toContain('Bot · answer to question 1 · SUCCESS');
    expect(result.stdout).toContain('│ You said: Where is my order? │');
    expect(result.stdout).toContain('│ Talk to a person │');
  });

  it('goes on in a conversation with --session, and numbers the questions', async () => {
    const { env, sb } = await platform(echo);
    const first = await runInProcess(['customer', 'say', 'One', '--json'], { env });
    const sessionId = (parseJson(first.stdout) as { sessionId: string }).sessionId;
    const second = await runInProcess(['customer', 'say', 'Two', '--session', sessionId, '--json'], { env });
    expect(second.code).toBe(0);
    expect(parseJson(second.stdout)).toMatchObject({ sessionId, question: { questionIndex: 2n, text: 'Two' } });
    expect(second.stderr).not.toContain('started conversation');
    expect(sb.conversation(sessionId)?.questions).toBe(2);
  });

  it('prints one JSON document with --json: the question, the webhook attempts and the answers', async () => {
    const { env } = await platform(echo);
    const result = await runInProcess(['customer', 'say', 'Hi', '--channel', 'email', '--client-id', 'alice@example.com', '--json'], {
      env,
    });
    expect(result.code).toBe(0);
    const document = parseJson(result.stdout) as Record<string, unknown>;
    expect(document).toMatchObject({
      ok: true,
      tenant: 'sandbox',
      question: { questionIndex: 1n, type: 'EMAIL', text: 'Hi', deliveryId: expect.stringMatching(/^msg_/), noWebhook: null },
      delivery: { outcome: 'delivered', attempts: [{ attempt: 1n, status: 200n, outcome: 'delivered' }] },
      answers: [{ type: 'bot.answer', delivered: true, addressedBy: ['sessionId+questionIndex'], body: { text: 'You said: Hi' } }],
      handovers: [],
      error: null,
    });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('takes every answer the bot sends for one message, in order', async () => {
    const { env } = await platform(async (message, sb) => {
      await reply(sb, message, { text: 'First', answerId: `${message.questionId}-1` });
      await reply(sb, message, { text: 'Second', answerId: `${message.questionId}-2` });
    });
    const result = await runInProcess(['customer', 'say', 'Hi', '--json'], { env });
    expect((parseJson(result.stdout) as { answers: { body: { text: string } }[] }).answers.map((a) => a.body.text)).toEqual([
      'First',
      'Second',
    ]);
  });

  it('takes an answer the bot sends after it has acknowledged the webhook', async () => {
    const { env } = await platform((message, sb) => {
      // Answer once the webhook's 200 is recorded, as a bot that acknowledges first and works after.
      const stop = sb.subscribe((event) => {
        if (event.type !== 'webhook.attempt' || event.questionId !== message.questionId || event.outcome !== 'delivered') return;
        stop();
        void reply(sb, message, { text: 'Later' });
      });
      return { status: 200 };
    });
    const result = await runInProcess(['customer', 'say', 'Hi', '--json'], { env });
    expect(result.code).toBe(0);
    const document = parseJson(result.stdout) as {
      answers: { seq: bigint; body: { text: string } }[];
      delivery: { attempts: { seq: bigint }[] };
    };
    expect(document.answers.map((a) => a.body.text)).toEqual(['Later']);
    expect(document.answers[0]!.seq > document.delivery.attempts[0]!.seq).toBe(true);
  });

  it('shows the hand-over and its targets', async () => {
    const { env } = await platform(async (message, sb) => {
      await reply(sb, message, { text: 'Passing you on', code: 'SWITCH_TO_HUMAN', skillIds: [12n], unitIds: [3n] });
    });
    const result = await runInProcess(['customer', 'say', 'A person, please'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('→ the thread is now with agents (SWITCH_TO_HUMAN; skills 12, units 3)');
  });

  it('exits 6 when the thread is with an agent who writes nothing within --wait, naming how to answer or give it back', async () => {
    const { env, sb } = await platform((message, sbx) => reply(sbx, message, { code: 'SWITCH_TO_HUMAN' }));
    const first = await runInProcess(['customer', 'say', 'A person', '--json'], { env });
    const sessionId = (parseJson(first.stdout) as { sessionId: string }).sessionId;
    const result = await runInProcess(['customer', 'say', 'Hello?', '--session', sessionId, '--wait', '300ms'], { env });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      'error: no answer from the bot or an agent within 300ms: the thread is with agents, so no webhook was sent',
    );
    expect(result.stderr).toContain('the thread is with agent 101');
    expect(result.stderr).toContain(`/_sandbox/conversations/${sessionId}/release`);
    expect(sb.conversation(sessionId)?.questions).toBe(2);
  });

  it('exits 6 when the bot acknowledges but does not answer within --wait', async () => {
    const { env } = await platform(() => ({ status: 200 }));
    const result = await runInProcess(['customer', 'say', 'Anyone?', '--wait', '200ms', '--json'], { env });
    expect(result.code).toBe(6);
    expect(parseJson(result.stdout)).toMatchObject({
      ok: false,
      answers: [],
      delivery: { outcome: 'delivered' },
      error: { code: 'ENOANSWER' },
    });
    expect(result.stderr).toContain('error: no answer from the bot within 200ms');
  });

  it('exits 130 when interrupted while it waits (Ctrl-C)', async () => {
    const { env, sb } = await platform(() => ({ status: 200 }));
    const controller = new AbortController();
    const stop = sb.subscribe((event) => {
      if (event.type === 'webhook.attempt') {
        stop();
        controller.abort('SIGINT');
      }
    });
    const result = await runInProcess(['customer', 'say', 'Hi', '--wait', '10m'], { env, signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted while waiting for the bot');
  });

  it('exits 6 at once when the webhook fails for good and no answer came', async () => {
    const { env } = await platform(() => ({ status: 500 }), { webhookRetries: 1 });
    const result = await runInProcess(['customer', 'say', 'Hi', '--wait', '10m'], { env });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('the webhook was not delivered after 2 attempts (last: status 500), and no answer came');
  });

  it.each([401, 403])('stops at the first delivery the bot answers %s, with one diagnosis: the secret, not the retries', async (status) => {
    const { env, sb } = await platform(() => ({ status }), { webhookRetries: 3, webhookBackoffMs: 60_000 });
    const result = await runInProcess(['customer', 'say', 'Hi', '--wait', '10m', '--json'], { env });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      `error: the bot refuses the sandbox's signature: it answered the delivery ${status}, so it will refuse every retry of it too`,
    );
    expect(result.stderr).toContain('hint: does the bot verify with the secret the sandbox signs with?');
    const document = JSON.parse(result.stdout) as { delivery: { attempts: unknown[] } };
    expect(document.delivery.attempts).toHaveLength(1);
    expect(sb.events().filter((event) => event.type === 'webhook.attempt')).toHaveLength(1);
  });

  it('shows an answer the sandbox refused, with why, and exits 6: it did not reach the customer', async () => {
    const { env } = await platform((message, sb) =>
      reply(sb, message, { questionId: undefined, sessionId: message.sessionId, questionIndex: 7n }),
    );
    const result = await runInProcess(['customer', 'say', 'Hi', '--wait', '10m'], { env });
    expect(result.code).toBe(6);
    expect(result.stdout).toContain('NOT DELIVERED (404: unknown question)');
    expect(result.stdout).toContain('has no question with questionIndex 7');
    expect(result.stderr).toMatch(
      /^error: the sandbox refused the bot's POST \/api\/v1\/chatbot: 404 Not Found: thread 's-\w+' has no question with questionIndex 7/m,
    );
    expect(result.stderr).toContain('hint: the bot must answer the question of the MESSAGE webhook it received');
    expect(result.stderr).not.toContain('wait longer');
  });

  it('waits for an answer sent some other way when no bot is connected, and warns', async () => {
    const sb = await sandbox();
    const env = baseEnv({ CORE_BASE_URL: sb.url });
    const answered = new Promise<void>((resolve) => {
      const stop = sb.subscribe((event) => {
        if (event.type !== 'customer.message') return;
        stop();
        void call(sb, '/api/v1/chatbot', {
          body: replyBody({ coreClientId: undefined, questionId: event.questionId, text: 'By hand' }),
        }).then(() => resolve());
      });
    });
    const result = await runInProcess(['customer', 'say', 'Hi', '--json'], { env });
    await answered;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('warning: no webhook sent: no bot is connected');
    expect((parseJson(result.stdout) as { delivery: unknown }).delivery).toBeNull();
  });

  it.each([
    ['im', 'IM'],
    ['IM', 'IM'],
    ['Im', 'IM'],
    ['web', 'WEB'],
    ['eMaIl', 'EMAIL'],
  ])('takes --channel %s in any case, as the channel %s', async (name, channel) => {
    const { env, sb } = await platform(echo);
    const result = await runInProcess(['customer', 'say', 'Hi', '--channel', name, '--json'], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(`(${channel}, coreClientId`);
    const { sessionId } = parseJson(result.stdout) as { sessionId: string };
    expect(sb.conversation(sessionId)?.channel).toBe(channel);
  });

  it.each([
    { argv: ['--session', 's-1', '--channel', 'im'], message: '--channel starts a new conversation, and --session continues one' },
    { argv: ['--channel', 'sms'], message: '--channel: "sms" is not a channel: use WEB, IM or EMAIL (in any case)' },
    { argv: ['--channel', 'ım'], message: '--channel: "ım" is not a channel: use WEB, IM or EMAIL (in any case)' },
    { argv: ['--channel', ''], message: '--channel: "" is not a channel: use WEB, IM or EMAIL (in any case)' },
    { argv: ['--wait', 'soon'], message: '--wait: invalid duration "soon"' },
    { argv: ['--core-client-id', '9223372036854775808'], message: "--core-client-id: '9223372036854775808' is not an identifier" },
    { argv: ['--session', 's-1', '--client-id', 'x'], message: '--client-id and --core-client-id name the client of a new conversation' },
  ])('exits 2 for $argv', async ({ argv, message }) => {
    const sb = await sandbox();
    const result = await runInProcess(['customer', 'say', 'Hi', ...argv], { env: baseEnv({ CORE_BASE_URL: sb.url }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stdout).toBe('');
    expect(sb.events()).toEqual([]);
  });

  it.each([
    ['say', 'Hi'],
    ['press', 'Yes', '--session', 's-1'],
  ])('exits 2 naming where it looked when there is no base URL, and says to start core sandbox (customer %s)', async (...argv) => {
    const result = await runInProcess(['customer', ...argv]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing base URL');
    expect(result.stderr).toContain('CORE_BASE_URL');
    expect(result.stderr).toContain(
      'hint: start a sandbox in another shell with core sandbox (or core sandbox --bot-url URL of your bot) and run the export lines it prints, ' +
        'which set CORE_BASE_URL; or pass --base-url with the address of a running one',
    );
    expect(result.stderr).not.toContain('config init');
  });

  it("exits 4 with the sandbox's message when it refuses, and with --json prints the refusal", async () => {
    const sb = await sandbox();
    const env = baseEnv({ CORE_BASE_URL: sb.url });
    const result = await runInProcess(['customer', 'say', 'Hi', '--session', 's-nope'], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("error: the sandbox refused conversation s-nope (404): no conversation with sessionId 's-nope'");
    const json = await runInProcess(['customer', 'say', 'Hi', '--session', 's-nope', '--json'], { env });
    expect(parseJson(json.stdout)).toMatchObject({ ok: false, status: 404n, error: { message: expect.stringContaining('s-nope') } });
  });

  it.each([
    {
      name: "answers 404 to the sandbox's paths",
      answer: { status: 404, headers: { 'Content-Type': 'application/json' }, body: '{"message":"no such path: /_sandbox/conversations"}' },
    },
    { name: 'answers 200 where the sandbox answers 201', answer: { status: 200 } },
  ])('exits 4 with a hint when the base URL is not a sandbox: it $name', async ({ answer }) => {
    const service = await startRecordingServer([answer]);
    onTestFinished(() => service.close());
    const result = await runInProcess(['customer', 'say', 'Hi'], { env: baseEnv({ CORE_BASE_URL: service.url }) });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('hint: is CORE_BASE_URL a core sandbox?');
  });

  it('exits 6 when nothing listens at the base URL', async () => {
    const gone = await startRecordingServer();
    await gone.close();
    const result = await runInProcess(['customer', 'say', 'Hi'], { env: baseEnv({ CORE_BASE_URL: gone.url }) });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('no answer from the sandbox at');
  });

  it.each([
    { name: 'say', argv: ['say', 'Hi'], session: {} },
    { name: 'say --session', argv: ['say', 'Hi', '--session', 's-1'], session: { sessionId: 's-1' } },
    { name: 'press', argv: ['press', 'Yes', '--session', 's-1'], session: { sessionId: 's-1' } },
  ])('with --json, $name prints one document when nothing listens at the base URL, and exits 6', async ({ argv, session }) => {
    const gone = await startRecordingServer();
    await gone.close();
    const result = await runInProcess(['customer', ...argv, '--json'], { env: baseEnv({ CORE_BASE_URL: gone.url }) });
    expect(result.code).toBe(6);
    expect(parseJson(result.stdout)).toEqual({
      ok: false,
      ...session,
      status: null,
      error: { code: 'ECONNREFUSED', message: expect.stringContaining('no answer from the sandbox at') },
    });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe("core customer say and press, when the sandbox refuses the bot's request", () => {
  // A wrong token on an answer naming a question the sandbox does not have: nothing in the body
  // names this conversation, but it comes while this conversation's delivery is with the bot (the
  // only one in flight), so it is tied to this exchange (docs/sandbox.md, "Refusals during a delivery").
  const wrongToken = (_message: Message, sb: TestSandbox) =>
    call(sb, '/api/v1/chatbot', { token: 'not-the-token', body: replyBody({ coreClientId: undefined, questionId: 987654321n }) });
  // The same wrong token on an answer naming the question: tied to the conversation.
  const wrongTokenTied = (message: Message, sb: TestSandbox) =>
    call(sb, '/api/v1/chatbot', { token: 'not-the-token', body: replyBody({ coreClientId: undefined, questionId: message.questionId }) });
  const tooLongButton = (message: Message, sb: TestSandbox) =>
    reply(sb, message, { quickReplies: [{ type: 'TEXT', text: 'x'.repeat(4001) }] });

  // --wait 10m throughout: each of these ends on the refusal, long before --wait, or hangs (and the
  // test's own time limit catches it).
  it.each([
    {
      name: 'a refusal tied to the conversation (400: a quick reply of 4,001 characters)',
      bot: tooLongButton,
      line: /^error: the sandbox refused the bot's POST \/api\/v1\/chatbot: 400 Bad Request: .*quickReplies\[0\]\.text.*4,001/m,
      untied: false,
      hint: /^hint: the bot's request breaks a rule of the API/m,
    },
    {
      name: 'a refusal tied to the conversation (401: a wrong token on an answer naming the question)',
      bot: wrongTokenTied,
      line: /^error: the sandbox refused the bot's POST \/api\/v1\/chatbot: 401 Unauthorized: .+$/m,
      untied: false,
      hint: /^hint: the bot must send Authorization: Bearer with the sandbox's token/m,
    },
    {
      name: 'a refusal tied by the one delivery in flight (401: a wrong token on an answer naming an unknown question)',
      bot: wrongToken,
      line: /^error: the sandbox refused the bot's POST \/api\/v1\/chatbot: 401 Unauthorized: invalid bearer token$/m,
      untied: false,
      hint: /^hint: the bot must send Authorization: Bearer with the sandbox's token/m,
    },
  ])('stops at once on $name: the status and message, exit 6, no advice to wait longer', async ({ bot, line, untied, hint }) => {
    const { env } = await platform(bot);
    const result = await runInProcess(['customer', 'say', 'Hi', '--wait', '10m'], { env });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(line);
    expect(result.stderr).toMatch(hint);
    expect(result.stderr).not.toMatch(/wait longer|--wait/);
    expect(result.stderr.includes('not tied to a conversation')).toBe(untied);
  });

  it('carries the refused requests and the sessionId in --json', async () => {
    const { env } = await platform(wrongToken);
    const result = await runInProcess(['customer', 'say', 'Hi', '--wait', '10m', '--json'], { env });
    expect(result.code).toBe(6);
    const document = parseJson(result.stdout) as { sessionId: string; refused: unknown[] };
    expect(document).toMatchObject({
      ok: false,
      sessionId: expect.stringMatching(/^s-/),
      answers: [],
      refused: [{ type: 'api.request', method: 'POST', path: '/api/v1/chatbot', status: 401n, sessionId: document.sessionId }],
      error: { code: 'EBOTREFUSED', message: expect.stringContaining('401 Unauthorized') },
    });
    expect(document.refused).toHaveLength(1);
  });

  it('stops on a refusal in press too', async () => {
    let calls = 0;
    const { env } = await platform((message, sb) => {
      calls += 1;
      return calls === 1 ? reply(sb, message, { quickReplies: [{ type: 'TEXT', text: 'Yes' }] }) : wrongToken(message, sb);
    });
    const first = await runInProcess(['customer', 'say', 'Hi', '--json'], { env });
    expect(first.code).toBe(0);
    const result = await runInProcess(['customer', 'press', 'Yes', '--session', 'last', '--wait', '10m'], { env });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/401 Unauthorized: invalid bearer token$/m);
  });

  it('takes a refusal the bot caused after its answer but while its delivery was still with it: the one delivery in flight was this one', async () => {
    const { env } = await platform(async (message, sb) => {
      await echo(message, sb);
      await wrongToken(message, sb);
    });
    const result = await runInProcess(['customer', 'say', 'Hi', '--json'], { env });
    expect(result.code).toBe(6);
    const document = parseJson(result.stdout) as { sessionId: string };
    expect(document).toMatchObject({ ok: false, refused: [{ status: 401n, sessionId: document.sessionId }] });
  });

  it("takes no refusal of another tenant's request", async () => {
    const { env } = await platform(
      async (message, sb) => {
        await call(sb, '/api/v1/chatbot', { tenant: 'globex', token: 'not-the-token', body: replyBody({ coreClientId: undefined }) });
        await call(sb, '/api/v1/chatbot', { tenant: 'acme', body: replyBody({ coreClientId: undefined, questionId: message.questionId }) });
      },
      { tenants: ['acme', 'globex'] },
    );
    const result = await runInProcess(['customer', 'say', 'Hi', '--json'], { env: { ...env, CORE_TENANT: 'acme' } });
    expect(result.code).toBe(0);
    expect(parseJson(result.stdout)).toMatchObject({ ok: true, refused: [] });
  });
});

describe('core customer --session last', () => {
  it('goes on in the conversation say last started against the base URL, in say and in press', async () => {
    const { env, sb } = await platform(echo);
    const first = await runInProcess(['customer', 'say', 'One', '--json'], { env });
    const sessionId = (parseJson(first.stdout) as { sessionId: string }).sessionId;
    const second = await runInProcess(['customer', 'say', 'Two', '--session', 'last', '--json'], { env });
    expect(second.code).toBe(0);
    expect(parseJson(second.stdout)).toMatchObject({ sessionId, question: { questionIndex: 2n } });
    const third = await runInProcess(['customer', 'press', 'Talk to a person', '--session', 'last', '--json'], { env });
    expect(third.code).toBe(0);
    expect(parseJson(third.stdout)).toMatchObject({ sessionId, question: { questionIndex: 3n } });
    expect(sb.conversation(sessionId)?.questions).toBe(3);
  });

  it('keeps one conversation per base URL: another sandbox has its own last', async () => {
    const one = await platform(echo);
    const two = await platform(echo);
    const env = (url: string) => ({ ...one.env, CORE_BASE_URL: url });
    const started = async (url: string) =>
      (parseJson((await runInProcess(['customer', 'say', 'Hi', '--json'], { env: env(url) })).stdout) as { sessionId: string }).sessionId;
    const first = await started(one.sb.url);
    const second = await started(`${two.sb.url}/`);
    const again = await runInProcess(['customer', 'say', 'More', '--session', 'last', '--json'], { env: env(`${one.sb.url}/`) });
    expect(parseJson(again.stdout)).toMatchObject({ sessionId: first });
    const other = await runInProcess(['customer', 'say', 'More', '--session', 'last', '--json'], { env: env(two.sb.url) });
    expect(parseJson(other.stdout)).toMatchObject({ sessionId: second });
  });

  it.each([
    { name: 'XDG_STATE_HOME', xdg: true, folder: (home: string) => join(home, 'state', 'core') },
    { name: '~/.local/state without XDG_STATE_HOME', xdg: false, folder: (home: string) => join(home, '.local', 'state', 'core') },
  ])('is kept in $name, the folder 0700 and the file 0600', async ({ xdg, folder }) => {
    const { env } = await platform(echo);
    const home = env.HOME!;
    const result = await runInProcess(['customer', 'say', 'Hi'], {
      env: { ...env, ...(xdg ? { XDG_STATE_HOME: join(home, 'state') } : {}) },
    });
    expect(result.code).toBe(0);
    expect(statSync(folder(home)).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder(home), LAST_SESSIONS_FILE)).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['say', 'Hi'],
    ['press', 'Yes'],
  ])('%s exits 2 with a clear error when say has started none against the base URL', async (command, text) => {
    const sb = await sandbox();
    const result = await runInProcess(['customer', command!, text!, '--session', 'last'], { env: baseEnv({ CORE_BASE_URL: sb.url }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: --session last: core customer say has started no conversation against ${sb.url} yet`);
    expect(result.stderr).toContain('hint: start one with core customer say TEXT');
    expect(sb.events()).toEqual([]);
  });
});

describe('core customer press', () => {
  const picker = { title: 'Sizes', sections: [{ items: [{ title: 'Large', identifier: 'size-l' }] }] };
  const offering = (message: Message, sb: TestSandbox) =>
    reply(sb, message, {
      quickReplies: [{ type: 'TEXT', text: 'Talk to a person', shown_text: 'I want a person' }],
      messageListPicker: picker,
    });

  it.each([
    { label: 'Talk to a person', sent: 'I want a person' },
    { label: 'I want a person', sent: 'I want a person' },
    { label: 'size-l', sent: 'Large' },
    { label: 'Large', sent: 'Large' },
  ])('presses or picks "$label" and sends "$sent"', async ({ label, sent }) => {
    const { env, bot } = await platform(offering);
    const first = await runInProcess(['customer', 'say', 'Hi', '--channel', 'im', '--json'], { env });
    const sessionId = (parseJson(first.stdout) as { sessionId: string }).sessionId;
    const result = await runInProcess(['customer', 'press', label, '--session', sessionId, '--json'], { env });
    expect(result.code).toBe(0);
    expect(messageOf(bot.requests[1]!).text).toBe(sent);
    expect(parseJson(result.stdout)).toMatchObject({ question: { questionIndex: 2n } });
  });

  it('exits 4 naming what the last message offers, for a label it does not have', async () => {
    const { env } = await platform(offering);
    const first = await runInProcess(['customer', 'say', 'Hi', '--channel', 'im', '--json'], { env });
    const sessionId = (parseJson(first.stdout) as { sessionId: string }).sessionId;
    const result = await runInProcess(['customer', 'press', 'Cancel', '--session', sessionId], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("has no button 'Cancel'; it offers buttons 'Talk to a person' and list items 'size-l' (Large)");
  });

  it("quotes the bot's labels in the sandbox's refusal with their controls escaped: no colour, no line of the bot's", async () => {
    const label = '\u001b[32mpass\u001b[0m\n✓ all good\u202e';
    const { env } = await platform((message, sb) =>
      reply(sb, message, {
        quickReplies: [{ type: 'TEXT', text: label }],
        messageListPicker: { ...picker, sections: [{ title: 'Sizes', items: [{ identifier: 'size-\r', title: 'Large\u001b[2J' }] }] },
      }),
    );
    const first = await runInProcess(['customer', 'say', 'Hi', '--channel', 'im', '--json'], { env });
    const sessionId = (parseJson(first.stdout) as { sessionId: string }).sessionId;
    const result = await runInProcess(['customer', 'press', 'Cancel\u001b[31m', '--session', sessionId], { env });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      "has no button 'Cancel\\u001b[31m'; it offers buttons '\\u001b[32mpass\\u001b[0m\\n✓ all good\\u202e' and list items 'size-\\r' (Large\\u001b[2J)",
    );
    expect(result.stderr).not.toMatch(/[\u001b\r\u202e]/);
    expect(result.stderr.split('\n').filter((line) => line.includes('all good'))).toHaveLength(1);
  });

  it('exits 4 with a hint when the base URL answers 200 with something that is not a conversation', async () => {
    const service = await startRecordingServer([{ status: 200 }]);
    onTestFinished(() => service.close());
    const result = await runInProcess(['customer', 'press', 'Yes', '--session', 's-1'], { env: baseEnv({ CORE_BASE_URL: service.url }) });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('hint: is CORE_BASE_URL a core sandbox?');
    expect(result.stderr).not.toContain('unexpected failure');
  });

  it('needs --session', async () => {
    const result = await runInProcess(['customer', 'press', 'Yes'], { env: baseEnv({ CORE_BASE_URL: 'http://127.0.0.1:9' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--session <id>' not specified");
  });
});

describe('what press sends for a label', () => {
  const last = {
    quickReplies: [
      { type: 'TEXT', text: 'Yes' },
      { type: 'TEXT', text: 'Later', shown_text: 'Remind me later' },
    ],
    messageListPicker: {
      sections: [
        {
          items: [
            { identifier: 'a', title: 'Yes' },
            { identifier: 'b', title: 'Bee' },
          ],
        },
      ],
    },
  };
  it.each([
    { label: 'Yes', sends: { press: 'Yes' } },
    { label: 'Remind me later', sends: { press: 'Later' } },
    { label: 'b', sends: { pick: 'b' } },
    { label: 'Bee', sends: { pick: 'b' } },
    { label: 'Nope', sends: { press: 'Nope' } },
  ])('sends $sends for "$label" (a button first, then a list item)', ({ label, sends }) => {
    expect(choose(last, label)).toEqual(sends);
  });
});
