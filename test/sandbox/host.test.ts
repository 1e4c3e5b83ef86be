import { describe, expect, it } from 'vitest';
import { allowedHosts, hostAllowed } from '../../src/sandbox/host.js';

/**
 * The Host values a sandbox answers (docs/sandbox.md, "The Host check"), as a pure rule: the bound
 * address, the name given, the loopback names when bound to loopback or every address, each address of
 * the machine's interfaces when bound to every address, and the --allow-host names with any port.
 */

const loopback = (host: string) => host === '127.0.0.1' || host === '::1' || host === 'localhost';
const machine = ['127.0.0.1', '192.0.2.2', '::1', 'fe80::1%eth0', '2001:db8::2'];

describe('the Host values a sandbox answers', () => {
  it.each([
    // Bound to every address: the machine's own addresses with the port, and the loopback names.
    { bound: '0.0.0.0', host: '192.0.2.2:8080', answered: true },
    { bound: '0.0.0.0', host: '[2001:db8::2]:8080', answered: true },
    { bound: '0.0.0.0', host: '[fe80::1]:8080', answered: true },
    { bound: '::', host: '192.0.2.2:8080', answered: true },
    { bound: '0.0.0.0', host: 'localhost:8080', answered: true },
    { bound: '0.0.0.0', host: '192.0.2.2:8081', answered: false },
    { bound: '0.0.0.0', host: '192.0.2.3:8080', answered: false },
    { bound: '0.0.0.0', host: 'attacker.example:8080', answered: false },
    // Bound to loopback or to one address: the machine's other addresses are not the sandbox's.
    { bound: '127.0.0.1', host: '192.0.2.2:8080', answered: false },
    { bound: '127.0.0.1', host: '127.0.0.1:8080', answered: true },
    { bound: '192.0.2.2', host: '192.0.2.2:8080', answered: true },
    { bound: '192.0.2.2', host: '[2001:db8::2]:8080', answered: false },
    { bound: '192.0.2.2', host: 'localhost:8080', answered: false },
  ])('bound to $bound, answers Host $host: $answered', ({ bound, host, answered }) => {
    const hosts = allowedHosts(bound, bound, 8080, loopback, [], machine);
    expect(hostAllowed(host, hosts)).toBe(answered);
  });

  it('answers an --allow-host name with any port, and only that name', () => {
    const hosts = allowedHosts('127.0.0.1', '127.0.0.1', 8080, loopback, ['host.docker.internal'], machine);
    expect(hostAllowed('host.docker.internal:9999', hosts)).toBe(true);
    expect(hostAllowed('host.docker.internal', hosts)).toBe(true);
    expect(hostAllowed('other.internal:8080', hosts)).toBe(false);
  });
});
