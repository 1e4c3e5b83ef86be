#!/usr/bin/env node
// A minimal bot for the exchange benchmarks (bench/exchange.mjs), in a process of its own: it
// acknowledges each MESSAGE webhook with 200 at once, then posts its answer to the question through
// the API, as a real bot does. It does not check signatures (the benchmarks measure the platform's
// side and the tool, not the bot's crypto); BENCH_BOT_SLEEP_MS holds each answer back that long.
//
//   BENCH_BOT_API=http://127.0.0.1:PORT   where the API is (the sandbox, or the bare reference)
//   BENCH_BOT_SLEEP_MS=0                  how long the bot "thinks" before it answers
// Prints its port on stdout once it listens.
import { Agent, createServer, request } from 'node:http';

const api = process.env.BENCH_BOT_API;
const sleepMs = Number(process.env.BENCH_BOT_SLEEP_MS ?? 0);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let failures = 0;

function answer(questionId, deliveryId, retry = true) {
  const body = Buffer.from(`{"text":"echo","answerId":"a-${deliveryId}","questionId":${questionId}}`);
  const req = request(`${api}/api/v1/chatbot`, {
    method: 'POST',
    agent,
    headers: {
      'Content-Type': 'application/json',
      'Content-Length': body.length,
      Authorization: 'Bearer sandbox-token',
      'X-Tenant-Name': 'sandbox',
    },
  });
  // A kept-alive socket the server closes as it is reused fails at once: the answer goes again once.
  req.on('error', () => (retry ? answer(questionId, deliveryId, false) : (failures += 1)));
  req.on('response', (res) => {
    if (res.statusCode !== 200) failures += 1;
    res.resume();
  });
  req.end(body);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    res.writeHead(200).end();
    const match = /"questionId":(\d+)/.exec(Buffer.concat(chunks).toString());
    if (!match) return;
    const id = req.headers['webhook-id'];
    if (sleepMs > 0) setTimeout(() => answer(match[1], id), sleepMs);
    else answer(match[1], id);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => {
  if (failures > 0) console.error(`instant bot: ${failures} answers failed`);
  process.exit(0);
});
