import { afterEach, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run.js';
import { dryRunBody } from '../helpers/dry-run.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { envFor } from './helpers.js';

/**
 * `core reason update` from flags: argv to request body, flag errors, and a few bounds of the
 * reason schema end to end (every bound is covered on both sides by the payload tests).
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('core reason update: argv to request body', () => {
  const en = ['--code', 'LUNCH', '--name', 'en=Lunch'];
  it.each<[string, string[], Record<string, unknown>]>([
    ['--code and one --name', en, { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }],
    [
      'several --name flags, in order',
      ['--code', 'LUNCH', '--name', 'en=Lunch', '--name', 'de=Mittagspause', '--name', 'ru=Обед'],
      {
        code: 'LUNCH',
        reasons: [
          { locale: 'en', name: 'Lunch' },
          { locale: 'de', name: 'Mittagspause' },
          { locale: 'ru', name: 'Обед' },
        ],
      },
    ],
    ['a name holding "="', ['--code', 'EQ', '--name', 'en=a=b'], { code: 'EQ', reasons: [{ locale: 'en', name: 'a=b' }] }],
    ['--active', [...en, '--active'], { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], active: true }],
    ['--inactive', [...en, '--inactive'], { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], active: false }],
    ['neither --active nor --inactive: active not sent', en, { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] }],
    ['--color', [...en, '--color', '#ff8800'], { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], color: '#ff8800' }],
    ['--system', [...en, '--system'], { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], system: true }],
    ['--no-system', [...en, '--no-system'], { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], system: false }],
    [
      'every flag at once',
      [...en, '--color', '#FFFFFF', '--inactive', '--system'],
      { code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }], color: '#FFFFFF', active: false, system: true },
    ],
  ])('%s', async (_name, args, expected) => {
    expect(await dryRunBody(['reason', 'update'], args)).toStrictEqual(expected);
  });

  it("writes the fields in the order of the API's table", async () => {
    server = await startRecordingServer();
    const result = await runInProcess(
      ['reason', 'update', '--system', '--inactive', '--color', '#123456', '--name', 'en=Lunch', '--code', 'LUNCH'],
      { env: envFor(server.url) },
    );
    expect(result.code).toBe(0);
    expect(server.requests[0]!.text).toBe(
      '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}],"color":"#123456","active":false,"system":true}',
    );
  });
});

describe('core reason update: flag errors exit 2 and send nothing', () => {
  it.each<[string, string[], RegExp]>([
    ['--active with --inactive', ['--code', 'A', '--name', 'en=A', '--active', '--inactive'], /cannot be used with/],
    ['no flags and no file', [], /nothing to update: give --code and --name LOCALE=TEXT, or -f FILE/],
    ['--name without "="', ['--code', 'A', '--name', 'English'], /--name takes LOCALE=TEXT, got "English"/],
    [
      '--concurrency 0',
      ['--code', 'A', '--name', 'en=A', '--concurrency', '0'],
      /--concurrency takes a whole number from 1 to 64, got "0"/,
    ],
    ['--concurrency 65', ['--code', 'A', '--name', 'en=A', '--concurrency', '65'], /from 1 to 64, got "65"/],
    ['--concurrency 2.5', ['--code', 'A', '--name', 'en=A', '--concurrency', '2.5'], /from 1 to 64, got "2.5"/],
    ['--dry-run with --curl', ['--code', 'A', '--name', 'en=A', '--dry-run', '--curl'], /--dry-run and --curl cannot be used together/],
  ])('%s', async (_name, args, message) => {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', ...args], { env: envFor(server.url) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it.each([['1'], ['64']])('accepts --concurrency %s', async (n) => {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', '--code', 'A', '--name', 'en=A', '--concurrency', n], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});

describe('core reason update: bounds of the reason, end to end', () => {
  // docs/api.md, reason field rules 1 to 3: code up to 256 characters, name up to 50,
  // locale a two-letter language code, color #RRGGBB.
  it.each<[string, string[], string | null]>([
    ['a code of 256 characters', ['--code', 'C'.repeat(256), '--name', 'en=x'], null],
    ['a code of 257 characters', ['--code', 'C'.repeat(257), '--name', 'en=x'], 'code: 257 characters, limit 256'],
    ['a name of 50 characters', ['--code', 'A', '--name', `en=${'n'.repeat(50)}`], null],
    ['a name of 51 characters', ['--code', 'A', '--name', `en=${'n'.repeat(51)}`], 'reasons[0].name: 51 characters, limit 50'],
    ['a two-letter locale', ['--code', 'A', '--name', 'de=x'], null],
    ['a three-letter locale', ['--code', 'A', '--name', 'deu=x'], 'reasons[0].locale: expected a two-letter language code'],
    ['a one-letter locale', ['--code', 'A', '--name', 'd=x'], 'reasons[0].locale: expected a two-letter language code'],
    ['a color of six digits', ['--code', 'A', '--name', 'en=x', '--color', '#a1B2c3'], null],
    ['a color of three digits', ['--code', 'A', '--name', 'en=x', '--color', '#fff'], 'color: expected a colour as #RRGGBB'],
    ['a color without #', ['--code', 'A', '--name', 'en=x', '--color', 'FFFFFF'], 'color: expected a colour as #RRGGBB'],
    ['an empty code', ['--code', '', '--name', 'en=x'], 'code: must not be empty'],
    ['one locale twice', ['--code', 'A', '--name', 'en=x', '--name', 'EN=y'], 'reasons[1].locale: locale "EN" is repeated'],
  ])('%s', async (_name, args, problem) => {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', ...args], { env: envFor(server.url) });
    if (problem === null) {
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(server.requests).toHaveLength(1);
    } else {
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('the reason is invalid');
      expect(result.stderr).toContain(problem);
      expect(server.requests).toHaveLength(0);
    }
  });

  it('reports a problem as a validation result with --json', async () => {
    server = await startRecordingServer();
    const result = await runInProcess(['reason', 'update', '--code', 'A', '--name', `en=${'n'.repeat(51)}`, '--json'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(2);
    const doc = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ ok: false, status: null, method: 'PUT', code: 'A', validationErrors: [{ path: 'reasons[0].name' }] });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });
});
