import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headerValueProblem } from '../../src/config/schema.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * The tenant (sent as X-Tenant-Name) and the profile's header values travel as request headers, so
 * they must be what an HTTP header carries: tab, 0x20 to 0x7E and 0x80 to 0xFF, as node:http
 * accepts (docs/configuration.md, "Keys"). Anything else, from any source, is a configuration error
 * (exit 2) naming the value's source, found before anything is sent; `core config check` says so too.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TOKEN = 'tok-header-values-0123';

describe('the rule for a header value', () => {
  it.each<[string, boolean, string]>([
    ['printable ASCII', true, 'acme-1 ~'],
    ['a tab', true, 'a\tb'],
    ['Latin-1 up to 0xFF', true, 'acmé ÿ'],
    ['a C1 control, which node:http sends', true, 'a\u0085b'],
    ['DEL (0x7F)', false, 'a\u007fb'],
    ['a line feed', false, 'a\nb'],
    ['a carriage return and line feed before another header', false, 'a\r\nX-Evil: 1'],
    ['a NUL', false, 'a\u0000b'],
    ['the first character above 0xFF (U+0100)', false, 'a\u0100b'],
    ['the euro sign', false, 'acme€'],
    ['a character above 0xFFFF', false, 'acme🙂'],
  ])('%s: accepted %s', (_case, accepted, value) => {
    expect(headerValueProblem(value) === undefined).toBe(accepted);
  });

  it.each<[string, string, RegExp]>([
    ['a character above 0xFF', 'acme€', /holds "€" \(U\+20AC\)/],
    ['a character above 0xFFFF', 'x🙂', /holds "🙂" \(U\+1F642\)/],
    ['a line break', 'a\r\nb', /holds a line break/],
    ['a control character', 'a\u0001b', /holds a control character \(U\+0001\)/],
  ])('names what is wrong with %s', (_case, value, message) => {
    expect(headerValueProblem(value)).toMatch(message);
  });
});

/** A folder with `.corerc.yaml` holding one profile `p` whose extra YAML lines are `extra`. */
function folder(url: string, extra: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'core-header-values-'));
  writeFileSync(join(dir, '.corerc.yaml'), `profiles:\n  p:\n    baseUrl: ${url}\n    token: ${TOKEN}\n${extra}`);
  return dir;
}

interface Row {
  name: string;
  /** YAML lines added to profile p. */
  profile: string;
  flags?: string[];
  env?: Record<string, string>;
  /** What the error says: the value's source and what is wrong with it. */
  message: RegExp;
}

const rows: Row[] = [
  {
    name: 'a --tenant outside Latin-1',
    profile: '    tenant: acme\n',
    flags: ['--tenant', 'acme€'],
    message: /--tenant: "acme€" holds "€" \(U\+20AC\), which the X-Tenant-Name header cannot carry/,
  },
  {
    name: 'a --tenant with a line break and another header',
    profile: '    tenant: acme\n',
    flags: ['--tenant', 'a\r\nX-Evil: 1'],
    message: /--tenant: "a\\r\\nX-Evil: 1" holds a line break/,
  },
  {
    name: 'a CORE_TENANT outside Latin-1',
    profile: '    tenant: acme\n',
    env: { CORE_TENANT: 'acme€' },
    message: /CORE_TENANT: "acme€" holds "€" \(U\+20AC\), which the X-Tenant-Name header cannot carry/,
  },
  {
    name: 'a CORE_TENANT above 0xFFFF',
    profile: '    tenant: acme\n',
    env: { CORE_TENANT: 'acme🙂' },
    message: /CORE_TENANT: "acme🙂" holds "🙂" \(U\+1F642\)/,
  },
  {
    name: "a profile's tenant outside Latin-1",
    profile: '    tenant: "acme€"\n',
    message:
      /invalid config file .*\.corerc\.yaml \(1 problem\)[^]*profiles\.p\.tenant: "acme€" holds "€" \(U\+20AC\), which the X-Tenant-Name header cannot carry/,
  },
  {
    name: "a profile's tenant with a line break",
    profile: '    tenant: "a\\r\\nX-Evil: 1"\n',
    message: /invalid config file .*\.corerc\.yaml[^]*profiles\.p\.tenant: "a\\r\\nX-Evil: 1" holds a line break/,
  },
  {
    name: 'a header value outside Latin-1',
    profile: '    tenant: acme\n    headers: {X-B: "€"}\n',
    message:
      /invalid config file .*\.corerc\.yaml[^]*profiles\.p\.headers\.X-B: a header value must hold only tab, printable ASCII and Latin-1 \(U\+0080 to U\+00FF\): this one holds U\+20AC/,
  },
  {
    name: 'a header value above 0xFFFF',
    profile: '    tenant: acme\n    headers: {X-B: "key-🙂"}\n',
    message: /profiles\.p\.headers\.X-B: a header value must hold only .*: this one holds U\+1F642/,
  },
  {
    name: 'a header value with DEL',
    profile: '    tenant: acme\n    headers: {X-B: "a\\x7Fb"}\n',
    message: /profiles\.p\.headers\.X-B: a header value must hold only .*: this one holds a control character \(U\+007F\)/,
  },
];

describe('a tenant or header value that a request header cannot carry', () => {
  it.each(rows)('$name is a configuration error (exit 2) naming where it came from, and nothing is sent', async (row) => {
    server = await startRecordingServer();
    const cwd = folder(server.url, row.profile);
    const result = await runInProcess(['reply', '--core-client-id', '1', '-t', 'x', '--json', ...(row.flags ?? [])], {
      env: baseEnv(row.env),
      cwd,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(row.message);
    expect(result.stderr).not.toContain('ERR_INVALID_CHAR');
    // Configuration errors print a human message on stderr only (docs/json-output.md).
    expect(result.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });

  it.each(rows)('$name makes core config check exit 2, naming it', async (row) => {
    server = await startRecordingServer();
    const cwd = folder(server.url, row.profile);
    const result = await runInProcess(['config', 'check', ...(row.flags ?? [])], { env: baseEnv(row.env), cwd });
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^✗ config /m);
    expect(result.stdout).toMatch(row.message);
    expect(result.stdout).not.toContain('Ready:');
    expect(server.requests).toHaveLength(0);
  });

  it('never quotes a header value, which may be a credential', async () => {
    server = await startRecordingServer();
    const cwd = folder(server.url, '    tenant: acme\n    headers: {X-Api-Key: "gw-secret-€-0123"}\n');
    const result = await runInProcess(['reply', '--core-client-id', '1', '-t', 'x'], { env: baseEnv(), cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/profiles\.p\.headers\.X-Api-Key: /);
    expect(result.stderr).not.toContain('gw-secret');
  });

  it.each<[string, string, Record<string, string>, string]>([
    ['a Latin-1 tenant from the profile', '    tenant: "acmé"\n', {}, 'acm'],
    ['a tenant at the top of ASCII and of Latin-1 from CORE_TENANT', '    tenant: acme\n', { CORE_TENANT: 'a~ÿ' }, 'a~'],
  ])('sends %s, and a header value with a tab', async (_case, profile, env, start) => {
    server = await startRecordingServer();
    const cwd = folder(server.url, `${profile}    headers: {X-B: "tab\\there"}\n`);
    const result = await runInProcess(['reply', '--core-client-id', '1', '-t', 'x'], { env: baseEnv(env), cwd });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    // Which bytes stand for a character from 0x80 to 0xFF is node:http's choice (one byte, or its
    // UTF-8 form when the body is a string): only the ASCII part is compared.
    expect(server.requests[0]!.headers['x-tenant-name']).toMatch(new RegExp(`^${start}.`));
    expect(server.requests[0]!.headers['x-b']).toBe('tab\there');
  });
});
