import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../src/payload/json.js';
import type { ApiRequestEvent, BotAnswerEvent } from '../../src/sandbox/events.js';
import {
  askedQuestion,
  call,
  errorMessage,
  paths,
  replyBody,
  sandbox,
  sendGreeting,
  sendReply,
  startConversation,
  updateReason,
  type CallInit,
  type TestSandbox,
} from './helpers.js';

/**
 * Every refused API request is recorded, tied to the conversation its body names whatever the
 * refusal, else tenant-wide, else sandbox-wide (docs/sandbox.md, "Events"; the contract of
 * ApiRequestEvent in src/sandbox/events.ts). The refusal itself is what it always was.
 */

const INTEGRATOR = 'integrator-secret-token';

async function setUp(): Promise<{ sb: TestSandbox; sessionId: string; questionId: bigint; coreClientId: bigint }> {
  const sb = await sandbox({ tenants: ['sandbox', 'other'], integratorToken: INTEGRATOR, duplicates: 'strict', maxActiveReasons: 3 });
  const asked = await askedQuestion(sb);
  return { sb, sessionId: asked.sessionId, questionId: asked.questionId, coreClientId: asked.coreClientId };
}

function refusals(sb: TestSandbox): ApiRequestEvent[] {
  return sb.events().filter((event): event is ApiRequestEvent => event.type === 'api.request');
}

const noneNamed = { questionId: null, questionIndex: null, sessionId: null, coreClientId: null, clientId: null };

describe('a refused bot answer is tied to the conversation its body names, whatever the refusal', () => {
  const cases: [string, number, CallInit, string][] = [
    ['no Authorization header', 401, { token: null }, 'missing Authorization header: send Authorization: Bearer <token>'],
    [
      'a Basic Authorization header',
      401,
      { token: null, headers: { Authorization: 'Basic dXNlcjpwYXNz' } },
      'the Authorization header must be Bearer <token>',
    ],
    ['a wrong token', 401, { token: 'not-the-token' }, 'invalid bearer token'],
    ['the integrator token', 403, { token: INTEGRATOR }, 'bot operations need the bot token, not the integrator token'],
    ['a text/plain body', 415, { contentType: 'text/plain' }, "Content-Type must be application/json, not 'text/plain'"],
  ];

  it.each(cases)('%s: %i, the same refusal as ever, recorded in the conversation', async (_, status, init, message) => {
    const { sb, sessionId, questionId } = await setUp();
    const result = await sendReply(sb, replyBody({ coreClientId: undefined, questionId }), init);
    expect(result.status).toBe(status);
    expect(errorMessage(result)).toBe(message);
    expect(refusals(sb)).toEqual([
      expect.objectContaining({
        tenant: 'sandbox',
        sessionId,
        scope: 'conversation',
        method: 'POST',
        path: '/api/v1/chatbot',
        status,
        requestId: result.headers.get('x-request-id'),
        error: message,
        named: { ...noneNamed, questionId },
      }),
    ]);
  });

  it('a body that breaks the schema: 400, tied by its sessionId and questionIndex', async () => {
    const { sb, sessionId } = await setUp();
    const result = await sendReply(sb, { sessionId, questionIndex: 1n, answerId: 'a-1' });
    expect(result.status).toBe(400);
    expect(refusals(sb)).toMatchObject([
      { sessionId, scope: 'conversation', status: 400, error: errorMessage(result), named: { ...noneNamed, sessionId, questionIndex: 1n } },
    ]);
  });

  it('an injected fault: tied as well', async () => {
    const sb = await sandbox({ fail: { status: 503, rate: 1 } });
    const { sessionId } = await startConversation(sb, { clientId: 'alice' });
    const result = await sendReply(sb, replyBody({ coreClientId: undefined, clientId: 'alice' }));
    expect(result.status).toBe(503);
    expect(refusals(sb)).toMatchObject([{ sessionId, scope: 'conversation', status: 503, named: { clientId: 'alice' } }]);
  });

  it.each([
    ['questionId', (q: { questionId: bigint }) => ({ questionId: q.questionId })],
    ['sessionId', (q: { sessionId: string }) => ({ sessionId: q.sessionId })],
    ['coreClientId', (q: { coreClientId: bigint }) => ({ coreClientId: q.coreClientId })],
    ['questionId sent as a string of digits', (q: { questionId: bigint }) => ({ questionId: String(q.questionId) })],
  ])('is tied by its %s', async (_, address) => {
    const { sb, sessionId, questionId, coreClientId } = await setUp();
    await sendReply(sb, { text: 'hi', ...address({ questionId, sessionId, coreClientId }) }, { token: 'wrong' });
    expect(refusals(sb)).toMatchObject([{ sessionId, scope: 'conversation' }]);
  });

  it("a greeting refused is tied to its client's latest thread", async () => {
    const { sb } = await setUp();
    const { sessionId } = await startConversation(sb, { clientId: 'bob' });
    await sendGreeting(sb, { text: 'Hello', clientId: 'bob' }, { token: 'wrong' });
    expect(refusals(sb)).toMatchObject([{ sessionId, scope: 'conversation', path: '/api/v1/chatbot/greet', named: { clientId: 'bob' } }]);
  });
});

describe('a refused request that names no conversation kept is recorded tenant-wide', () => {
  it.each([
    [
      'a questionId the tenant does not have, with a wrong token',
      { text: 'hi', questionId: 999n },
      { token: 'wrong' },
      401,
      { questionId: 999n },
    ],
    ['a body that is not JSON', '{"text": "hi", questionId: 5001', {}, 400, {}],
    ['a body that is a JSON array', [{ questionId: 5001n }], {}, 400, {}],
  ] as const)('%s', async (_, body, init, status, named) => {
    const { sb } = await setUp();
    const result = await sendReply(sb, body, init);
    expect(result.status).toBe(status);
    expect(refusals(sb)).toEqual([
      expect.objectContaining({
        tenant: 'sandbox',
        sessionId: null,
        scope: 'tenant',
        status,
        error: errorMessage(result),
        named: { ...noneNamed, ...named },
      }),
    ]);
  });

  it('a body declared larger than the limit: 413, the body not read, nothing named', async () => {
    const { sb } = await setUp();
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${sb.url}${paths.reply}`, {
        method: 'POST',
        headers: {
          Authorization: 'Bearer sandbox-token',
          'X-Tenant-Name': 'sandbox',
          'Content-Type': 'application/json',
          'Content-Length': String(2 * 1024 * 1024),
        },
      });
      req.on('response', (res) => {
        resolve(res.statusCode);
        req.destroy();
      });
      req.on('error', reject);
      req.write('{"questionId": 5001}');
    });
    expect(status).toBe(413);
    expect(refusals(sb)).toMatchObject([{ scope: 'tenant', sessionId: null, status: 413, named: noneNamed }]);
  });

  it.each([
    ['an unknown code', { code: 'NOPE', reasons: [{ locale: 'en', name: 'x' }] }, 404, "no inactivity reason with code 'NOPE'"],
    [
      'one active reason too many',
      { code: 'TRAINING', reasons: [{ locale: 'en', name: 'Training' }], active: true },
      409,
      "too many active inactivity reasons: activating 'TRAINING' would make 4 active, the limit is 3",
    ],
  ])('a reason update refused for %s', async (_, body, status, message) => {
    const { sb } = await setUp();
    const result = await updateReason(sb, body, { token: INTEGRATOR });
    expect(result.status).toBe(status);
    expect(refusals(sb)).toMatchObject([{ scope: 'tenant', sessionId: null, status, error: message, path: '/api/v1/inactivity/reasons' }]);
  });

  it('a sessionId of another tenant does not tie a request of this one', async () => {
    const { sb, sessionId } = await setUp();
    await sendReply(sb, { text: 'hi', sessionId, questionIndex: 1n }, { token: 'wrong', tenant: 'other' });
    expect(refusals(sb)).toMatchObject([{ tenant: 'other', scope: 'tenant', sessionId: null, named: { sessionId } }]);
  });
});

describe('a refused request that names no tenant served here is recorded sandbox-wide', () => {
  it.each([
    ['an unknown tenant', { tenant: 'nobody' }, 403, "tenant 'nobody' is not served here (tenants: sandbox, other)"],
    ['no X-Tenant-Name', { tenant: null }, 400, 'missing X-Tenant-Name header: name the tenant'],
  ])('%s: tenant "", with the identifiers its body named', async (_, init, status, message) => {
    const { sb, questionId } = await setUp();
    const result = await sendReply(sb, replyBody({ coreClientId: undefined, questionId }), init);
    expect(result.status).toBe(status);
    expect(refusals(sb)).toEqual([
      expect.objectContaining({
        tenant: '',
        sessionId: null,
        scope: 'sandbox',
        status,
        error: message,
        named: { ...noneNamed, questionId },
      }),
    ]);
    expect(sb.sizes('')).toMatchObject({ events: 1 });
  });

  it('is kept apart from every tenant, and cleared by a reset of all, whose sandbox.reset event starts its fresh log', async () => {
    const { sb } = await setUp();
    await sendReply(sb, replyBody(), { tenant: 'nobody' });
    expect(sb.events({ tenant: 'sandbox' }).some((e) => e.type === 'api.request')).toBe(false);
    expect(sb.events().filter((e) => e.type === 'api.request')).toHaveLength(1);
    expect(sb.events({ tenant: '' })).toMatchObject([{ type: 'api.request', tenant: '', scope: 'sandbox' }]);
    sb.reset('sandbox');
    expect(sb.sizes('')).toMatchObject({ events: 1 });
    sb.reset();
    expect(sb.events({ tenant: '' })).toMatchObject([{ type: 'sandbox.reset', tenant: '', sessionId: null }]);
    expect(sb.sizes('')).toMatchObject({ events: 1, clients: 0, threads: 0 });
  });
});

describe('what a refusal record never holds', () => {
  it('no token, no Authorization, no other field of the body', async () => {
    const { sb, questionId } = await setUp();
    const secret = 'Sup3r-Secret-Token-Value';
    await sendReply(sb, { text: 'private text', questionId, token: secret, password: secret }, { token: secret });
    await sendReply(sb, { text: 'private text', questionId }, { token: INTEGRATOR });
    const written = refusals(sb).map((event) => stringifyJson(event));
    expect(written).toHaveLength(2);
    for (const line of written) {
      expect(line).not.toContain(secret);
      expect(line).not.toContain(INTEGRATOR);
      expect(line).not.toContain('private text');
    }
  });
});

describe('answers refused by the rules are bot.answer events, tied as before', () => {
  it.each([
    ['404, a questionIndex the thread does not have', (s: string) => ({ sessionId: s, questionIndex: 9n }), 404],
    ['409, a second answer in strict mode', (s: string) => ({ sessionId: s, questionIndex: 1n }), 409],
  ])('%s', async (_, address, status) => {
    const { sb, sessionId } = await setUp();
    if (status === 409) await sendReply(sb, replyBody({ coreClientId: undefined, ...address(sessionId) }));
    const result = await sendReply(sb, replyBody({ coreClientId: undefined, ...address(sessionId) }));
    expect(result.status).toBe(status);
    const refused = sb.events().filter((e): e is BotAnswerEvent => e.type === 'bot.answer' && e.status === status);
    expect(refused).toMatchObject([{ sessionId, delivered: false, error: errorMessage(result) }]);
    expect(refusals(sb)).toEqual([]);
  });
});

describe('a request to the API side that no operation takes is recorded too', () => {
  it('an answer posted to a wrong path: 404 as ever, tied by the body', async () => {
    const { sb, sessionId, questionId } = await setUp();
    const result = await call(sb, '/api/v1/chatbot/answer', { body: replyBody({ coreClientId: undefined, questionId }) });
    expect(result.status).toBe(404);
    expect(errorMessage(result)).toBe('no such path: /api/v1/chatbot/answer');
    expect(refusals(sb)).toMatchObject([{ sessionId, scope: 'conversation', status: 404, path: '/api/v1/chatbot/answer' }]);
  });

  it('another method on an operation: 405, tenant-wide when it names nothing', async () => {
    const { sb } = await setUp();
    const result = await call(sb, paths.reply, { method: 'GET' });
    expect(result.status).toBe(405);
    expect(refusals(sb)).toMatchObject([{ tenant: 'sandbox', sessionId: null, scope: 'tenant', status: 405, method: 'GET' }]);
  });

  it.each([['/_sandbox/nothing'], ['/favicon.ico'], ['/apix']])(
    'a path outside /api/ is not an API request: %s is not recorded',
    async (path) => {
      const { sb } = await setUp();
      expect((await call(sb, path, { token: null, tenant: null })).status).toBe(404);
      expect(refusals(sb)).toEqual([]);
    },
  );
});
