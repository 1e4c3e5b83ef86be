import { describe, expect, it } from 'vitest';
import type { RandomIds } from '../../../src/sandbox/model.js';
import { bridgedMessageEvents, type BridgedMessage } from '../../../src/sandbox/rules/bridged.js';
import { world } from './world.js';

/**
 * A customer message the real platform delivered to a bridge (docs/bridge.md): recorded with the
 * platform's own identifiers, the thread started when the tenant does not keep it.
 */

const ids: RandomIds = { sessionId: () => 's-made-here', deliveryId: () => 'msg_new' };

const message = (fields: Partial<BridgedMessage> = {}): BridgedMessage => ({
  sessionId: 'platform-session',
  channel: 'IM',
  coreClientId: 2n ** 53n + 1n,
  clientId: 'alice',
  questionId: 9_007_199_254_740_993n,
  questionIndex: 3n,
  questionType: 'TEXT',
  text: 'Where is my order?',
  ...fields,
});

/** The customer.message event of `message(fields)`: its identifiers and text as given, a delivery to the bot. */
const customerMessage = (fields: Partial<BridgedMessage> = {}) => ({
  type: 'customer.message',
  ...message(fields),
  quickReply: null,
  listItem: null,
  deliveryId: 'msg_new',
  noWebhook: null,
});

describe('the events of a bridged customer message', () => {
  it("in a thread the tenant does not keep: the thread's start under the platform's sessionId, then the message", () => {
    expect(bridgedMessageEvents(world().view, message(), ids)).toEqual([
      {
        type: 'conversation.started',
        sessionId: 'platform-session',
        channel: 'IM',
        coreClientId: 2n ** 53n + 1n,
        clientId: 'alice',
        by: 'customer',
      },
      customerMessage(),
    ]);
  });

  it('in a thread the tenant keeps: the message alone, with the identifiers the platform gave', () => {
    const w = world();
    w.thread(w.client(2n ** 53n + 1n, 'alice'), { sessionId: 'platform-session', channel: 'IM' });
    expect(bridgedMessageEvents(w.view, message(), ids)).toEqual([customerMessage()]);
  });

  it.each([
    ['an EMAIL question', { channel: 'EMAIL', questionType: 'EMAIL' }],
    ['a client with no clientId', { clientId: null }],
    ['a text at the limit of a message', { text: 'x'.repeat(4000) }],
  ] as const)('keeps what it is given: %s', (_, fields) => {
    const events = bridgedMessageEvents(world().view, message(fields), ids);
    expect(events?.at(-1)).toEqual(customerMessage(fields));
  });

  it('is none for a questionId the tenant keeps: the platform delivering it again', () => {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 'platform-session' });
    const question = w.ask(thread);
    expect(bridgedMessageEvents(w.view, message({ questionId: question.questionId }), ids)).toBeNull();
  });

  it('is a new message for a questionId the tenant does not keep, in a thread it keeps', () => {
    const w = world();
    const thread = w.thread(w.client(1n), { sessionId: 'platform-session' });
    w.ask(thread);
    expect(bridgedMessageEvents(w.view, message({ questionId: 77n }), ids)).toEqual([customerMessage({ questionId: 77n })]);
  });
});
