import { describe, expect, it } from 'vitest';
import { answerTo, isRefusedRequest, Observer, type SandboxEvent } from '../../src/testing/check-bot/observe.js';

/**
 * What the battery makes of the sandbox's events (src/testing/check-bot/observe.ts), without a
 * sandbox: which event answers a question, which is a refusal, and the waits on them.
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

  it.each([
    [{ type: 'api.request', path: '/api/v1/chatbot', status: 400 }, true],
    [{ type: 'api.refused', path: '/api/v1/chatbot', status: 401 }, true],
    [{ type: 'api.request', path: '/api/v1/chatbot', status: 399 }, false],
    [{ type: 'bot.answer', path: '/api/v1/chatbot', status: 409 }, false],
    [{ type: 'webhook.attempt', status: 500 }, false],
  ])('isRefusedRequest(%j) is %s: any event with a path and a status of 400 or more', (event, refused) => {
    expect(isRefusedRequest(event as SandboxEvent)).toBe(refused);
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

  it('says the bot spoke only for its requests in the battery, or naming no conversation', () => {
    const observer = new Observer(new Set(['s-1']));
    observer.take({ type: 'webhook.attempt', sessionId: 's-1', status: null });
    observer.take({ type: 'bot.answer', sessionId: 's-other', status: 200n });
    expect(observer.botSpoke).toBe(false);
    observer.take(answer());
    expect(observer.botSpoke).toBe(true);
  });
});
