import { describe, expect, it, onTestFinished } from 'vitest';
import { startRecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';
import { platform, reply, testFolder, type Message } from './platform.js';
import type { TestSandbox } from '../sandbox/helpers.js';

/**
 * `core test` through main(), against an in-process sandbox (--sandbox) and a scripted bot on
 * loopback: the outcome of each kind of step, as the human report and the exit code show it. The
 * reports' formats are checked with real parsers in reports.test.ts.
 */

/** The echo bot of the examples: an echo with a button, and a person on request. */
async function echo(message: Message, sb: TestSandbox) {
  if (/person/.test(message.text))
    return reply(sb, message, { text: 'Passing you to a person.', code: 'SWITCH_TO_HUMAN', skillIds: [12n] });
  return reply(sb, message, { code: 'SUCCESS', quickReplies: [{ type: 'TEXT', text: 'Talk to a person' }] });
}

type Bot = Parameters<typeof platform>[0];

async function run(files: Record<string, string>, handle: Bot = echo, extra: string[] = [], options: Parameters<typeof platform>[1] = {}) {
  const { sb, bot, env } = await platform(handle, options);
  const folder = testFolder(files);
  const result = await runInProcess(['test', ...Object.keys(files), '--sandbox', sb.url, ...extra], { env, cwd: folder });
  return { ...result, sb, bot, folder };
}

describe('core test against a bot', () => {
  it('passes a conversation of exact texts, patterns, lists, presses and silence, exit 0', async () => {
    const result = await run({
      'order.yaml': `name: order status, then a person
steps:
  - customer: Where is my order?
  - bot:
      text: "You said: Where is my order?"
      code: SUCCESS
      quickReplies: [Talk to a person]
  - customer: And then?
  - bot: {text: "/^you said: and/i", quickReplies: [{type: TEXT, text: /person$/}]}
  - press: Talk to a person
  - bot: {code: SWITCH_TO_HUMAN, skillIds: [12], userIds: null}
  - customer: Hello?
  - bot: none
`,
    });
    expect(result.stderr).toContain('core test: 1 conversation in 1 file');
    expect(result.stdout).toMatch(/^✓ order status, then a person \(order\.yaml:1, \S+\)$/m);
    expect(result.stdout).toMatch(/^1 passed, 0 failed \(1 conversation in 1 file, \S+\)$/m);
    expect(result.code).toBe(0);
  });

  it('names the conversation, the failing step and its line, and the fields that differ, exit 3', async () => {
    const result = await run({
      'order.yaml': `name: order status
steps:
  - customer: Where is my order?
  - bot:
      text: /shipped/
      code: SUCCESS
      quickReplies: [Track it, Talk to a person]
`,
    });
    expect(result.code).toBe(3);
    const report = result.stdout.slice(result.stdout.indexOf('\n\n'));
    expect(report).toContain('✗ order status (order.yaml)\n  step 2, line 4 (bot), conversation s-');
    expect(report).toContain('  the answer differs in text, quickReplies\n');
    expect(report).toContain('    text\n      - expected  /shipped/\n      + received  "You said: Where is my order?"\n');
    expect(report).toContain(
      '    quickReplies\n      - expected  ["Track it","Talk to a person"]\n      + received  [{"type":"TEXT","text":"Talk to a person"}]\n',
    );
    // What the customer got, without the answerId and addressing that differ on every run.
    expect(report).toContain(
      '  the answer: {"text":"You said: Where is my order?","code":"SUCCESS","quickReplies":[{"type":"TEXT","text":"Talk to a person"}]}',
    );
    expect(result.stdout).toMatch(/^0 passed, 1 failed/m);
  });

  it('checks any field of the bot answer, the addressing and segmentationInfo too, and shows the ones a failing step names', async () => {
    const routed = (message: Message, sb: TestSandbox) =>
      reply(sb, message, {
        sessionId: message.sessionId,
        questionIndex: message.questionIndex,
        answerId: `a-${message.questionId}`,
        action: 'INIT_CHAT',
        segmentationInfo: { personal_manager: 'anna' },
      });
    const passing = await run(
      {
        'fields.yaml': `name: every field
steps:
  - customer: Hi
  - bot:
      answerId: /^a-\\d+$/
      questionId: /^\\d+$/
      questionIndex: 1
      sessionId: /^s-/
      action: INIT_CHAT
      segmentationInfo: {personal_manager: anna}
      clientId: null
      receivedAt: null
`,
      },
      routed,
    );
    expect(passing.stdout).toMatch(/^1 passed, 0 failed/m);
    expect(passing.code).toBe(0);

    const failing = await run(
      {
        'fields.yaml': `name: the wrong manager
steps:
  - customer: Hi
  - bot: {segmentationInfo: {personal_manager: bob}, questionIndex: 2}
`,
      },
      routed,
    );
    expect(failing.code).toBe(3);
    expect(failing.stdout).toContain('  the answer differs in questionIndex, segmentationInfo.personal_manager\n');
    expect(failing.stdout).toContain(
      '  the answer: {"text":"You said: Hi","code":"SUCCESS","questionIndex":1,"segmentationInfo":{"personal_manager":"anna"}}',
    );
  });

  it('takes several answers in a row as several bot steps', async () => {
    const two = async (message: Message, sb: TestSandbox) => {
      await reply(sb, message, { text: 'One moment.' });
      await reply(sb, message, { text: 'Found it: shipped yesterday.' });
    };
    const result = await run(
      { 'two.yaml': 'steps:\n  - customer: Where?\n  - bot: {text: One moment.}\n  - bot: {text: /shipped/}\n' },
      two,
    );
    expect(result.stdout).toContain('✓ two (two.yaml:1');
    expect(result.code).toBe(0);
  });

  it('fails the step after an answer no step expects: the next customer message, or the end', async () => {
    const two = async (message: Message, sb: TestSandbox) => {
      await reply(sb, message, { text: 'One moment.' });
      await reply(sb, message, { text: 'Found it.' });
    };
    const result = await run(
      {
        'next.yaml': 'steps:\n  - customer: Where?\n  - bot: {text: One moment.}\n  - customer: Thanks\n',
        'end.yaml': 'steps:\n  - customer: Where?\n  - bot: {text: One moment.}\n',
      },
      two,
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('✗ next (next.yaml)\n  step 3, line 4 (customer: Thanks), conversation s-');
    expect(result.stdout).toMatch(
      /the bot sent an answer no step expects, before this step: add a bot step for it\n {2}the answer: \{"text":"Found it\.","code":"SUCCESS"\}/,
    );
    expect(result.stdout).toMatch(
      /✗ end \(end\.yaml\)\n {2}after the last step, line 3, conversation s-\w+\n {2}the bot sent an answer no step expects, after the last step/,
    );
  });

  it('fails bot: none when an answer comes, and a bot step when none comes in time', async () => {
    const silent = async () => {};
    const answered = await run({ 'none.yaml': 'steps:\n  - customer: Hi\n  - bot: none\n    within: 5s\n' });
    expect(answered.code).toBe(3);
    expect(answered.stdout).toContain('  step 2, line 3 (bot: none)');
    expect(answered.stdout).toContain('  an answer came where none was expected (within 5s)');

    const late = await run({ 'late.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' }, silent, ['--timeout', '300ms']);
    expect(late.code).toBe(3);
    expect(late.stdout).toContain('  no answer from the bot within 300ms\n  expected: {}');
  });

  it('fails a step on an answer the platform refused, with the sandbox message', async () => {
    // After SWITCH_TO_HUMAN the thread is with agents: a second answer is not delivered (409).
    const pushy = async (message: Message, sb: TestSandbox) => {
      await reply(sb, message, { text: 'Passing you on.', code: 'SWITCH_TO_HUMAN' });
      await reply(sb, message, { text: 'Still here!' });
    };
    const result = await run(
      { 'pushy.yaml': 'steps:\n  - customer: Hi\n  - bot: {code: SWITCH_TO_HUMAN}\n  - bot: {text: Still here!}\n' },
      pushy,
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/step 3, line 4 \(bot\).*\n {2}the bot's answer was not delivered \(409: thread with agents\): /);
  });

  it('fails a step on an answer the API refuses as invalid, naming the rule', async () => {
    const sloppy = (message: Message, sb: TestSandbox) => reply(sb, message, { text: undefined });
    const result = await run({ 'sloppy.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' }, sloppy);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      "the sandbox refused a request of the bot: POST /api/v1/chatbot answered 400: text: required unless formattedText is given (the API's chatbot rule 3)",
    );
  });

  it('fails at once when no answer can come: the thread is with agents, or the webhook failed for good', async () => {
    const result = await run({
      'agents.yaml': 'steps:\n  - customer: a person please\n  - bot: {code: SWITCH_TO_HUMAN}\n  - customer: Hello?\n  - bot: {}\n',
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('  no answer can come: the thread is with agents, so no webhook was sent');

    const failing = await run({ 'down.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' }, () => ({ status: 500 }), [], {
      webhookRetries: 1,
    });
    expect(failing.code).toBe(3);
    expect(failing.stdout).toContain('  no answer came, and the webhook was not delivered after 2 attempts (last: status 500)');
  });

  it('presses a button by its text and picks a list item by its identifier or title', async () => {
    const sizes = async (message: Message, sb: TestSandbox) => {
      if (message.listItem) return reply(sb, message, { text: `Size ${message.listItem.identifier}` });
      if (message.quickReply) return reply(sb, message, { text: `Pressed ${String(message.quickReply.text)}` });
      return reply(sb, message, {
        text: 'Which size?',
        quickReplies: [{ type: 'TEXT', text: 'Help', shown_text: 'I need help' }],
        messageListPicker: { title: 'Sizes', sections: [{ title: 'All', items: [{ identifier: 'size-l', title: 'Large' }] }] },
      });
    };
    const result = await run(
      {
        'sizes.yaml': `channel: IM
steps:
  - customer: Shirt
  - bot: {messageListPicker: {title: Sizes, sections: [{items: [Large]}]}}
  - press: size-l
  - bot: {text: Size size-l}
  - customer: Shirt
  - bot: {}
  - press: Large
  - bot: {text: Size size-l}
  - customer: Shirt
  - bot: {}
  - press: I need help
  - bot: {text: Pressed Help}
`,
      },
      sizes,
    );
    expect(result.stdout).toContain('✓ sizes');
    expect(result.code).toBe(0);
  });

  it('fails a press the last answer does not offer, with what it offers', async () => {
    const result = await run({ 'press.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n  - press: Track it\n' });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      "  the sandbox refused the press: 400 the bot's last message has no button 'Track it'; it offers buttons 'Talk to a person'",
    );
  });

  it("shows the bot's labels in a refusal with their controls escaped: no colour and no line of the bot's in the report", async () => {
    const label = '\u001b[32m✓ forged\u001b[0m\n✓ all good';
    const result = await run({ 'press.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n  - press: Track it\n' }, (message, sb) =>
      reply(sb, message, { quickReplies: [{ type: 'TEXT', text: label }] }),
    );
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("it offers buttons '\\u001b[32m✓ forged\\u001b[0m\\n✓ all good'");
    expect(result.stdout + result.stderr).not.toContain('\u001b');
  });

  it('plays each conversation in its own thread and client, and one client’s conversations one after another', async () => {
    const seen: Message[] = [];
    const bot = (message: Message, sb: TestSandbox) => {
      seen.push(message);
      return reply(sb, message);
    };
    const conversation = (name: string, client = '') =>
      `  - name: ${name}\n${client}    steps:\n      - customer: ${name}\n      - bot: {text: "You said: ${name}"}\n      - customer: ${name} again\n      - bot: {}\n`;
    const result = await run(
      {
        'many.yaml':
          'conversations:\n' +
          ['a', 'b', 'c', 'd', 'e'].map((name) => conversation(name)).join('') +
          ['f', 'g', 'h'].map((name) => conversation(name, '    client: {clientId: alice@example.com}\n')).join(''),
      },
      bot,
      ['--concurrency', '8'],
    );
    expect(result.code).toBe(0);
    const threads = new Map<string, Message[]>();
    for (const message of seen) threads.set(message.sessionId, [...(threads.get(message.sessionId) ?? []), message]);
    expect(threads.size).toBe(8);
    for (const messages of threads.values()) expect(messages.map((m) => m.text)).toEqual([messages[0]!.text, `${messages[0]!.text} again`]);
    const anonymous = seen.filter((m) => m.clientId === null);
    expect(new Set(anonymous.map((m) => m.coreClientId)).size).toBe(5);
    // alice's three conversations did not overlap: each ran both its messages before the next began.
    const alice = seen.filter((m) => m.clientId === 'alice@example.com').map((m) => m.text);
    expect(alice).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) expect(alice[i + 1]).toBe(`${alice[i]!} again`);
  });

  it('with --repeat, runs every run in a thread of its own, and one client’s runs one after another', async () => {
    const seen: Message[] = [];
    const bot = (message: Message, sb: TestSandbox) => {
      seen.push(message);
      return reply(sb, message);
    };
    const steps = '    steps:\n      - customer: Hi\n      - bot: {}\n      - customer: Hi again\n      - bot: {}\n';
    const result = await run(
      {
        'runs.yaml': `conversations:\n  - name: anyone\n${steps}  - name: alice\n    client: {clientId: alice@example.com}\n${steps}`,
      },
      bot,
      ['--repeat', '3', '--concurrency', '6'],
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^✓ anyone \(runs\.yaml:2, 3 runs, p50 /m);
    expect(new Set(seen.map((m) => m.sessionId)).size).toBe(6);
    expect(new Set(seen.filter((m) => m.clientId === null).map((m) => m.coreClientId)).size).toBe(3);
    const alice = seen.filter((m) => m.clientId === 'alice@example.com').map((m) => m.text);
    expect(alice).toEqual(['Hi', 'Hi again', 'Hi', 'Hi again', 'Hi', 'Hi again']);
  });

  it('stops on Ctrl-C, exit 130, with no report', async () => {
    const { sb, env } = await platform(async () => {});
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' });
    const abort = new AbortController();
    // Once the customer's message is in the sandbox, the run is waiting for the bot: interrupt it then.
    const stop = sb.subscribe((event) => {
      if (event.type === 'webhook.attempt') abort.abort();
    });
    const result = await runInProcess(['test', 'a.yaml', '--sandbox', sb.url, '--reporter', 'json', '--timeout', '60s'], {
      env,
      cwd: folder,
      signal: abort.signal,
    });
    stop();
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: interrupted');
  });

  it('stops on Ctrl-C with the sandbox it started (--bot-url), exit 130, with no report', async () => {
    const abort = new AbortController();
    // The bot acknowledges the webhook and never answers: the run is waiting for it when Ctrl-C comes.
    const bot = await startRecordingServer(() => {
      abort.abort();
      return { status: 200 };
    });
    onTestFinished(() => bot.close());
    const folder = testFolder({ 'a.yaml': 'steps:\n  - customer: Hi\n  - bot: {}\n' });
    const result = await runInProcess(['test', 'a.yaml', '--bot-url', `${bot.url}/webhook`, '--reporter', 'json', '--timeout', '60s'], {
      env: baseEnv(),
      cwd: folder,
      signal: abort.signal,
    });
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error: interrupted');
  });
});
