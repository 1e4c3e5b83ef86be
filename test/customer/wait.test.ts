import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnswerWait, isRefusal, REFUSAL_DELIVERY_MS, SETTLE_MS } from '../../src/customer/wait.js';
import type { SandboxEvent } from '../../src/sandbox/events.js';
import { anEvent } from '../helpers/events.js';

/**
 * When `core customer` stops waiting (src/customer/wait.ts), event by event. The clock is
 * vitest's fake one: these tests move it, so nothing here depends on the machine's speed.
 */

const WAIT = 10_000;
const asked = { seq: 10n, deliveryId: 'msg_1', noWebhook: null };
const answer = (seq: number, delivered = true): SandboxEvent => anEvent('bot.answer', { seq, delivered });
const attempt = (seq: number, outcome: 'delivered' | 'retrying' | 'failed'): SandboxEvent =>
  anEvent('webhook.attempt', { seq, deliveryId: 'msg_1', outcome });

let settled: string | undefined;
const track = (wait: AnswerWait) => void wait.ended.then((end) => (settled = end));
const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
  settled = undefined;
});
afterEach(() => vi.useRealTimers());

describe('the wait of core customer', () => {
  it('does not end on an answer while the webhook delivery is still going on', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start(asked);
    wait.accept(answer(11));
    await vi.advanceTimersByTimeAsync(SETTLE_MS * 3);
    expect(settled).toBeUndefined();
    wait.accept(attempt(12, 'delivered'));
    await vi.advanceTimersByTimeAsync(SETTLE_MS - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('answered');
  });

  it('takes answers that follow within the settle time, each restarting it', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start(asked);
    wait.accept(attempt(11, 'delivered'));
    wait.accept(answer(12));
    await vi.advanceTimersByTimeAsync(SETTLE_MS - 1);
    wait.accept(answer(13));
    await vi.advanceTimersByTimeAsync(SETTLE_MS - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('answered');
    expect(wait.result('answered').answers.map((a) => a.seq)).toEqual([12, 13]);
  });

  it('goes on through retries: a retrying attempt is not the end of the delivery', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start(asked);
    wait.accept(attempt(11, 'retrying'));
    wait.accept(answer(12));
    await vi.advanceTimersByTimeAsync(SETTLE_MS * 2);
    expect(settled).toBeUndefined();
    wait.accept(attempt(13, 'delivered'));
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(settled).toBe('answered');
  });

  it('ends at once when the delivery failed for good and no answer came', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start(asked);
    wait.accept(attempt(11, 'failed'));
    await flush();
    expect(settled).toBe('webhook-failed');
  });

  it.each([
    [401, 'signature-refused'],
    [403, 'signature-refused'],
    [400, undefined],
    [500, undefined],
  ])('after a retrying attempt answered %s, ends with %s', async (status, end) => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start(asked);
    wait.accept(anEvent('webhook.attempt', { seq: 11, deliveryId: 'msg_1', outcome: 'retrying', status }));
    await flush();
    expect(settled).toBe(end);
  });

  it('goes on after a 401 once an answer came (the bot answered before refusing)', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start(asked);
    wait.accept(answer(11));
    wait.accept(anEvent('webhook.attempt', { seq: 12, deliveryId: 'msg_1', outcome: 'retrying', status: 401 }));
    await flush();
    expect(settled).toBeUndefined();
  });

  it('for a thread with agents (no webhook was sent), ends as with-agents when --wait runs out with no agent message', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start({ seq: 10n, deliveryId: null, noWebhook: 'the thread is with agents' });
    await vi.advanceTimersByTimeAsync(WAIT - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('with-agents');
  });

  it("for a thread with agents, ends as answered once an agent's message came and settled", async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start({ seq: 10n, deliveryId: null, noWebhook: 'the thread is with agents' });
    wait.accept(anEvent('handover.routed', { seq: 11, sessionId: 's-1' }));
    wait.accept(anEvent('agent.message', { seq: 12, sessionId: 's-1', text: 'Ann here' }));
    await vi.advanceTimersByTimeAsync(SETTLE_MS - 1);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('answered');
    expect(wait.result('answered')).toMatchObject({ routings: [{ type: 'handover.routed' }], agentMessages: [{ text: 'Ann here' }] });
  });

  it('without a webhook, ends once an answer came and settled', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start({ seq: 10n, deliveryId: null, noWebhook: 'no bot is connected' });
    await vi.advanceTimersByTimeAsync(WAIT - 1);
    expect(settled).toBeUndefined();
    wait.accept(answer(11));
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(settled).toBe('answered');
  });

  it.each([
    { name: 'no answer', events: [attempt(11, 'delivered')], end: 'no-answer' },
    { name: 'only an answer that was not delivered', events: [answer(11, false)], end: 'no-answer' },
    { name: 'a delivered answer, the delivery still retrying', events: [attempt(11, 'retrying'), answer(12)], end: 'answered' },
  ])('ends when --wait runs out: $name -> $end', async ({ events, end }) => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.start(asked);
    for (const event of events) wait.accept(event);
    await vi.advanceTimersByTimeAsync(WAIT - 1);
    if (end === 'no-answer' || events.length > 1) expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe(end);
  });

  it('ignores the events of earlier messages, even when they arrive before the message is known', async () => {
    const wait = new AnswerWait(WAIT);
    track(wait);
    wait.accept(answer(9));
    wait.accept(anEvent('webhook.attempt', { seq: 8, deliveryId: 'msg_0', outcome: 'delivered' }));
    wait.accept(answer(11));
    wait.start({ ...asked, deliveryId: null, noWebhook: 'no bot is connected' });
    await vi.advanceTimersByTimeAsync(SETTLE_MS);
    expect(settled).toBe('answered');
    expect(wait.result('answered').answers.map((a) => a.seq)).toEqual([11]);
  });

  describe("on a refusal of the bot's requests", () => {
    const tied = (seq: number, status = 400): SandboxEvent => anEvent('bot.answer', { seq, sessionId: 's-1', delivered: false, status });
    const untied = (seq: number, status = 401): SandboxEvent => anEvent('api.request', { seq, sessionId: null, status });

    it.each([
      { name: 'tied to the conversation, after the delivery', events: [attempt(11, 'delivered'), tied(12)], refused: [12] },
      {
        name: 'tied to the conversation, after a delivered answer',
        events: [attempt(11, 'delivered'), answer(12), tied(13)],
        refused: [13],
      },
      { name: 'tied to none, while no answer has come', events: [untied(11), attempt(12, 'delivered')], refused: [11] },
      { name: 'tied to none, the delivery failed', events: [untied(11), attempt(12, 'failed')], refused: [11] },
    ])('ends refused a settle time after one $name, long before --wait', async ({ events, refused }) => {
      const wait = new AnswerWait(WAIT);
      track(wait);
      wait.start(asked);
      for (const event of events) wait.accept(event);
      await vi.advanceTimersByTimeAsync(SETTLE_MS - 1);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe('refused');
      expect(wait.result('refused').refused.map((event) => event.seq)).toEqual(refused);
    });

    it('ends refused a settle time after a refusal when no webhook was sent', async () => {
      const wait = new AnswerWait(WAIT);
      track(wait);
      wait.start({ seq: 10n, deliveryId: null, noWebhook: 'no bot is connected' });
      wait.accept(tied(11));
      await vi.advanceTimersByTimeAsync(SETTLE_MS - 1);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe('refused');
    });

    it('stays for the delivery going on after the settle time, and ends refused once it ends', async () => {
      const wait = new AnswerWait(WAIT);
      track(wait);
      wait.start(asked);
      wait.accept(tied(11));
      await vi.advanceTimersByTimeAsync(SETTLE_MS + 100);
      expect(settled).toBeUndefined();
      wait.accept(attempt(12, 'delivered'));
      await flush();
      expect(settled).toBe('refused');
      expect(wait.result('refused').delivery).toBe('delivered');
    });

    it('stays for the delivery at most REFUSAL_DELIVERY_MS after the refusal', async () => {
      const wait = new AnswerWait(WAIT);
      track(wait);
      wait.start(asked);
      wait.accept(attempt(11, 'retrying'));
      wait.accept(tied(12));
      await vi.advanceTimersByTimeAsync(REFUSAL_DELIVERY_MS - 1);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe('refused');
      expect(wait.result('refused').delivery).toBe('pending');
    });

    it("does not take a refusal tied to none once an answer has come: it may be another conversation's", async () => {
      const wait = new AnswerWait(WAIT);
      track(wait);
      wait.start(asked);
      wait.accept(attempt(11, 'delivered'));
      wait.accept(answer(12));
      wait.accept(untied(13));
      await vi.advanceTimersByTimeAsync(SETTLE_MS);
      expect(settled).toBe('answered');
      expect(wait.result('answered').refused).toEqual([]);
    });

    it('does not end refused when an answer follows a refusal tied to none within the settle time', async () => {
      const wait = new AnswerWait(WAIT);
      track(wait);
      wait.start(asked);
      wait.accept(untied(11));
      wait.accept(attempt(12, 'delivered'));
      wait.accept(answer(13));
      await vi.advanceTimersByTimeAsync(SETTLE_MS * 2);
      expect(settled).toBe('answered');
    });

    it('ignores refusals from before the message', async () => {
      const wait = new AnswerWait(WAIT);
      track(wait);
      wait.accept(untied(9));
      wait.start(asked);
      wait.accept(tied(8));
      wait.accept(attempt(11, 'delivered'));
      await vi.advanceTimersByTimeAsync(WAIT - 1);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe('no-answer');
    });

    it.each<[{ type: string; status?: unknown }, boolean]>([
      [{ type: 'api.request', status: 400 }, true],
      [{ type: 'api.request', status: 399 }, false],
      [{ type: 'api.request', status: 401n }, true],
      [{ type: 'api.request', status: 399n }, false],
      [{ type: 'api.request', status: '401' }, false],
      [{ type: 'api.request' }, false],
      [{ type: 'bot.answer', status: 404 }, true],
      [{ type: 'bot.answer', status: 200 }, false],
      [{ type: 'greeting', status: 409 }, true],
      [{ type: 'webhook.attempt', status: 500 }, false],
      [{ type: 'customer.message', status: 500 }, false],
    ])('counts %o as a refusal: %s', (event, expected) => {
      expect(isRefusal(event)).toBe(expected);
    });
  });
});
