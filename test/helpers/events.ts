import type { EventOf, EventType, SandboxEvent } from '../../src/sandbox/events.js';

/**
 * Whole events of the sandbox for tests that feed events to a reader (the wait of core customer, the
 * hub of core test, the observer of core check-bot, the store's reducer): every field of the type
 * with a plain value, and the ones a test is about given. `seq` counts up by itself unless given.
 */

let nextSeq = 1;

const defaults: { [T in EventType]: (seq: number) => EventOf<T> } = {
  'conversation.started': (seq) => ({
    ...base(seq),
    type: 'conversation.started',
    sessionId: 's-1',
    channel: 'WEB',
    coreClientId: 1001n,
    clientId: null,
    by: 'customer',
    subject: 'Order 42',
  }),
  'customer.message': (seq) => ({
    ...base(seq),
    type: 'customer.message',
    sessionId: 's-1',
    channel: 'WEB',
    coreClientId: 1001n,
    clientId: null,
    questionId: 5001n,
    questionIndex: 1n,
    questionType: 'TEXT',
    text: 'Hello',
    quickReply: null,
    listItem: null,
    deliveryId: null,
    noWebhook: 'no bot is connected (start the sandbox with --bot-url)',
  }),
  'bot.answer': (seq) => ({
    ...base(seq),
    type: 'bot.answer',
    kind: 'reply',
    sessionId: 's-1',
    requestId: 'req-1',
    status: 200,
    error: null,
    answerId: null,
    addressedBy: ['questionId'],
    delivered: true,
    notDelivered: null,
    questionAlreadyAnswered: false,
    coreClientId: 1001n,
    questionId: 5001n,
    questionIndex: 1n,
    warnings: [],
    body: { questionId: 5001n, text: 'Hi' },
    userAgent: 'my-bot/1.0',
    formattedHtml: null,
    during: [],
  }),
  greeting: (seq) => ({
    ...base(seq),
    type: 'greeting',
    kind: 'greeting',
    sessionId: 's-1',
    requestId: 'req-1',
    status: 200,
    error: null,
    answerId: null,
    addressedBy: ['coreClientId'],
    delivered: true,
    notDelivered: null,
    questionAlreadyAnswered: false,
    coreClientId: 1001n,
    warnings: [],
    body: { coreClientId: 1001n, text: 'Welcome' },
    userAgent: null,
    during: [],
  }),
  handover: (seq) => ({
    ...base(seq),
    type: 'handover',
    sessionId: 's-1',
    scope: 'thread',
    code: 'SWITCH_TO_HUMAN',
    questionId: 5001n,
    questionIndex: 1n,
    userIds: [],
    skillIds: [],
    unitIds: [],
    requestId: 'req-1',
  }),
  released: (seq) => ({ ...base(seq), type: 'released', sessionId: 's-1', questions: 0, thread: true }),
  'webhook.redelivery': (seq) => ({
    ...base(seq),
    type: 'webhook.redelivery',
    sessionId: 's-1',
    deliveryId: 'msg_1',
    questionId: 5001n,
    redelivery: 1,
  }),
  'webhook.attempt': (seq) => ({
    ...base(seq),
    type: 'webhook.attempt',
    sessionId: 's-1',
    deliveryId: 'msg_1',
    questionId: 5001n,
    attempt: 1,
    redelivery: 0,
    url: 'http://127.0.0.1:9/bot',
    status: 200,
    error: null,
    latencyMs: 3,
    body: '',
    bodyTruncated: false,
    outcome: 'delivered',
    retryInMs: null,
    retryAfter: false,
    craft: null,
  }),
  'api.request': (seq) => ({
    ...base(seq),
    type: 'api.request',
    sessionId: null,
    scope: 'tenant',
    method: 'POST',
    path: '/api/v1/chatbot',
    status: 401,
    requestId: 'req-1',
    error: 'invalid bearer token',
    named: { questionId: null, questionIndex: null, sessionId: null, coreClientId: null, clientId: null },
    userAgent: 'curl/8.5.0',
    during: [],
  }),
  'reason.updated': (seq) => ({
    ...base(seq),
    type: 'reason.updated',
    sessionId: null,
    requestId: 'req-1',
    code: 'LUNCH',
    reason: { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], active: true },
  }),
  'bridge.forward': (seq) => ({
    ...base(seq),
    type: 'bridge.forward',
    sessionId: 's-1',
    requestId: 'req-1',
    method: 'POST',
    path: '/api/v1/chatbot',
    localStatus: 200,
    forcedInvalid: false,
    status: 200,
    error: null,
    body: '',
    bodyTruncated: false,
    latencyMs: 3,
  }),
  'bridge.webhook': (seq) => ({
    ...base(seq),
    type: 'bridge.webhook',
    sessionId: null,
    signature: 'failed',
    problem: 'the signature does not verify with the platform secret',
    botStatus: 401,
    error: null,
    bodyBytes: 120,
  }),
  'handover.routed': (seq) => ({
    ...base(seq),
    type: 'handover.routed',
    sessionId: 's-1',
    scope: 'thread',
    questionId: 5001n,
    agentId: 7n,
    agentName: 'Ann',
    matched: ['skillIds'],
    fromQueue: false,
  }),
  'handover.queued': (seq) => ({
    ...base(seq),
    type: 'handover.queued',
    sessionId: 's-1',
    scope: 'thread',
    questionId: 5001n,
    why: 'all matching agents are away or full',
  }),
  'agent.status': (seq) => ({ ...base(seq), type: 'agent.status', sessionId: null, agentId: 7n, agentStatus: 'away', reason: 'LUNCH' }),
  'agent.message': (seq) => ({
    ...base(seq),
    type: 'agent.message',
    sessionId: 's-1',
    agentId: 7n,
    agentName: 'Ann',
    text: 'Hello, Ann here',
  }),
  'probe.check': (seq) => ({
    ...base(seq),
    type: 'probe.check',
    sessionId: 's-1',
    check: 'signature.tampered',
    verdict: 'fail',
    message: 'the bot accepted it (200)',
  }),
  'sandbox.reset': (seq) => ({ ...base(seq), type: 'sandbox.reset', sessionId: null }),
};

function base(seq: number) {
  return { seq, tenant: 'sandbox', time: new Date(Date.UTC(2026, 0, 1) + (seq % 86_400_000)).toISOString() };
}

/** An event of `type`: the defaults above, with `fields` laid over them. */
export function anEvent<T extends EventType>(type: T, fields: Partial<Omit<EventOf<T>, 'type'>> = {}): EventOf<T> {
  const seq = fields.seq ?? nextSeq++;
  return { ...(defaults[type](seq) as EventOf<T>), ...fields };
}

/** One event of every type, in the order of docs/sandbox.md's table. */
export function oneOfEach(): SandboxEvent[] {
  return (Object.keys(defaults) as EventType[]).map((type) => anEvent(type));
}

/** Some fields of an event of any type, `type` among them. */
export type PartialEvent = { [T in EventType]: { type: T } & Partial<Omit<EventOf<T>, 'type'>> }[EventType];

/** The whole event of `fields.type`, with `fields` laid over its defaults. */
export function eventFrom(fields: PartialEvent): SandboxEvent {
  const seq = fields.seq ?? nextSeq++;
  return { ...defaults[fields.type](seq), ...fields } as SandboxEvent;
}
