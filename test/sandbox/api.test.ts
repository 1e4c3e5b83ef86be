import { request } from 'node:http';
import { onTestFinished } from 'vitest';
import { describe, expect, it } from 'vitest';
import type { Answer, Exchange } from '../../src/sandbox/exchange.js';
import { maxBodyBytes } from '../../src/sandbox/options.js';
import { startLocalSandbox } from '../../src/sandbox/server.js';
import { call, errorMessage, paths, replyBody, sandbox, sendReply } from './helpers.js';

/**
 * The API's side of the sandbox (src/sandbox/api.ts, docs/api.md "Endpoints"): the checks made
 * before an operation reads its body, the reading of the body, and what a bridge's say in each
 * answer sees. The refusals and their records are in auth-and-tenants, http and refusals.test.ts.
 */

interface Sent {
  status: number;
  connection: string | undefined;
  text: string;
}

/**
 * A request whose body is sent in chunks with no Content-Length (as a stream is), `bytes` in all.
 * The sandbox may answer and close before the body is all sent: what was unsent is dropped.
 */
function sendChunked(url: string, path: string, headers: Record<string, string>, bytes: number): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text }));
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    const chunk = '{'.padEnd(64 * 1024, ' ');
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    req.on('socket', pump);
  });
}

/**
 * A request that declares a body of `declared` bytes in its Content-Length and sends only a few of
 * them: the sandbox must answer from the header alone, before the rest comes.
 */
function sendDeclared(url: string, path: string, headers: Record<string, string>, declared: number): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { ...headers, 'Content-Length': String(declared) } });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, text });
        req.destroy();
      });
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.write('{"text": "Hi"');
  });
}

const authorized = { Authorization: 'Bearer sandbox-token', 'X-Tenant-Name': 'sandbox', 'Content-Type': 'application/json' };

describe('the Content-Type of an API request', () => {
  it.each([
    [null, 'missing Content-Type header: send the body as Content-Type: application/json'],
    ['text/plain', "Content-Type must be application/json, not 'text/plain'"],
    ['application/xml; charset=utf-8', "Content-Type must be application/json, not 'application/xml'"],
  ])('sent as %s is refused with 415: %s', async (contentType, message) => {
    const sb = await sandbox();
    // A body given as bytes gets no Content-Type of fetch's own.
    const headers: Record<string, string> = { ...authorized };
    if (contentType === null) delete headers['Content-Type'];
    else headers['Content-Type'] = contentType;
    const body = Buffer.from(JSON.stringify({ text: 'Hi', coreClientId: 1234567 }));
    const response = await fetch(`${sb.url}${paths.reply}`, { method: 'POST', headers, body });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { message: string }).message).toBe(message);
    expect(sb.lastApiLog()).toMatch(/ 415 \S+ unsupported content type$/);
  });
});

describe('the tenant of an API request', () => {
  it.each([
    ['no X-Tenant-Name header', null],
    ['an empty X-Tenant-Name', ''],
  ])('is refused with 400 for %s, and logged as naming none', async (_, tenant) => {
    const sb = await sandbox();
    const result = await sendReply(sb, replyBody(), { tenant });
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toBe('missing X-Tenant-Name header: name the tenant');
    expect(sb.lastApiLog()).toMatch(/ 400 \S+ no tenant$/);
  });

  it('is refused with 403 when the sandbox serves other tenants, each named', async () => {
    const sb = await sandbox({ tenants: ['acme', 'globex'] });
    const result = await sendReply(sb, replyBody(), { tenant: 'initech' });
    expect(result.status).toBe(403);
    expect(errorMessage(result)).toBe("tenant 'initech' is not served here (tenants: acme, globex)");
    expect(sb.lastApiLog()).toMatch(/ 403 \S+ unknown tenant$/);
  });
});

describe('the token of an API request', () => {
  const options = { token: 'bot-token', integratorToken: 'integrator-token' };

  it.each([
    ['no token', null, 401, 'missing Authorization header: send Authorization: Bearer <token>', 'unauthorized: no token'],
    ['a wrong token', 'nobody', 401, 'invalid bearer token', 'unauthorized: wrong token'],
    [
      'the integrator token',
      'integrator-token',
      403,
      'bot operations need the bot token, not the integrator token',
      'forbidden: integrator token on a bot operation',
    ],
  ])('of a bot answer, %s, is refused with a status, a message and a log line that say why', async (_, token, status, message, what) => {
    const sb = await sandbox(options);
    const result = await sendReply(sb, replyBody(), { token });
    expect(result.status).toBe(status);
    expect(errorMessage(result)).toBe(message);
    expect(result.headers.get('www-authenticate')).toBe(status === 401 ? 'Bearer realm="core sandbox"' : null);
    expect(sb.lastApiLog()).toMatch(new RegExp(` ${status} \\S+ ${what}$`));
  });

  it('of a reason update, the bot token, is refused with 403 and no challenge', async () => {
    const sb = await sandbox(options);
    const body = { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch break' }], active: false };
    const result = await call(sb, paths.reasons, { method: 'PUT', body, token: 'bot-token' });
    expect(result.status).toBe(403);
    expect(errorMessage(result)).toBe('updating an inactivity reason needs the INTEGRATOR permission: send the integrator token');
    expect(result.headers.get('www-authenticate')).toBeNull();
    expect(sb.lastApiLog()).toMatch(/ 403 \S+ forbidden: bot token on an integrator operation$/);
  });

  it('that is no bearer token is refused with 401 and a challenge', async () => {
    const sb = await sandbox();
    const result = await sendReply(sb, replyBody(), { token: null, headers: { Authorization: 'Basic c2FuZGJveA==' } });
    expect(result.status).toBe(401);
    expect(errorMessage(result)).toBe('the Authorization header must be Bearer <token>');
    expect(result.headers.get('www-authenticate')).toBe('Bearer realm="core sandbox"');
    expect(sb.lastApiLog()).toMatch(/ 401 \S+ unauthorized: not a bearer token$/);
  });
});

describe('the body of an API request', () => {
  it.each([
    ['a text that is not JSON', 'not json'],
    ['a JSON document cut short', '{"text": "Hi"'],
  ])('is refused with 400 when it is %s, saying why', async (_, body) => {
    const sb = await sandbox();
    const result = await sendReply(sb, body);
    expect(result.status).toBe(400);
    expect(errorMessage(result)).toMatch(/^the request body is not valid JSON: \S/);
    expect(sb.lastApiLog()).toMatch(/ 400 \S+ invalid: not JSON$/);
  });

  it('is refused with 400 when it is not UTF-8, even inside a string', async () => {
    const sb = await sandbox();
    const bytes = Buffer.concat([Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from('","coreClientId":1234567}')]);
    const response = await fetch(`${sb.url}${paths.reply}`, { method: 'POST', headers: authorized, body: bytes });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/^the request body is not valid JSON: /);
  });

  it('past the limit is refused with 413 once read that far, and the connection closed', async () => {
    const sb = await sandbox();
    const sent = await sendChunked(sb.url, paths.reply, authorized, 2 * maxBodyBytes);
    expect(sent.status).toBe(413);
    expect(sent.connection).toBe('close');
  });

  // docs/sandbox.md, "order of checks": the declared size comes before the token, the tenant and the Content-Type.
  it.each([
    ['a request that passes every other check', authorized],
    ['a request with no token, no tenant and no JSON', { 'Content-Type': 'text/plain' }],
  ])(
    'declared larger than the limit is refused with 413 before any other check, logged, and the connection closed: %s',
    async (_, headers) => {
      const sb = await sandbox();
      const sent = await sendDeclared(sb.url, paths.reply, headers, maxBodyBytes + 1);
      expect(sent.status).toBe(413);
      expect(JSON.parse(sent.text)).toMatchObject({ message: `request body larger than ${maxBodyBytes} bytes` });
      expect(sent.connection).toBe('close');
      expect(sb.lastApiLog()).toMatch(/ 413 \S+ body too large, connection closed$/);
    },
  );

  it('past the limit, of a request refused already, keeps the refusal and closes the connection', async () => {
    const sb = await sandbox();
    const sent = await sendChunked(sb.url, paths.reply, { ...authorized, Authorization: 'Bearer nobody' }, 2 * maxBodyBytes);
    expect(sent.status).toBe(401);
    expect(JSON.parse(sent.text)).toMatchObject({ message: 'invalid bearer token' });
    expect(sent.connection).toBe('close');
  });

  it('within the limit, of a request refused already, keeps the connection open', async () => {
    const sb = await sandbox();
    const sent = await sendChunked(sb.url, paths.reply, { ...authorized, Authorization: 'Bearer nobody' }, 64 * 1024);
    expect(sent.status).toBe(401);
    expect(sent.connection).not.toBe('close');
  });

  it('past the limit, sent to a path no operation takes, keeps the 404 and closes the connection', async () => {
    const sb = await sandbox();
    const sent = await sendChunked(sb.url, '/api/v1/nothing', authorized, 2 * maxBodyBytes);
    expect(sent.status).toBe(404);
    expect(sent.connection).toBe('close');
  });

  it('within the limit, sent to a path no operation takes, keeps the connection open', async () => {
    const sb = await sandbox();
    const sent = await sendChunked(sb.url, '/api/v1/nothing', authorized, 64 * 1024);
    expect(sent.status).toBe(404);
    expect(sent.connection).not.toBe('close');
  });
});

describe("a bridge's say in each API answer", () => {
  /** A sandbox whose API answers pass through `forward`, which sees each request and what the sandbox answered. */
  async function bridged(forward: (ex: Exchange, answer: Answer) => Promise<Answer>) {
    // The bot is never asked: no customer message is sent.
    const sb = await startLocalSandbox({ botUrl: 'http://127.0.0.1:9/bot' }, () => ({ routes: [], forward }));
    onTestFinished(() => sb.close());
    return sb;
  }

  it('sees an accepted answer, its body read and its checks passed, and its answer replaces the sandbox’s', async () => {
    const seen: { status: number; passed: boolean | undefined; bytes: number | undefined; body: unknown }[] = [];
    const sb = await bridged(async (ex, answer) => {
      seen.push({ status: answer.status, passed: ex.passedChecks, bytes: ex.rawBody?.length, body: ex.body });
      return { status: 502, error: 'the platform is unreachable', what: 'bridge: unreachable' };
    });
    const body = '{"text":"Hi","coreClientId":1234567}';
    const result = await sendReply(sb, body);
    expect(result.status).toBe(502);
    expect(errorMessage(result)).toBe('the platform is unreachable');
    expect(seen).toEqual([{ status: 200, passed: true, bytes: body.length, body: { text: 'Hi', coreClientId: 1234567n } }]);
  });

  it('sees a refused request too, with the refusal and its checks not passed', async () => {
    const seen: [number, boolean | undefined][] = [];
    const sb = await bridged(async (ex, answer) => (seen.push([answer.status, ex.passedChecks]), answer));
    expect((await sendReply(sb, replyBody(), { token: 'nobody' })).status).toBe(401);
    expect(seen).toEqual([[401, undefined]]);
  });
});
