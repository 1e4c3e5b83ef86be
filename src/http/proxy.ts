import { BlockList, isIP } from 'node:net';
import { parseProxyUrl } from '../proxy-settings.js';

/**
 * Which proxy a request goes through, and which hosts skip it. Pure functions over strings, so the
 * rules can be tested by table (test/hardening/proxy-rules.test.ts). docs/security.md states them:
 *
 * - The proxy comes from the profile's `proxy` key, else from `https_proxy` / `HTTPS_PROXY` (https
 *   URLs) or `http_proxy` / `HTTP_PROXY` (http URLs), the lowercase name first, as curl reads them.
 * - `no_proxy` / `NO_PROXY` lists hosts reached directly. An entry matches the host itself and every
 *   subdomain: `example.com` and `.example.com` both match `api.example.com`. `*` alone matches every
 *   host; `host:port` matches that port only; an IP range is written as a CIDR (`10.0.0.0/8`).
 * - Loopback hosts (localhost, 127.0.0.0/8, ::1) are never proxied, whatever the variables say, as
 *   Go's net/http (and so gh) decides: a proxy cannot reach this machine's loopback, and a request
 *   meant for a local server must not carry its token to a proxy.
 */

/** Whether a URL's host name is this machine's loopback: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = normalizeHost(hostname);
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) {
    if (host === '::1') return true;
    // An IPv4 address written in IPv6 form (::ffff:127.0.0.1); the URL parser writes it in hex.
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (mapped) return parseInt(mapped[1]!, 16) >> 8 === 127;
    return /^::ffff:127\./.test(host);
  }
  return false;
}

/** A host name as compared: lower case, without IPv6 brackets or a trailing dot. */
export function normalizeHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/** The port a URL connects to, its scheme's default when the URL names none. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

interface NoProxyEntry {
  host: string;
  port: number | null;
}

/** Splits a NO_PROXY value into entries: commas or spaces between them, empty ones dropped. */
function parseNoProxy(value: string): NoProxyEntry[] | 'all' {
  const entries: NoProxyEntry[] = [];
  for (const raw of value.split(/[,\s]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return 'all';
    // `*.example.com` is written by some tools for what curl writes `.example.com`.
    if (entry.startsWith('*.')) entry = entry.slice(1);
    let port: number | null = null;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (bracketed) {
      entry = bracketed[1]!;
      port = bracketed[2] === undefined ? null : Number(bracketed[2]);
    } else if (isIP(entry) !== 6 && !entry.includes('/')) {
      const withPort = /^(.*):(\d+)$/.exec(entry);
      if (withPort) {
        entry = withPort[1]!;
        port = Number(withPort[2]);
      }
    }
    if (entry.startsWith('.')) entry = entry.slice(1);
    if (entry.endsWith('.')) entry = entry.slice(0, -1);
    if (entry !== '') entries.push({ host: entry, port });
  }
  return entries;
}

function cidrMatches(cidr: string, host: string): boolean {
  const slash = cidr.lastIndexOf('/');
  const network = cidr.slice(0, slash);
  const bits = Number(cidr.slice(slash + 1));
  const family = isIP(network);
  const hostFamily = isIP(host);
  if (family === 0 || hostFamily !== family || !Number.isInteger(bits)) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits < 0 || bits > (family === 4 ? 32 : 128)) return false;
  const list = new BlockList();
  list.addSubnet(network, bits, type);
  return list.check(host, type);
}

/**
 * The NO_PROXY entry that sends this URL direct, or undefined when none does. Returns the entry as
 * written, for --verbose.
 */
export function noProxyMatch(url: URL, noProxy: string | undefined): string | undefined {
  if (noProxy === undefined) return undefined;
  const entries = parseNoProxy(noProxy);
  if (entries === 'all') return '*';
  const host = normalizeHost(url.hostname);
  const port = portOf(url);
  for (const entry of entries) {
    if (entry.port !== null && entry.port !== port) continue;
    const written = entry.port === null ? entry.host : `${entry.host}:${entry.port}`;
    if (entry.host.includes('/')) {
      if (cidrMatches(entry.host, host)) return written;
      continue;
    }
    if (host === entry.host || host.endsWith(`.${entry.host}`)) return written;
  }
  return undefined;
}

// The proxy settings read from the environment and the config file live in a leaf module, so that
// the config code reads them without importing the network layer.
export { noProxyFromEnv, parseProxyUrl, proxyFromEnv, type EnvLike } from '../proxy-settings.js';

/** A proxy URL safe to print: its user name and password become ********. */
export function redactProxyUrl(value: string | URL): string {
  const parsed = typeof value === 'string' ? parseProxyUrl(value) : { url: value };
  if (!('url' in parsed)) return '(an unreadable proxy URL)';
  const url = parsed.url;
  const auth = url.username !== '' || url.password !== '' ? '********@' : '';
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.protocol}//${auth}${url.host}${path}`;
}

/** The credentials a proxy URL holds, raw and decoded, for registering as secrets. */
export function proxyCredentials(url: URL): string[] {
  const out = new Set<string>();
  for (const part of [url.username, url.password]) {
    if (part === '') continue;
    out.add(part);
    try {
      out.add(decodeURIComponent(part));
    } catch {
      // A malformed escape: the raw form is registered above.
    }
  }
  if (url.username !== '' || url.password !== '') {
    const basic = Buffer.from(`${safeDecode(url.username)}:${safeDecode(url.password)}`).toString('base64');
    out.add(basic);
  }
  return [...out];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export type ProxyDecision = { kind: 'proxy'; url: URL; source: string } | { kind: 'direct'; reason: string };

/**
 * Decides how to reach `target`: through `proxy` (already chosen from the profile or the environment
 * for this scheme), or directly because there is none, the host is loopback, or NO_PROXY lists it.
 */
export function decideProxy(
  target: URL,
  proxy: { value: string; source: string } | null,
  noProxy: { value: string; source: string } | null,
): ProxyDecision | { kind: 'invalid'; problem: string; source: string } {
  if (proxy === null) return { kind: 'direct', reason: 'no proxy is configured' };
  if (isLoopbackHost(target.hostname)) return { kind: 'direct', reason: `${target.hostname} is loopback, never proxied` };
  const matched = noProxy ? noProxyMatch(target, noProxy.value) : undefined;
  if (matched !== undefined) return { kind: 'direct', reason: `${noProxy!.source} lists ${matched}` };
  const parsed = parseProxyUrl(proxy.value);
  if (!('url' in parsed)) return { kind: 'invalid', problem: parsed.problem, source: proxy.source };
  return { kind: 'proxy', url: parsed.url, source: proxy.source };
}
