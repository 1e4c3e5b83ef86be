import { describe, expect, it } from 'vitest';
import type { Reason } from '../../../src/payload/index.js';
import { freeCoreClientId } from '../../../src/sandbox/rules/ids.js';
import { applyEvent, EventApplyError, newModel, type ModelConfig, type SandboxModel } from '../../../src/sandbox/store/apply.js';
import { retainedBytes } from '../../../src/sandbox/store/bytes.js';
import { DELIVERY_OVERHEAD } from '../../../src/sandbox/store/delivery.js';
import { digestOf, type TenantDigest } from '../../../src/sandbox/store/digest.js';
import { eventFrom, type PartialEvent } from '../../helpers/events.js';

/**
 * The store's reducer (src/sandbox/store/apply.ts), event by event: a tenant's state before, one
 * event, and what the event changed. Every row starts from the same world (a WEB thread s-1 of
 * client 1001 with question 5001, its webhook msg_1 in flight), applies the event, and compares the
 * tenant's digest with the one before: only the fields named changed.
 */

const LUNCH: Reason = { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], active: true, system: false };
const MEETING: Reason = { code: 'MEETING', reasons: [{ locale: 'en', name: 'Meeting' }], active: false, system: false };
const ANN = { id: 7n, name: 'Ann', skills: [12n], units: [4n], capacity: 2, status: 'online' as const, reason: null };
const config: ModelConfig = {
  tenants: ['sandbox'],
  seedReasons: [LUNCH, MEETING],
  seedAgents: [ANN],
  maxEvents: 1000,
  maxEventBytes: 64 * 1024 * 1024,
};

/** A model with `events` applied, each given the next seq. */
function modelWith(events: PartialEvent[], settings: Partial<ModelConfig> = {}): SandboxModel {
  const model = newModel({ ...config, ...settings });
  for (const fields of events) applyEvent(model, eventFrom({ ...fields, seq: model.lastSeq + 1 }));
  return model;
}

const started: PartialEvent = { type: 'conversation.started', sessionId: 's-1', coreClientId: 1001n, clientId: null };
const asked: PartialEvent = { type: 'customer.message', sessionId: 's-1', questionId: 5001n, questionIndex: 1n, deliveryId: 'msg_1' };
const world = (): PartialEvent[] => [started, asked];

const tenantOf = (model: SandboxModel, name = 'sandbox'): TenantDigest => digestOf(model).tenants.find((t) => t.name === name)!;

/** What changed in the tenant's digest between two models, field by field (the log and the bytes aside: every event changes them). */
function changes(before: TenantDigest, after: TenantDigest): Partial<TenantDigest> {
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof TenantDigest)[]) {
    if (key === 'log' || key === 'bytes') continue;
    if (JSON.stringify(after[key], big) !== JSON.stringify(before[key], big)) changed[key] = after[key];
  }
  return changed;
}
const big = (_key: string, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value);

const handedOver: PartialEvent = { type: 'handover', sessionId: 's-1', scope: 'thread', code: 'SWITCH_TO_HUMAN', questionId: 5001n };
const passedOn: PartialEvent = {
  type: 'handover',
  sessionId: 's-1',
  scope: 'question',
  code: 'UNCLEAR_QUESTION',
  questionId: 5001n,
  userIds: [7n],
};

const routedThread: PartialEvent = {
  type: 'handover.routed',
  sessionId: 's-1',
  scope: 'thread',
  questionId: null,
  agentId: 7n,
  fromQueue: false,
};
const queuedThread: PartialEvent = { type: 'handover.queued', sessionId: 's-1', scope: 'thread', questionId: null };
const heldThread = (seq: number) => ({ key: 's-1', sessionId: 's-1', scope: 'thread' as const, questionId: null, seq });
const annWith = (fields: object) => ({ ...ANN, assigned: [], ...fields });

describe('applyEvent, event by event: the state before, the event, what it changed', () => {
  it.each<[string, PartialEvent[], PartialEvent, (seq: number) => Partial<TenantDigest>]>([
    [
      'conversation.started for a client the tenant does not keep: the client, the thread, the counter on',
      [],
      {
        type: 'conversation.started',
        sessionId: 's-9',
        channel: 'EMAIL',
        subject: 'Order 42',
        coreClientId: 1001n,
        clientId: 'alice',
        by: 'customer',
      },
      (seq) => ({
        nextClientId: 1002n,
        clients: [{ coreClientId: 1001n, clientId: 'alice', lastSeq: seq, latest: 's-9' }],
        clientsByExternalId: [['alice', 1001n]],
        threads: [
          expect.objectContaining({
            sessionId: 's-9',
            channel: 'EMAIL',
            subject: 'Order 42',
            client: 1001n,
            owner: 'bot',
            nextIndex: 1n,
            startedSeq: seq,
            log: [seq],
          }),
        ],
      }),
    ],
    [
      'conversation.started naming a coreClientId past the counter: the client, the counter where it was',
      [],
      { type: 'conversation.started', sessionId: 's-9', coreClientId: 9223372036854775807n, clientId: null },
      (seq) => ({
        clients: [{ coreClientId: 9223372036854775807n, clientId: null, lastSeq: seq, latest: 's-9' }],
        threads: [expect.objectContaining({ sessionId: 's-9', client: 9223372036854775807n })],
      }),
    ],
    [
      'conversation.started naming a known client without clientId, with one: the client takes it',
      world(),
      { type: 'conversation.started', sessionId: 's-2', coreClientId: 1001n, clientId: 'bob' },
      (seq) => ({
        clients: [{ coreClientId: 1001n, clientId: 'bob', lastSeq: seq, latest: 's-2' }],
        clientsByExternalId: [['bob', 1001n]],
        threads: [expect.objectContaining({ sessionId: 's-1' }), expect.objectContaining({ sessionId: 's-2', client: 1001n })],
      }),
    ],
    [
      'customer.message with a webhook: the question, the next index and questionId, the delivery in flight',
      [started],
      {
        type: 'customer.message',
        sessionId: 's-1',
        questionId: 5001n,
        questionIndex: 1n,
        text: 'Hi',
        deliveryId: 'msg_1',
        noWebhook: null,
      },
      (seq) => ({
        nextQuestionId: 5002n,
        clients: [{ coreClientId: 1001n, clientId: null, lastSeq: seq, latest: 's-1' }],
        threads: [expect.objectContaining({ sessionId: 's-1', questions: [5001n], nextIndex: 2n, lastSeq: seq })],
        questions: [
          { questionId: 5001n, seq, questionIndex: 1n, type: 'TEXT', thread: 's-1', answered: false, withAgents: null, agentId: null },
        ],
        deliveries: [
          expect.objectContaining({ deliveryId: 'msg_1', sessionId: 's-1', questionId: 5001n, seq, redeliveries: 0, inFlight: true }),
        ],
      }),
    ],
    [
      'customer.message without a webhook: the question, no delivery',
      [started],
      { type: 'customer.message', sessionId: 's-1', questionId: 5001n, questionIndex: 1n, deliveryId: null },
      (seq) => ({
        nextQuestionId: 5002n,
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ questions: [5001n], nextIndex: 2n })],
        questions: [expect.objectContaining({ questionId: 5001n })],
      }),
    ],
    [
      'customer.message asked above 2^53 (a fuzz probe): the next such questionId on, the plain one kept',
      [started],
      { type: 'customer.message', sessionId: 's-1', questionId: 2n ** 53n + 1n, questionIndex: 1n, deliveryId: null },
      () => ({
        nextLargeQuestionId: 2n ** 53n + 5n,
        clients: [expect.objectContaining({ lastSeq: expect.any(Number) })],
        threads: [expect.objectContaining({ questions: [2n ** 53n + 1n], nextIndex: 2n })],
        questions: [expect.objectContaining({ questionId: 2n ** 53n + 1n })],
      }),
    ],
    [
      'bot.answer delivered: its answerId and question claimed, what the customer can press',
      world(),
      {
        type: 'bot.answer',
        sessionId: 's-1',
        questionId: 5001n,
        answerId: 'a-1',
        delivered: true,
        body: { questionId: 5001n, text: 'Pick', quickReplies: [{ type: 'TEXT', text: 'Yes' }] },
      },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [
          expect.objectContaining({
            lastSeq: seq,
            lastBotMessage: { seq, quickReplies: [{ type: 'TEXT', text: 'Yes' }], messageListPicker: null, listShown: false },
          }),
        ],
        questions: [expect.objectContaining({ answered: true })],
        answerIds: [['a-1', seq]],
      }),
    ],
    [
      'bot.answer refused: nothing claimed, only the thread kept alive',
      world(),
      { type: 'bot.answer', sessionId: 's-1', questionId: 5001n, answerId: 'a-1', delivered: false, status: 409 },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq, lastBotMessage: null })],
      }),
    ],
    [
      'greeting: what the customer can press, no answerId claimed',
      world(),
      { type: 'greeting', sessionId: 's-1', body: { coreClientId: 1001n, text: 'Hi', quickReplies: [{ type: 'TEXT', text: 'Go' }] } },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [
          expect.objectContaining({ lastBotMessage: expect.objectContaining({ seq, quickReplies: [{ type: 'TEXT', text: 'Go' }] }) }),
        ],
      }),
    ],
    [
      'handover of the thread: with agents, the hand-over recorded with its time',
      world(),
      { ...handedOver, userIds: [7n], time: '2026-02-02T00:00:00.000Z' },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [
          expect.objectContaining({
            owner: 'agents',
            handover: { code: 'SWITCH_TO_HUMAN', seq, time: '2026-02-02T00:00:00.000Z', userIds: [7n], skillIds: [], unitIds: [] },
          }),
        ],
      }),
    ],
    [
      'handover of a question: the question with agents, the thread with the bot',
      world(),
      passedOn,
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ owner: 'bot', lastSeq: seq })],
        questions: [expect.objectContaining({ withAgents: expect.objectContaining({ code: 'UNCLEAR_QUESTION', seq, userIds: [7n] }) })],
      }),
    ],
    [
      'released: the thread and its questions back with the bot',
      [...world(), handedOver, passedOn],
      { type: 'released', sessionId: 's-1', questions: 1, thread: true },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ owner: 'bot', handover: null, lastSeq: seq })],
        questions: [expect.objectContaining({ withAgents: null })],
      }),
    ],
    [
      'webhook.redelivery: the delivery in flight again, in its next series',
      [...world(), { type: 'webhook.attempt', deliveryId: 'msg_1', outcome: 'failed' }],
      { type: 'webhook.redelivery', sessionId: 's-1', deliveryId: 'msg_1', questionId: 5001n, redelivery: 1 },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq })],
        deliveries: [expect.objectContaining({ redeliveries: 1, inFlight: true })],
      }),
    ],
    [
      'webhook.attempt retrying: the delivery still in flight',
      world(),
      { type: 'webhook.attempt', sessionId: 's-1', deliveryId: 'msg_1', outcome: 'retrying' },
      (seq) => ({ clients: [expect.objectContaining({ lastSeq: seq })], threads: [expect.objectContaining({ lastSeq: seq })] }),
    ],
    [
      'webhook.attempt failed: the series over, the delivery can be sent again',
      world(),
      { type: 'webhook.attempt', sessionId: 's-1', deliveryId: 'msg_1', outcome: 'failed' },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq })],
        deliveries: [expect.objectContaining({ inFlight: false })],
      }),
    ],
    [
      'webhook.attempt delivered: the series over',
      world(),
      { type: 'webhook.attempt', sessionId: 's-1', deliveryId: 'msg_1', outcome: 'delivered' },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq })],
        deliveries: [expect.objectContaining({ inFlight: false })],
      }),
    ],
    ['api.request tied to no conversation: the log alone', world(), { type: 'api.request', sessionId: null }, () => ({})],
    [
      'api.request tied to a conversation: its thread kept alive',
      world(),
      { type: 'api.request', sessionId: 's-1', scope: 'conversation' },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq, log: [1, 2, seq] })],
      }),
    ],
    [
      'reason.updated switching a reason on: the reason as stored, one more active',
      world(),
      { type: 'reason.updated', requestId: 'r-9', code: 'MEETING', reason: { ...MEETING, active: true }, time: '2026-03-03T00:00:00.000Z' },
      () => ({
        activeCount: 2,
        reasons: [
          ['LUNCH', expect.objectContaining({ updatedAt: null })],
          [
            'MEETING',
            {
              tenant: 'sandbox',
              code: 'MEETING',
              reason: { ...MEETING, active: true },
              updatedAt: '2026-03-03T00:00:00.000Z',
              requestId: 'r-9',
            },
          ],
        ],
      }),
    ],
    [
      'reason.updated switching a reason off: one fewer active',
      world(),
      { type: 'reason.updated', code: 'LUNCH', reason: { ...LUNCH, active: false } },
      () => ({
        activeCount: 0,
        reasons: [
          ['LUNCH', expect.objectContaining({ reason: { ...LUNCH, active: false } })],
          ['MEETING', expect.anything()],
        ],
      }),
    ],
    [
      'handover.routed of a thread: the agent holds it, the thread names the agent',
      [...world(), { ...handedOver, skillIds: [12n] }],
      routedThread,
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ owner: 'agents', agentId: 7n, lastSeq: seq })],
        agents: [annWith({ assigned: [heldThread(seq)] })],
      }),
    ],
    [
      'handover.routed of a question: the agent holds the question, the thread stays with the bot',
      [...world(), passedOn],
      { type: 'handover.routed', sessionId: 's-1', scope: 'question', questionId: 5001n, agentId: 7n },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ owner: 'bot', agentId: null, lastSeq: seq })],
        questions: [expect.objectContaining({ agentId: 7n })],
        agents: [annWith({ assigned: [{ key: 's-1/5001', sessionId: 's-1', scope: 'question', questionId: 5001n, seq }] })],
      }),
    ],
    [
      'handover.queued: into the queue with the targets of its hand-over',
      [...world(), { ...handedOver, skillIds: [12n], unitIds: [3n] }],
      queuedThread,
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq })],
        queue: [{ ...heldThread(seq), targets: { userIds: [], skillIds: [12n], unitIds: [3n] } }],
      }),
    ],
    [
      'handover.routed from the queue: out of the queue, held by the agent',
      [...world(), handedOver, queuedThread],
      { ...routedThread, fromQueue: true },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ agentId: 7n, lastSeq: seq })],
        agents: [annWith({ assigned: [heldThread(seq)] })],
        queue: [],
      }),
    ],
    [
      'agent.status away: the agent away with its reason',
      world(),
      { type: 'agent.status', sessionId: null, agentId: 7n, agentStatus: 'away', reason: 'LUNCH' },
      () => ({ agents: [annWith({ status: 'away', reason: 'LUNCH' })] }),
    ],
    [
      'agent.status online: the reason gone',
      [...world(), { type: 'agent.status', sessionId: null, agentId: 7n, agentStatus: 'away', reason: 'LUNCH' }],
      { type: 'agent.status', sessionId: null, agentId: 7n, agentStatus: 'online', reason: null },
      () => ({ agents: [annWith({})] }),
    ],
    [
      'agent.message: the thread and its client kept alive, nothing else',
      [...world(), handedOver, routedThread],
      { type: 'agent.message', sessionId: 's-1', agentId: 7n, text: 'Hello' },
      (seq) => ({ clients: [expect.objectContaining({ lastSeq: seq })], threads: [expect.objectContaining({ lastSeq: seq })] }),
    ],
    [
      'released of a thread an agent holds: the agent has room again',
      [...world(), handedOver, routedThread],
      { type: 'released', sessionId: 's-1', questions: 0, thread: true },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ owner: 'bot', handover: null, agentId: null, lastSeq: seq })],
        agents: [annWith({})],
      }),
    ],
    [
      'released of a queued thread: out of the queue',
      [...world(), handedOver, queuedThread],
      { type: 'released', sessionId: 's-1', questions: 0, thread: true },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ owner: 'bot', handover: null, lastSeq: seq })],
        queue: [],
      }),
    ],
    [
      'sandbox.reset: the tenant as it started, but for its id counters, which go on (no id handed out twice)',
      [
        ...world(),
        { ...asked, questionId: 2n ** 53n + 1n, questionIndex: 2n, deliveryId: null },
        { type: 'reason.updated', code: 'LUNCH', reason: { ...LUNCH, active: false } },
        { type: 'agent.status', sessionId: null, agentId: 7n, agentStatus: 'away', reason: 'LUNCH' },
      ],
      { type: 'sandbox.reset', sessionId: null },
      () => ({
        activeCount: 1,
        clients: [],
        threads: [],
        questions: [],
        deliveries: [],
        reasons: [
          ['LUNCH', expect.objectContaining({ reason: LUNCH, updatedAt: null })],
          ['MEETING', expect.anything()],
        ],
        agents: [annWith({})],
      }),
    ],
    [
      'conversation.started without a subject: the thread has none',
      [],
      { type: 'conversation.started', sessionId: 's-9', subject: undefined, coreClientId: 1001n, clientId: null },
      (seq) => ({
        nextClientId: 1002n,
        clients: [{ coreClientId: 1001n, clientId: null, lastSeq: seq, latest: 's-9' }],
        threads: [expect.objectContaining({ sessionId: 's-9', subject: null })],
      }),
    ],
    [
      'conversation.started naming a known client with a clientId, with another: the client keeps its own',
      [{ ...started, clientId: 'alice' }],
      { type: 'conversation.started', sessionId: 's-2', coreClientId: 1001n, clientId: 'bob' },
      (seq) => ({
        clients: [{ coreClientId: 1001n, clientId: 'alice', lastSeq: seq, latest: 's-2' }],
        threads: [expect.objectContaining({ sessionId: 's-1' }), expect.objectContaining({ sessionId: 's-2', client: 1001n })],
      }),
    ],
    [
      'bot.answer delivered without answerId: its question claimed, no answerId',
      world(),
      { type: 'bot.answer', sessionId: 's-1', questionId: 5001n, answerId: null, delivered: true, body: { questionId: 5001n, text: 'Hi' } },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastBotMessage: expect.objectContaining({ seq }) })],
        questions: [expect.objectContaining({ answered: true })],
      }),
    ],
    [
      'bot.answer delivered to a question no longer kept: its answerId claimed, no question',
      world(),
      {
        type: 'bot.answer',
        sessionId: 's-1',
        questionId: 5009n,
        answerId: 'a-1',
        delivered: true,
        body: { questionId: 5009n, text: 'Hi' },
      },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastBotMessage: expect.objectContaining({ seq }) })],
        answerIds: [['a-1', seq]],
      }),
    ],
    [
      'bot.answer delivered to a thread no longer kept: its answerId claimed, no thread changed',
      world(),
      { type: 'bot.answer', sessionId: 's-9', coreClientId: null, questionId: null, answerId: 'a-1', delivered: true },
      (seq) => ({ answerIds: [['a-1', seq]] }),
    ],
    [
      'greeting not delivered: nothing the customer can press',
      world(),
      { type: 'greeting', sessionId: 's-1', delivered: false, status: 400 },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq, lastBotMessage: null })],
      }),
    ],
    [
      'greeting to a client outside any thread: the client kept alive',
      world(),
      { type: 'greeting', sessionId: null, coreClientId: 1001n },
      (seq) => ({ clients: [expect.objectContaining({ coreClientId: 1001n, lastSeq: seq })] }),
    ],
    [
      'probe.check of a kept thread: the thread labelled with the check, its verdict and message',
      world(),
      { type: 'probe.check', sessionId: 's-1', check: 'signature.tampered', verdict: 'fail', message: 'the bot accepted it (200)' },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [
          expect.objectContaining({
            lastSeq: seq,
            check: { check: 'signature.tampered', verdict: 'fail', message: 'the bot accepted it (200)' },
          }),
        ],
      }),
    ],
    ['probe.check of a thread no longer kept: the log alone', world(), { type: 'probe.check', sessionId: 's-9' }, () => ({})],
    [
      'webhook.redelivery of a delivery no longer kept: the log alone',
      world(),
      { type: 'webhook.redelivery', sessionId: 's-9', deliveryId: 'msg_9', questionId: 5009n, redelivery: 1 },
      () => ({}),
    ],
    [
      'webhook.attempt of a delivery no longer kept: the log alone',
      world(),
      { type: 'webhook.attempt', sessionId: 's-9', deliveryId: 'msg_9', outcome: 'failed' },
      () => ({}),
    ],
    ['handover of a thread no longer kept: the log alone', world(), { ...handedOver, sessionId: 's-9' }, () => ({})],
    [
      'handover of a question no longer kept: the log and its thread alone',
      world(),
      { ...passedOn, questionId: 5009n },
      (seq) => ({ clients: [expect.objectContaining({ lastSeq: seq })], threads: [expect.objectContaining({ lastSeq: seq })] }),
    ],
    [
      'released of a thread no longer kept: the log alone',
      world(),
      { type: 'released', sessionId: 's-9', questions: 0, thread: true },
      () => ({}),
    ],
    [
      'handover.queued of a question: into the queue under its key, with the targets of its own hand-over',
      [...world(), { ...handedOver, userIds: [8n] }, { ...passedOn, userIds: [7n], skillIds: [12n], unitIds: [3n] }],
      { type: 'handover.queued', sessionId: 's-1', scope: 'question', questionId: 5001n },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq })],
        queue: [
          {
            key: 's-1/5001',
            sessionId: 's-1',
            scope: 'question',
            questionId: 5001n,
            seq,
            targets: { userIds: [7n], skillIds: [12n], unitIds: [3n] },
          },
        ],
      }),
    ],
    [
      'handover.queued with no hand-over recorded: into the queue with no targets',
      world(),
      queuedThread,
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq })],
        queue: [{ ...heldThread(seq), targets: { userIds: [], skillIds: [], unitIds: [] } }],
      }),
    ],
    [
      'handover.routed of a question: the thread stays with the bot and names no agent',
      [...world(), passedOn],
      { type: 'handover.routed', sessionId: 's-1', scope: 'question', questionId: 5009n, agentId: 7n },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ agentId: null, lastSeq: seq })],
        agents: [annWith({ assigned: [{ key: 's-1/5009', sessionId: 's-1', scope: 'question', questionId: 5009n, seq }] })],
      }),
    ],
    [
      'released of one thread an agent holds beside another: the other held still',
      [
        ...world(),
        { type: 'conversation.started', sessionId: 's-2', coreClientId: 1002n, clientId: null },
        handedOver,
        { ...handedOver, sessionId: 's-2' },
        routedThread,
        { ...routedThread, sessionId: 's-2' },
        { ...queuedThread, sessionId: 's-2', scope: 'question', questionId: 7001n },
      ],
      { type: 'released', sessionId: 's-1', questions: 0, thread: true },
      (seq) => ({
        clients: [expect.objectContaining({ coreClientId: 1001n, lastSeq: seq }), expect.objectContaining({ coreClientId: 1002n })],
        threads: [
          expect.objectContaining({ sessionId: 's-1', owner: 'bot', agentId: null, lastSeq: seq }),
          expect.objectContaining({ sessionId: 's-2', owner: 'agents', agentId: 7n }),
        ],
        agents: [annWith({ assigned: [{ key: 's-2', sessionId: 's-2', scope: 'thread', questionId: null, seq: seq - 2 }] })],
      }),
    ],
    [
      'reason.updated of a code the tenant did not have: the reason added, one more active',
      world(),
      {
        type: 'reason.updated',
        requestId: 'r-9',
        code: 'TRAINING',
        reason: { ...LUNCH, code: 'TRAINING' },
        time: '2026-03-03T00:00:00.000Z',
      },
      () => ({
        activeCount: 2,
        reasons: [
          ['LUNCH', expect.anything()],
          ['MEETING', expect.anything()],
          ['TRAINING', expect.objectContaining({ code: 'TRAINING', updatedAt: '2026-03-03T00:00:00.000Z' })],
        ],
      }),
    ],
    [
      'conversation.started naming a known client without clientId, with none: the client still has none',
      world(),
      { type: 'conversation.started', sessionId: 's-2', coreClientId: 1001n, clientId: null },
      (seq) => ({
        clients: [{ coreClientId: 1001n, clientId: null, lastSeq: seq, latest: 's-2' }],
        threads: [expect.objectContaining({ sessionId: 's-1' }), expect.objectContaining({ sessionId: 's-2', client: 1001n })],
      }),
    ],
    [
      "handover.routed of a thread, named with its question: held as the thread, under the thread's key",
      [...world(), handedOver],
      { ...routedThread, questionId: 5001n },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ agentId: 7n, lastSeq: seq })],
        agents: [annWith({ assigned: [heldThread(seq)] })],
      }),
    ],
    [
      'handover.routed of a thread no longer kept: held by the agent all the same',
      world(),
      { ...routedThread, sessionId: 's-9' },
      (seq) => ({ agents: [annWith({ assigned: [{ ...heldThread(seq), key: 's-9', sessionId: 's-9' }] })] }),
    ],
    [
      "handover.queued of a thread, named with its question: queued as the thread, under the thread's key",
      [...world(), { ...handedOver, skillIds: [12n] }],
      { ...queuedThread, questionId: 5001n },
      (seq) => ({
        clients: [expect.objectContaining({ lastSeq: seq })],
        threads: [expect.objectContaining({ lastSeq: seq })],
        queue: [{ ...heldThread(seq), targets: { userIds: [], skillIds: [12n], unitIds: [] } }],
      }),
    ],
    [
      'handover.queued of a thread no longer kept: queued with no targets',
      world(),
      { ...queuedThread, sessionId: 's-9' },
      (seq) => ({ queue: [{ ...heldThread(seq), key: 's-9', sessionId: 's-9', targets: { userIds: [], skillIds: [], unitIds: [] } }] }),
    ],
    [
      'bridge.forward: the log and its thread alone',
      world(),
      { type: 'bridge.forward', sessionId: 's-1' },
      (seq) => ({ clients: [expect.objectContaining({ lastSeq: seq })], threads: [expect.objectContaining({ lastSeq: seq })] }),
    ],
    ['bridge.webhook: the log alone', world(), { type: 'bridge.webhook', sessionId: null }, () => ({})],
  ])('%s', (_, before, event, changed) => {
    const model = modelWith(before);
    const previous = tenantOf(model);
    const seq = model.lastSeq + 1;
    const applied = eventFrom({ ...event, seq });
    applyEvent(model, applied);
    const after = tenantOf(model);
    expect(changes(previous, after)).toEqual(changed(seq));
    // Every event goes into its tenant's log, and its size into the bytes the tenant holds.
    expect(after.log.at(-1)).toBe(applied);
    expect(after.bytes).toBeGreaterThan(event.type === 'sandbox.reset' ? 0 : previous.bytes);
    expect(model.lastSeq).toBe(seq);
  });

  it('resets the sandbox-wide log with a sandbox.reset of tenant "", which starts it again', () => {
    const model = modelWith([{ type: 'api.request', tenant: '', scope: 'sandbox', sessionId: null }]);
    expect(tenantOf(model, '').log).toHaveLength(1);
    applyEvent(model, eventFrom({ type: 'sandbox.reset', tenant: '', sessionId: null, seq: 2 }));
    expect(tenantOf(model, '').log.map((event) => event.type)).toEqual(['sandbox.reset']);
    expect(digestOf(model).tenants.map((tenant) => tenant.name)).toEqual(['sandbox', '']);
    expect(tenantOf(model, '')).toMatchObject({ reasons: [], agents: [], activeCount: 0 });
  });

  it('forgets the sessions of a tenant it resets, and only those', () => {
    const model = newModel({ ...config, tenants: ['a', 'b'] });
    applyEvent(model, eventFrom({ ...started, tenant: 'a', sessionId: 's-a', seq: 1 }));
    applyEvent(model, eventFrom({ ...started, tenant: 'b', sessionId: 's-b', seq: 2 }));
    applyEvent(model, eventFrom({ type: 'sandbox.reset', tenant: 'a', sessionId: null, seq: 3 }));
    expect(digestOf(model).sessions).toEqual([['s-b', 'b']]);
  });

  it.each<[string, PartialEvent[], PartialEvent, RegExp]>([
    [
      'an event of a seq not after the last',
      world(),
      { ...started, sessionId: 's-2', seq: 1 },
      /comes after seq 2: events are applied in seq order/,
    ],
    ['an event of a tenant not served', [], { ...started, tenant: 'elsewhere' }, /tenant 'elsewhere' is not served/],
    ['a thread started twice', world(), started, /thread 's-1' exists already/],
    ['a customer message in a thread the tenant does not keep', [], asked, /no thread 's-1' in tenant 'sandbox'/],
    [
      'an event of the seq of the last',
      world(),
      { ...started, sessionId: 's-2', seq: 2 },
      /^event 2 \(conversation.started\): comes after seq 2/,
    ],
    [
      'an agent.status of an agent the tenant does not have',
      world(),
      { type: 'agent.status', sessionId: null, agentId: 9n, agentStatus: 'away', reason: 'LUNCH' },
      /^event 3 \(agent.status\): no agent 9 in tenant 'sandbox'$/,
    ],
    [
      'a handover.routed to an agent the tenant does not have',
      [...world(), handedOver],
      { ...routedThread, agentId: 9n },
      /^event 4 \(handover.routed\): no agent 9 in tenant 'sandbox'$/,
    ],
  ])('refuses %s, and changes nothing', (_, before, event, message) => {
    const model = modelWith(before);
    const previous = digestOf(model);
    expect(() => applyEvent(model, eventFrom({ seq: model.lastSeq + 1, ...event }))).toThrow(EventApplyError);
    expect(() => applyEvent(model, eventFrom({ seq: model.lastSeq + 1, ...event }))).toThrow(
      expect.objectContaining({ name: 'EventApplyError', message: expect.stringMatching(message) }),
    );
    expect(digestOf(model)).toEqual(previous);
  });
});

describe('a new model', () => {
  it('gives each tenant served its seed reasons and agents, and the sandbox-wide log neither', () => {
    const digest = digestOf(newModel({ ...config, tenants: ['a', 'b'] }));
    expect(digest.tenants.map((tenant) => tenant.name)).toEqual(['a', 'b', '']);
    for (const tenant of digest.tenants.slice(0, 2)) {
      expect(tenant.reasons.map(([code, record]) => [code, record.tenant, record.reason])).toEqual([
        ['LUNCH', tenant.name, LUNCH],
        ['MEETING', tenant.name, MEETING],
      ]);
      expect(tenant).toMatchObject({ activeCount: 1, agents: [annWith({})], nextClientId: 1001n, nextQuestionId: 5001n });
    }
    expect(digest.tenants[2]).toMatchObject({ reasons: [], agents: [], activeCount: 0, log: [], bytes: 0 });
    expect(digest.lastSeq).toBe(0);
  });
});

describe('the ids the log carries go on where they stopped', () => {
  it('moves the coreClientId counter past an id it would have made, whoever named it, and past ids in use', () => {
    const model = modelWith([
      { type: 'conversation.started', sessionId: 's-1', coreClientId: 1002n },
      { type: 'conversation.started', sessionId: 's-2', coreClientId: 1001n },
    ]);
    // 1001 was the counter's, so it moves on to 1002, which is in use: the next made is 1003.
    expect(tenantOf(model).nextClientId).toBe(1002n);
    expect(freeCoreClientId(model.tenants.get('sandbox')!)).toBe(1003n);
  });

  it('keeps the questionId counter past every question asked', () => {
    const model = modelWith([started, { ...asked, questionId: 5007n }]);
    expect(tenantOf(model).nextQuestionId).toBe(5008n);
  });

  it.each([
    ['just under 2^53 above the counter, past it', 5001n + 2n ** 53n - 1n, 5001n + 2n ** 53n],
    ['2^53 above the counter (the probe of ids.precision), one step on', 5001n + 2n ** 53n, 5002n],
    ['below the counter, not at all', 4000n, 5001n],
    ["four past the counter (on the lattice's step, below 2^53), past it", 5005n, 5006n],
    ["above 2^53 off the lattice of a probe's large ids, past it", 2n ** 53n + 2n, 2n ** 53n + 3n],
  ])('moves the questionId counter for a question %s', (_, questionId, next) => {
    const model = modelWith([started, { ...asked, questionId }]);
    expect(tenantOf(model).nextQuestionId).toBe(next);
  });

  it.each([
    ['on the lattice, past the counter of large ids: the counter past it', [2n ** 53n + 5n], 2n ** 53n + 9n],
    ['on the lattice, below the counter of large ids: the counter where it was', [2n ** 53n + 5n, 2n ** 53n + 1n], 2n ** 53n + 9n],
    ['off the lattice: the counter of large ids where it was', [2n ** 53n + 3n], 2n ** 53n + 1n],
    ['2^53 exactly, below the lattice: the counter of large ids where it was', [2n ** 53n], 2n ** 53n + 1n],
  ])("moves the counter of a probe's large questionIds for questions %s", (_, questionIds, next) => {
    const model = modelWith([started, ...questionIds.map((questionId) => ({ ...asked, questionId, deliveryId: null }))]);
    expect(tenantOf(model).nextLargeQuestionId).toBe(next);
  });

  it('moves both counters past a question of a sandbox of large ids asked at its counter, which is on the lattice', () => {
    const first = 2n ** 53n + 5001n;
    const model = modelWith(
      [
        { ...started, coreClientId: 2n ** 53n + 1001n },
        { ...asked, questionId: first },
      ],
      { largeIds: true },
    );
    expect(tenantOf(model)).toMatchObject({ nextQuestionId: first + 1n, nextLargeQuestionId: first + 4n });
  });
});

describe('the bounds of a tenant, applied as each event is', () => {
  it('keeps maxEvents events, not one more, and forgets with the oldest what no kept event mentions', () => {
    const events: PartialEvent[] = [
      started,
      { ...asked, deliveryId: null },
      { type: 'conversation.started', sessionId: 's-2', coreClientId: 1002n },
    ];
    const atBound = modelWith(events, { maxEvents: 3 });
    expect(tenantOf(atBound).log).toHaveLength(3);
    expect(tenantOf(atBound).threads.map((thread) => thread.sessionId)).toEqual(['s-1', 's-2']);
    const past = modelWith([...events, { type: 'api.request', sessionId: 's-2' }], { maxEvents: 3 });
    const tenant = tenantOf(past);
    expect(tenant.log.map((event) => event.seq)).toEqual([2, 3, 4]);
    // The thread s-1 is still mentioned by its question; the seq that started it is gone from its log.
    expect(tenant.threads.find((thread) => thread.sessionId === 's-1')?.log).toEqual([2]);
    const gone = modelWith([...events, { type: 'api.request', sessionId: 's-2' }, { type: 'api.request', sessionId: 's-2' }], {
      maxEvents: 3,
    });
    expect(tenantOf(gone).threads.map((thread) => thread.sessionId)).toEqual(['s-2']);
    expect(tenantOf(gone).questions).toEqual([]);
    expect(tenantOf(gone).clients.map((client) => client.coreClientId)).toEqual([1002n]);
    expect(digestOf(gone).sessions).toEqual([['s-2', 'sandbox']]);
  });

  it('drops the oldest events past maxEventBytes, the delivery with its customer message, and keeps the newest whatever its size', () => {
    const sized = modelWith(world());
    const bytes = tenantOf(sized).bytes;
    const atBound = modelWith(world(), { maxEventBytes: bytes });
    expect(tenantOf(atBound).log).toHaveLength(2);
    const past = modelWith(world(), { maxEventBytes: bytes - 1 });
    expect(tenantOf(past).log.map((event) => event.type)).toEqual(['customer.message']);
    const huge = modelWith([...world(), { type: 'api.request', sessionId: null, error: 'x'.repeat(10_000) }], { maxEventBytes: 100 });
    expect(tenantOf(huge).log.map((event) => event.type)).toEqual(['api.request']);
    expect(tenantOf(huge).deliveries).toEqual([]);
    expect(tenantOf(huge).threads).toEqual([]);
  });

  it('forgets an answerId with the answer that claimed it', () => {
    const answered: PartialEvent = { type: 'bot.answer', sessionId: 's-1', answerId: 'a-1', delivered: true };
    const kept = modelWith([...world(), answered, { type: 'api.request', sessionId: null }], { maxEvents: 2 });
    expect(tenantOf(kept).answerIds).toEqual([['a-1', 3]]);
    const dropped = modelWith([...world(), answered, { type: 'api.request', sessionId: null }, { type: 'api.request', sessionId: null }], {
      maxEvents: 2,
    });
    expect(tenantOf(dropped).answerIds).toEqual([]);
    const ownDropped = modelWith([...world(), answered, { type: 'api.request', sessionId: null }], { maxEvents: 1 });
    expect(tenantOf(ownDropped).answerIds).toEqual([]);
  });

  it('forgets a client kept alive outside its threads with the last event that mentions it, not before', () => {
    const greeted: PartialEvent = { type: 'greeting', sessionId: null, coreClientId: 1001n };
    const events: PartialEvent[] = [started, greeted, { type: 'api.request', sessionId: null }];
    const threadGone = modelWith(events, { maxEvents: 2 });
    expect(tenantOf(threadGone).threads).toEqual([]);
    expect(tenantOf(threadGone).clients).toEqual([{ coreClientId: 1001n, clientId: null, lastSeq: 2, latest: null }]);
    const clientGone = modelWith([...events, { type: 'api.request', sessionId: null }], { maxEvents: 2 });
    expect(tenantOf(clientGone).clients).toEqual([]);
  });

  it("counts the bytes each kept event holds, its delivery included, and takes a dropped one's off", () => {
    const model = modelWith([...world(), { type: 'api.request', sessionId: 's-1' }], { maxEvents: 2 });
    const tenant = model.tenants.get('sandbox')!;
    const [message, request] = [...tenant.log.after(0)];
    const body = tenant.deliveries.get('msg_1')!.body;
    expect(message?.type).toBe('customer.message');
    expect(model.sizes.get(message!)).toBe(retainedBytes(message) + body.byteLength + DELIVERY_OVERHEAD);
    expect(model.sizes.get(request!)).toBe(retainedBytes(request));
    expect(tenant.bytes).toBe(model.sizes.get(message!)! + model.sizes.get(request!)!);
  });

  it('forgets a question with its customer message while its thread lives on', () => {
    const model = modelWith([...world(), { type: 'api.request', sessionId: 's-1' }, { type: 'api.request', sessionId: 's-1' }], {
      maxEvents: 2,
    });
    expect(tenantOf(model).questions).toEqual([]);
    expect(tenantOf(model).deliveries).toEqual([]);
    expect(tenantOf(model).threads).toEqual([expect.objectContaining({ sessionId: 's-1', questions: [], log: [3, 4] })]);
  });

  it("forgets a client with its thread when the thread's last event names no client", () => {
    const events: PartialEvent[] = [started, { type: 'api.request', sessionId: 's-1' }];
    const model = modelWith([...events, { type: 'api.request', sessionId: null }, { type: 'api.request', sessionId: null }], {
      maxEvents: 2,
    });
    expect(tenantOf(model).threads).toEqual([]);
    expect(tenantOf(model).clients).toEqual([]);
  });

  it('forgets a clientId with its client, unless a client met since has taken it', () => {
    const alice: PartialEvent = { ...started, clientId: 'alice' };
    const taken = modelWith(
      [alice, { ...started, sessionId: 's-2', coreClientId: 1002n, clientId: 'alice' }, { type: 'api.request', sessionId: 's-2' }],
      { maxEvents: 2 },
    );
    expect(tenantOf(taken).clients.map((client) => client.coreClientId)).toEqual([1002n]);
    expect(tenantOf(taken).clientsByExternalId).toEqual([['alice', 1002n]]);
    const alone = modelWith([alice, { type: 'api.request', sessionId: null }], { maxEvents: 1 });
    expect(tenantOf(alone).clients).toEqual([]);
    expect(tenantOf(alone).clientsByExternalId).toEqual([]);
  });

  it("forgets a client's older thread and keeps its latest", () => {
    const model = modelWith(
      [
        { ...started, clientId: 'alice' },
        { ...started, sessionId: 's-2', clientId: 'alice' },
        { type: 'api.request', sessionId: 's-2' },
      ],
      { maxEvents: 2 },
    );
    expect(tenantOf(model).threads.map((thread) => thread.sessionId)).toEqual(['s-2']);
    expect(tenantOf(model).clients).toEqual([{ coreClientId: 1001n, clientId: 'alice', lastSeq: 3, latest: 's-2' }]);
    expect(tenantOf(model).clientsByExternalId).toEqual([['alice', 1001n]]);
  });
});
