#!/usr/bin/env node
// A small bot to learn from: plain Node (20 or later), no framework, no dependency.
//
// It receives the MESSAGE webhook of `core sandbox --bot-url`, checks its Standard Webhooks
// signature, and answers through the API (POST /api/v1/chatbot): an echo with a button, or, when
// the customer asks for a person, a hand-over to agents (code SWITCH_TO_HUMAN).
//
//   core sandbox --port 8080 --bot-url http://127.0.0.1:3000/webhook     # prints the export lines
//   export CORE_BASE_URL=... CORE_TENANT=... CORE_TOKEN=... CORE_WEBHOOK_SECRET=...
//   node docs/examples/bot/bot.mjs                                       # PORT=3000 by default
//
// It passes every check of `core check-bot` (docs/check-bot.md): signatures verified over the raw
// body (any of several, for a key rotation), timestamps within five minutes either way, one answerId
// per webhook-id (a replay or a retry cannot deliver twice), EMAIL answers by sessionId and index.
//
// The webhook's body is the sandbox's own format (docs/sandbox.md, "The MESSAGE webhook"): the
// platform's is not published, so adapt `message` to what your platform sends.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`bot: set ${name} (core sandbox prints it as an export line)`);
    process.exit(2);
  }
  return value;
};
const baseUrl = env('CORE_BASE_URL').replace(/\/+$/, '');
const tenant = env('CORE_TENANT');
const token = env('CORE_TOKEN');
const secret = env('CORE_WEBHOOK_SECRET');
const port = Number(process.env.PORT ?? 3000);

// ---- Standard Webhooks 1.0: verify before anything else ------------------------------------------

// The key is the secret's base64 part, decoded; the signed content is "<id>.<timestamp>.<raw body>".
const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
const TOLERANCE_SECONDS = 5 * 60;

/** null when the delivery is authentic and fresh, else why not. */
function verify(headers, rawBody) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
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
// those past 2^53. Every integer of 16 digits or more is read as a BigInt instead (Node 21+ hands
// the reviver the literal's source; on Node 20 such integers are quoted before parsing).
// Marks a quoted big integer; a JSON string holding a NUL character and this word is no customer's text.
const MARK = '\u0000bigint:';

function parse(text) {
  const big = (key, value, context) =>
    context?.source !== undefined && /^-?\d{16,}$/.test(context.source) ? BigInt(context.source) : value;
  if (JSON.parse('1', (k, v, c) => c !== undefined)) return JSON.parse(text, big);
  const quoted = text.replace(/("(?:[^"\\]|\\.)*")|(?<![.\d])(-?\d{16,})(?![.eE\d])/g, (match, string, number) => (string ? string : `"\\u0000bigint:${number}"`));
  return JSON.parse(quoted, (key, value) => (typeof value === 'string' && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value));
}

/** JSON with BigInts written as plain numbers, every digit kept. */
function stringify(value) {
  return JSON.stringify(value, (key, v) => (typeof v === 'bigint' ? `${MARK}${v}` : v)).replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

// ---- the bot -------------------------------------------------------------------------------------

const HANDOVER = /\b(human|person|agent|operator)\b/i;

/** What the bot says to one customer message. */
function answerTo(message, webhookId) {
  const answer = {
    // One answer per webhook: a retried or redelivered webhook makes the same answerId, which the
    // platform delivers once (docs/api.md, chatbot rule 6).
    answerId: `answer-${webhookId}`,
    // Chatbot rule 2: an answer to an EMAIL message is addressed by sessionId and questionIndex.
    ...(message.type === 'EMAIL'
      ? { sessionId: message.sessionId, questionIndex: message.questionIndex }
      : { questionId: message.questionId }),
  };
  if (HANDOVER.test(message.text)) {
    return { ...answer, text: 'Passing you to a person, one moment.', code: 'SWITCH_TO_HUMAN' };
  }
  return {
    ...answer,
    text: `You said: ${message.text}`,
    code: 'SUCCESS',
    quickReplies: [{ type: 'TEXT', text: 'Talk to a person' }],
  };
}

/** POST /api/v1/chatbot; resolves with the status, or 0 when the API could not be reached. */
async function send(answer) {
  try {
    const response = await fetch(`${baseUrl}/api/v1/chatbot`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'X-Tenant-Name': tenant },
      body: stringify(answer),
    });
    const text = await response.text();
    if (!response.ok) console.log(`bot: the API answered ${response.status}: ${text}`);
    return response.status;
  } catch (error) {
    console.log(`bot: the API could not be reached: ${error.message}`);
    return 0;
  }
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    const rawBody = Buffer.concat(chunks);
    const problem = req.method === 'POST' ? verify(req.headers, rawBody) : 'not a POST';
    if (problem) {
      console.log(`bot: refused a delivery: ${problem}`);
      res.writeHead(401).end(problem);
      return;
    }
    const webhook = parse(rawBody.toString('utf8'));
    if (webhook.type !== 'MESSAGE') {
      res.writeHead(204).end();
      return;
    }
    const { message } = webhook;
    console.log(`bot: ${message.channel} ${message.sessionId} #${message.questionIndex}: ${message.text}`);
    // Answer first, then acknowledge: when the API cannot take the answer now, a 503 makes the
    // platform send the webhook again, and the answerId keeps the answer from arriving twice.
    const status = await send(answerTo(message, req.headers['webhook-id']));
    if (status === 0 || status >= 500) res.writeHead(503).end('the answer could not be sent; try again');
    else res.writeHead(200).end(`answered ${status}`);
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(`bot listening on http://127.0.0.1:${server.address().port}/webhook`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
