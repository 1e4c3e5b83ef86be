// A small bot to learn from, in TypeScript (strict): Node 20 or later, no framework, no dependency
// at run time (typescript and @types/node to compile it).
//
// It receives the MESSAGE webhook of `core sandbox --bot-url`, checks its Standard Webhooks
// signature, and answers through the API (POST /api/v1/chatbot): an echo with a button, or, when
// the customer asks for a person, a hand-over to agents (code SWITCH_TO_HUMAN).
//
//   core example bot --lang typescript > bot.ts
//   npm install --save-dev typescript @types/node
//   npx tsc --strict --module nodenext --target es2022 --types node bot.ts     # writes bot.js
//   core sandbox --port 8080 --bot-url http://127.0.0.1:3000/webhook         # prints the export lines
//   export CORE_BASE_URL=... CORE_TENANT=... CORE_TOKEN=... CORE_WEBHOOK_SECRET=...
//   node bot.js                                                              # PORT=3000 by default
//
// It passes every check of `core check-bot` (docs/check-bot.md): signatures verified over the raw
// body (any of several, for a key rotation), timestamps within five minutes either way, identifiers
// kept exact past 2^53 (every integer is a bigint, never a JavaScript number), one answerId per
// webhook-id (a retry or a redelivery of the same webhook cannot deliver twice), EMAIL answers by
// sessionId and questionIndex.
//
// The webhook's body is the sandbox's own format (docs/sandbox.md, "The MESSAGE webhook"): the
// platform's is not published, so adapt `CustomerMessage` to what your platform sends.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';

// ---- what comes in and what goes out ----------------------------------------------------------------

type Channel = 'WEB' | 'IM' | 'EMAIL';

/** The customer's message in a MESSAGE webhook: the fields this bot reads. Others may come; they are ignored. */
interface CustomerMessage {
  questionId: bigint;
  questionIndex: bigint;
  sessionId: string;
  coreClientId: bigint;
  type: 'TEXT' | 'EMAIL';
  channel: Channel;
  text: string;
}

interface MessageWebhook {
  type: 'MESSAGE';
  tenant: string;
  message: CustomerMessage;
}

interface QuickReply {
  type: 'TEXT' | 'CONTACT';
  text: string;
}

/** Chatbot rule 2: an answer to an EMAIL message names its thread and its place there; any other, its questionId. */
type Addressing = { questionId: bigint } | { sessionId: string; questionIndex: bigint };

/** The body of POST /api/v1/chatbot, as far as this bot fills it (docs/payloads.md has every field). */
type BotAnswer = Addressing & {
  answerId: string;
  text: string;
  code: 'SUCCESS' | 'SWITCH_TO_HUMAN' | 'UNCLEAR_QUESTION';
  quickReplies?: QuickReply[];
};

// ---- settings --------------------------------------------------------------------------------------

function env(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`bot: set ${name} (core sandbox prints it as an export line)`);
    process.exit(2);
  }
  return value;
}

const baseUrl = env('CORE_BASE_URL').replace(/\/+$/, '');
const tenant = env('CORE_TENANT');
const token = env('CORE_TOKEN');
const secret = env('CORE_WEBHOOK_SECRET');
const port = Number(process.env.PORT ?? 3000);

// ---- Standard Webhooks 1.0: verify before anything else ------------------------------------------

// The key is the secret's base64 part, decoded; the signed content is "<id>.<timestamp>.<raw body>".
const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const TOLERANCE_SECONDS = 5 * 60;

/** A header's value, the first when it came more than once. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** null when the delivery is authentic and fresh, else why not. `rawBody` is the Buffer as received. */
function verify(headers: IncomingHttpHeaders, rawBody: Buffer): string | null {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return 'missing webhook-id, webhook-timestamp or webhook-signature';
  // A stale timestamp is a replayed delivery.
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) return 'timestamp too old or too new';
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest();
  // The header may hold several space-separated "v1,<base64>" signatures (during a secret rotation).
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    if (version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected)) return null;
  }
  return 'no valid signature';
}

// ---- identifiers: 64-bit integers, never through a JavaScript number -----------------------------

// coreClientId and questionId may be any long (up to 9223372036854775807); JSON.parse would round
// those past 2^53. Every integer of the body is read as a bigint instead: each integer token is
// quoted with a mark before parsing (one written with a zero fraction, 3.0, too), and the mark turned
// into a bigint after. A JSON string
// holding a NUL character followed by this word is no customer's text.
const MARK = '\u0000bigint:';
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

function parseExact(text: string): unknown {
  // An integer may be written with a zero fraction (3.0): the same integer.
  const quoted = text.replace(TOKENS, (token) => {
    const integer = /^(-?\d+)(?:\.0+)?$/.exec(token);
    return integer ? `"\\u0000bigint:${integer[1]}"` : token;
  });
  return JSON.parse(quoted, (_key, value: unknown) =>
    typeof value === 'string' && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value,
  );
}

/** JSON with bigints written as plain numbers, every digit kept. */
function stringifyExact(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${MARK}${v}` : v)).replace(
    /"\\u0000bigint:(-?\d+)"/g,
    '$1',
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** Whether a parsed body is a MESSAGE webhook with the fields this bot reads, of the types it reads them as. */
function isMessageWebhook(value: unknown): value is MessageWebhook {
  if (!isRecord(value) || value.type !== 'MESSAGE' || typeof value.tenant !== 'string' || !isRecord(value.message)) return false;
  const m = value.message;
  return (
    typeof m.questionId === 'bigint' &&
    typeof m.questionIndex === 'bigint' &&
    typeof m.coreClientId === 'bigint' &&
    typeof m.sessionId === 'string' &&
    typeof m.text === 'string' &&
    (m.type === 'TEXT' || m.type === 'EMAIL') &&
    (m.channel === 'WEB' || m.channel === 'IM' || m.channel === 'EMAIL')
  );
}

// ---- the bot -------------------------------------------------------------------------------------

const HANDOVER = /\b(human|person|agent|operator)\b/i;

/** What the bot says to one customer message. */
function answerTo(message: CustomerMessage, webhookId: string): BotAnswer {
  // Chatbot rule 2: an answer to an EMAIL message is addressed by sessionId and questionIndex.
  const to: Addressing =
    message.type === 'EMAIL' ? { sessionId: message.sessionId, questionIndex: message.questionIndex } : { questionId: message.questionId };
  // One answer per webhook: a retried or redelivered webhook makes the same answerId, which the
  // platform delivers once (docs/api.md, chatbot rule 6).
  const answerId = `answer-${webhookId}`;
  if (HANDOVER.test(message.text)) {
    return { ...to, answerId, text: 'Passing you to a person, one moment.', code: 'SWITCH_TO_HUMAN' };
  }
  return { ...to, answerId, text: `You said: ${message.text}`, code: 'SUCCESS', quickReplies: [{ type: 'TEXT', text: 'Talk to a person' }] };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * POST /api/v1/chatbot; the same body again (the same answerId, so it cannot arrive twice) after a
 * 5xx, a 429 or a network failure, three tries in all. Resolves with the last status, 0 when the
 * API could not be reached.
 */
async function send(answer: BotAnswer): Promise<number> {
  const body = stringifyExact(answer);
  let status = 0;
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    try {
      const response = await fetch(`${baseUrl}/api/v1/chatbot`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'X-Tenant-Name': tenant },
        body,
      });
      const text = await response.text();
      status = response.status;
      if (response.ok) return status;
      console.log(`bot: the API answered ${status}: ${text}`);
      if (status < 500 && status !== 429) return status;
      await pause(Math.min(Number(response.headers.get('retry-after') ?? 1) || 1, 5) * 1000);
    } catch (error) {
      status = 0;
      console.log(`bot: the API could not be reached: ${error instanceof Error ? error.message : String(error)}`);
      await pause(1000);
    }
  }
  return status;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void (async () => {
      const rawBody = Buffer.concat(chunks);
      const problem = req.method === 'POST' ? verify(req.headers, rawBody) : 'not a POST';
      if (problem !== null) {
        console.log(`bot: refused a delivery: ${problem}`);
        res.writeHead(401).end(problem);
        return;
      }
      let webhook: unknown;
      try {
        webhook = parseExact(rawBody.toString('utf8'));
      } catch {
        res.writeHead(400).end('not JSON');
        return;
      }
      if (!isMessageWebhook(webhook)) {
        res.writeHead(204).end();
        return;
      }
      const { message } = webhook;
      console.log(`bot: ${message.channel} ${message.sessionId} #${message.questionIndex}: ${message.text}`);
      // Answer first, then acknowledge: when the API cannot take the answer now, a 503 makes the
      // platform send the webhook again, and the answerId keeps the answer from arriving twice.
      const status = await send(answerTo(message, header(req.headers, 'webhook-id') ?? ''));
      if (status === 0 || status >= 500) res.writeHead(503).end('the answer could not be sent; try again');
      else res.writeHead(200).end(`answered ${status}`);
    })();
  });
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  console.log(`bot listening on http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : port}/webhook`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
