import { describe, expect, it } from 'vitest';
import { duringDelivery, maxNamedLength, namedIdentifiers, noIdentifiers, tiedSession } from '../../../src/sandbox/rules/tying.js';
import type { EventFields } from '../../../src/sandbox/events.js';
import { anEvent } from '../../helpers/events.js';
import { world } from './world.js';

/** A refused API request is tied to the conversation its body names (docs/sandbox.md, "Events"). */

describe('the identifiers a refused request named', () => {
  it.each([
    ['a body that is not an object', 'text', noIdentifiers],
    ['null', null, noIdentifiers],
    ['an array', [{ questionId: 1n }], noIdentifiers],
    ['an empty object', {}, noIdentifiers],
    [
      'every identifier, of the right types',
      { questionId: 5001n, questionIndex: 2n, sessionId: 's-1', coreClientId: 1001n, clientId: 'alice', text: 'hi' },
      { questionId: 5001n, questionIndex: 2n, sessionId: 's-1', coreClientId: 1001n, clientId: 'alice' },
    ],
    [
      'numbers sent as strings of digits',
      { questionId: '5001', questionIndex: '2', coreClientId: '-1001' },
      { ...noIdentifiers, questionId: 5001n, questionIndex: 2n, coreClientId: -1001n },
    ],
    [
      'identifiers of the wrong types',
      { questionId: 1.5, questionIndex: 'two', sessionId: 5n, coreClientId: true, clientId: ['a'] },
      noIdentifiers,
    ],
    ['digits inside an array', { questionId: ['5001'], questionIndex: [2n], coreClientId: ['1001'] }, noIdentifiers],
    ['empty strings', { sessionId: '', clientId: '', questionId: '' }, noIdentifiers],
    [
      'a string of 19 digits, and one of 20',
      { questionId: '9223372036854775807', coreClientId: '12345678901234567890' },
      { ...noIdentifiers, questionId: 9223372036854775807n },
    ],
  ])('from %s', (_, body, named) => {
    expect(namedIdentifiers(body)).toEqual(named);
  });

  it('keeps nothing else of the body: no token, no text', () => {
    const named = namedIdentifiers({ sessionId: 's-1', token: 'secret-token', Authorization: 'Bearer secret-token', text: 'hello' });
    expect(JSON.stringify(named, (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('secret');
    expect(Object.keys(named)).toEqual(['questionId', 'questionIndex', 'sessionId', 'coreClientId', 'clientId']);
  });

  it.each([
    [maxNamedLength, maxNamedLength],
    [maxNamedLength + 1, maxNamedLength],
  ])('cuts a sessionId or clientId of %i characters to %i', (length, kept) => {
    const named = namedIdentifiers({ sessionId: 's'.repeat(length), clientId: 'c'.repeat(length) });
    expect(named.sessionId).toHaveLength(kept);
    expect(named.clientId).toHaveLength(kept);
  });
});

describe('the conversation a refused request is tied to', () => {
  function tenant() {
    const w = world();
    const alice = w.client(1001n, 'alice');
    const old = w.thread(alice, { sessionId: 's-old' });
    const oldQuestion = w.ask(old);
    w.thread(alice, { sessionId: 's-alice' });
    const bob = w.client(1002n, 'bob');
    w.thread(bob, { sessionId: 's-bob' });
    w.client(1003n, 'carol');
    return { w, oldQuestion };
  }
  const named = (fields: Partial<typeof noIdentifiers>) => ({ ...noIdentifiers, ...fields });

  it.each([
    ['the thread of the question its questionId names, before its sessionId', named({ questionId: 5001n, sessionId: 's-bob' }), 's-old'],
    ['its sessionId, when its questionId is unknown', named({ questionId: 9n, sessionId: 's-bob' }), 's-bob'],
    ['its sessionId, before its client', named({ sessionId: 's-bob', coreClientId: 1001n }), 's-bob'],
    ["its coreClientId's latest thread, when its sessionId is unknown", named({ sessionId: 's-gone', coreClientId: 1001n }), 's-alice'],
    ["its coreClientId's latest thread, before its clientId", named({ coreClientId: 1002n, clientId: 'alice' }), 's-bob'],
    ["its clientId's latest thread, when its coreClientId is unknown", named({ coreClientId: 9n, clientId: 'alice' }), 's-alice'],
    ["its clientId's latest thread, when its coreClientId's client has none", named({ coreClientId: 1003n, clientId: 'bob' }), 's-bob'],
    ['none, for a client with no thread', named({ clientId: 'carol' }), null],
    [
      'none, for identifiers the tenant does not know',
      named({ questionId: 9n, sessionId: 's-gone', coreClientId: 9n, clientId: 'x' }),
      null,
    ],
    ['none, for no identifier', noIdentifiers, null],
  ])('is %s', (_, identifiers, sessionId) => {
    expect(tiedSession(tenant().w.view, identifiers)).toBe(sessionId);
  });
});

describe('a refusal its body ties to nothing, made while deliveries are in flight', () => {
  const one = { sessionId: 's-7', questionId: 5007n, deliveryId: 'msg_7' };
  const two = { sessionId: 's-8', questionId: 5008n, deliveryId: 'msg_8' };
  type Fields = EventFields<'api.request'> | EventFields<'bot.answer'>;
  const fields = (type: 'api.request' | 'bot.answer', extra: object = {}): Fields => {
    const { seq: _seq, time: _time, tenant: _tenant, ...rest } = { ...anEvent(type), sessionId: null, status: 404, ...extra };
    return rest as Fields;
  };

  it.each([
    ['an api.request', 'api.request', { scope: 'delivery' }],
    ['a bot answer to an unknown question', 'bot.answer', {}],
  ] as const)('with exactly one in flight: %s belongs to that exchange', (_, type, more) => {
    const given = fields(type);
    expect(duringDelivery(given, [one])).toEqual({ ...given, sessionId: 's-7', during: [one], ...more });
  });

  it('with several in flight: it stays tied to none and names them all', () => {
    expect(duringDelivery(fields('api.request'), [one, two])).toMatchObject({ sessionId: null, scope: 'tenant', during: [one, two] });
  });

  it.each([
    ['none in flight', fields('api.request'), []],
    ['a refusal its body tied', fields('api.request', { sessionId: 's-1', scope: 'conversation' }), [one]],
    ['a success', fields('bot.answer', { status: 200 }), [one]],
    ['the limit: a status of 399 is no refusal', fields('api.request', { status: 399 }), [one]],
  ] as const)('leaves alone %s', (_, given, inFlight) => {
    expect(duringDelivery(given, inFlight)).toBe(given);
  });

  it('ties a status of 400, the first refusal', () => {
    expect(duringDelivery(fields('api.request', { status: 400 }), [one]).sessionId).toBe('s-7');
  });
});
