import { describe, expect, it } from 'vitest';
import { openEventStream } from '../../src/platform/event-stream.js';
import { untiedRefusalFor } from '../../src/customer/wait.js';
import type { SandboxEvent } from '../../src/sandbox/events.js';
import { happens } from '../helpers/wait.js';
import { call, replyBody, sandbox, type TestSandbox } from '../sandbox/helpers.js';

/**
 * GET /_sandbox/events?session=ID, as `core customer` reads it: the conversation's events, and the
 * refusals tied to no conversation of its tenant or of the whole sandbox, so that a waiter on one
 * conversation sees a refusal it may have caused (a wrong token names no conversation).
 */

async function started(sb: TestSandbox, tenant: string): Promise<{ sessionId: string }> {
  const answer = await call(sb, '/_sandbox/conversations', { body: { tenant }, token: null, tenant: null });
  return answer.json as { sessionId: string };
}

/** The events of a conversation's stream from `after` on, until `done` says it has them all. */
async function streamed(sb: TestSandbox, query: string, act: () => Promise<unknown>, done: (events: Record<string, unknown>[]) => boolean) {
  const events: Record<string, unknown>[] = [];
  let enough!: () => void;
  const complete = new Promise<void>((resolve) => (enough = resolve));
  const stream = openEventStream({ baseUrl: sb.url, timeoutMs: 10_000, signal: new AbortController().signal }, query, (event) => {
    events.push(event);
    if (done(events)) enough();
  });
  await stream.opened;
  await act();
  await happens(complete, 'the events of the stream');
  stream.close();
  return events;
}

describe('the event stream of one conversation', () => {
  it("carries the refusals tied to no conversation of its tenant since it started, not another tenant's, live and replayed", async () => {
    const sb = await sandbox({ tenants: ['acme', 'globex'] });
    const wrong = (tenant: string) => call(sb, '/api/v1/chatbot', { tenant, token: 'not-the-token', body: replyBody() });
    // One from before the conversation started: it cannot be the conversation's doing.
    await wrong('acme');
    const { sessionId } = await started(sb, 'acme');
    const act = async () => {
      await wrong('globex');
      await wrong('acme');
      // A marker of the conversation itself, so the stream is known to have passed the refusals.
      await call(sb, `/_sandbox/conversations/${sessionId}/messages`, { body: { text: 'marker' }, token: null, tenant: null });
    };
    const isMarker = (events: Record<string, unknown>[]) => events.some((event) => event.type === 'customer.message');
    const live = await streamed(sb, `?session=${sessionId}`, act, isMarker);
    expect(live.map((event) => [event.type, event.tenant, event.sessionId])).toEqual([
      ['api.request', 'acme', null],
      ['customer.message', 'acme', sessionId],
    ]);
    const replayed = await streamed(sb, `?session=${sessionId}&after=0`, async () => {}, isMarker);
    expect(replayed.map((event) => [event.type, event.tenant, event.sessionId])).toEqual([
      ['conversation.started', 'acme', sessionId],
      ['api.request', 'acme', null],
      ['customer.message', 'acme', sessionId],
    ]);
  });

  const event = (fields: Record<string, unknown>) => ({ seq: 1, time: '', tenant: 'acme', sessionId: null, ...fields }) as SandboxEvent;
  it.each<[string, SandboxEvent, boolean]>([
    ['an untied api.request of the tenant', event({ type: 'api.request', status: 401 }), true],
    ['an untied api.request at the limit, 400', event({ type: 'api.request', status: 400 }), true],
    ['an untied api.request below it, 399', event({ type: 'api.request', status: 399 }), false],
    ['an untied api.request of another tenant', event({ type: 'api.request', status: 401, tenant: 'globex' }), false],
    ['a sandbox-wide api.request (tenant "")', event({ type: 'api.request', status: 403, tenant: '' }), true],
    ['a sandbox-wide api.request (scope sandbox)', event({ type: 'api.request', status: 403, tenant: 'initech', scope: 'sandbox' }), true],
    ['an untied refused bot answer (404, unknown question)', event({ type: 'bot.answer', status: 404 }), true],
    ['an untied refused greeting', event({ type: 'greeting', status: 400 }), true],
    ["another conversation's refusal", event({ type: 'api.request', status: 401, sessionId: 's-other' }), false],
    ['an untied event that is no refusal', event({ type: 'reason.updated', status: 500 }), false],
  ])('takes %s: %s', (_name, candidate, expected) => {
    expect(untiedRefusalFor(candidate, 'acme')).toBe(expected);
  });
});
