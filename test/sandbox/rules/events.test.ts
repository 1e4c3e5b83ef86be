import { describe, expect, it } from 'vitest';
import { validateGreeting, type Greeting } from '../../../src/payload/index.js';
import type { Delivery, RandomIds } from '../../../src/sandbox/model.js';
import { startConversation } from '../../../src/sandbox/rules/conversation-client.js';
import { customerMessage } from '../../../src/sandbox/rules/customer-message.js';
import { attemptEvent, redelivery } from '../../../src/sandbox/rules/delivery.js';
import { greetingEvents } from '../../../src/sandbox/rules/greeting-addressing.js';
import { releaseEvent } from '../../../src/sandbox/rules/handover.js';
import { freeCoreClientId } from '../../../src/sandbox/rules/ids.js';
import { reasonUpdate } from '../../../src/sandbox/rules/reason-limits.js';
import { replyOutcome, type ReplyRules } from '../../../src/sandbox/rules/reply.js';
import { refusedRequest } from '../../../src/sandbox/rules/tying.js';
import { world } from './world.js';

/**
 * What each rule returns for the store to record: the events of a request (docs/sandbox.md, "Events"),
 * each with the fields the store does not fill in (seq, tenant and time are the store's). Identifiers
 * drawn at random come from the RandomIds the rule is handed.
 */

const ids: RandomIds = { sessionId: () => 's-new', deliveryId: () => 'msg_new' };
const soft: ReplyRules = { maxEvents: 100, duplicates: 'soft' };
/** A greeting as the API's side hands it to the rules: checked by the greeting schema. */
function greetingOf(body: unknown): Greeting {
  const checked = validateGreeting(body);
  if (!checked.ok) throw new Error(`not a greeting: ${JSON.stringify(checked.problems)}`);
  return checked.value;
}
const meta = { requestId: 'req-1', body: { raw: true }, warnings: [{ path: 'clientId', message: 'deprecated' }], userAgent: 'my-bot/1.0' };

describe('a new conversation', () => {
  it.each([
    ['no client named: a new one, the first coreClientId free', {}, { coreClientId: 1001n, clientId: null }],
    ['a coreClientId the tenant does not keep', { coreClientId: 77n }, { coreClientId: 77n, clientId: null }],
    ['a new clientId', { clientId: 'carol' }, { coreClientId: 1001n, clientId: 'carol' }],
    ['a known client with its clientId', { clientId: 'alice' }, { coreClientId: 5n, clientId: 'alice' }],
    [
      'a known client without one, which takes the one named',
      { coreClientId: 6n, clientId: 'dave' },
      { coreClientId: 6n, clientId: 'dave' },
    ],
  ])('%s', (_, request, client) => {
    const w = world();
    w.client(5n, 'alice');
    w.client(6n);
    expect(startConversation(w.view, { channel: 'IM', ...request }, ids)).toEqual({
      ok: true,
      event: { type: 'conversation.started', sessionId: 's-new', channel: 'IM', ...client, by: 'customer' },
    });
  });

  it('is refused (400) for a coreClientId and a clientId of two clients, with no event', () => {
    const w = world();
    w.client(5n, 'alice');
    w.client(6n, 'bob');
    expect(startConversation(w.view, { channel: 'WEB', coreClientId: 5n, clientId: 'bob' }, ids)).toMatchObject({ ok: false, status: 400 });
  });
});

describe('the first coreClientId free', () => {
  it.each([
    ['the counter, when no client has it', [], 1001n],
    ['past the ids in use from the counter on', [1001n, 1002n], 1003n],
    ['the counter, whatever ids below or far above are in use', [1000n, 1005n], 1001n],
  ])('is %s', (_, used, free) => {
    const w = world();
    for (const id of used) w.client(id);
    expect(freeCoreClientId(w.view)).toBe(free);
  });
});

describe('a customer message', () => {
  it.each([
    ['to a thread with the bot, a bot connected: a webhook', true, 'bot' as const, { deliveryId: 'msg_new', noWebhook: null }],
    [
      'with no bot connected: none, and why',
      false,
      'bot' as const,
      { deliveryId: null, noWebhook: 'no bot is connected (start the sandbox with --bot-url)' },
    ],
    ['to a thread with agents: none, and why', true, 'agents' as const, { deliveryId: null, noWebhook: 'the thread is with agents' }],
  ])('%s', (_, botConnected, owner, webhook) => {
    const w = world();
    const thread = w.thread(w.client(5n, 'alice'), { sessionId: 's-1', channel: 'EMAIL', owner });
    w.ask(thread);
    const words = { text: 'Large', quickReply: null, listItem: { identifier: 'l', title: 'Large' } };
    expect(customerMessage(w.view, thread, words, botConnected, ids)).toEqual({
      type: 'customer.message',
      sessionId: 's-1',
      channel: 'EMAIL',
      coreClientId: 5n,
      clientId: 'alice',
      questionId: 5002n,
      questionIndex: 2n,
      questionType: 'EMAIL',
      text: 'Large',
      quickReply: null,
      listItem: { identifier: 'l', title: 'Large' },
      ...webhook,
    });
  });
});

describe('the events of a bot answer', () => {
  function tenant() {
    const w = world();
    const thread = w.thread(w.client(1001n, 'alice'), { sessionId: 's-1' });
    const question = w.ask(thread);
    w.claim('seen');
    return { w, thread, question };
  }
  const answerOf = (fields: Record<string, unknown>) => ({
    type: 'bot.answer',
    kind: 'reply',
    requestId: 'req-1',
    body: { raw: true },
    userAgent: 'my-bot/1.0',
    formattedHtml: null,
    during: [],
    ...fields,
  });

  it('refused: one bot.answer with the status and the Error message, not delivered', () => {
    const { w } = tenant();
    const outcome = replyOutcome(w.view, { questionId: 99n }, meta, soft, ids);
    expect(outcome).toMatchObject({ status: 404, answer: 0 });
    expect(outcome.error).toMatch(/^no question with questionId 99/);
    expect(outcome.events).toEqual([
      answerOf({
        answerId: null,
        addressedBy: ['questionId'],
        warnings: meta.warnings,
        sessionId: null,
        status: 404,
        error: outcome.error,
        delivered: false,
        notDelivered: 'unknown question',
        questionAlreadyAnswered: false,
        coreClientId: null,
        questionId: null,
        questionIndex: null,
      }),
    ]);
  });

  it('a repeated answerId: 200, one bot.answer not delivered (chatbot rule 6)', () => {
    const { w } = tenant();
    const outcome = replyOutcome(w.view, { questionId: 5001n, answerId: 'seen' }, meta, soft, ids);
    expect(outcome).toEqual({
      status: 200,
      error: null,
      answer: 0,
      events: [
        answerOf({
          answerId: 'seen',
          addressedBy: ['questionId'],
          warnings: meta.warnings,
          questionAlreadyAnswered: false,
          questionId: 5001n,
          questionIndex: 1n,
          sessionId: 's-1',
          coreClientId: 1001n,
          status: 200,
          error: null,
          delivered: false,
          notDelivered: 'duplicate answerId',
        }),
      ],
    });
  });

  it.each([
    ["by a kept client's latest thread", { coreClientId: 1001n }, 's-1', 1001n],
    ['by a kept client with no thread kept', { coreClientId: 9n }, null, 9n],
    ['by a client the tenant does not keep', { coreClientId: 8n }, null, null],
  ])('a repeated answerId addressed %s: the thread and client it names, none made', (_, address, sessionId, coreClientId) => {
    const { w } = tenant();
    w.client(9n);
    const outcome = replyOutcome(w.view, { ...address, answerId: 'seen' }, meta, soft, ids);
    expect(outcome.events).toHaveLength(1);
    expect(outcome.events[0]).toMatchObject({ sessionId, coreClientId, delivered: false, notDelivered: 'duplicate answerId' });
  });

  it('delivered to its question: the bot.answer, its Markdown as HTML written flat', () => {
    const { w } = tenant();
    const outcome = replyOutcome(w.view, { questionId: 5001n, answerId: 'new' }, { ...meta, formattedHtml: '<p>Hi</p>' }, soft, ids);
    expect(outcome).toEqual({
      status: 200,
      error: null,
      answer: 0,
      events: [
        answerOf({
          answerId: 'new',
          addressedBy: ['questionId'],
          warnings: meta.warnings,
          formattedHtml: '<p>Hi</p>',
          questionAlreadyAnswered: false,
          questionId: 5001n,
          questionIndex: 1n,
          sessionId: 's-1',
          coreClientId: 1001n,
          status: 200,
          error: null,
          delivered: true,
          notDelivered: null,
        }),
      ],
    });
  });

  it.each([
    ['delivered', false],
    ['delivered again, in soft mode, and said to be a second answer', true],
  ])('to a question answered before: %s', (_, answeredBefore) => {
    const { w } = tenant();
    const question = w.ask(w.thread(w.client(1002n), { sessionId: 's-2' }), { answered: answeredBefore });
    const outcome = replyOutcome(w.view, { questionId: question.questionId }, meta, soft, ids);
    expect(outcome.events).toHaveLength(1);
    expect(outcome.events[0]).toMatchObject({ delivered: true, questionId: question.questionId, questionAlreadyAnswered: answeredBefore });
  });

  it.each([
    ['SWITCH_TO_HUMAN: the thread handed over, with the question answered and the targets', 'SWITCH_TO_HUMAN', 'thread'],
    ['UNCLEAR_QUESTION: the question handed over', 'UNCLEAR_QUESTION', 'question'],
  ])('delivered with %s', (_, code, scope) => {
    const { w } = tenant();
    const outcome = replyOutcome(w.view, { questionId: 5001n, code, userIds: [7n] }, meta, soft, ids);
    expect(outcome.events.map((event) => event.type)).toEqual(['bot.answer', 'handover', 'handover.queued']);
    expect(outcome.events[2]).toEqual({
      type: 'handover.queued',
      sessionId: 's-1',
      scope,
      questionId: scope === 'thread' ? null : 5001n,
      why: 'no agent matches the targets',
    });
    expect(outcome.events[1]).toEqual({
      type: 'handover',
      sessionId: 's-1',
      scope,
      code,
      questionId: 5001n,
      questionIndex: 1n,
      userIds: [7n],
      skillIds: [],
      unitIds: [],
      requestId: 'req-1',
    });
  });

  it('by client to a client the tenant does not keep: a WEB thread (and client) made by the reply, then the answer into it', () => {
    const { w } = tenant();
    const outcome = replyOutcome(w.view, { coreClientId: 42n, clientId: 'erin', code: 'SWITCH_TO_HUMAN' }, meta, soft, ids);
    expect(outcome.answer).toBe(1);
    expect(outcome.events.map((event) => event.type)).toEqual(['conversation.started', 'bot.answer', 'handover', 'handover.queued']);
    expect(outcome.events[0]).toEqual({
      type: 'conversation.started',
      sessionId: 's-new',
      channel: 'WEB',
      coreClientId: 42n,
      clientId: 'erin',
      by: 'reply',
    });
    expect(outcome.events[1]).toMatchObject({
      ...{ sessionId: 's-new', coreClientId: 42n, delivered: true },
      ...{ questionId: null, questionIndex: null, questionAlreadyAnswered: false },
    });
    expect(outcome.events[2]).toMatchObject({ sessionId: 's-new', scope: 'thread', questionId: null });
  });

  it('by client with UNCLEAR_QUESTION into a thread it makes: no question to hand over, so no hand-over', () => {
    const { w } = tenant();
    const outcome = replyOutcome(w.view, { clientId: 'frank', code: 'UNCLEAR_QUESTION' }, meta, soft, ids);
    expect(outcome.events.map((event) => event.type)).toEqual(['conversation.started', 'bot.answer']);
    expect(outcome.events[0]).toMatchObject({ coreClientId: 1002n, clientId: 'frank' });
  });

  it("by client to a kept client: into its latest thread, the thread's latest question handed over with UNCLEAR_QUESTION", () => {
    const { w } = tenant();
    const outcome = replyOutcome(w.view, { clientId: 'alice', code: 'UNCLEAR_QUESTION' }, meta, soft, ids);
    expect(outcome.events.map((event) => event.type)).toEqual(['bot.answer', 'handover', 'handover.queued']);
    expect(outcome.events[1]).toMatchObject({ sessionId: 's-1', scope: 'question', questionId: 5001n });
  });

  it('a hand-over routed at once to the one agent it matches, online with room', () => {
    const { w } = tenant();
    w.agent(7n, { name: 'Zoe', skills: [12n] });
    const outcome = replyOutcome(w.view, { questionId: 5001n, code: 'SWITCH_TO_HUMAN', skillIds: [12n] }, meta, soft, ids);
    expect(outcome.events.at(-1)).toEqual({
      type: 'handover.routed',
      sessionId: 's-1',
      scope: 'thread',
      questionId: null,
      agentId: 7n,
      agentName: 'Zoe',
      matched: ['skillIds'],
      fromQueue: false,
    });
  });
});

describe('the events of a greeting', () => {
  it("to a kept client: the greeting into its latest thread, the channel's warnings after the schema's", () => {
    const w = world();
    w.thread(w.client(5n, 'alice'), { sessionId: 's-1', channel: 'EMAIL' });
    const greeting = greetingOf({
      clientId: 'alice',
      text: 'Hi',
      messageListPicker: { title: 'T', sections: [{ title: 'S', items: [{ identifier: 'i', title: 'I' }] }] },
    });
    const events = greetingEvents(w.view, greeting, meta, ids);
    expect(events).toEqual([
      {
        type: 'greeting',
        kind: 'greeting',
        sessionId: 's-1',
        requestId: 'req-1',
        status: 200,
        error: null,
        answerId: null,
        addressedBy: ['clientId'],
        delivered: true,
        notDelivered: null,
        questionAlreadyAnswered: false,
        coreClientId: 5n,
        warnings: [meta.warnings[0], expect.objectContaining({ path: 'messageListPicker' })],
        body: meta.body,
        userAgent: 'my-bot/1.0',
        during: [],
      },
    ]);
  });

  it('to a client the tenant does not keep: a WEB thread made by the greeting, then the greeting', () => {
    const w = world();
    const events = greetingEvents(w.view, greetingOf({ coreClientId: 9n, text: 'Hi' }), meta, ids);
    expect(events.map((event) => event.type)).toEqual(['conversation.started', 'greeting']);
    expect(events[0]).toEqual({
      type: 'conversation.started',
      sessionId: 's-new',
      channel: 'WEB',
      coreClientId: 9n,
      clientId: null,
      by: 'greeting',
    });
    expect(events[1]).toMatchObject({ sessionId: 's-new', coreClientId: 9n, addressedBy: ['coreClientId'], warnings: meta.warnings });
  });
});

describe('a release', () => {
  it('gives back the thread and counts the questions with agents', () => {
    const w = world();
    const thread = w.thread(w.client(5n), { sessionId: 's-1', owner: 'agents' });
    w.ask(thread, { withAgents: true });
    w.ask(thread);
    expect(releaseEvent(thread)).toEqual({ type: 'released', sessionId: 's-1', questions: 1, thread: true });
  });

  it('records nothing when nothing was with agents', () => {
    const w = world();
    const thread = w.thread(w.client(5n));
    w.ask(thread);
    expect(releaseEvent(thread)).toBeNull();
  });
});

describe('a reason update', () => {
  it('is the reason as stored, with `active` written out', () => {
    const w = world();
    w.reason('LUNCH', true);
    const update = { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] };
    expect(reasonUpdate(w.view, update, 10, 'req-9')).toEqual({
      ok: true,
      event: { type: 'reason.updated', sessionId: null, requestId: 'req-9', code: 'LUNCH', reason: { ...update, active: true } },
    });
  });

  it('is refused, with no event, for a code the tenant does not have', () => {
    expect(reasonUpdate(world().view, { code: 'NOPE', reasons: [] }, 10, 'req-9')).toMatchObject({ ok: false, status: 404 });
  });
});

describe('a refused API request', () => {
  const request = {
    method: 'POST',
    path: '/api/v1/chatbot',
    status: 401,
    requestId: 'req-2',
    error: 'invalid bearer token',
    userAgent: null,
  };
  const named = (fields: Record<string, unknown>) => ({
    questionId: null,
    questionIndex: null,
    sessionId: null,
    coreClientId: null,
    clientId: null,
    ...fields,
  });
  it.each([
    ['naming a kept thread: tied to it', 'acme', { sessionId: 's-1' }, 's-1', 'conversation'],
    ['naming nothing kept: tenant-wide', 'acme', { sessionId: 's-gone' }, null, 'tenant'],
    ['of no tenant served here: sandbox-wide', '', { sessionId: 's-1' }, null, 'sandbox'],
  ])('%s', (_, name, body, sessionId, scope) => {
    const w = world(name);
    w.thread(w.client(5n), { sessionId: 's-1' });
    expect(refusedRequest(w.view, { ...request, body })).toEqual({
      type: 'api.request',
      sessionId,
      scope,
      ...request,
      named: named(body),
      during: [],
    });
  });
});

describe('a redelivery and an attempt', () => {
  const delivery = (fields: Partial<Delivery> = {}): Delivery => ({
    deliveryId: 'msg_1',
    tenant: 'acme',
    sessionId: 's-1',
    questionId: 5001n,
    body: Buffer.from('{}'),
    seq: 2,
    redeliveries: 1,
    inFlight: false,
    ...fields,
  });

  it('redelivers a kept delivery whose attempts have ended, as its next series', () => {
    expect(redelivery('msg_1', delivery())).toEqual({
      ok: true,
      event: { type: 'webhook.redelivery', sessionId: 's-1', deliveryId: 'msg_1', questionId: 5001n, redelivery: 2 },
    });
  });

  it.each([
    [
      'a delivery not kept',
      undefined,
      404,
      "no delivery 'msg_1' (it may be older than the events the sandbox keeps, or the sandbox was reset)",
    ],
    [
      'a delivery still being attempted',
      delivery({ inFlight: true }),
      409,
      "delivery 'msg_1' is still being attempted: send it again once its last attempt is recorded",
    ],
  ])('refuses %s', (_, given, status, error) => {
    expect(redelivery('msg_1', given)).toEqual({ ok: false, status, error });
  });

  it("records an attempt of the delivery, as the sender reports it, under the delivery's thread and question", () => {
    const attempt = {
      attempt: 2,
      redelivery: 1,
      url: 'http://127.0.0.1:9/bot',
      status: 503,
      error: null,
      latencyMs: 12,
      body: 'busy',
      bodyTruncated: false,
      outcome: 'retrying' as const,
      retryInMs: 2000,
      retryAfter: true,
    };
    expect(attemptEvent(delivery(), attempt)).toEqual({
      type: 'webhook.attempt',
      sessionId: 's-1',
      deliveryId: 'msg_1',
      questionId: 5001n,
      ...attempt,
      craft: null,
    });
    expect(attemptEvent(delivery(), { ...attempt, craft: 'tampered' }).craft).toBe('tampered');
  });
});
