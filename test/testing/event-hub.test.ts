import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { EventOf } from '../../src/sandbox/events.js';
import { EventHub } from '../../src/platform/hub.js';
import type { PlatformEvent } from '../../src/testing/platform.js';
import { anEvent } from '../helpers/events.js';

/**
 * One subscription for every conversation of `core test`: each event to its conversation, and a
 * refusal tied to none to the conversations its event stream would carry it to (docs/sandbox.md,
 * "Events": of the same tenant, or sandbox-wide), and Ctrl-C through one listener.
 */

function hub() {
  let send!: (event: PlatformEvent) => void;
  let opened = 0;
  const controller = new AbortController();
  const events = new EventHub((onEvent) => {
    opened += 1;
    send = onEvent;
    return { opened: Promise.resolve(), ended: new Promise(() => {}), close: () => {} };
  }, controller.signal);
  const follow = (sessionId: string, tenant = 'sandbox') => {
    const got: PlatformEvent[] = [];
    const stream = events.follow(sessionId, tenant, (event) => got.push(event));
    return { got, stream };
  };
  return { events, follow, send: (event: PlatformEvent) => send(event), controller, opened: () => opened };
}

const refusal = (fields: Partial<EventOf<'api.request'>>): PlatformEvent =>
  anEvent('api.request', { status: 404, sessionId: null, ...fields });

describe('EventHub', () => {
  it('opens one subscription for every conversation and hands each event to its own', () => {
    const { follow, send, opened } = hub();
    const a = follow('a');
    const b = follow('b');
    send(anEvent('customer.message', { sessionId: 'a', tenant: 'sandbox' }));
    send(anEvent('bot.answer', { sessionId: 'b', tenant: 'sandbox' }));
    send(anEvent('bot.answer', { sessionId: 'gone', tenant: 'sandbox' }));
    expect(opened()).toBe(1);
    expect(a.got.map((e) => e.type)).toEqual(['customer.message']);
    expect(b.got.map((e) => e.type)).toEqual(['bot.answer']);
  });

  it.each([
    ['of its tenant', refusal({ tenant: 'sandbox' }), ['a']],
    ['of another tenant', refusal({ tenant: 'other' }), []],
    ['naming no tenant', refusal({ tenant: '' }), ['a']],
    ['sandbox-wide', refusal({ tenant: 'x', scope: 'sandbox' }), ['a']],
    ['with a status under 400', refusal({ tenant: 'sandbox', status: 200 }), []],
    ['of another type', anEvent('webhook.attempt', { sessionId: null, tenant: 'sandbox', status: 404 }), []],
  ])('hands a refusal tied to no conversation %s to the conversations it may concern', (_, event, expected) => {
    const { follow, send } = hub();
    const a = follow('a', 'sandbox');
    send(event);
    expect(a.got.length > 0 ? ['a'] : []).toEqual(expected);
  });

  it('lets a conversation go once closed: its stream ends and it hears nothing more', async () => {
    const { events, follow, send } = hub();
    const a = follow('a');
    a.stream.close();
    await a.stream.ended;
    send(anEvent('bot.answer', { sessionId: 'a' }));
    send(refusal({ tenant: 'sandbox' }));
    expect(a.got).toEqual([]);
    expect(events.size).toBe(0);
  });

  it('ends every conversation on Ctrl-C, through one listener that close() removes', async () => {
    const { events, follow, controller } = hub();
    const streams = ['a', 'b', 'c'].map((id) => follow(id).stream);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    await Promise.all(streams.map((stream) => stream.ended));
    expect(events.size).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
