import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeOptionsHead, nativeOptionsTail, spreadNativeOptionsLast } from '../../tsup.config.js';
import { repoRoot } from '../helpers/run.js';

/**
 * got builds the options it hands node:http for every request in a literal that starts with two
 * spreads; on Node 20 each of the 31 properties after them takes V8's slow path. The build moves the
 * spreads after the literal (tsup.config.ts, gotNativeOptions). These tests hold its promises: the
 * same options, value for value, for every kind of request; the same precedence where keys meet; and
 * an upgrade that changes the code fails the build instead of silently undoing the rewrite.
 */

const source = join(repoRoot, 'node_modules', 'got', 'dist', 'source');
const original = readFileSync(join(source, 'core', 'options.js'), 'utf8');

type OptionsClass = new (url: string, options?: Record<string, unknown>) => { createNativeRequestOptions(): Record<PropertyKey, unknown> };

/**
 * A copy of got's source folder with options.js rewritten by the build's function. It lives under the
 * project's node_modules so that got's own imports (@sindresorhus/is, http2-wrapper...) resolve.
 */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A folder of its own under node_modules/.cache, removed once the file's tests are done. */
function scratch(): string {
  const cache = join(repoRoot, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'core-got-'));
  made.push(dir);
  return dir;
}

function patchedCopy(): string {
  const folder = join(scratch(), 'source');
  cpSync(source, folder, { recursive: true });
  writeFileSync(join(folder, '..', 'package.json'), '{ "type": "module" }\n');
  writeFileSync(join(folder, 'core', 'options.js'), spreadNativeOptionsLast(original, 'options.js'));
  return join(folder, 'index.js');
}

const stock = ((await import(pathToFileURL(join(source, 'index.js')).href)) as { Options: OptionsClass }).Options;
const patched = ((await import(pathToFileURL(patchedCopy()).href)) as { Options: OptionsClass }).Options;

const agent = new Agent({ keepAlive: true });
const lookup = () => {};
const cases: Array<[string, string, Record<string, unknown>]> = [
  [
    'a PUT over http with an agent and headers',
    'http://127.0.0.1:8080/api/v1/inactivity/reasons',
    { method: 'PUT', agent: { http: agent }, headers: { 'x-tenant-name': 'acme' }, body: '{}' },
  ],
  ['a GET with nothing set', 'http://example.test/x', {}],
  [
    'https with every TLS option core can set',
    'https://example.test/api',
    {
      https: {
        rejectUnauthorized: false,
        certificateAuthority: 'CA',
        certificate: 'CERT',
        key: 'KEY',
        alpnProtocols: ['http/1.1'],
        serverName: 'other.test',
        minVersion: 'TLSv1.2',
        ciphers: 'HIGH',
      },
    },
  ],
  ['https over HTTP/2 (an agent object of its own)', 'https://example.test/api', { http2: true }],
  [
    'a Unix domain socket (the socket path, the request path, an empty host)',
    'http://unix:/tmp/core.sock:/api/v1/x',
    { enableUnixSockets: true },
  ],
  [
    'cache options set',
    'http://example.test/x',
    { cacheOptions: { shared: false, cacheHeuristic: 0.2, immutableMinTimeToLive: 5, ignoreCargoCult: true } },
  ],
  [
    'a DNS lookup, an address family and a local address',
    'http://example.test/x',
    { dnsLookup: lookup, dnsLookupIpVersion: 4, localAddress: '127.0.0.1' },
  ],
];

describe("the build's rewrite of got's options for node:http (createNativeRequestOptions)", () => {
  it.each(cases)('gives node:http the same options, value for value: %s', (_what, url, options) => {
    const before = new stock(url, options).createNativeRequestOptions();
    const after = new patched(url, options).createNativeRequestOptions();
    expect(after).toStrictEqual(before);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
  });

  it('holds the Unix socket path and the cache options among them (the two sources it copies in)', () => {
    const after = new patched('http://unix:/tmp/core.sock:/api', {
      enableUnixSockets: true,
      cacheOptions: { shared: false },
    }).createNativeRequestOptions();
    expect(after).toMatchObject({ socketPath: '/tmp/core.sock', path: '/api', host: '', shared: false });
  });

  it('no longer starts the literal with a spread', () => {
    expect(String(new stock('http://x.test/').createNativeRequestOptions)).toMatch(/return \{\s*\.\.\.internals\.cacheOptions/);
    expect(String(new patched('http://x.test/').createNativeRequestOptions)).not.toMatch(/return \{\s*\.\.\./);
  });

  it('keeps the precedence of the spreads where keys meet: the literal, then the Unix options, then the cache options', async () => {
    const mini = [
      'export class O {',
      '    constructor(cacheOptions, unixOptions) { this._internals = { cacheOptions, h2session: "h2" }; this._unixOptions = unixOptions; }',
      '    f() {',
      '        const internals = this._internals;',
      nativeOptionsHead,
      "            path: 'from the literal',",
      nativeOptionsTail,
      '}',
    ].join('\n');
    const code = spreadNativeOptionsLast(mini, 'mini.js');
    const dir = scratch();
    writeFileSync(join(dir, 'mini.mjs'), code);
    const { O } = (await import(pathToFileURL(join(dir, 'mini.mjs')).href)) as {
      O: new (c: unknown, u: unknown) => { f(): Record<PropertyKey, unknown> };
    };
    const symbol = Symbol('kept');
    const hidden = Object.defineProperty({ visible: 'cache' }, 'hidden', { value: 'not enumerable', enumerable: false });
    const made = new O(
      { host: 'cache', socketPath: 'cache', only: 'cache', ...hidden, [symbol]: 1 },
      { host: 'unix', socketPath: 'unix', path: 'unix' },
    ).f();
    const spread = {
      ...{ host: 'cache', socketPath: 'cache', only: 'cache', ...hidden, [symbol]: 1 },
      ...{ host: 'unix', socketPath: 'unix', path: 'unix' },
      path: 'from the literal',
      h2session: 'h2',
    };
    expect(made).toStrictEqual(spread);
    expect(made).toEqual({
      host: 'unix',
      socketPath: 'unix',
      path: 'from the literal',
      only: 'cache',
      visible: 'cache',
      h2session: 'h2',
      [symbol]: 1,
    });
    expect(new O(undefined, null).f()).toStrictEqual({ path: 'from the literal', h2session: 'h2' });
  });

  it.each([
    ['the head is gone (an upgrade rewrote the literal)', original.replace('...this._unixOptions,', '...this._socketOptions,')],
    [
      'the tail is gone',
      original.replace('h2session: internals.h2session,\n        };', 'h2session: internals.h2session,\n            extra: 1,\n        };'),
    ],
    ['the literal appears twice', `${original}\n${nativeOptionsHead}\n${nativeOptionsTail}`],
  ])('fails the build, naming the file, when %s', (_what, upgraded) => {
    expect(upgraded).not.toBe(original);
    expect(() => spreadNativeOptionsLast(upgraded, '/x/got/dist/source/core/options.js')).toThrow(
      /\/x\/got\/dist\/source\/core\/options\.js: expected got's createNativeRequestOptions literal once/,
    );
  });

  it('finds the literal once in the installed version, which the build rewrites', () => {
    expect(original.split(nativeOptionsHead)).toHaveLength(2);
    expect(() => spreadNativeOptionsLast(original, 'options.js')).not.toThrow();
  });
});
