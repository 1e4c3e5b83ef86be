import type { Answer } from './exchange.js';

/**
 * The Host check (docs/sandbox.md, "The Host check and the JSON-only rule"): which Host values the
 * sandbox answers, and the refusal of any other. A page on another site reaching the port through a
 * DNS name it controls (DNS rebinding) learns nothing, not even which paths exist.
 */

/**
 * The Host values the sandbox answers (docs/sandbox.md, "The Host check"): its bound address with its
 * port, the host name it was started with (`--host localhost`), and, when it is bound to loopback or
 * to every address, the loopback names localhost, 127.0.0.1 and [::1] with its port; bound to every
 * address, also each address of the machine's own interfaces (`addresses`) with its port: a browser
 * sends an address as Host only when it was asked for that address, never through a DNS name. A page on
 * another site that reaches the port through a DNS name it controls (DNS rebinding) sends its own
 * name as Host, and is refused. Names given with `--allow-host` are accepted with any port or none
 * (a bot in a container reaches `host.docker.internal:PORT`, a tunnel sends its own name).
 */
export interface AllowedHosts {
  /** `name:port` (and `name` alone on port 80), lower case. */
  exact: Set<string>;
  /** Names accepted whatever the port, lower case, without a trailing dot. */
  names: Set<string>;
}

export function allowedHosts(
  bound: string,
  given: string,
  port: number,
  loopback: (host: string) => boolean,
  extra: readonly string[] = [],
  addresses: readonly string[] = [],
): AllowedHosts {
  const names = new Set<string>([bound.toLowerCase(), given.toLowerCase()]);
  const wildcard = bound === '0.0.0.0' || bound === '::';
  if (wildcard || loopback(bound)) for (const name of ['localhost', '127.0.0.1', '::1']) names.add(name);
  if (wildcard) for (const address of addresses) names.add(address.toLowerCase().replace(/%.*$/, ''));
  const exact = new Set<string>();
  for (const name of names) {
    const host = bracketed(name);
    exact.add(`${host}:${port}`);
    if (port === 80) exact.add(host);
  }
  return { exact, names: new Set(extra.map((name) => bracketed(name.toLowerCase().replace(/\.$/, '')))) };
}

const bracketed = (name: string) => (name.includes(':') && !name.startsWith('[') ? `[${name}]` : name);

/** The name part of a Host header (`[::1]` keeps its brackets), lower case, without a trailing dot. */
export function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  const port = /:\d*$/.exec(host);
  const name = port && (!host.startsWith('[') || host.lastIndexOf(']') < port.index) ? host.slice(0, port.index) : host;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** Whether a Host header names one of `allowed` (compared without case, a trailing dot ignored). */
export function hostAllowed(header: string | undefined, allowed: AllowedHosts): boolean {
  if (header === undefined) return false;
  const host = header
    .trim()
    .toLowerCase()
    .replace(/\.(?=:\d+$)|\.$/, '');
  return allowed.exact.has(host) || allowed.names.has(hostName(header));
}

/** Why a name cannot be given to --allow-host: a DNS name, an IPv4 address or an IPv6 one in brackets. */
export function allowHostProblem(name: string): string | undefined {
  const text = name.trim();
  if (text === '') return 'must not be empty';
  if (/^\[[0-9a-f:.]+\]$/i.test(text)) return undefined;
  const labels = text.replace(/\.$/, '').split('.');
  if (text.length <= 253 && labels.every((label) => /^[a-z0-9_-]{1,63}$/i.test(label))) return undefined;
  return `'${name}' is not a host name: give a name such as host.docker.internal, without a port or scheme`;
}

/**
 * The refusal of a request whose Host header is not one of `hosts`, or undefined. It names the
 * `--allow-host` option that would accept the name, when the name is one it takes.
 */
export function foreignHost(given: string | undefined, hosts: AllowedHosts): Answer | undefined {
  if (hostAllowed(given, hosts)) return undefined;
  const name = given === undefined ? undefined : hostName(given);
  const option = name !== undefined && allowHostProblem(name) === undefined ? `--allow-host ${name}` : '--allow-host NAME';
  const accepted = [...hosts.exact, ...[...hosts.names].map((n) => `${n}:*`)].join(', ');
  return {
    status: 403,
    error:
      given === undefined
        ? 'missing Host header: the sandbox answers only requests addressed to its own address'
        : `the Host '${given}' is not this sandbox's address (${accepted}): requests through another name are refused; ` +
          `if a bot reaches the sandbox by this name (a container, a tunnel), start it with ${option}`,
    what: 'refused: foreign Host',
  };
}
