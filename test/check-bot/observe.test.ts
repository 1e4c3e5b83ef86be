import { describe, expect, it } from 'vitest';
import { parseJson, stringifyJson } from '../../src/payload/json.js';
import { answerTo, isRefusedRequest, Observer, type SandboxEvent } from '../../src/testing/check-bot/observe.js';
import { call, replyBody, sandbox } from '../sandbox/helpers.js';

/**
 * What the battery makes of the sandbox's events (src/testing/check-bot/observe.ts): which event
 * answers a question, which is a refusal, and the waits on them; by hand-made events, and by the
 * events a sandbox records for refused requests.
 */

const Q = 5001n;
const answer = (fields: Record<string, unknown> = {}): SandboxEvent => ({
  type: 'bot.answer',
  sessionId: 's-1',
  questionId: Q,
  status: 200n,
  delivered: true,
  answerId: 'a-1',
  ...fields,
});

describe('answerTo: what the bot did about a question', () => {
  it.each([
    ['an answer delivered to it', answer(), 'answer'],
    ['an answer addressed by client into its thread (no question named)', answer({ questionId: null }), 'answer'],
    ['an answer dropped for its repeated answerId', answer({ delivered: false, notDelivered: 'duplicate answerId' }), 'dropped'],
    ['an answer the sandbox refused', answer({ status: 400n, delivered: false, error: 'rule 2' }), 'refused'],
    [
      'another API request refused in the thread',
      { type: 'api.request', sessionId: 's-1', path: '/api/v1/chatbot', status: 401n },
      'refused',
    ],
    ['an answer to another question', answer({ questionId: Q + 1n }), undefined],
    ['an API request that went through', { type: 'api.request', sessionId: 's-1', path: '/api/v1/chatbot', status: 200n }, undefined],
    ['a webhook attempt', { type: 'webhook.attempt', questionId: Q, status: 200n, outcome: 'delivered' }, undefined],
    ['the customer message', { type: 'customer.message', questionId: Q }, undefined],
  ])('%s: %s', (_, event, kind) => {
    expect(answerTo(Q)(event as SandboxEvent)?.kind).toBe(kind);
  });

  it.each([
    ['a series that failed for good', { status: 503n, error: null, outcome: 'failed' }, 'undelivered'],
    ['an attempt that could not connect', { status: null, error: 'ECONNREFUSED', outcome: 'retrying' }, 'undelivered'],
    [
      'an attempt that timed out (it connected), to be retried',
      { status: null, error: 'timeout after 10000 ms', outcome: 'retrying' },
      undefined,
    ],
    ['an attempt answered 503, to be retried', { status: 503n, error: null, outcome: 'retrying' }, undefined],
  ])('with undelivered, %s is %s', (_, fields, kind) => {
    const event = { type: 'webhook.attempt', questionId: Q, ...fields } as SandboxEvent;
    expect(answerTo(Q, { undelivered: true })(event)?.kind).toBe(kind);
    expect(answerTo(Q)(event)).toBeUndefined();
  });

  it('leaves out what `ignore` says', () => {
    const injected = {
      type: 'api.request',
      sessionId: 's-1',
      path: '/api/v1/chatbot',
      status: 503n,
      error: 'injected fault: ...',
    } as SandboxEvent;
    expect(answerTo(Q, { ignore: (e) => String(e.error).startsWith('injected fault') })(injected)).toBeUndefined();
  });

  const named = { questionId: Q, questionIndex: null, sessionId: null, coreClientId: null, clientId: null };
  const request = (fields: Record<string, unknown>): SandboxEvent => ({
    type: 'api.request',
    seq: 7n,
    tenant: 'sandbox',
    sessionId: 's-1',
    scope: 'conversation',
    method: 'POST',
    path: '/api/v1/chatbot',
    status: 401n,
    requestId: 'r-1',
    error: 'invalid bearer token',
    named,
    ...fields,
  });
  it.each([
    ['a request refused and tied to a conversation (401)', request({}), true],
    ['a request refused in a tenant, tied to none (415)', request({ sessionId: null, scope: 'tenant', status: 415n }), true],
    [
      'a request refused sandbox-wide (403, unknown tenant)',
      request({ sessionId: null, scope: 'sandbox', tenant: '', status: 403n }),
      true,
    ],
    ['a request at the limit: 400', request({ status: 400n }), true],
    ['a request below it: 399', request({ status: 399n }), false],
    ['a request that went through', request({ status: 200n, error: null }), false],
    ['a refused answer (read by the question it names instead)', answer({ status: 409n, delivered: false }), false],
    ['a refused greeting', { type: 'greeting', sessionId: 's-1', status: 400n }, false],
    ['a webhook attempt answered 500', { type: 'webhook.attempt', status: 500n, path: '/webhook' }, false],
  ])('isRefusedRequest: %s is %s', (_, event, refused) => {
    expect(isRefusedRequest(event as SandboxEvent)).toBe(refused);
  });
});

describe('the battery reads refusals as the sandbox records them', () => {
  it("a refusal tied to a check's conversation ends its wait; untied ones, of a tenant or sandbox-wide, are kept apart", async () => {
    const sb = await sandbox();
    const events: SandboxEvent[] = [];
    // As the event stream hands them over: JSON read losslessly.
    sb.subscribe((event) => events.push(parseJson(stringifyJson(event)) as SandboxEvent));
    const started = await call(sb, '/_sandbox/conversations', { body: {}, token: null, tenant: null });
    const sessionId = (started.json as { sessionId: string }).sessionId;
    const asked = await call(sb, `/_sandbox/conversations/${sessionId}/messages`, { body: { text: 'Hi' }, token: null, tenant: null });
    const questionId = (asked.json as { questionId: bigint }).questionId;
    const answerBody = (fields: Record<string, unknown> = {}) => replyBody({ coreClientId: undefined, questionId, ...fields });

    const observer = new Observer(new Set([sessionId]));
    const waiting = observer.wait(sessionId, answerTo(questionId), 60_000, new AbortController().signal);
    expect((await call(sb, '/api/v1/chatbot', { tenant: 'elsewhere', body: answerBody() })).status).toBe(403);
    expect((await call(sb, '/api/v1/chatbot', { body: answerBody({ questionId: 99n }) })).status).toBe(404);
    expect((await call(sb, '/api/v1/chatbot', { token: 'not-the-token', body: answerBody() })).status).toBe(401);
    for (const event of events) observer.take(event);

    const seen = await waiting;
    expect(seen.kind).toBe('refused');
    const tied = (seen as { event: SandboxEvent }).event;
    expect(tied).toMatchObject({ type: 'api.request', scope: 'conversation', sessionId, status: 401n, error: 'invalid bearer token' });
    expect(tied.named).toMatchObject({ questionId });
    expect(isRefusedRequest(tied)).toBe(true);
    expect(observer.untied.map((event) => [event.type, event.sessionId, event.status])).toEqual([
      ['api.request', null, 403n],
      ['bot.answer', null, 404n],
    ]);
    expect(observer.untied[0]).toMatchObject({ scope: 'sandbox', tenant: '' });
    expect(isRefusedRequest(observer.untied[0]!)).toBe(true);
    // The unknown question is an answer the sandbox checked and refused: not a refused request.
    expect(isRefusedRequest(observer.untied[1]!)).toBe(false);
  });
});

describe('Observer', () => {
  const never = new AbortController().signal;

  it('finds what already came, from the given place on', async () => {
    const observer = new Observer(new Set(['s-1']));
    observer.take(answer({ answerId: 'first' }));
    observer.take(answer({ answerId: 'second' }));
    const seen = await observer.wait('s-1', answerTo(Q), 60_000, never, 1);
    expect(seen.kind === 'answer' && seen.event.answerId).toBe('second');
  });

  it('waits for what comes next, and keeps each conversation apart', async () => {
    const observer = new Observer(new Set(['s-1', 's-2']));
    const waiting = observer.wait('s-1', answerTo(Q), 60_000, never);
    observer.take(answer({ sessionId: 's-2', answerId: 'not mine' }));
    observer.take(answer({ answerId: 'mine' }));
    const seen = await waiting;
    expect(seen.kind === 'answer' && seen.event.answerId).toBe('mine');
    expect(observer.events('s-2')).toHaveLength(1);
  });

  it('ends a wait as a timeout when the signal aborts', async () => {
    const observer = new Observer(new Set(['s-1']));
    const stop = new AbortController();
    const waiting = observer.wait('s-1', answerTo(Q), 60_000, stop.signal);
    stop.abort();
    expect(await waiting).toEqual({ kind: 'timeout' });
  });

  it('keeps the refusals that name no conversation, and ignores other conversations', () => {
    const observer = new Observer(new Set(['s-1']));
    observer.take({ type: 'api.request', sessionId: null, path: '/api/v1/chatbot', status: 401n, error: 'invalid bearer token' });
    observer.take({ type: 'api.request', sessionId: 's-other', path: '/api/v1/chatbot', status: 401n });
    observer.take({ type: 'bot.answer', sessionId: null, status: 404n, error: 'no question' });
    expect(observer.untied.map((e) => e.status)).toEqual([401n, 404n]);
    expect(observer.botSpoke).toBe(true);
  });

  it("with its tenant, keeps the untied refusals of that tenant and the sandbox-wide ones, not another tenant's", () => {
    const observer = new Observer(new Set(['s-1']), 'sandbox');
    const refused = (tenant: string, status: bigint): SandboxEvent => ({
      type: 'api.request',
      tenant,
      sessionId: null,
      path: '/x',
      status,
    });
    observer.take(refused('sandbox', 401n));
    observer.take(refused('other', 415n));
    observer.take(refused('', 403n));
    expect(observer.untied.map((e) => e.status)).toEqual([401n, 403n]);
  });

  it('says the bot spoke only for its requests in the battery, or naming no conversation', () => {
    const observer = new Observer(new Set(['s-1']));
    observer.take({ type: 'webhook.attempt', sessionId: 's-1', status: null });
    observer.take({ type: 'bot.answer', sessionId: 's-other', status: 200n });
    expect(observer.botSpoke).toBe(false);
    observer.take(answer());
    expect(observer.botSpoke).toBe(true);
  });
});
