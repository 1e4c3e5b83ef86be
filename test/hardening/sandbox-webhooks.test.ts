import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { sandboxDefaults } from '../../src/sandbox/options.js';
import type { WebhookAttemptEvent } from '../../src/sandbox/events.js';
import { happens } from '../helpers/wait.js';
import { askedQuestion, call, eventsOf, sandbox } from '../sandbox/helpers.js';

/**
 * Webhook deliveries to a bot that does not answer (docs/sandbox.md, "Bounds"): 15,000 customer
 * messages once held 9,287 sockets open to such a bot. Now at most `webhookConcurrency` attempts are
 * in flight, the next ones wait in a queue of `webhookQueue`, and an attempt that finds the queue full
 * is recorded as failed with the reason, not sent.
 */

/** A bot on loopback that holds every webhook until the test answers it; counts what is open at once. */
async function holdingBot() {
  const held: ServerResponse[] = [];
  let open = 0;
  let mostOpen = 0;
  const arrivals: (() => void)[] = [];
  const server = createServer((req, res) => {
    open++;
    mostOpen = Math.max(mostOpen, open);
    res.on('close', () => open--);
    req.resume();
    held.push(res);
    for (const wake of arrivals.splice(0)) wake();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const received = async (n: number) => {
    while (held.length < n) await new Promise<void>((resolve) => arrivals.push(resolve));
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    held,
    mostOpen: () => mostOpen,
    received: (n: number) => happens(received(n), `${n} webhooks received by the bot`),
  };
}

const isAttempt = (event: { type: string }): event is WebhookAttemptEvent => event.type === 'webhook.attempt';

describe('webhook attempts to a bot that does not answer', () => {
  it('the defaults: 64 attempts in flight, 10,000 waiting', () => {
    expect([sandboxDefaults.webhookConcurrency, sandboxDefaults.webhookQueue]).toEqual([64, 10_000]);
  });

  it('at most webhookConcurrency in flight, webhookQueue waiting, the rest recorded as failed with the reason', async () => {
    const bot = await holdingBot();
    const sb = await sandbox({ botUrl: bot.url, webhookConcurrency: 4, webhookQueue: 3, webhookRetries: 0, webhookTimeoutMs: 600_000 });
    for (let i = 0; i < 10; i++) await askedQuestion(sb, {}, `question ${i + 1}`);

    await bot.received(4);
    const overflow = await eventsOf<WebhookAttemptEvent>(sb, isAttempt, 3, 'attempts recorded as failed, not sent');
    for (const attempt of overflow) {
      expect(attempt).toMatchObject({ outcome: 'failed', status: null, attempt: 1, retryInMs: null });
      expect(attempt.error).toMatch(
        /^not sent: 4 attempts to the bot are in flight and 3 are waiting, the most the sandbox holds; send it again with POST \/_sandbox\/deliveries\/.+\/redeliver$/,
      );
    }
    const info = (await call(sb, '/_sandbox/info', { token: null, tenant: null })).json as { bot: { inFlight: bigint; queued: bigint } };
    expect(info.bot).toMatchObject({ inFlight: 4n, queued: 3n });

    // An answer frees a slot: the longest waiting attempt goes out, and never more than four at once.
    bot.held[0]!.end();
    await bot.received(5);
    for (const res of bot.held.slice(1)) res.end();
    await bot.received(7);
    for (const res of bot.held.slice(5)) res.end();
    await eventsOf(sb, (event) => isAttempt(event) && event.outcome === 'delivered', 7, 'deliveries');
    expect(bot.mostOpen()).toBe(4);
    expect(sb.events().filter(isAttempt)).toHaveLength(10);
  });

  it('a delivery refused by a full queue can be sent again with a redelivery', async () => {
    const bot = await holdingBot();
    const sb = await sandbox({ botUrl: bot.url, webhookConcurrency: 1, webhookQueue: 0, webhookRetries: 0, webhookTimeoutMs: 600_000 });
    await askedQuestion(sb, {}, 'first');
    const second = await askedQuestion(sb, {}, 'second');
    await bot.received(1);
    const [refused] = await eventsOf<WebhookAttemptEvent>(sb, isAttempt, 1, 'the second delivery refused');
    expect(refused?.deliveryId).toBe(second.deliveryId);
    bot.held[0]!.end();
    await eventsOf(sb, (event) => isAttempt(event) && event.outcome === 'delivered', 1, 'the first delivered');
    const redelivered = await call(sb, `/_sandbox/deliveries/${second.deliveryId}/redeliver`, { body: {}, token: null, tenant: null });
    expect(redelivered.status).toBe(202);
    await bot.received(2);
    bot.held[1]!.end();
    await eventsOf(sb, (event) => isAttempt(event) && event.outcome === 'delivered', 2, 'the second delivered');
  });
});
