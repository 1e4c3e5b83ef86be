import { describe, expect, it } from 'vitest';
import { call, errorMessage, messages, paths, reasons, replyBody, sandbox, sendReply, updateReason } from './helpers.js';

const lunch = { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch break' }], active: false };

describe('the sandbox asks for a bearer token on every API operation', () => {
  const botOperations = [
    { name: 'a bot answer', path: paths.reply, method: 'POST', body: () => replyBody() },
    { name: 'a greeting', path: paths.greet, method: 'POST', body: () => ({ text: 'Hi', coreClientId: 7n }) },
  ];

  it.each(botOperations)('refuses $name without a token, with 401 and a Bearer challenge', async ({ path, method, body }) => {
    const sb = await sandbox();
    const result = await call(sb, path, { method, body: body(), token: null });
    expect(result.status).toBe(401);
    expect(result.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(errorMessage(result)).toMatch(/missing Authorization/);
    expect(await messages(sb)).toEqual([]);
  });

  it.each(botOperations)('refuses $name with a wrong token, with 401', async ({ path, method, body }) => {
    const sb = await sandbox();
    const result = await call(sb, path, { method, body: body(), token: 'not-the-token' });
    expect(result.status).toBe(401);
    expect(errorMessage(result)).toBe('invalid bearer token');
  });

  it.each(botOperations)('accepts $name with the right token', async ({ path, method, body }) => {
    const sb = await sandbox();
    expect((await call(sb, path, { method, body: body() })).status).toBe(200);
  });

  it.each([
    { header: 'Basic c2FuZGJveDp0b2tlbg==', why: 'another scheme' },
    { header: 'Bearer', why: 'no token after the scheme' },
    { header: 'sandbox-token', why: 'no scheme' },
  ])('refuses an Authorization header with $why, with 401', async ({ header }) => {
    const sb = await sandbox();
    const result = await sendReply(sb, replyBody(), { token: null, headers: { Authorization: header } });
    expect(result.status).toBe(401);
    expect(errorMessage(result)).toMatch(/Bearer <token>/);
  });

  it('reads the Bearer scheme name in any case', async () => {
    const sb = await sandbox();
    const result = await sendReply(sb, replyBody(), { token: null, headers: { Authorization: 'bearer sandbox-token' } });
    expect(result.status).toBe(200);
  });

  it('uses the one token for every operation when no integrator token is set', async () => {
    const sb = await sandbox({ token: 'one-token' });
    expect((await sendReply(sb, replyBody(), { token: 'one-token' })).status).toBe(200);
    expect((await updateReason(sb, lunch, { token: 'one-token' })).status).toBe(200);
  });

  describe('with a separate integrator token', () => {
    const options = { token: 'bot-token', integratorToken: 'integrator-token' };

    it.each([
      { token: 'integrator-token', status: 200 },
      { token: 'bot-token', status: 403 },
      { token: 'someone-else', status: 401 },
      { token: null, status: 401 },
    ])('answers $status to a reason update sent with token $token', async ({ token, status }) => {
      const sb = await sandbox(options);
      const result = await updateReason(sb, lunch, { token });
      expect(result.status).toBe(status);
      if (status === 403) expect(errorMessage(result)).toMatch(/INTEGRATOR/);
    });

    it.each([
      { token: 'bot-token', status: 200 },
      { token: 'integrator-token', status: 403 },
      { token: 'someone-else', status: 401 },
    ])('answers $status to a bot answer sent with token $token', async ({ token, status }) => {
      const sb = await sandbox(options);
      expect((await sendReply(sb, replyBody(), { token })).status).toBe(status);
    });
  });

  it('logs a refused request as unauthorized', async () => {
    const sb = await sandbox();
    await sendReply(sb, replyBody(), { token: 'wrong' });
    expect(sb.lastApiLog()).toMatch(/^POST \/api\/v1\/chatbot tenant=sandbox 401 \S+ unauthorized: wrong token$/);
  });
});

describe('the sandbox scopes every operation to a configured tenant', () => {
  const operations = [
    { name: 'a bot answer', send: (sb: { url: string }, tenant: string | null) => sendReply(sb, replyBody(), { tenant }) },
    {
      name: 'a greeting',
      send: (sb: { url: string }, tenant: string | null) => call(sb, paths.greet, { body: { text: 'Hi', coreClientId: 1n }, tenant }),
    },
    { name: 'a reason update', send: (sb: { url: string }, tenant: string | null) => updateReason(sb, lunch, { tenant }) },
  ];

  it.each(operations)('answers 400 to $name without X-Tenant-Name', async ({ send }) => {
    const sb = await sandbox();
    const result = await send(sb, null);
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toMatch(/X-Tenant-Name/);
  });

  it.each(operations)('answers 403 to $name for a tenant it does not serve, naming the tenant', async ({ send }) => {
    const sb = await sandbox({ tenants: ['acme'] });
    const result = await send(sb, 'globex');
    expect(result.status).toBe(403);
    expect(errorMessage(result)).toMatch(/tenant 'globex' is not served here \(tenants: acme\)/);
  });

  it('keeps answers, answerIds and reasons of one tenant out of another', async () => {
    const sb = await sandbox({ tenants: ['acme', 'globex'] });
    const body = replyBody({ answerId: 'shared-answer-id' });
    expect((await sendReply(sb, body, { tenant: 'acme' })).status).toBe(200);
    // The same answerId in another tenant is a different answer: delivered, not a duplicate.
    expect((await sendReply(sb, body, { tenant: 'globex' })).status).toBe(200);
    expect((await updateReason(sb, lunch, { tenant: 'acme' })).status).toBe(200);

    const acme = await messages(sb, 'acme');
    const globex = await messages(sb, 'globex');
    expect(acme.map((m) => [m.tenant, m.delivered])).toEqual([['acme', true]]);
    expect(globex.map((m) => [m.tenant, m.delivered])).toEqual([['globex', true]]);

    const lunchIn = async (tenant: string) => (await reasons(sb, tenant)).find((r) => r.code === 'LUNCH')?.reason.active;
    expect(await lunchIn('acme')).toBe(false);
    expect(await lunchIn('globex')).toBe(true);
  });
});
