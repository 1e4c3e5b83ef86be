import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  call,
  errorMessage,
  messages,
  paths,
  reasons,
  replyBody,
  sandbox,
  sendReply,
  updateReason,
  uuidShape,
  type CallInit,
} from './helpers.js';

const oneMegabyte = 1024 * 1024;

/** A cases table covering every kind of answer, each checked for X-Request-Id and, on errors, the Error body. */
const answers: { name: string; path: string; init: CallInit; status: number }[] = [
  { name: 'a delivered answer', path: paths.reply, init: { body: replyBody() }, status: 200 },
  { name: 'a greeting', path: paths.greet, init: { body: { text: 'Hi', coreClientId: 1n } }, status: 200 },
  {
    name: 'a reason update',
    path: paths.reasons,
    init: { method: 'PUT', body: { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] } },
    status: 200,
  },
  { name: 'an inspection', path: paths.messages, init: {}, status: 200 },
  { name: 'an invalid body', path: paths.reply, init: { body: {} }, status: 400 },
  { name: 'a missing token', path: paths.reply, init: { body: replyBody(), token: null }, status: 401 },
  { name: 'an unknown tenant', path: paths.reply, init: { body: replyBody(), tenant: 'nobody' }, status: 403 },
  { name: 'an unknown path', path: '/api/v1/chatbot/unknown', init: {}, status: 404 },
  {
    name: 'an unknown reason',
    path: paths.reasons,
    init: { method: 'PUT', body: { code: 'NOPE', reasons: [{ locale: 'en', name: 'x' }] } },
    status: 404,
  },
  { name: 'a wrong method', path: paths.reply, init: { method: 'GET' }, status: 405 },
  {
    name: 'a wrong content type',
    path: paths.reply,
    init: { body: 'text=Hi', contentType: 'application/x-www-form-urlencoded' },
    status: 415,
  },
];

describe('every answer of the sandbox', () => {
  it.each(answers)('carries a UUID X-Request-Id: $name ($status)', async ({ path, init, status }) => {
    const sb = await sandbox();
    const result = await call(sb, path, init);
    expect(result.status).toBe(status);
    expect(result.headers.get('x-request-id')).toMatch(uuidShape);
  });

  it.each(answers.filter((a) => a.status >= 400))(
    'carries the Error body as JSON on an error: $name ($status)',
    async ({ path, init, status }) => {
      const sb = await sandbox();
      const result = await call(sb, path, init);
      expect(result.status).toBe(status);
      expect(result.headers.get('content-type')).toBe('application/json');
      const body = JSON.parse(result.text) as Record<string, string>;
      expect(body).toEqual({
        timestamp: expect.any(String),
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        uri: path,
        message: expect.any(String),
      });
      expect(new Date(body.timestamp as string).toISOString()).toBe(body.timestamp);
    },
  );

  it('gives each answer its own request id, and logs it', async () => {
    const sb = await sandbox();
    const first = await sendReply(sb, replyBody());
    const second = await sendReply(sb, replyBody());
    const ids = [first, second].map((r) => r.headers.get('x-request-id'));
    expect(ids[0]).not.toBe(ids[1]);
    expect(sb.logs[0]).toContain(` ${ids[0]} `);
    expect(sb.logs[1]).toContain(` ${ids[1]} `);
  });

  it('keeps an idle connection open 65 s, longer than clients keep theirs, and says so (Keep-Alive: timeout=65)', async () => {
    // fetch drops an idle connection after 4 s; with Node's own 5 s a busy machine let it reuse one
    // the sandbox had just closed ("other side closed").
    const sb = await sandbox();
    const result = await call(sb, paths.messages);
    expect(result.status).toBe(200);
    expect(result.headers.get('keep-alive')).toBe('timeout=65');
  });

  it('answers an API success with 200 and no body', async () => {
    const sb = await sandbox();
    const result = await sendReply(sb, replyBody());
    expect(result.status).toBe(200);
    expect(result.text).toBe('');
  });
});

describe('requests the sandbox does not handle', () => {
  it.each([
    { path: paths.reply, method: 'GET', allow: 'POST' },
    { path: paths.greet, method: 'PUT', allow: 'POST' },
    { path: paths.reasons, method: 'POST', allow: 'PUT' },
    { path: paths.messages, method: 'DELETE', allow: 'GET' },
    { path: paths.reset, method: 'GET', allow: 'POST' },
  ])('answers 405 with Allow: $allow to $method $path', async ({ path, method, allow }) => {
    const sb = await sandbox();
    const result = await call(sb, path, { method });
    expect(result.status).toBe(405);
    expect(result.headers.get('allow')).toBe(allow);
    expect(errorMessage(result)).toContain(method);
  });

  it.each(['/api/v1/chatbot/', '/api/v2/chatbot', '//api/v1/chatbot', '/_sandbox'])('answers 404 to %s', async (path) => {
    const sb = await sandbox();
    const result = await call(sb, path, { method: 'POST', body: replyBody() });
    expect(result.status).toBe(404);
    expect(errorMessage(result)).toContain(path);
  });

  it.each([
    { contentType: 'text/plain', body: '{"text":"Hi","coreClientId":1}' },
    { contentType: null, body: '{"text":"Hi","coreClientId":1}' },
  ])('answers 415 to a body sent as $contentType', async ({ contentType, body }) => {
    const sb = await sandbox();
    const result = await sendReply(sb, body, { contentType });
    expect(result.status).toBe(415);
    expect(errorMessage(result)).toMatch(/application\/json/);
  });

  it('accepts application/json with a charset parameter', async () => {
    const sb = await sandbox();
    expect((await sendReply(sb, replyBody(), { contentType: 'application/json; charset=utf-8' })).status).toBe(200);
  });

  it('answers 413 to a body over 1 MB and closes the connection', async () => {
    const sb = await sandbox();
    const big = JSON.stringify({ text: 'x'.repeat(oneMegabyte), coreClientId: 1 });
    const result = await sendReply(sb, big);
    expect(result.status).toBe(413);
    expect(errorMessage(result)).toMatch(/larger than 1048576 bytes/);
    expect(result.headers.get('connection')).toBe('close');
    expect(await messages(sb)).toEqual([]);
  });

  it('answers 413 to a chunked body once it grows past 1 MB', async () => {
    const sb = await sandbox();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${sb.url}${paths.reply}`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox', 'Content-Type': 'application/json' },
      });
      req.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      // The sandbox drops the connection after answering; the unsent rest of the body may fail.
      req.on('error', () => {});
      const chunk = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 4 * oneMegabyte) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      req.on('socket', pump);
      setTimeout(() => reject(new Error('no answer')), 10_000).unref();
    });
    expect(status).toBe(413);
  });

  it('accepts a body of exactly 1 MB', async () => {
    const sb = await sandbox();
    const prefix = '{"coreClientId":1,"text":"';
    const suffix = '"}';
    const body = prefix + 'x'.repeat(oneMegabyte - prefix.length - suffix.length) + suffix;
    expect(Buffer.byteLength(body)).toBe(oneMegabyte);
    expect((await sendReply(sb, body)).status).toBe(200);
  });
});

describe('injected faults', () => {
  it.each([
    { status: 503, retryAfter: '1' },
    { status: 429, retryAfter: '1' },
    { status: 500, retryAfter: null },
    { status: 400, retryAfter: null },
  ])('answers $status with the Error body (Retry-After: $retryAfter) and leaves the state alone', async ({ status, retryAfter }) => {
    const sb = await sandbox({ fail: { status, rate: 1 } });
    const result = await sendReply(sb, replyBody({ answerId: 'faulted' }));
    expect(result.status).toBe(status);
    expect(result.headers.get('retry-after')).toBe(retryAfter);
    expect(errorMessage(result)).toMatch(/injected fault/);
    expect(sb.lastApiLog()).toMatch(new RegExp(` ${status} \\S+ injected fault ${status}$`));
    expect(await messages(sb)).toEqual([]);
  });

  it('fails the share of requests that the random source puts under the rate', async () => {
    // The random source decides each request in turn: below 0.5 fails, otherwise it goes through.
    const draws = [0.1, 0.9, 0.49, 0.5, 0.7];
    const sb = await sandbox({ fail: { status: 503, rate: 0.5 }, random: () => draws.shift() ?? 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await sendReply(sb, replyBody({ answerId: `r-${i}` }))).status);
    expect(statuses).toEqual([503, 200, 503, 200, 200]);
    expect((await messages(sb)).map((m) => m.answerId)).toEqual(['r-1', 'r-3', 'r-4']);
  });

  it('lets a retry with the same answerId through after an injected failure', async () => {
    const draws = [0];
    const sb = await sandbox({ fail: { status: 503, rate: 0.5 }, random: () => draws.shift() ?? 1 });
    const body = replyBody({ answerId: 'retry-me' });
    expect((await sendReply(sb, body)).status).toBe(503);
    expect((await sendReply(sb, body)).status).toBe(200);
    expect((await messages(sb)).map((m) => m.delivered)).toEqual([true]);
  });

  it('does not fail the reason update state or the inspection endpoints', async () => {
    const sb = await sandbox({ fail: { status: 500, rate: 1 } });
    expect((await updateReason(sb, { code: 'LUNCH', reasons: [{ locale: 'en', name: 'x' }], active: false })).status).toBe(500);
    expect((await reasons(sb)).find((r) => r.code === 'LUNCH')?.reason.active).toBe(true);
    expect((await call(sb, paths.messages)).status).toBe(200);
    expect((await call(sb, paths.reset, { method: 'POST', body: {} })).status).toBe(200);
  });

  it('still answers with latency set', async () => {
    const sb = await sandbox({ latencyMs: 20 });
    expect((await sendReply(sb, replyBody())).status).toBe(200);
    expect((await messages(sb)).length).toBe(1);
  });

  it('answers at once what is in flight when closed during a long latency', async () => {
    const { startSandbox } = await import('../../src/sandbox/server.js');
    const sb = await startSandbox({ latencyMs: 600_000 });
    const pending = sendReply(sb, replyBody());
    // Wait until the request was handled (it is recorded before the delay), then close.
    while (sb.messages().length === 0) await new Promise((r) => setTimeout(r, 5));
    await sb.close();
    expect((await pending).status).toBe(200);
  });
});

describe('inspection and reset', () => {
  it('lists delivered and undelivered messages with kind, answerId, body, request id and time', async () => {
    const sb = await sandbox();
    const sent = await sendReply(sb, replyBody({ answerId: 'a-1', text: 'First' }));
    await sendReply(sb, replyBody({ answerId: 'a-1', text: 'Again' }));
    await call(sb, paths.greet, { body: { text: 'Hello', coreClientId: 3n } });

    const listed = await messages(sb);
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatchObject({
      type: 'bot.answer',
      tenant: 'sandbox',
      kind: 'reply',
      answerId: 'a-1',
      delivered: true,
      notDelivered: null,
      requestId: sent.headers.get('x-request-id'),
      addressedBy: ['coreClientId'],
      body: { text: 'First', answerId: 'a-1' },
    });
    expect(new Date(listed[0]?.time ?? '').toISOString()).toBe(listed[0]?.time);
    // seq is the event's place in the sandbox's log: increasing, with the other events in between.
    const seqs = listed.map((m) => m.seq);
    expect([...seqs].sort((a, b) => (a < b ? -1 : 1))).toEqual(seqs);
    expect(new Set(seqs).size).toBe(3);
    expect(listed.map((m) => [m.kind, m.delivered, m.notDelivered])).toEqual([
      ['reply', true, null],
      ['reply', false, 'duplicate answerId'],
      ['greeting', true, null],
    ]);
  });

  it('filters by ?tenant= and answers 404 to a tenant it does not serve', async () => {
    const sb = await sandbox({ tenants: ['acme', 'globex'] });
    await sendReply(sb, replyBody(), { tenant: 'acme' });
    expect((await messages(sb, 'acme')).length).toBe(1);
    expect((await messages(sb, 'globex')).length).toBe(0);
    expect((await messages(sb)).length).toBe(1);
    const unknown = await call(sb, `${paths.messages}?tenant=initech`, { token: null });
    expect(unknown.status).toBe(404);
    expect(errorMessage(unknown)).toContain('initech');
  });

  it('needs no token', async () => {
    const sb = await sandbox();
    for (const [path, method] of [
      [paths.messages, 'GET'],
      [paths.seededReasons, 'GET'],
      [paths.reset, 'POST'],
    ] as const) {
      const body = method === 'POST' ? {} : undefined;
      expect((await call(sb, path, { method, body, token: null, tenant: null })).status).toBe(200);
    }
  });

  it('returns to the seed state on reset: no messages, answerIds forgotten, reasons as seeded', async () => {
    const sb = await sandbox();
    const seeded = await reasons(sb);
    await sendReply(sb, replyBody({ answerId: 'before-reset' }));
    await updateReason(sb, { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Gone' }], active: false });

    const reset = await call(sb, paths.reset, { method: 'POST', body: {}, token: null });
    expect(reset.status).toBe(200);
    expect(reset.json).toEqual({ reset: ['sandbox'] });
    expect(await messages(sb)).toEqual([]);
    expect(await reasons(sb)).toEqual(seeded);
    // The answerId was forgotten, so it is delivered again.
    await sendReply(sb, replyBody({ answerId: 'before-reset' }));
    expect((await messages(sb)).map((m) => m.delivered)).toEqual([true]);
  });

  it('resets one tenant with ?tenant= and leaves the others alone', async () => {
    const sb = await sandbox({ tenants: ['acme', 'globex'] });
    await sendReply(sb, replyBody(), { tenant: 'acme' });
    await sendReply(sb, replyBody(), { tenant: 'globex' });
    expect((await call(sb, `${paths.reset}?tenant=acme`, { method: 'POST', body: {} })).json).toEqual({ reset: ['acme'] });
    expect((await messages(sb)).map((m) => m.tenant)).toEqual(['globex']);
  });
});
