import { describe, expect, it } from 'vitest';
import {
  decideProxy,
  isLoopbackHost,
  noProxyFromEnv,
  noProxyMatch,
  parseProxyUrl,
  proxyCredentials,
  proxyFromEnv,
  redactProxyUrl,
} from '../../src/http/proxy.js';

describe('NO_PROXY', () => {
  it.each<[string, string, string | undefined]>([
    // A bare domain and a leading dot both match the domain itself and every subdomain.
    ['https://api.example.com', 'example.com', 'example.com'],
    ['https://api.example.com', '.example.com', 'example.com'],
    ['https://deep.api.example.com', 'example.com', 'example.com'],
    ['https://example.com', '.example.com', 'example.com'],
    ['https://example.com', 'example.com', 'example.com'],
    ['https://api.example.com', '*.example.com', 'example.com'],
    ['https://api.example.com', 'api.example.com', 'api.example.com'],
    // Only whole labels match.
    ['https://notexample.com', 'example.com', undefined],
    ['https://example.com.evil.org', 'example.com', undefined],
    ['https://example.co', 'example.com', undefined],
    ['https://example.com', 'api.example.com', undefined],
    // * alone sends everything direct; inside a name it means nothing.
    ['https://api.example.com', '*', '*'],
    ['https://api.example.com', 'other.org, *', '*'],
    ['https://api.example.com', 'ex*.com', undefined],
    // Lists: commas and spaces, empty entries, case, a trailing dot.
    ['https://api.example.com', 'other.org,example.com', 'example.com'],
    ['https://api.example.com', ' other.org , example.com ', 'example.com'],
    ['https://api.example.com', 'other.org example.com', 'example.com'],
    ['https://api.example.com', ',,', undefined],
    ['https://API.Example.COM', 'example.com', 'example.com'],
    ['https://api.example.com', 'EXAMPLE.COM', 'example.com'],
    ['https://api.example.com.', 'example.com', 'example.com'],
    ['https://api.example.com', 'example.com.', 'example.com'],
    // Ports: an entry with a port matches that port only; a URL without one has its scheme's.
    ['https://api.example.com:8443', 'example.com:8443', 'example.com:8443'],
    ['https://api.example.com:8443', 'example.com:443', undefined],
    ['https://api.example.com', 'example.com:443', 'example.com:443'],
    ['http://api.example.com', 'example.com:443', undefined],
    ['http://api.example.com', 'example.com:80', 'example.com:80'],
    ['https://api.example.com:8443', 'example.com', 'example.com'],
    // IP addresses and ranges.
    ['https://10.1.2.3', '10.1.2.3', '10.1.2.3'],
    ['https://10.1.2.3', '10.0.0.0/8', '10.0.0.0/8'],
    ['https://11.1.2.3', '10.0.0.0/8', undefined],
    ['https://10.1.2.3:8443', '10.1.2.3:8443', '10.1.2.3:8443'],
    ['https://[2001:db8::1]', '2001:db8::1', '2001:db8::1'],
    ['https://[2001:db8::1]', '2001:db8::/32', '2001:db8::/32'],
    ['https://[2001:db8::1]:8443', '[2001:db8::1]:8443', '2001:db8::1:8443'],
    ['https://[2001:db8::1]:8443', '[2001:db8::1]:443', undefined],
    ['https://10.1.2.3', '2001:db8::/32', undefined],
    ['https://api.example.com', '10.0.0.0/8', undefined],
  ])('%s with NO_PROXY=%j: %j', (url, value, expected) => {
    expect(noProxyMatch(new URL(url), value)).toBe(expected);
  });

  it('is not read when unset', () => {
    expect(noProxyMatch(new URL('https://api.example.com'), undefined)).toBeUndefined();
  });
});

describe('loopback', () => {
  it.each([
    ['http://localhost:8080', true],
    ['http://LOCALHOST', true],
    ['http://127.0.0.1:3000', true],
    ['http://127.255.10.9', true],
    ['http://[::1]:3000', true],
    ['http://[::ffff:127.0.0.1]', true],
    ['http://128.0.0.1', false],
    ['http://0.0.0.0', false],
    ['http://[::2]', false],
    ['http://[::ffff:10.0.0.1]', false],
    ['http://localhost.example.com', false],
    ['http://127.0.0.1.example.com', false],
    ['http://sandbox.local', false],
  ])('%s is loopback: %s', (url, expected) => {
    expect(isLoopbackHost(new URL(url).hostname)).toBe(expected);
  });
});

describe('proxy variables', () => {
  it.each<[string, Record<string, string>, string | undefined]>([
    ['https:', { HTTPS_PROXY: 'http://upper:1' }, 'HTTPS_PROXY'],
    ['https:', { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:1' }, 'https_proxy'],
    ['https:', { https_proxy: '', HTTPS_PROXY: 'http://upper:1' }, 'HTTPS_PROXY'],
    ['https:', { https_proxy: '  ' }, undefined],
    ['https:', { http_proxy: 'http://p:1', HTTP_PROXY: 'http://p:1' }, undefined],
    ['http:', { HTTP_PROXY: 'http://upper:1' }, 'HTTP_PROXY'],
    ['http:', { http_proxy: 'http://lower:1', HTTP_PROXY: 'http://upper:1' }, 'http_proxy'],
    ['http:', { https_proxy: 'http://p:1' }, undefined],
    // Under CGI, HTTP_PROXY comes from a request header ("httpoxy"); the lowercase one does not.
    ['http:', { HTTP_PROXY: 'http://upper:1', REQUEST_METHOD: 'GET' }, undefined],
    ['http:', { http_proxy: 'http://lower:1', REQUEST_METHOD: 'GET' }, 'http_proxy'],
  ])('for %s, %j gives %s', (protocol, env, name) => {
    expect(proxyFromEnv(protocol, env)?.name).toBe(name);
  });

  it.each<[Record<string, string>, string | undefined]>([
    [{ NO_PROXY: 'a' }, 'NO_PROXY'],
    [{ no_proxy: 'b', NO_PROXY: 'a' }, 'no_proxy'],
    [{ no_proxy: '', NO_PROXY: 'a' }, 'NO_PROXY'],
    [{}, undefined],
  ])('NO_PROXY from %j: %s', (env, name) => {
    expect(noProxyFromEnv(env)?.name).toBe(name);
  });
});

describe('proxy URLs', () => {
  it.each<[string, string | RegExp]>([
    ['http://proxy.corp:3128', 'http://proxy.corp:3128/'],
    ['proxy.corp:3128', 'http://proxy.corp:3128/'],
    ['https://proxy.corp', 'https://proxy.corp/'],
    ['http://user:pa%40ss@proxy.corp:3128', 'http://user:pa%40ss@proxy.corp:3128/'],
    ['socks5://proxy.corp:1080', /socks5 proxy; only http and https proxies are supported/],
    ['ftp://proxy.corp', /must be an http or https URL, not ftp/],
    ['http://', /is not a URL/],
  ])('%s', (value, expected) => {
    const parsed = parseProxyUrl(value);
    if (typeof expected === 'string') expect('url' in parsed && parsed.url.href).toBe(expected);
    else expect('problem' in parsed && parsed.problem).toMatch(expected);
  });

  it.each([
    ['http://alice:s3cret@proxy.corp:3128', 'http://********@proxy.corp:3128'],
    ['http://alice@proxy.corp:3128', 'http://********@proxy.corp:3128'],
    ['http://:s3cret@proxy.corp', 'http://********@proxy.corp'],
    ['http://proxy.corp:3128', 'http://proxy.corp:3128'],
    ['proxy.corp:3128', 'http://proxy.corp:3128'],
    ['socks5://alice:s3cret@proxy.corp', '(an unreadable proxy URL)'],
  ])('%s is printed as %s', (value, shown) => {
    expect(redactProxyUrl(value)).toBe(shown);
    expect(redactProxyUrl(value)).not.toContain('s3cret');
  });

  it('lists the credentials of a proxy URL, raw, decoded and as the Basic value, for masking', () => {
    const url = new URL('http://alice:pa%40ss-word@proxy.corp');
    expect(proxyCredentials(url)).toEqual(['alice', 'pa%40ss-word', 'pa@ss-word', Buffer.from('alice:pa@ss-word').toString('base64')]);
    expect(proxyCredentials(new URL('http://proxy.corp'))).toEqual([]);
  });
});

describe('decideProxy', () => {
  const proxy = { value: 'http://proxy.corp:3128', source: 'env HTTPS_PROXY' };
  it.each<[string, typeof proxy | null, { value: string; source: string } | null, string]>([
    ['https://api.example.com', proxy, null, 'proxy'],
    ['https://api.example.com', null, null, 'direct'],
    ['https://127.0.0.1:8443', proxy, null, 'direct'],
    ['http://localhost:8080', proxy, null, 'direct'],
    ['https://[::1]:8443', proxy, null, 'direct'],
    ['https://api.example.com', proxy, { value: '.example.com', source: 'env NO_PROXY' }, 'direct'],
    ['https://api.example.org', proxy, { value: '.example.com', source: 'env NO_PROXY' }, 'proxy'],
    ['https://api.example.com', { value: 'socks5://p:1080', source: 'env HTTPS_PROXY' }, null, 'invalid'],
    // An unusable variable does not matter to a host that is not proxied.
    ['https://127.0.0.1', { value: 'socks5://p:1080', source: 'env HTTPS_PROXY' }, null, 'direct'],
  ])('%s through %j with NO_PROXY %j: %s', (url, chosen, noProxy, kind) => {
    expect(decideProxy(new URL(url), chosen, noProxy).kind).toBe(kind);
  });

  it('says why a host is reached directly', () => {
    expect(decideProxy(new URL('https://127.0.0.1'), proxy, null)).toEqual({
      kind: 'direct',
      reason: '127.0.0.1 is loopback, never proxied',
    });
    expect(decideProxy(new URL('https://a.example.com'), proxy, { value: 'example.com', source: 'env no_proxy' })).toEqual({
      kind: 'direct',
      reason: 'env no_proxy lists example.com',
    });
  });
});
