import { describe, expect, it } from 'vitest';
import { eventJson, parseEvent } from '../../src/sandbox/event-json.js';
import type { EventOf } from '../../src/sandbox/events.js';
import { answerTo, isRefusedRequest, Observer, statusOf, type SandboxEvent } from '../../src/testing/check-bot/observe.js';
import { anEvent } from '../helpers/events.js';
import { call, replyBody, sandbox } from '../sandbox/helpers.js';

/**
 * What the battery makes of the sandbox's events (src/testing/check-bot/observe.ts): which event
 * answers a question, which is a refusal, and the waits on them; by hand-made events, and by the
 * events a sandbox records for refused requests.
 */

const Q = 5001n;
const answer = (fields: Partial<EventOf<'bot.answer'>> = {}): SandboxEvent =>
  anEvent('bot.answer', { sessionId: 's-1', questionId: Q, status: 200, delivered: true, answerId: 'a-1', ...fields });
const apiRequest = (fields: Partial<EventOf<'api.request'>>): SandboxEvent =>
  anEvent('api.request', { sessionId: 's-1', path: '/api/v1/chatbot', ...fields });
const attempt = (fields: Partial<EventOf<'webhook.attempt'>>): SandboxEvent => anEvent('webhook.attempt', { questionId: Q, ...fields });

describe('answerTo: what the bot did about a question', () => {
  it.each([
    ['an answer delivered to it', answer(), 'answer'],
    ['an answer addressed by client into its thread (no question named)', answer({ questionId: null }), 'answer'],
    ['an answer dropped for its repeated answerId', answer({ delivered: false, notDelivered: 'duplicate answerId' }), 'dropped'],
    ['an answer the sandbox refused', answer({ status: 400, delivered: false, error: 'rule 2' }), 'refused'],
    ['another API request refused in the thread', apiRequest({ status: 401 }), 'refused'],
    ['an answer to another question', answer({ questionId: Q + 1n }), undefined],
    ['an API request that went through', apiRequest({ status: 200 }), undefined],
    ['a webhook attempt', attempt({ status: 200, outcome: 'delivered' }), undefined],
    ['the customer message', anEvent('customer.message', { questionId: Q }), undefined],
  ])('%s: %s', (_, event, kind) => {
    expect(answerTo(Q)(event)?.kind).toBe(kind);
  });

  it.each([
    ['a series that failed for good', { status: 503, error: null, outcome: 'failed' }, 'undelivered'],
    ['an attempt that could not connect', { status: null, error: 'ECONNREFUSED', outcome: 'retrying' }, 'undelivered'],
    [
      'an attempt that timed out (it connected), to be retried',
      { status: null, error: 'timeout after 10000 ms', outcome: 'retrying' },
      undefined,
    ],
    ['an attempt answered 503, to be retried', { status: 503, error: null, outcome: 'retrying' }, undefined],
  ] as const)('with undelivered, %s is %s', (_, fields, kind) => {
    const event = attempt(fields);
    expect(answerTo(Q, { undelivered: true })(event)?.kind).toBe(kind);
    expect(answerTo(Q)(event)).toBeUndefined();
  });

  it('leaves out what `ignore` says', () => {
    const injected = apiRequest({ status: 503, error: 'injected fault: ...' });
    expect(
      answerTo(Q, { ignore: (e) => e.type === 'api.request' && String(e.error).startsWith('injected fault') })(injected),
    ).toBeUndefined();
  });

  const named = { questionId: Q, questionIndex: null, sessionId: null, coreClientId: null, clientId: null };
  const request = (fields: Partial<EventOf<'api.request'>>): SandboxEvent =>
    apiRequest({ seq: 7, scope: 'conversation', status: 401, requestId: 'r-1', error: 'invalid bearer token', named, ...fields });
  it.each([
    ['a request refused and tied to a conversation (401)', request({}), true],
    ['a request refused in a tenant, tied to none (415)', request({ sessionId: null, scope: 'tenant', status: 415 }), true],
    ['a request refused sandbox-wide (403, unknown tenant)', request({ sessionId: null, scope: 'sandbox', tenant: '', status: 403 }), true],
    ['a request at the limit: 400', request({ status: 400 }), true],
    ['a request below it: 399', request({ status: 399 }), false],
    ['a request that went through', request({ status: 200, error: null }), false],
    ['a refused answer (read by the question it names instead)', answer({ status: 409, delivered: false }), false],
    ['a refused greeting', anEvent('greeting', { sessionId: 's-1', status: 400 }), false],
    ['a webhook attempt answered 500', attempt({ status: 500 }), false],
  ])('isRefusedRequest: %s is %s', (_, event, refused) => {
    expect(isRefusedRequest(event)).toBe(refused);
  });
});

describe('the battery reads refusals as the sandbox records them', () => {
  it("a refusal tied to a check's conversation ends its wait; untied ones, of a tenant or sandbox-wide, are kept apart", async () => {
    const sb = await sandbox();
    const events: SandboxEvent[] = [];
    // As the event stream hands them over: read back from their JSON form.
    sb.subscribe((event) => events.push(parseEvent(eventJson(event))));
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
    expect(tied).toMatchObject({ type: 'api.request', scope: 'conversation', sessionId, status: 401, error: 'invalid bearer token' });
    expect(tied).toMatchObject({ named: { questionId } });
    expect(isRefusedRequest(tied)).toBe(true);
    expect(observer.untied.map((event) => [event.type, event.sessionId, statusOf(event)])).toEqual([
      ['api.request', null, 403],
      ['bot.answer', null, 404],
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
    expect(seen.kind === 'answer' && seen.event).toMatchObject({ answerId: 'second' });
  });

  it('waits for what comes next, and keeps each conversation apart', async () => {
    const observer = new Observer(new Set(['s-1', 's-2']));
    const waiting = observer.wait('s-1', answerTo(Q), 60_000, never);
    observer.take(answer({ sessionId: 's-2', answerId: 'not mine' }));
    observer.take(answer({ answerId: 'mine' }));
    const seen = await waiting;
    expect(seen.kind === 'answer' && seen.event).toMatchObject({ answerId: 'mine' });
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
    observer.take(apiRequest({ sessionId: null, status: 401, error: 'invalid bearer token' }));
    observer.take(apiRequest({ sessionId: 's-other', status: 401 }));
    observer.take(answer({ sessionId: null, status: 404, error: 'no question' }));
    expect(observer.untied.map(statusOf)).toEqual([401, 404]);
    expect(observer.botSpoke).toBe(true);
  });

  it("with its tenant, keeps the untied refusals of that tenant and the sandbox-wide ones, not another tenant's", () => {
    const observer = new Observer(new Set(['s-1']), 'sandbox');
    const refused = (tenant: string, status: number): SandboxEvent => apiRequest({ tenant, sessionId: null, path: '/x', status });
    observer.take(refused('sandbox', 401));
    observer.take(refused('other', 415));
    observer.take(refused('', 403));
    expect(observer.untied.map(statusOf)).toEqual([401, 403]);
  });

  it('says the bot spoke only for its requests in the battery, or naming no conversation', () => {
    const observer = new Observer(new Set(['s-1']));
    observer.take(attempt({ sessionId: 's-1', status: null }));
    observer.take(answer({ sessionId: 's-other', status: 200 }));
    expect(observer.botSpoke).toBe(false);
    observer.take(answer());
    expect(observer.botSpoke).toBe(true);
  });
});
