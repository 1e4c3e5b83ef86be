import { request } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/payload/json.js';
import {
  askedQuestion,
  call,
  customerSays,
  errorMessage,
  openStream,
  replyBody,
  sandbox,
  sendReply,
  startConversation,
} from './helpers.js';

/**
 * The sandbox's own endpoints as a browser or a tool reaches them (docs/sandbox.md, "The customer's
 * side" and "Events"): the Host check, the JSON-only rule, paging, and the event stream.
 */

/** One request with a Host header of the test's choosing (fetch cannot set one). */
function rawRequest(
  sb: { port: number },
  init: { method: string; path: string; host: string | null; contentType?: string; body?: string },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (init.contentType) headers['Content-Type'] = init.contentType;
    const req = request({ host: '127.0.0.1', port: sb.port, method: init.method, path: init.path, headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    if (init.host !== null) req.setHeader('Host', init.host);
    req.on('error', reject);
    req.end(init.body);
  });
}

describe("the Host check of the sandbox's own endpoints", () => {
  const endpoints = [
    { method: 'GET', path: '/' },
    { method: 'GET', path: '/_sandbox/messages' },
    { method: 'GET', path: '/_sandbox/conversations' },
    { method: 'POST', path: '/_sandbox/conversations' },
    { method: 'GET', path: '/_sandbox/events' },
    { method: 'POST', path: '/_sandbox/reset' },
    { method: 'GET', path: '/_sandbox/info' },
  ];

  it.each(endpoints)('refuses $method $path with 403 when the Host is another name (DNS rebinding)', async ({ method, path }) => {
    const sb = await sandbox();
    const result = await rawRequest(sb, {
      method,
      path,
      host: `attacker.example:${sb.port}`,
      contentType: 'application/json',
      body: method === 'POST' ? '{}' : undefined,
    });
    expect(result.status).toBe(403);
    expect(JSON.parse(result.text).message).toContain(`the Host 'attacker.example:${sb.port}' is not this sandbox's address`);
  });

  it('refuses a request without a Host header', async () => {
    const sb = await sandbox();
    // Node's HTTP server answers 400 to an HTTP/1.1 request without Host before the sandbox sees it.
    expect((await rawRequest(sb, { method: 'GET', path: '/_sandbox/info', host: null })).status).toBe(400);
  });

  it('refuses its own address with another port', async () => {
    const sb = await sandbox();
    expect((await rawRequest(sb, { method: 'GET', path: '/_sandbox/info', host: `127.0.0.1:${sb.port + 1}` })).status).toBe(403);
  });

  it.each(['127.0.0.1', 'localhost', 'LOCALHOST', '[::1]', 'localhost.'])(
    'answers the loopback name %s with its port when bound to loopback',
    async (name) => {
      const sb = await sandbox();
      const host = name.endsWith('.') ? `${name}:${0}`.replace(':0', `:${sb.port}`) : `${name}:${sb.port}`;
      expect((await rawRequest(sb, { method: 'GET', path: '/_sandbox/info', host })).status).toBe(200);
    },
  );

  it.each([
    { allowHosts: [], status: 403 },
    { allowHosts: ['host.docker.internal'], status: 200 },
  ])('checks the Host of the API too when bound to loopback: allowHosts $allowHosts gives $status', async ({ allowHosts, status }) => {
    const sb = await sandbox({ allowHosts });
    const result = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: sb.port,
          method: 'POST',
          path: '/api/v1/chatbot',
          setHost: false,
          headers: {
            Host: 'host.docker.internal',
            'Content-Type': 'application/json',
            Authorization: 'Bearer sandbox-token',
            'X-Tenant-Name': 'sandbox',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"text":"hi","coreClientId":1}');
    });
    expect(result).toBe(status);
  });
});

describe('the JSON-only rule of requests that change state', () => {
  it.each([
    { path: '/_sandbox/conversations', type: 'application/x-www-form-urlencoded', body: 'channel=WEB' },
    { path: '/_sandbox/conversations', type: 'multipart/form-data; boundary=x', body: '--x--' },
    { path: '/_sandbox/conversations', type: 'text/plain', body: '{"channel":"WEB"}' },
    { path: '/_sandbox/reset', type: 'application/x-www-form-urlencoded', body: '' },
    { path: '/_sandbox/conversations/SESSION/messages', type: 'application/x-www-form-urlencoded', body: 'text=hi' },
    { path: '/_sandbox/conversations/SESSION/release', type: 'text/plain', body: '' },
    { path: '/_sandbox/deliveries/msg_x/redeliver', type: 'application/x-www-form-urlencoded', body: '' },
  ])('refuses POST $path sent as $type with 415, changing nothing', async ({ path, type, body }) => {
    const sb = await sandbox();
    const { sessionId } = await startConversation(sb);
    const before = sb.events().length;
    const result = await rawRequest(sb, {
      method: 'POST',
      path: path.replace('SESSION', sessionId),
      host: `127.0.0.1:${sb.port}`,
      contentType: type,
      body,
    });
    expect(result.status).toBe(415);
    expect(JSON.parse(result.text).message).toContain('Content-Type must be application/json');
    expect(sb.events().length).toBe(before);
  });

  it('refuses a state-changing POST without a Content-Type', async () => {
    const sb = await sandbox();
    const result = await rawRequest(sb, { method: 'POST', path: '/_sandbox/conversations', host: `127.0.0.1:${sb.port}`, body: '{}' });
    expect(result.status).toBe(415);
  });

  it('answers 400 to a body that is not a JSON object', async () => {
    const sb = await sandbox();
    for (const body of ['[1]', '"text"', '{"channel":']) {
      const result = await call(sb, '/_sandbox/conversations', { body, token: null, tenant: null });
      expect(result.status).toBe(400);
    }
  });
});

describe('paging', () => {
  it('pages GET /_sandbox/messages with ?after= and ?limit=, giving the after of the next page', async () => {
    const sb = await sandbox();
    for (let i = 0; i < 5; i += 1) await sendReply(sb, replyBody({ coreClientId: 1n, text: `answer ${i}` }));
    const page = async (query: string) =>
      (await call(sb, `/_sandbox/messages${query}`, { token: null, tenant: null })).json as {
        messages: { seq: bigint; body: { text: string } }[];
        next: bigint | null;
      };
    const first = await page('?limit=2');
    expect(first.messages.map((m) => m.body.text)).toEqual(['answer 0', 'answer 1']);
    expect(first.next).toBe(first.messages[1]?.seq);
    const second = await page(`?after=${first.next}&limit=2`);
    expect(second.messages.map((m) => m.body.text)).toEqual(['answer 2', 'answer 3']);
    const last = await page(`?after=${second.next}&limit=2`);
    expect(last.messages.map((m) => m.body.text)).toEqual(['answer 4']);
    expect(last.next).toBeNull();
    expect((await page('?limit=0')).messages).toEqual([]);
  });

  it('gives 100 by default and up to 1000 when asked', async () => {
    const sb = await sandbox();
    const bodies = Array.from({ length: 1001 }, (_, i) => replyBody({ coreClientId: BigInt(i + 1) }));
    for (let i = 0; i < bodies.length; i += 100) await Promise.all(bodies.slice(i, i + 100).map((body) => sendReply(sb, body)));
    const count = async (query: string) =>
      ((await call(sb, `/_sandbox/messages${query}`, { token: null, tenant: null })).json as { messages: unknown[] }).messages.length;
    expect(await count('')).toBe(100);
    expect(await count('?limit=1000')).toBe(1000);
    const past = await call(sb, '/_sandbox/messages?limit=1001', { token: null, tenant: null });
    expect(past.status).toBe(400);
    expect(errorMessage(past)).toContain("limit: '1001' is not a page size: use a whole number from 0 to 1000");
  });

  it.each(['after=-1', 'after=x', 'limit=ten'])('answers 400 to ?%s', async (query) => {
    const sb = await sandbox();
    for (const path of ['/_sandbox/messages', '/_sandbox/conversations']) {
      expect((await call(sb, `${path}?${query}`, { token: null, tenant: null })).status).toBe(400);
    }
  });

  it('pages conversations in the order they started, and the events of one conversation', async () => {
    const sb = await sandbox();
    const started = [];
    for (let i = 0; i < 3; i += 1) started.push(await startConversation(sb));
    const list = (query: string) =>
      call(sb, `/_sandbox/conversations${query}`, { token: null, tenant: null }).then(
        (r) => r.json as { conversations: { sessionId: string; startedSeq: bigint }[]; next: bigint | null },
      );
    const first = await list('?limit=2');
    expect(first.conversations.map((c) => c.sessionId)).toEqual(started.slice(0, 2).map((s) => s.sessionId));
    const rest = await list(`?after=${first.next}`);
    expect(rest).toEqual({ conversations: [expect.objectContaining({ sessionId: started[2]?.sessionId })], next: null });

    const { sessionId } = started[0]!;
    for (let i = 0; i < 3; i += 1) await customerSays(sb, sessionId, `q${i}`);
    const events = (query: string) =>
      call(sb, `/_sandbox/conversations/${sessionId}${query}`, { token: null, tenant: null }).then(
        (r) => r.json as { events: { seq: bigint; type: string }[]; next: bigint | null },
      );
    const head = await events('?limit=2');
    expect(head.events.map((e) => e.type)).toEqual(['conversation.started', 'customer.message']);
    const tail = await events(`?after=${head.next}`);
    expect(tail.events.map((e) => e.type)).toEqual(['customer.message', 'customer.message']);
    expect(tail.next).toBeNull();
  });
});

describe('GET /_sandbox/events', () => {
  it('streams new events as Server-Sent Events, each with its seq as id and one line of JSON as data', async () => {
    const sb = await sandbox();
    const stream = await openStream(sb);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const asked = await askedQuestion(sb, { coreClientId: 9223372036854775807n });
    await stream.until(2);
    expect(stream.received.map((r) => [r.event.type, r.id])).toEqual([
      ['conversation.started', String(asked.seq - 1n)],
      ['customer.message', String(asked.seq)],
    ]);
    expect(stream.received[1]?.event).toMatchObject({
      tenant: 'sandbox',
      sessionId: asked.sessionId,
      coreClientId: 9223372036854775807n,
      questionId: asked.questionId,
    });
  });

  it('replays the kept events after ?after=, then goes on live, each event once', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const stream = await openStream(sb, '?after=0');
    await sendReply(sb, replyBody({ coreClientId: undefined, questionId: asked.questionId }));
    await stream.until(3);
    expect(stream.received.map((r) => r.event.type)).toEqual(['conversation.started', 'customer.message', 'bot.answer']);
    expect(new Set(stream.received.map((r) => r.id)).size).toBe(3);
  });

  // The replay reads the log 500 events a page: one page exactly, and one event past it.
  it.each([500, 501])('replays %i kept events across its pages in order, then goes on live, each event once', async (kept) => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    for (let next = 2; next < kept; next += 25) {
      const batch = Array.from({ length: Math.min(25, kept - next) }, (_, i) => customerSays(sb, asked.sessionId, `more ${next + i}`));
      await Promise.all(batch);
    }
    expect(sb.events()).toHaveLength(kept);
    const stream = await openStream(sb, '?after=0');
    await stream.until(kept);
    await customerSays(sb, asked.sessionId, 'live');
    await stream.until(kept + 1);
    expect(stream.received.map((r) => Number(r.id))).toEqual(Array.from({ length: kept + 1 }, (_, i) => i + 1));
    expect(stream.received.at(-1)?.event.text).toBe('live');
  });

  it('starts after the Last-Event-ID a reconnecting client sends', async () => {
    const sb = await sandbox();
    const asked = await askedQuestion(sb);
    const stream = await openStream(sb, '', { 'Last-Event-ID': String(asked.seq - 1n) });
    await stream.until(1);
    expect(stream.received.map((r) => r.event.type)).toEqual(['customer.message']);
  });

  it('narrows to one conversation with ?session= and to one tenant with ?tenant=', async () => {
    const sb = await sandbox({ tenants: ['acme', 'globex'] });
    const acme = await askedQuestion(sb, { tenant: 'acme' });
    await askedQuestion(sb, { tenant: 'globex' });
    const bySession = await openStream(sb, `?session=${acme.sessionId}&after=0`);
    const byTenant = await openStream(sb, '?tenant=globex&after=0');
    await customerSays(sb, acme.sessionId, 'more');
    await bySession.until(3);
    await byTenant.until(2);
    expect(bySession.received.map((r) => r.event.sessionId)).toEqual(Array(3).fill(acme.sessionId));
    expect(byTenant.received.every((r) => r.event.tenant === 'globex')).toBe(true);
  });

  it.each([
    { query: '?tenant=initech', status: 404 },
    { query: '?session=s-nope', status: 404 },
    { query: '?after=soon', status: 400 },
  ])('answers $status to $query', async ({ query, status }) => {
    const sb = await sandbox();
    const result = await call(sb, `/_sandbox/events${query}`, { token: null, tenant: null });
    expect(result.status).toBe(status);
  });

  it("writes the events of one turn of the event loop to a stream in one write, in order, and a later turn's in another", async () => {
    const tenants = ['t1', 't2', 't3', 't4', 't5'];
    const sb = await sandbox({ tenants });
    const stream = await openStream(sb);
    // One event first, so that the stream is live (past its replay) before the writes are counted.
    sb.reset('t1');
    await stream.until(1);
    // The sandbox runs in this process: every socket write that carries an event is counted (the
    // client only reads meanwhile; a heartbeat comment, were one due, carries none).
    const proto = Socket.prototype as unknown as { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
    const original = { write: proto._write, writev: proto._writev };
    const writes: string[] = [];
    const count = (kind: string, data: unknown) => {
      if (String(data).includes('"sandbox.reset"')) writes.push(kind);
    };
    proto._write = function (this: Socket, ...args: unknown[]) {
      count('write', args[0]);
      return original.write.apply(this, args);
    };
    proto._writev = function (this: Socket, ...args: unknown[]) {
      count('writev', (args[0] as { chunk: unknown }[]).map((part) => String(part.chunk)).join(''));
      return original.writev.apply(this, args);
    };
    try {
      // Five events, each in a callback of its own in one turn of the loop, as the requests of many
      // exchanges are handled in one turn under load (node:http already joins the writes of one callback).
      for (const tenant of tenants) setImmediate(() => sb.reset(tenant));
      await stream.until(6);
      expect(writes).toHaveLength(1);
      sb.reset('t3');
      await stream.until(7);
      expect(writes).toHaveLength(2);
    } finally {
      proto._write = original.write;
      proto._writev = original.writev;
    }
    expect(stream.received.map((r) => [r.event.type, r.event.tenant])).toEqual([
      ['sandbox.reset', 't1'],
      ...tenants.map((tenant) => ['sandbox.reset', tenant]),
      ['sandbox.reset', 't3'],
    ]);
  });

  it('ends open streams when the sandbox closes', async () => {
    const { startSandbox } = await import('../../src/sandbox/server.js');
    const sb = await startSandbox();
    const response = await fetch(`${sb.url}/_sandbox/events`);
    const reading = response.text();
    await sb.close();
    expect(await reading).toContain(': core sandbox events after seq 0');
  });
});

describe('GET /_sandbox/info', () => {
  it('says whether a bot is connected, and where', async () => {
    const sb = await sandbox({ tenants: ['acme'] });
    const info = parseJson((await call(sb, '/_sandbox/info', { token: null, tenant: null })).text);
    expect(info).toMatchObject({ tenants: ['acme'], bot: null, maxEvents: 10000n });
    const withBot = await sandbox({ botUrl: 'http://127.0.0.1:3000/webhook', webhookRetries: 1 });
    expect(parseJson((await call(withBot, '/_sandbox/info', { token: null, tenant: null })).text)).toMatchObject({
      bot: { url: 'http://127.0.0.1:3000/webhook', timeoutMs: 10000n, retries: 1n, inFlight: 0n, queued: 0n },
    });
  });
});
