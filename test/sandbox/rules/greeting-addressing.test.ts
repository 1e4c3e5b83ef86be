import { describe, expect, it } from 'vitest';
import { addressGreeting } from '../../../src/sandbox/rules/greeting-addressing.js';
import { world } from './world.js';

/** Greet rules 1-3 (docs/api.md): clientId takes priority; an unknown client is made. */

function clients() {
  const w = world();
  const alice = w.client(1001n, 'alice');
  const bob = w.client(1002n);
  return { w, alice, bob };
}

describe('where a greeting goes', () => {
  it.each([
    ['clientId of a known client', { clientId: 'alice' }, ['clientId'], 'alice'],
    ['coreClientId of a known client', { coreClientId: 1002n }, ['coreClientId'], 'bob'],
    ['both, clientId taking priority', { clientId: 'alice', coreClientId: 1002n }, ['clientId'], 'alice'],
  ] as const)('goes, by %s, to that client', (_, greeting, addressedBy, who) => {
    const { w, alice, bob } = clients();
    expect(addressGreeting(w.view, greeting)).toEqual({ addressedBy, client: who === 'alice' ? alice : bob });
  });

  it.each([
    ['an unknown clientId', { clientId: 'carol' }, ['clientId'], { coreClientId: undefined, clientId: 'carol' }],
    ['an unknown coreClientId', { coreClientId: 77n }, ['coreClientId'], { coreClientId: 77n, clientId: undefined }],
    [
      'an unknown clientId with a coreClientId another client has (a new coreClientId is made)',
      { clientId: 'carol', coreClientId: 1002n },
      ['clientId'],
      { coreClientId: undefined, clientId: 'carol' },
    ],
    [
      'an unknown clientId with a free coreClientId',
      { clientId: 'carol', coreClientId: 77n },
      ['clientId'],
      { coreClientId: 77n, clientId: 'carol' },
    ],
    ['no identifier', {}, [], { coreClientId: undefined, clientId: undefined }],
    ['null identifiers', { clientId: null, coreClientId: null }, [], { coreClientId: undefined, clientId: undefined }],
  ])('makes a client for %s', (_, greeting, addressedBy, make) => {
    const { w } = clients();
    expect(addressGreeting(w.view, greeting)).toEqual({ addressedBy, make });
  });
});
