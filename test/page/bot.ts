import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

/**
 * A scripted bot on loopback for the page's browser tests: it takes each MESSAGE webhook, asks the
 * test's `script` what to answer, sends those answers through the API (POST /api/v1/chatbot, in
 * order), then acknowledges the webhook. It also serves a small image, so an image attachment has
 * something to show without any network.
 */

export interface BotMessage {
  questionId: bigint;
  questionIndex: bigint;
  sessionId: string;
  coreClientId: bigint;
  type: 'TEXT' | 'EMAIL';
  channel: 'WEB' | 'IM' | 'EMAIL';
  text: string;
  quickReply: Record<string, unknown> | null;
  listItem: { identifier: string; title: string } | null;
}

/**
 * What the bot answers to one delivery attempt of a message: bodies of POST /api/v1/chatbot, sent in
 * order, and the status it acknowledges the webhook with (200 unless given).
 */
export type Script = (
  message: BotMessage,
  bot: { imageUrl: string; attempt: number },
) => Record<string, unknown>[] | { answers: Record<string, unknown>[]; status: number };

export interface PageSandbox {
  sandbox: Sandbox;
  /** The bot's image, for attachments. */
  imageUrl: string;
  /** Sends a bot answer as the bot would (POST /api/v1/chatbot, in the first tenant unless named), answering its status. */
  reply(body: Record<string, unknown>, tenant?: string): Promise<number>;
}

const svg =
  '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="120" viewBox="0 0 240 120">' +
  '<rect width="240" height="120" rx="12" fill="#e8b04a"/><rect x="20" y="50" width="200" height="16" fill="#8a5a12"/>' +
  '<text x="120" y="100" font-family="sans-serif" font-size="18" text-anchor="middle" fill="#3b2606">parcel 4211</text></svg>';

/** A sandbox delivering to a scripted bot, both on loopback and closed when the test ends. */
export async function pageSandbox(script: Script, options: SandboxOptions = {}): Promise<PageSandbox> {
  let target: Sandbox | undefined;
  const send = async (body: Record<string, unknown>, tenant = options.tenants?.[0] ?? 'sandbox'): Promise<number> => {
    const response = await fetch(`${target!.url}/api/v1/chatbot`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': tenant },
      body: stringifyJson(body),
    });
    await response.text();
    return response.status;
  };
  // Attempts per webhook-id, so a script can fail the first and take the retry.
  const attempts = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/parcel.svg') {
      res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end(svg);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const webhook = parseJson(Buffer.concat(chunks).toString('utf8')) as { tenant: string; message: BotMessage };
        const id = String(req.headers['webhook-id']);
        const attempt = (attempts.get(id) ?? 0) + 1;
        attempts.set(id, attempt);
        const planned = script(webhook.message, { imageUrl, attempt });
        const { answers, status } = Array.isArray(planned) ? { answers: planned, status: 200 } : planned;
        for (const answer of answers) await send(answer, webhook.tenant);
        res
          .writeHead(status, { 'Content-Type': 'text/plain' })
          .end(status === 200 ? `answered question ${webhook.message.questionId}` : 'busy, try again');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const imageUrl = `http://127.0.0.1:${port}/parcel.svg`;
  target = await startSandbox({ botUrl: `http://127.0.0.1:${port}/webhook`, webhookBackoffMs: 0, ...options });
  onTestFinished(async () => {
    await target!.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { sandbox: target, imageUrl, reply: send };
}

/** The question a bot answer names, as the bot would address it (chatbot rule 2 for EMAIL). */
export function addressed(message: BotMessage): Record<string, unknown> {
  return message.type === 'EMAIL'
    ? { sessionId: message.sessionId, questionIndex: message.questionIndex }
    : { questionId: message.questionId };
}
