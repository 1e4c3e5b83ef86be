#!/usr/bin/env node
// The floor of bench/bridge.mjs (--floor): a forwarder written with bare node:http, in a process of its
// own, in the bridge's place: the platform's webhook (POST /webhook) is sent on to the bot as it came
// and answered with the bot's status once the bot answers; the bot's requests are sent on to the
// platform with the real token, and answered with the platform's status and body. It checks,
// records, signs and logs nothing: what is left is the cost of the two extra hops themselves.
//
//   FORWARD_BOT=http://127.0.0.1:PORT/webhook   where the bot is
//   FORWARD_PLATFORM=http://127.0.0.1:PORT      the "real" sandbox
//   FORWARD_TOKEN=...                            the real token
// Prints its port on stdout once it listens.
import { Agent, createServer, request } from 'node:http';

const bot = new URL(process.env.FORWARD_BOT);
const platform = new URL(process.env.FORWARD_PLATFORM);
const token = process.env.FORWARD_TOKEN;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function forward(target, path, headers, body, answer) {
  const req = request(
    { hostname: target.hostname, port: target.port, method: 'POST', path, agent, headers: { ...headers, 'Content-Length': body.length } },
    (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => answer(res.statusCode, res.headers['content-type'], Buffer.concat(chunks)));
    },
  );
  req.on('error', () => answer(502, undefined, Buffer.alloc(0)));
  req.end(body);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const reply = (status, type, bytes) => res.writeHead(status, type === undefined ? {} : { 'Content-Type': type }).end(bytes);
    if (req.url === '/webhook') {
      const headers = {};
      for (const name of ['content-type', 'user-agent', 'x-tenant-name', 'webhook-id', 'webhook-timestamp', 'webhook-signature']) {
        if (req.headers[name] !== undefined) headers[name] = req.headers[name];
      }
      forward(bot, `${bot.pathname}${bot.search}`, headers, body, reply);
      return;
    }
    const headers = {
      'Content-Type': req.headers['content-type'] ?? 'application/json',
      'X-Tenant-Name': req.headers['x-tenant-name'] ?? '',
      Authorization: `Bearer ${token}`,
    };
    forward(platform, req.url, headers, body, reply);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => process.exit(0));
