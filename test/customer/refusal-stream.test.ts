import { describe, expect, it } from 'vitest';
import { openEventStream } from '../../src/platform/event-stream.js';
import { untiedRefusalFor } from '../../src/customer/wait.js';
import type { EventOf, SandboxEvent } from '../../src/sandbox/events.js';
import { anEvent } from '../helpers/events.js';
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
async function streamed(sb: TestSandbox, query: string, act: () => Promise<unknown>, done: (events: SandboxEvent[]) => boolean) {
  const events: SandboxEvent[] = [];
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
    const isMarker = (events: SandboxEvent[]) => events.some((event) => event.type === 'customer.message');
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

  const request = (fields: Partial<EventOf<'api.request'>>) => anEvent('api.request', { tenant: 'acme', sessionId: null, ...fields });
  it.each<[string, SandboxEvent, boolean]>([
    ['an untied api.request of the tenant', request({ status: 401 }), true],
    ['an untied api.request at the limit, 400', request({ status: 400 }), true],
    ['an untied api.request below it, 399', request({ status: 399 }), false],
    ['an untied api.request of another tenant', request({ status: 401, tenant: 'globex' }), false],
    ['a sandbox-wide api.request (tenant "")', request({ status: 403, tenant: '' }), true],
    ['a sandbox-wide api.request (scope sandbox)', request({ status: 403, tenant: 'initech', scope: 'sandbox' }), true],
    ['an untied refused bot answer (404, unknown question)', anEvent('bot.answer', { tenant: 'acme', sessionId: null, status: 404 }), true],
    ['an untied refused greeting', anEvent('greeting', { tenant: 'acme', sessionId: null, status: 400 }), true],
    ["another conversation's refusal", request({ status: 401, sessionId: 's-other' }), false],
    ['an untied event that is no refusal', anEvent('reason.updated', { tenant: 'acme' }), false],
    ['an untied webhook attempt answered 500', anEvent('webhook.attempt', { tenant: 'acme', sessionId: null, status: 500 }), false],
  ])('takes %s: %s', (_name, candidate, expected) => {
    expect(untiedRefusalFor(candidate, 'acme')).toBe(expected);
  });
});
