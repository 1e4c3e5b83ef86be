import { describe, expect, it } from 'vitest';
import type { Channel, Owner } from '../../../src/sandbox/events.js';
import { customerMessage, customerQuestion } from '../../../src/sandbox/rules/customer-message.js';
import { world } from './world.js';

/** A customer message: its question type, and whether it goes to the bot (docs/sandbox.md, "State", "The MESSAGE webhook"). */

describe('a customer message', () => {
  it.each([
    ['WEB', 'TEXT'],
    ['IM', 'TEXT'],
    ['EMAIL', 'EMAIL'],
  ] as const)('on a %s thread is a %s question', (channel: Channel, questionType) => {
    const w = world();
    expect(customerQuestion(w.thread(w.client(1n), { channel }), true).questionType).toBe(questionType);
  });

  it.each([
    [true, 'bot', null],
    [true, 'agents', 'the thread is with agents'],
    [false, 'bot', 'no bot is connected (start the sandbox with --bot-url)'],
    [false, 'agents', 'no bot is connected (start the sandbox with --bot-url)'],
  ] as const)('with a bot connected=%s and the thread with %s, sends no webhook because: %s', (connected, owner: Owner, noWebhook) => {
    const w = world();
    expect(customerQuestion(w.thread(w.client(1n), { owner }), connected).noWebhook).toBe(noWebhook);
  });

  it.each([
    ['a plain one', undefined, 5001n],
    ['one asked above 2^53 (a fuzz probe)', true, 2n ** 53n + 1n],
  ] as const)("%s takes the tenant's next questionId of its kind", (_what, largeId, questionId) => {
    const w = world();
    const thread = w.thread(w.client(1n));
    const words = { text: 'hi', quickReply: null, listItem: null, ...(largeId === undefined ? {} : { largeId }) };
    const ids = { sessionId: () => 's-new', deliveryId: () => 'msg_new' };
    expect(customerMessage(w.view, thread, words, true, ids).questionId).toBe(questionId);
  });
});
