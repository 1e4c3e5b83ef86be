import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  SandboxCustomerError,
  SandboxOptionsError,
  startConversation,
  startSandbox,
  type Sandbox,
  type SandboxOptions,
} from '../../src/library/sandbox.js';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { happens } from '../helpers/wait.js';

/**
 * `core-cli/sandbox` from its sources, as a bot's own test suite uses it: a sandbox in-process, a
 * bot on loopback that it sends MESSAGE webhooks to, and the customer helper playing the customer.
 * test/package/pack.test.ts runs the same module from the installed package.
 */

/**
 * A bot as small as a test needs: it answers each MESSAGE webhook through POST /api/v1/chatbot,
 * echoing the text with a button, or handing the thread over when the customer asks for a person.
 */
async function startBot(sandboxOf: () => Sandbox): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const webhook = parseJson(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        message: { questionId: bigint; text: string };
      };
      const { message } = webhook;
      const answer = /menu/.test(message.text)
        ? {
            questionId: message.questionId,
            text: 'What can we help you with?',
            messageListPicker: {
              title: 'Choose a topic',
              sections: [{ title: 'Orders', items: [{ title: 'Track an order', identifier: 'orders.track' }] }],
            },
          }
        : /person/.test(message.text)
          ? { questionId: message.questionId, text: 'Passing you to a person.', code: 'SWITCH_TO_HUMAN' }
          : {
              questionId: message.questionId,
              text: `You said: ${message.text}`,
              quickReplies: [{ type: 'TEXT', text: 'Talk to a person' }],
            };
      // Two mistakes on request: a wrong token (the sandbox ties the refusal to the question named), and a
      // questionId the sandbox does not have (tied to no conversation). The webhook is acknowledged all the same.
      const flawed = /wrong token|unknown question/.test(message.text);
      if (/unknown question/.test(message.text)) answer.questionId = 99n;
      void fetch(`${sandboxOf().url}/api/v1/chatbot`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${/wrong token/.test(message.text) ? 'not-the-token' : 'sandbox-token'}`,
          'X-Tenant-Name': 'sandbox',
        },
        body: stringifyJson(answer),
      }).then(async (response) => {
        await response.text();
        res.writeHead(response.ok || flawed ? 200 : 503).end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook` };
}

// Generous: the wait ends as soon as the answers are in; this only bounds a broken bot.
const waitMs = 20_000;

describe('core-cli/sandbox with a bot', () => {
  let sandbox: Sandbox;
  let bot: { server: Server; url: string };

  beforeAll(async () => {
    bot = await startBot(() => sandbox);
    sandbox = await startSandbox({ botUrl: bot.url });
  });
  afterAll(async () => {
    await sandbox.close();
    await new Promise((resolve) => bot.server.close(resolve));
  });

  it('starts a conversation, says something and returns the answers the bot delivered, as core customer say --json does', async () => {
    const conversation = await startConversation(sandbox, { channel: 'IM', coreClientId: 9_223_372_036_854_775_807n });
    expect(conversation).toMatchObject({ tenant: 'sandbox', channel: 'IM', coreClientId: 9_223_372_036_854_775_807n, clientId: null });
    expect(conversation.sessionId).toMatch(/\S/);
    const exchange = await happens(conversation.say('Where is my order?', { waitMs }), 'the bot to answer');
    expect(exchange).toMatchObject({
      ok: true,
      end: 'answered',
      tenant: 'sandbox',
      sessionId: conversation.sessionId,
      delivery: 'delivered',
    });
    expect(exchange.texts).toEqual(['You said: Where is my order?']);
    expect(exchange.answers).toHaveLength(1);
    expect(exchange.answers[0]).toMatchObject({ type: 'bot.answer', delivered: true, questionId: exchange.question.questionId });
    expect(exchange.attempts.at(-1)).toMatchObject({ type: 'webhook.attempt', outcome: 'delivered', status: 200 });
    expect(exchange.question).toMatchObject({ type: 'TEXT', noWebhook: null });
    expect(sandbox.conversation(conversation.sessionId)?.questions).toBe(1);
  });

  it("presses the bot's button by its label, and the hand-over it causes is in the exchange and in the thread", async () => {
    const conversation = await startConversation(sandbox);
    await happens(conversation.say('Hi', { waitMs }), 'the first answer');
    const exchange = await happens(conversation.press('Talk to a person', { waitMs }), 'the hand-over');
    expect(exchange.ok).toBe(true);
    expect(exchange.texts).toEqual(['Passing you to a person.']);
    expect(exchange.handovers).toMatchObject([{ type: 'handover', code: 'SWITCH_TO_HUMAN', scope: 'thread' }]);
    expect(sandbox.conversation(conversation.sessionId)?.owner).toBe('agents');

    // With agents, the wait is for an agent's message: none comes here, so it ends when waitMs runs out.
    const withAgents = await happens(conversation.say('Hello?', { waitMs: 1000 }), 'the wait to end');
    expect(withAgents).toMatchObject({ ok: false, end: 'with-agents', delivery: null, answers: [] });
    expect(withAgents.question.noWebhook).toMatch(/agents/);
  });

  it.each([
    ['its identifier', 'orders.track'],
    ['its title', 'Track an order'],
  ])('picks an item of the list the bot sent on an IM thread by %s, and the customer sends its title', async (_by, label) => {
    const conversation = await startConversation(sandbox, { channel: 'IM' });
    await happens(conversation.say('Show me the menu', { waitMs }), 'the list');
    const exchange = await happens(conversation.press(label, { waitMs }), 'the answer to the pick');
    expect(exchange.texts).toEqual(['You said: Track an order']);
    const picked = sandbox
      .events({ sessionId: conversation.sessionId })
      .filter((event) => event.type === 'customer.message')
      .at(-1);
    expect(picked).toMatchObject({
      text: 'Track an order',
      listItem: { identifier: 'orders.track', title: 'Track an order' },
      quickReply: null,
    });
  });

  it.each([
    {
      mistake: 'a wrong token, on an answer naming the question (tied to the conversation)',
      text: 'wrong token',
      refused: { type: 'api.request', status: 401, error: 'invalid bearer token', tied: true },
    },
    {
      mistake: 'an answer naming a question the sandbox does not have (tied by the one delivery in flight)',
      text: 'unknown question',
      refused: { type: 'bot.answer', status: 404, tied: true },
    },
  ])('ends the wait on $mistake, with the refused request in the exchange', async ({ text, refused }) => {
    const conversation = await startConversation(sandbox);
    const exchange = await happens(conversation.say(text, { waitMs }), 'the refusal');
    expect(exchange).toMatchObject({ ok: false, end: 'refused', texts: [] });
    // An answer the sandbox refused is among the conversation's answers, never delivered.
    expect(exchange.answers.filter((answer) => answer.delivered)).toEqual([]);
    expect(exchange.refused).toHaveLength(1);
    const { tied, ...fields } = refused;
    expect(exchange.refused[0]).toMatchObject({ ...fields, sessionId: tied ? conversation.sessionId : null });
  });

  it("refuses a button the bot did not offer with the sandbox's message, naming what it offers", async () => {
    const conversation = await startConversation(sandbox);
    await happens(conversation.say('Hi', { waitMs }), 'the first answer');
    const refused = conversation.press('Cancel my order', { waitMs });
    await expect(refused).rejects.toBeInstanceOf(SandboxCustomerError);
    await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringContaining("buttons 'Talk to a person'") });
  });
});

describe('core-cli/sandbox without a bot', () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('records the customer message and ends the wait with no answer once waitMs has passed', async () => {
    sandbox = await startSandbox();
    const conversation = await startConversation(sandbox, { channel: 'EMAIL', clientId: 'ext-1' });
    const exchange = await conversation.say('Anyone there?', { waitMs: 0 });
    expect(exchange).toMatchObject({ ok: false, end: 'no-answer', delivery: null, answers: [], texts: [] });
    expect(exchange.question).toMatchObject({ type: 'EMAIL', deliveryId: null, noWebhook: expect.stringMatching(/bot/) });
    expect(sandbox.events({ sessionId: conversation.sessionId }).map((event) => event.type)).toEqual([
      'conversation.started',
      'customer.message',
    ]);
  });

  it.each([
    ['im', 'IM'],
    ['Im', 'IM'],
    ['EMAIL', 'EMAIL'],
    ['Web', 'WEB'],
  ] as const)('starts a conversation on the channel %s in any case, as %s', async (channel, expected) => {
    sandbox = await startSandbox();
    const conversation = await startConversation(sandbox, { channel });
    expect(conversation.channel).toBe(expected);
    expect(sandbox.conversation(conversation.sessionId)?.channel).toBe(expected);
  });

  it.each([
    ['an unknown tenant', { tenant: 'nowhere' }, 404, /no tenant 'nowhere'/],
    ['an empty clientId', { clientId: '' }, 400, /clientId/],
    // A JavaScript caller is not held to the type: a name that is no channel is refused, naming the channels.
    ['an unknown channel', { channel: 'sms' as 'IM' }, 400, /"sms" is not a channel: use WEB, IM or EMAIL \(in any case\)/],
  ])('refuses to start a conversation in %s', async (_what, start, status, message) => {
    sandbox = await startSandbox();
    const refused = startConversation(sandbox, start);
    await expect(refused).rejects.toBeInstanceOf(SandboxCustomerError);
    await expect(refused).rejects.toMatchObject({ status, message: expect.stringMatching(message) });
  });

  it('ends a wait in progress when the sandbox closes, as stream-ended, with what had come', async () => {
    // A bot that acknowledges each webhook and never answers: only the close can end the wait.
    const silent = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const open = await startSandbox({ botUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/webhook` });
      sandbox = open;
      const conversation = await startConversation(open);
      const delivered = new Promise<void>((resolve) => {
        const stop = open.subscribe((event) => {
          if (event.type === 'webhook.attempt' && event.sessionId === conversation.sessionId) {
            stop();
            resolve();
          }
        });
      });
      const exchange = conversation.say('Anyone there?', { waitMs: 600_000 });
      await happens(delivered, 'the webhook to be delivered');
      await open.close();
      expect(await happens(exchange, 'the wait to end when the sandbox closed')).toMatchObject({
        ok: false,
        end: 'stream-ended',
        delivery: 'delivered',
        answers: [],
      });
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('tells a subscriber that the sandbox closed, once, and at once when it already has', async () => {
    const open = await startSandbox();
    sandbox = open;
    const told: string[] = [];
    const stopped = open.subscribe(
      () => {},
      () => told.push('stopped before'),
    );
    stopped();
    open.subscribe(
      () => {},
      () => told.push('open'),
    );
    await open.close();
    await open.close();
    open.subscribe(
      () => {},
      () => told.push('after'),
    );
    await Promise.resolve();
    expect(told).toEqual(['open', 'after']);
  });

  it('refuses a negative waitMs before sending anything', async () => {
    sandbox = await startSandbox();
    const conversation = await startConversation(sandbox);
    await expect(conversation.say('Hi', { waitMs: -1 })).rejects.toThrow(/waitMs: -1/);
    expect(sandbox.events({ sessionId: conversation.sessionId }).map((event) => event.type)).toEqual(['conversation.started']);
  });

  it('refuses options it cannot run with, naming each, and serves what it was given', async () => {
    await expect(startSandbox({ duplicates: 'sometimes' } as unknown as SandboxOptions)).rejects.toBeInstanceOf(SandboxOptionsError);
    sandbox = await startSandbox({ tenants: ['acme', 'globex'], duplicates: 'strict' });
    expect(sandbox).toMatchObject({ host: '127.0.0.1', tenants: ['acme', 'globex'], duplicates: 'strict', botUrl: null });
    expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}`);
    expect(sandbox.reasons('acme').length).toBeGreaterThan(0);
    expect(sandbox.reset('acme')).toEqual(['acme']);
  });
});

describe("the library's connections to its sandboxes", () => {
  it("keeps none in Node's global agent: a sandbox started, used and closed leaves no socket there", async () => {
    const { globalAgent } = await import('node:http');
    const ports: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const sandbox = await startSandbox();
      ports.push(Number(new URL(sandbox.url).port));
      const conversation = await startConversation(sandbox);
      await happens(conversation.say('Hi', { waitMs: 0, settleMs: 0 }), 'the exchange to end');
      await sandbox.close();
    }
    const pooled = [...Object.keys(globalAgent.freeSockets), ...Object.keys(globalAgent.sockets)];
    for (const port of ports) expect(pooled.filter((name) => name.includes(`:${port}:`))).toEqual([]);
  });
});
