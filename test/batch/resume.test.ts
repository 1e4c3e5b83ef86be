import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appliedIn } from '../../src/batch/resume.js';
import { PayloadError, UsageError } from '../../src/errors.js';
import { parseJson } from '../../src/payload/json.js';

/**
 * `--resume REPORT` (src/batch/resume.ts): the codes an earlier run's report records as applied, how
 * many lines it holds, and the URL its requests went to; a last line cut by a crash is left out with a
 * warning, any other line that is not a result is an error.
 */

const HINT = 'give --resume the file an earlier run wrote with --report';

/** Reads `content` written as report.ndjson in a fresh folder; the warnings given are returned too. */
async function read(content: string) {
  const folder = mkdtempSync(join(tmpdir(), 'core-resume-'));
  writeFileSync(join(folder, 'report.ndjson'), content);
  const warnings: string[] = [];
  const applied = await appliedIn('report.ndjson', folder, (message) => warnings.push(message));
  return { codes: [...applied.codes], lines: applied.lines, url: applied.url, warnings };
}

/** The error `appliedIn` rejects with for `content`. */
async function refusal(content: string): Promise<PayloadError> {
  const error = await read(content).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PayloadError);
  return error as PayloadError;
}

const line = (value: unknown) => JSON.stringify(value);

describe('appliedIn: the codes a report records as applied', () => {
  it.each<[string, string, string[], number]>([
    ['an empty report', '', [], 0],
    ['a success', `${line({ ok: true, code: 'A' })}\n`, ['A'], 1],
    ['a failure: not applied', `${line({ ok: false, code: 'A' })}\n`, [], 1],
    ['a success without a code', `${line({ ok: true })}\n`, [], 1],
    ['a success whose code is not a string', `${line({ ok: true, code: 7 })}\n`, [], 1],
    ['a line carried over by an earlier resumed run', `${line({ ok: true, code: 'A', resumed: true })}\n`, ['A'], 1],
    [
      'successes and failures mixed, in order',
      [line({ ok: true, code: 'A' }), line({ ok: false, code: 'B' }), line({ ok: true, code: 'C' })].join('\n'),
      ['A', 'C'],
      3,
    ],
    ['a code twice, once failed', [line({ ok: false, code: 'A' }), line({ ok: true, code: 'A' })].join('\n'), ['A'], 2],
    [
      'blank lines, neither read nor counted',
      `\n${line({ ok: true, code: 'A' })}\n \t \n\n${line({ ok: true, code: 'B' })}\n\n`,
      ['A', 'B'],
      2,
    ],
    ['\\r\\n line ends', `${line({ ok: true, code: 'A' })}\r\n${line({ ok: true, code: 'B' })}\r\n`, ['A', 'B'], 2],
  ])('%s', async (_name, content, codes, lines) => {
    const result = await read(content);
    expect(result.codes).toEqual(codes);
    expect(result.lines).toBe(lines);
    expect(result.warnings).toEqual([]);
  });

  it.each<[string, string, string | null]>([
    ['no URL in any line', line({ ok: true, code: 'A' }), null],
    ['the URL of the first line', [line({ ok: true, url: 'http://a/' }), line({ ok: true, url: 'http://b/' })].join('\n'), 'http://a/'],
    [
      'a URL that is not a string is passed over',
      [line({ ok: false, url: 7 }), line({ ok: false, url: 'http://b/' })].join('\n'),
      'http://b/',
    ],
    ['the URL of a failed line counts too', line({ ok: false, code: 'A', url: 'http://a/' }), 'http://a/'],
  ])('the URL: %s', async (_name, content, url) => {
    expect((await read(content)).url).toBe(url);
  });

  it.each<[string, string, string[], number]>([
    ['a last line without its end', `${line({ ok: true, code: 'A' })}\n{"ok":true,"co`, ['A'], 2],
    ['a last line with its end', `${line({ ok: true, code: 'A' })}\n{"ok":tr\n`, ['A'], 2],
    ['the only line', '{"ok"', [], 1],
  ])('leaves out a cut last line with a warning: %s', async (_name, content, codes, lines) => {
    const result = await read(content);
    expect(result.codes).toEqual(codes);
    expect(result.lines).toBe(lines);
    expect(result.warnings).toEqual([`--resume: the last line of report.ndjson (line ${lines}) is cut short and was left out`]);
  });

  it('refuses a line that does not parse when another line follows it, naming the line and the reason', async () => {
    let why = '';
    try {
      parseJson('{"ok":tr');
    } catch (error) {
      why = (error as Error).message;
    }
    const error = await refusal(`${line({ ok: true, code: 'A' })}\n{"ok":tr\n${line({ ok: true, code: 'B' })}\n`);
    expect(error.message).toBe(`--resume: report.ndjson is not a report of core reason update (line 2: ${why})`);
    expect(error.hint).toBe(HINT);
    expect(error.problems).toEqual([]);
  });

  it('refuses a line that does not parse even when only a blank line follows it', async () => {
    const error = await refusal(`{"ok":tr\n\n`);
    expect(error.message).toMatch(/^--resume: report\.ndjson is not a report of core reason update \(line 1: /);
  });

  it.each<[string, string]>([
    ['an array', '[1,2]'],
    ['a string', '"ok"'],
    ['null', 'null'],
    ['an object without "ok"', line({ code: 'A' })],
    ['an object whose "ok" is not a boolean', line({ ok: 'true', code: 'A' })],
  ])('refuses a line that is %s, naming it', async (_name, text) => {
    const error = await refusal(`${line({ ok: true, code: 'A' })}\n\n${text}\n`);
    expect(error.message).toBe(
      '--resume: report.ndjson is not a report of core reason update (line 3: a line of a report is a result object with "ok")',
    );
    expect(error.hint).toBe(HINT);
  });
});

describe('appliedIn: a --resume path that is not a readable file', () => {
  it.each<[string, (folder: string) => void, string]>([
    ['a missing file', () => {}, '--resume: file not found: report.ndjson'],
    ['a folder', (folder) => mkdirSync(join(folder, 'report.ndjson')), '--resume: report.ndjson is not a file'],
    [
      'a path through a file',
      (folder) => writeFileSync(join(folder, 'report.ndjson'), ''),
      '--resume: cannot read report.ndjson/inner (ENOTDIR)',
    ],
  ])('refuses %s as a usage error', async (name, make, message) => {
    const folder = mkdtempSync(join(tmpdir(), 'core-resume-'));
    make(folder);
    const path = name === 'a path through a file' ? 'report.ndjson/inner' : 'report.ndjson';
    const error = await appliedIn(path, folder, () => {}).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(message);
    expect((error as UsageError).hint).toBe('give --resume the --report file of the earlier run');
  });

  it('reads the path from the given folder, and an absolute path as it is', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'core-resume-'));
    writeFileSync(join(folder, 'report.ndjson'), line({ ok: true, code: 'A' }));
    expect([...(await appliedIn('report.ndjson', folder, () => {})).codes]).toEqual(['A']);
    expect([...(await appliedIn(join(folder, 'report.ndjson'), '/', () => {})).codes]).toEqual(['A']);
  });
});
