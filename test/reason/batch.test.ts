import { readFileSync, rmSync } from 'node:fs';
import { MAX_LINE_BYTES } from '../../src/batch/lines.js';
import { MAX_DOCUMENT_BYTES } from '../../src/batch/source.js';
import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import {
  gate,
  startRecordingServer,
  type RecordedRequest,
  type RecordingServer,
  type ScriptedAnswer,
} from '../helpers/recording-server.js';
import { codeOf, envFor, errorAnswer, jsonLines, ndjson, readJsonLines, reason, tempFile } from './helpers.js';

/**
 * `core reason update -f FILE` with many reasons: formats, checking the whole batch first, mixed
 * outcomes and exit codes, --fail-fast, --report, concurrency and Ctrl-C.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const codes = (n: number, prefix = 'R') => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(3, '0')}`);

/** Answers by code: 404 naming it for codes starting with MISSING, 503 for FLAKY on the first attempt, else 200. */
function byCode(request: RecordedRequest): ScriptedAnswer {
  const code = codeOf(request) ?? '';
  if (code.startsWith('MISSING')) return errorAnswer(404, `Inactivity reason with code '${code}' not found`);
  if (code.startsWith('DOWN')) return errorAnswer(503, 'unavailable', { 'Retry-After': '0' });
  if (code.startsWith('FLAKY') && request.attempt === 1) return errorAnswer(503, 'try again', { 'Retry-After': '0' });
  return { status: 200 };
}

describe('core reason update -f: outcomes of a batch', () => {
  it('prints one JSON line per reason, retries a 503, and exits 4 for a 404 among successes', async () => {
    server = await startRecordingServer(byCode);
    const file = tempFile('mixed.ndjson', ndjson([reason('A1'), reason('MISSING1'), reason('A2'), reason('FLAKY1'), reason('A3')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(4);
    const lines = jsonLines(result.stdout);
    expect(lines.map((l) => l.code).sort()).toEqual(['A1', 'A2', 'A3', 'FLAKY1', 'MISSING1']);
    const of = (code: string) => lines.find((l) => l.code === code)!;
    expect(of('A1')).toMatchObject({ ok: true, status: 200, method: 'PUT', error: null });
    expect(of('A1').requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(of('MISSING1')).toMatchObject({
      ok: false,
      status: 404,
      error: { message: "Inactivity reason with code 'MISSING1' not found" },
    });
    expect(of('FLAKY1')).toMatchObject({ ok: true, status: 200, attempts: 2 });
    expect(server.requests.filter((r) => codeOf(r) === 'FLAKY1')).toHaveLength(2);
    expect(result.stderr).toContain('4 succeeded, 1 failed, 0 skipped');
  });

  it('prints one human line per reason with its status and the service message', async () => {
    server = await startRecordingServer(byCode);
    const file = tempFile('mixed.ndjson', ndjson([reason('A1'), reason('MISSING1'), reason('FLAKY1')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--concurrency', '1'], { env: envFor(server.url) });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe(
      "✓ 200  A1\n✗ 404  MISSING1  Inactivity reason with code 'MISSING1' not found\n✓ 200  FLAKY1  (2 attempts)\n",
    );
    expect(result.stderr).toBe(
      '2 succeeded, 1 failed, 0 skipped\nhint (404): no inactivity reason has this code: the update changes existing reasons only; check the code and the tenant\n',
    );
  });

  it.each<[string, string[], number]>([
    ['every reason applied', ['A1', 'A2'], 0],
    ['a 404', ['A1', 'MISSING1'], 4],
    ['a lasting 503 (after its retries)', ['A1', 'DOWN1'], 5],
    ['a 404 and a lasting 503: the larger code', ['MISSING1', 'DOWN1', 'A1'], 5],
  ])('exits with the largest failure code: %s', async (_name, list, exit) => {
    server = await startRecordingServer(byCode);
    const file = tempFile('batch.ndjson', ndjson(list.map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(exit);
    expect(jsonLines(result.stdout)).toHaveLength(list.length);
  });

  it('exits 6 when the service cannot be reached, with a network error per reason', async () => {
    server = await startRecordingServer();
    const url = server.url;
    await server.close();
    server = undefined;
    const file = tempFile('batch.ndjson', ndjson([reason('A1'), reason('A2')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--json'], { env: envFor(url, { CORE_TIMEOUT: undefined }) });
    expect(result.code).toBe(6);
    const lines = jsonLines(result.stdout);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatchObject({ ok: false, status: null, error: { code: 'ECONNREFUSED' } });
  });
});

describe('core reason update -f: input formats', () => {
  const two = [reason('A1', { color: '#FFFFFF' }), reason('A2', { active: false })];

  it.each<[string, string, string]>([
    ['NDJSON', 'reasons.ndjson', ndjson(two)],
    ['NDJSON with blank lines and CRLF ends', 'reasons.txt', `\n${JSON.stringify(two[0])}\r\n\r\n   \n${JSON.stringify(two[1])}\r\n`],
    ['a JSON array', 'reasons.json', JSON.stringify(two, null, 2)],
    ['a JSON array on one line', 'reasons.json', JSON.stringify(two)],
    [
      'a YAML list',
      'reasons.yaml',
      '- code: A1\n  reasons: [{locale: en, name: Name of A1}]\n  color: "#FFFFFF"\n- code: A2\n  reasons: [{locale: en, name: Name of A2}]\n  active: false\n',
    ],
  ])('reads %s', async (_name, fileName, content) => {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', '-f', tempFile(fileName, content), '--concurrency', '1'], {
      env: envFor(server.url),
    });
    expect(result.stderr).toBe('2 succeeded, 0 failed, 0 skipped\n');
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => JSON.parse(r.text) as unknown)).toEqual(two);
  });

  it.each<[string, string, string]>([
    ['a pretty-printed JSON object', 'one.json', JSON.stringify(reason('ONE'), null, 2)],
    ['a YAML object', 'one.yaml', 'code: ONE\nreasons:\n  - locale: en\n    name: Name of ONE\n'],
    ['one NDJSON line', 'one.ndjson', ndjson([reason('ONE')])],
  ])('reads %s as a batch of one, shown as the ordinary result', async (_name, fileName, content) => {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', '-f', tempFile(fileName, content)], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]!.text)).toEqual(reason('ONE'));
    expect(result.stdout).toMatch(/^✓ 200 OK/);
    expect(result.stderr).toBe('');
  });

  it('reads NDJSON from standard input with -f -', async () => {
    server = await startRecordingServer();
    const list = codes(7).map((code) => reason(code));
    const result = await runInProcess(['reason', 'update', '-f', '-', '--json'], { env: envFor(server.url), stdin: ndjson(list) });
    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)).toHaveLength(7);
    expect(server.requests.map(codeOf).sort()).toEqual(codes(7));
  });

  it('refuses -f - when standard input is a terminal', async () => {
    const result = await runInProcess(['reason', 'update', '-f', '-'], { env: envFor('http://127.0.0.1:9'), stdinIsTTY: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('standard input is a terminal');
  });

  it.each<[string, string]>([
    ['an empty file', ''],
    ['a file of blank lines', '\n  \n\n'],
    ['an empty array', '[]'],
  ])('refuses %s with exit 2', async (_name, content) => {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', '-f', tempFile('empty.json', content)], { env: envFor(server.url) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no reasons/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('core reason update -f: a JSON array on one line, as jq -c writes it', () => {
  it('reads one longer than the 1 MB of an NDJSON line, from standard input', async () => {
    const list = codes(15_000, 'J').map((code) => reason(code, { color: '#ABCDEF' }));
    const text = `${JSON.stringify(list)}\n`;
    expect(text.length).toBeGreaterThan(MAX_LINE_BYTES);
    const result = await runInProcess(['reason', 'update', '-f', '-', '--dry-run'], { env: envFor('http://127.0.0.1:9'), stdin: text });
    expect(result.stderr).toContain('dry run: all 15,000 reasons in standard input are valid');
    expect(result.code).toBe(0);
  });

  it.each<[string, number, number]>([
    ['at the 64 MB limit: read', MAX_DOCUMENT_BYTES, 0],
    ['one byte past it: refused, exit 2', MAX_DOCUMENT_BYTES + 1, 2],
  ])('a file %s', async (_name, size, code) => {
    const array = JSON.stringify([reason('BIG1')]);
    const file = tempFile('big.json', array + ' '.repeat(size - array.length));
    try {
      const result = await runInProcess(['reason', 'update', '-f', file, '--dry-run'], { env: envFor('http://127.0.0.1:9') });
      expect(result.code).toBe(code);
      if (code === 0) expect(result.stdout).toContain('"code": "BIG1"');
      else expect(result.stderr).toContain(`is 64.0 MB (67,108,865 bytes); a JSON array or YAML file is read whole, up to 64.0 MB`);
    } finally {
      rmSync(file);
    }
  });
});

describe('core reason update -f: the whole batch is checked before anything is sent', () => {
  async function rejected(fileName: string, content: string, extra: string[] = []) {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', '-f', tempFile(fileName, content), ...extra], { env: envFor(server.url) });
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
    return result;
  }

  it('lists every invalid NDJSON item by line number and sends nothing', async () => {
    const content = ndjson([
      reason('A1'),
      { code: 'A2', reasons: [{ locale: 'en', name: 'n'.repeat(51) }] },
      reason('A3'),
      reason('A4', { color: 'orange' }),
      reason('A5', { extra: true }),
    ]);
    const result = await rejected('bad.ndjson', content);
    expect(result.stderr).toContain('3 of 5 reasons in ');
    expect(result.stderr).toContain('nothing was sent');
    expect(result.stderr).toContain('  line 2: reasons[0].name: 51 characters, limit 50\n');
    expect(result.stderr).toMatch(/ {2}line 4: color: expected a colour as #RRGGBB/);
    expect(result.stderr).toMatch(/ {2}line 5: extra: /);
  });

  it('names a line that is not JSON by its number, counting blank lines', async () => {
    const content = `${JSON.stringify(reason('A1'))}\n\n{"code": "A2",\n${JSON.stringify(reason('A3'))}\n`;
    const result = await rejected('broken.ndjson', content);
    expect(result.stderr).toMatch(/ {2}line 3: not valid JSON/);
    expect(result.stderr).toContain('1 of 3 reasons');
  });

  it('reports a broken first line by its number too', async () => {
    const content = `{"code": oops}\n${JSON.stringify(reason('A2'))}\n`;
    const result = await rejected('broken.txt', content);
    expect(result.stderr).toMatch(/ {2}line 1: not valid JSON/);
  });

  it('names both lines of a code given twice', async () => {
    const content = ndjson([reason('A1'), reason('LUNCH'), reason('A3'), reason('A4'), reason('LUNCH')]);
    const result = await rejected('dupes.ndjson', content);
    expect(result.stderr).toContain('  line 5: code: "LUNCH" also appears on line 2; each code may appear once in a batch\n');
  });

  it('uses array positions for a JSON array', async () => {
    const content = JSON.stringify([reason('A1'), reason('A2', { color: '#12345' }), reason('A1')]);
    const result = await rejected('bad.json', content);
    expect(result.stderr).toMatch(/ {2}\[1\]\.color: expected a colour as #RRGGBB/);
    expect(result.stderr).toContain('  [2].code: "A1" also appears at [0]; each code may appear once in a batch\n');
  });

  it('prints at most 50 problems and counts the rest', async () => {
    const content = ndjson(codes(60).map((code) => reason(code, { color: 'red' })));
    const result = await rejected('many.ndjson', content);
    expect(result.stderr.match(/: color: /g)).toHaveLength(50);
    expect(result.stderr).toContain('… and 10 more');
    expect(result.stderr).toContain('60 of 60 reasons');
  });

  it('with --json, prints one validation result per invalid reason, with its line', async () => {
    const content = ndjson([reason('A1'), reason('A2', { color: 'red' }), 'not an object']);
    const result = await rejected('bad.ndjson', content, ['--json']);
    const lines = jsonLines(result.stdout);
    expect(lines).toEqual([
      expect.objectContaining({
        ok: false,
        status: null,
        code: 'A2',
        line: 2,
        validationErrors: [expect.objectContaining({ path: 'color' })],
      }),
      expect.objectContaining({ ok: false, status: null, line: 3 }),
    ]);
  });

  it('refuses --code and --name with a file of several reasons', async () => {
    const result = await rejected('two.ndjson', ndjson([reason('A1'), reason('A2')]), ['--code', 'X']);
    expect(result.stderr).toContain('--code applies to one reason, and ');
  });

  it('refuses --code with --name together on a file of several reasons, naming both', async () => {
    const result = await rejected('two.ndjson', ndjson([reason('A1'), reason('A2')]), ['--code', 'X', '--name', 'en=X']);
    expect(result.stderr).toContain('--code and --name apply to one reason, and ');
  });

  it('writes an empty report when nothing was sent', async () => {
    const report = tempFile('report.ndjson', 'left from an earlier run\n');
    await rejected('bad.ndjson', ndjson([reason('A1', { color: 'red' })]), ['--report', report]);
    expect(readFileSync(report, 'utf8')).toBe('');
  });
});

describe('core reason update -f: flags with a file', () => {
  it('applies --inactive, --color and --system to every reason of the file', async () => {
    server = await startRecordingServer();
    const file = tempFile('two.ndjson', ndjson([reason('A1', { active: true }), reason('A2')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--inactive', '--color', '#000000', '--system'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(0);
    for (const request of server.requests)
      expect(JSON.parse(request.text)).toMatchObject({ color: '#000000', active: false, system: true });
  });

  it('lets --code and --name replace the fields of a file holding one reason', async () => {
    server = await startRecordingServer();
    const file = tempFile('one.json', JSON.stringify(reason('OLD', { color: '#111111' })));
    const result = await runInProcess(['reason', 'update', '-f', file, '--code', 'NEW', '--name', 'de=Neu'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(JSON.parse(server.requests[0]!.text)).toEqual({ code: 'NEW', reasons: [{ locale: 'de', name: 'Neu' }], color: '#111111' });
  });
});

describe('core reason update -f: --dry-run and --curl', () => {
  it('--dry-run checks every reason and prints the count and the first request, sending nothing', async () => {
    server = await startRecordingServer();
    const file = tempFile('three.ndjson', ndjson([reason('A1'), reason('A2'), reason('A3')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--dry-run'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('dry run: all 3 reasons in ');
    expect(result.stdout).toMatch(/^PUT http:\/\/127\.0\.0\.1:\d+\/api\/v1\/inactivity\/reasons\n/);
    expect(result.stdout).toContain('"code": "A1"');
    expect(result.stdout).not.toContain('A2');
    expect(server.requests).toHaveLength(0);
  });

  it('--dry-run --json prints one document with the count', async () => {
    const file = tempFile('three.ndjson', ndjson([reason('A1'), reason('A2'), reason('A3')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--dry-run', '--json'], { env: envFor('http://127.0.0.1:9') });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      dryRun: true,
      count: 3,
      method: 'PUT',
      body: { code: 'A1' },
      headers: { Authorization: 'Bearer ********' },
    });
  });

  it('--curl prints one curl command per reason with the token as a variable', async () => {
    const file = tempFile('two.ndjson', ndjson([reason('A1'), reason('A2')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--curl'], {
      env: envFor('http://127.0.0.1:9', { CORE_INTEGRATOR_TOKEN: 'integrator-secret' }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^curl /gm)).toHaveLength(2);
    expect(result.stdout).toContain('"Authorization: Bearer $CORE_INTEGRATOR_TOKEN"');
    expect(result.stdout).not.toContain('integrator-secret');
    expect(result.stdout).toContain('-X PUT http://127.0.0.1:9/api/v1/inactivity/reasons');
  });

  it('--curl --json prints one JSON document a line, each request with its curl command', async () => {
    const file = tempFile('two.ndjson', ndjson([reason('A1'), reason('A2')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--curl', '--json'], {
      env: envFor('http://127.0.0.1:9', { CORE_INTEGRATOR_TOKEN: 'integrator-secret' }),
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line) as { body: { code: string }; curl: string })).toEqual([
      expect.objectContaining({
        dryRun: true,
        method: 'PUT',
        body: expect.objectContaining({ code: 'A1' }),
        curl: expect.stringMatching(/^curl /),
      }),
      expect.objectContaining({
        dryRun: true,
        method: 'PUT',
        body: expect.objectContaining({ code: 'A2' }),
        curl: expect.stringMatching(/^curl /),
      }),
    ]);
    expect(result.stdout).not.toContain('integrator-secret');
  });
});

describe('core reason update -f: --fail-fast, --report and concurrency', () => {
  it('--fail-fast starts nothing after the first failure and reports the rest as skipped, never sent', async () => {
    server = await startRecordingServer(byCode);
    const list = ['A1', 'MISSING1', 'A2', 'A3', 'A4'];
    const report = tempFile('report.ndjson', '');
    const file = tempFile('batch.ndjson', ndjson(list.map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--fail-fast', '--concurrency', '1', '--json', '--report', report], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(4);
    expect(server.requests.map(codeOf)).toEqual(['A1', 'MISSING1']);
    const lines = readJsonLines(report);
    expect(lines.map((l) => [l.code, l.status, l.skipped ?? false])).toEqual([
      ['A1', 200, false],
      ['MISSING1', 404, false],
      ['A2', null, true],
      ['A3', null, true],
      ['A4', null, true],
    ]);
    expect(jsonLines(result.stdout)).toEqual(lines);
    expect(result.stderr).toContain('1 succeeded, 1 failed, 3 skipped (--fail-fast: the skipped reasons were not sent)');
  });

  it('--report holds every reason exactly once, as valid NDJSON, the same lines as --json', async () => {
    const list = [...codes(30), 'MISSING1', 'FLAKY1'];
    // Answers come out of order: the server holds requests until five are waiting (or every reason
    // has arrived once), then answers the last arrived first.
    const held: Array<() => void> = [];
    const seen = new Set<string | undefined>();
    server = await startRecordingServer((request) => {
      seen.add(codeOf(request));
      const release = gate();
      held.push(release.open);
      if (held.length === 5 || seen.size === list.length) for (const open of held.splice(0).reverse()) open();
      return { ...byCode(request), until: release.promise };
    });
    const report = tempFile('report.ndjson', '');
    const file = tempFile('batch.ndjson', ndjson(list.map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--report', report, '--json', '--concurrency', '5'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(4);
    const text = readFileSync(report, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = readJsonLines(report);
    expect(lines.map((l) => l.code).sort()).toEqual([...list].sort());
    expect(lines.filter((l) => l.ok)).toHaveLength(31);
    expect(jsonLines(result.stdout).sort((a, b) => String(a.code).localeCompare(String(b.code)))).toEqual(
      [...lines].sort((a, b) => String(a.code).localeCompare(String(b.code))),
    );
  });

  it('--report is written in human mode too', async () => {
    server = await startRecordingServer();
    const report = tempFile('report.ndjson', '');
    const file = tempFile('batch.ndjson', ndjson([reason('A1'), reason('A2')]));
    const result = await runInProcess(['reason', 'update', '-f', file, '--report', report], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(
      readJsonLines(report)
        .map((l) => l.code)
        .sort(),
    ).toEqual(['A1', 'A2']);
  });

  it.each<[string, string[], number]>([
    ['--concurrency 3', ['--concurrency', '3'], 3],
    ['the default of 4', [], 4],
    ['--concurrency 1', ['--concurrency', '1'], 1],
  ])('sends every reason of a batch once with %s', async (_name, flags) => {
    server = await startRecordingServer();
    const file = tempFile('batch.ndjson', ndjson(codes(24).map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--json', ...flags], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(server.requests.map(codeOf).sort()).toEqual(codes(24));
    expect(jsonLines(result.stdout)).toHaveLength(24);
  });

  it.each<[string, string[], number]>([
    ['--concurrency 3', ['--concurrency', '3'], 3],
    ['the default of 4', [], 4],
    ['--concurrency 1', ['--concurrency', '1'], 1],
  ])('starts exactly %s requests while none is answered, and after Ctrl-C no other', async (_name, flags, limit) => {
    // No answer until the test has pressed Ctrl-C: what the client started by then is what it starts
    // with nothing answered. Ctrl-C is pressed once `limit` requests have arrived; a client that
    // started more would name them in its "waiting for" line and the server would receive them.
    const answers = gate();
    server = await startRecordingServer([{ status: 200, until: answers.promise }]);
    const controller = new AbortController();
    void server.received(limit).then(() => {
      controller.abort('SIGINT');
      answers.open();
    });
    const file = tempFile('batch.ndjson', ndjson(codes(24).map((code) => reason(code))));
    const report = tempFile('report.ndjson', '');
    const result = await runInProcess(['reason', 'update', '-f', file, '--json', '--report', report, ...flags], {
      env: envFor(server.url),
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`interrupted: no new requests; waiting for ${limit} in flight`);
    expect(server.requests.map(codeOf)).toEqual(codes(limit));
    const lines = readJsonLines(report);
    expect(lines.filter((l) => l.status === 200).map((l) => l.code)).toEqual(codes(limit));
    expect(lines.filter((l) => l.skipped === true)).toHaveLength(24 - limit);
  });

  it('after Ctrl-C starts no new request, lets those in flight finish, reports the rest as skipped, and exits 130', async () => {
    // The first request is answered at once; the others wait. Ctrl-C comes when the third has
    // arrived (started because the first was answered), with the second and third in flight.
    const answers = gate();
    const controller = new AbortController();
    server = await startRecordingServer((_request, index) => (index === 0 ? { status: 200 } : { status: 200, until: answers.promise }));
    void server.received(3).then(() => {
      controller.abort('SIGINT');
      answers.open();
    });
    const list = codes(20);
    const report = tempFile('report.ndjson', '');
    const file = tempFile('batch.ndjson', ndjson(list.map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--json', '--concurrency', '2', '--report', report], {
      env: envFor(server.url),
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    const lines = readJsonLines(report);
    expect(lines.map((l) => l.code).sort()).toEqual(list);
    // Everything the server received was answered and recorded as applied; nothing else was sent.
    expect(lines.filter((l) => l.status === 200).map((l) => l.code)).toEqual(codes(3));
    expect(server.requests.map(codeOf)).toEqual(codes(3));
    expect(lines.filter((l) => l.skipped === true).map((l) => l.code)).toEqual(list.slice(3));
    expect(jsonLines(result.stdout)).toEqual(lines);
    expect(result.stderr).toContain('interrupted: no new requests; waiting for 2 in flight');
    expect(result.stderr).toContain('3 succeeded, 0 failed, 17 skipped (interrupted: the skipped reasons were not sent)');
  });
});

describe('core reason update --report on a full disk', () => {
  it('lets the requests in flight finish once each, shows every outcome, and stops with a clear error', async () => {
    server = await startRecordingServer();
    const file = tempFile('four.ndjson', ndjson(['F1', 'F2', 'F3', 'F4', 'F5', 'F6'].map((code) => reason(code))));
    const result = await runInProcess(['reason', 'update', '-f', file, '--report', '/dev/full', '--concurrency', '2'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot write the report file /dev/full (ENOSPC)');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // Each request sent once: none was cut off and repeated.
    const codes = server.requests.map((request) => (JSON.parse(request.text) as { code: string }).code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.length).toBeLessThanOrEqual(2);
    for (const code of codes) expect(result.stdout).toContain(code);
  });
});

describe('core reason update --report over the input file', () => {
  it('is refused before anything is sent, and the input is kept', async () => {
    server = await startRecordingServer();
    const content = ndjson([reason('S1'), reason('S2')]);
    const file = tempFile('same.ndjson', content);
    const result = await runInProcess(['reason', 'update', '-f', file, '--report', file], { env: envFor(server.url) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is the input file');
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(file, 'utf8')).toBe(content);
  });
});
