import { describe, expect, it } from 'vitest';
import { conversationClient } from '../../../src/sandbox/rules/conversation-client.js';
import { world } from './world.js';

/** The client a new conversation belongs to (POST /_sandbox/conversations, docs/sandbox.md "State"). */

function clients() {
  const w = world();
  const alice = w.client(1001n, 'alice');
  const bob = w.client(1002n);
  return { w, alice, bob };
}

describe('the client of a new conversation', () => {
  it.each([
    ['its coreClientId', { coreClientId: 1001n }, 'alice', undefined],
    ['its clientId', { clientId: 'alice' }, 'alice', undefined],
    ['both, of the same client', { coreClientId: 1001n, clientId: 'alice' }, 'alice', undefined],
    [
      'the coreClientId of a client without clientId, and a new clientId (taken by the client)',
      { coreClientId: 1002n, clientId: 'bob' },
      'bob',
      'bob',
    ],
    ['the coreClientId of a client without clientId', { coreClientId: 1002n }, 'bob', undefined],
  ] as const)('is the known client named by %s', (_, request, who, adoptClientId) => {
    const { w, alice, bob } = clients();
    expect(conversationClient(w.view, request)).toEqual({ ok: true, client: who === 'alice' ? alice : bob, adoptClientId });
  });

  it.each([
    ['no identifier', {}, { coreClientId: undefined, clientId: undefined }],
    ['an unknown coreClientId', { coreClientId: 9n }, { coreClientId: 9n, clientId: undefined }],
    ['an unknown clientId', { clientId: 'carol' }, { coreClientId: undefined, clientId: 'carol' }],
    ['both unknown', { coreClientId: 9n, clientId: 'carol' }, { coreClientId: 9n, clientId: 'carol' }],
  ])('is a new client for %s', (_, request, make) => {
    const { w } = clients();
    expect(conversationClient(w.view, request)).toEqual({ ok: true, client: undefined, make });
  });

  it('is a 400 for a coreClientId and a clientId of two different clients', () => {
    const { w } = clients();
    w.client(1003n, 'carol');
    expect(conversationClient(w.view, { coreClientId: 1001n, clientId: 'carol' })).toEqual({
      ok: false,
      status: 400,
      message: "coreClientId 1001 and clientId 'carol' are two different clients (clientId 'carol' is coreClientId 1003)",
    });
  });

  it('is a 400 for the coreClientId of a client that has another clientId', () => {
    const { w } = clients();
    expect(conversationClient(w.view, { coreClientId: 1001n, clientId: 'mallory' })).toEqual({
      ok: false,
      status: 400,
      message: "coreClientId 1001 is the client with clientId 'alice', not 'mallory'",
    });
  });
});
