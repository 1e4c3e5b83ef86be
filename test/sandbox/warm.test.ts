import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { happens } from '../helpers/wait.js';
import { customerSays, eventOf, startConversation } from './helpers.js';

/**
 * The sandbox opens its connection to the bot as it starts, so that the first delivery, which a
 * `core test` step's `within` times, holds no connect of the sandbox's making (docs/testing-bots.md,
 * "A bot's first answer"). A bot that closes that connection before it is used is delivered to on a
 * new one, as if it had never been opened.
 */

interface CountingBot {
  url: string;
  /** The connections the bot accepted, in order. */
  sockets: Socket[];
  /** The connection each webhook request came on, as an index into `sockets`. */
  requests: number[];
  connected: (count: number) => Promise<void>;
}

async function countingBot(onConnection: (socket: Socket, index: number) => void = () => {}): Promise<CountingBot> {
  const sockets: Socket[] = [];
  const requests: number[] = [];
  const waits: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(sockets.indexOf(req.socket));
    req.resume();
    req.on('end', () => res.writeHead(200).end('ok'));
  });
  server.on('connection', (socket: Socket) => {
    sockets.push(socket);
    onConnection(socket, sockets.length - 1);
    for (const wait of waits.filter((w) => sockets.length >= w.count)) wait.resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    sockets,
    requests,
    connected: (count) =>
      happens(
        sockets.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waits.push({ count, resolve })),
        `the bot to accept ${count} connection(s)`,
      ),
  };
}

describe("the sandbox's connection to the bot", () => {
  it('is open before the first customer message, and the first delivery goes over it', async () => {
    const bot = await countingBot();
    const sb = await startSandbox({ botUrl: bot.url, webhookBackoffMs: 0 });
    onTestFinished(() => sb.close());
    // Started: the connection is there, and no request yet.
    await bot.connected(1);
    expect(bot.requests).toEqual([]);

    const { sessionId } = await startConversation(sb);
    await customerSays(sb, sessionId, 'Hi');
    const attempt = await eventOf(sb, (event) => event.type === 'webhook.attempt', 'the first webhook attempt');
    expect(attempt).toMatchObject({ attempt: 1, status: 200, outcome: 'delivered' });
    expect(bot.requests).toEqual([0]);
    expect(bot.sockets).toHaveLength(1);
  });

  it('is made anew for the first delivery when the bot closed the one opened at the start', async () => {
    const bot = await countingBot((socket, index) => {
      if (index === 0) socket.destroy();
    });
    const sb = await startSandbox({ botUrl: bot.url, webhookBackoffMs: 0 });
    onTestFinished(() => sb.close());
    await bot.connected(1);
    const { sessionId } = await startConversation(sb);
    await customerSays(sb, sessionId, 'Hi');
    const delivered = await eventOf(
      sb,
      (event) => event.type === 'webhook.attempt' && event.outcome === 'delivered',
      'the webhook delivered',
    );
    expect(delivered).toMatchObject({ status: 200 });
    expect(bot.requests.every((index) => index > 0)).toBe(true);
  });

  it('costs a start nothing when no bot listens yet: the first delivery connects then', async () => {
    // A port where nothing listens: core sandbox is started before the bot.
    const sb = await startSandbox({ botUrl: 'http://127.0.0.1:9/webhook', webhookBackoffMs: 0, webhookRetries: 0 });
    onTestFinished(() => sb.close());
    const { sessionId } = await startConversation(sb);
    await customerSays(sb, sessionId, 'Hi');
    const failed = await eventOf(sb, (event) => event.type === 'webhook.attempt', 'the webhook attempt');
    expect(failed).toMatchObject({ status: null, error: 'ECONNREFUSED', outcome: 'failed' });
  });
});
