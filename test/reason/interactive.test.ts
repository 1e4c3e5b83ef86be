import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReasonUpdateOptions } from '../../src/commands/reason/run.js';
import { runReasonUpdate } from '../../src/commands/reason/run.js';
import { parseJson } from '../../src/payload/json.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { runInProcess, runWithTerminal, type RunResult } from '../helpers/run.js';
import { confirm, ctrlC, input, scriptedPrompter, select, type ScriptedPrompter, type Step } from '../prompts/scripted.js';
import { envFor, ndjson, reason, tempFile } from './helpers.js';

/**
 * `core reason update -i` run in-process, with a scripted prompter in place of the terminal and a
 * recording loopback server in place of the service: what is sent, what is asked, and that nothing
 * is sent on Cancel, on Ctrl-C, without a terminal, or with a file of several reasons.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const options = (extra: Partial<ReasonUpdateOptions> = {}): ReasonUpdateOptions => ({
  interactive: true,
  dryRun: false,
  curl: false,
  json: false,
  verbose: false,
  concurrency: 4,
  failFast: false,
  global: {},
  fields: {},
  ...extra,
});

/** Runs runReasonUpdate with standard input claiming to be a terminal, as -i requires. */
function run(opts: ReasonUpdateOptions, prompter: ScriptedPrompter, url: string): Promise<RunResult> {
  return runWithTerminal(
    (ctx) => runReasonUpdate(opts, { ...ctx, prompter: () => prompter }),
    envFor(url),
    mkdtempSync(join(tmpdir(), 'core-reason-i-')),
  );
}

const translations: Step[] = [
  input(/^Translation 1 locale/, 'en'),
  input(/^Translation 1 name/, 'Lunch'),
  confirm(/^Add another translation/, true),
  input(/^Translation 2 locale/, 'de'),
  input(/^Translation 2 name/, 'Mittagspause'),
  confirm(/^Add another translation/, false),
];
const everything: Step[] = [
  input(/^Code/, 'LUNCH'),
  ...translations,
  input(/^Colour/, '#FF8800'),
  select(/^Active/, 'false'),
  select(/^system/, 'omit'),
];

describe('core reason update -i', () => {
  it('sends the reason composed with prompts, exactly', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([...everything, select(/^What now/, 'send')]);
    const result = await run(options(), prompter, server.url);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.method).toBe('PUT');
    expect(request!.url).toBe('/api/v1/inactivity/reasons');
    expect(request!.headers['content-type']).toMatch(/^application\/json/);
    expect(request!.body.toString()).toBe(
      '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"},{"locale":"de","name":"Mittagspause"}],"color":"#FF8800","active":false}',
    );
    expect(result.stdout).toMatch(/^✓ 200 OK {2}PUT /);
    expect(prompter.left()).toBe(0);
  });

  it('with --json, keeps stdout to the one result document', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([...everything, select(/^What now/, 'send')]);
    const result = await run(options({ json: true }), prompter, server.url);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, status: 200, method: 'PUT', code: 'LUNCH' });
  });

  it.each<[string, string]>([
    ['true', '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}],"active":true}'],
    ['false', '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}],"active":false}'],
    ['omit', '{"code":"LUNCH","reasons":[{"locale":"en","name":"Lunch"}]}'],
  ])('active answered %s sends %s', async (choice, body) => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([
      input(/^Colour/, ''),
      select(/^Active/, choice),
      select(/^system/, 'omit'),
      select(/^What now/, 'send'),
    ]);
    const result = await run(options({ fields: { code: 'LUNCH', names: ['en=Lunch'] } }), prompter, server.url);
    expect(result.code).toBe(0);
    expect(server.requests.map((r) => r.body.toString())).toEqual([body]);
  });

  it('asks only for what the flags did not give', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([...translations, select(/^system/, 'true'), select(/^What now/, 'send')]);
    const result = await run(options({ fields: { code: 'TRAINING', color: '#00aa00', active: true } }), prompter, server.url);
    expect(result.code).toBe(0);
    expect(prompter.asked.some((a) => /^(Code|Colour|Active)/.test(a.message))).toBe(false);
    expect(parseJson(server.requests[0]!.body.toString())).toStrictEqual({
      code: 'TRAINING',
      reasons: [
        { locale: 'en', name: 'Lunch' },
        { locale: 'de', name: 'Mittagspause' },
      ],
      color: '#00aa00',
      active: true,
      system: true,
    });
  });

  it('starts from -f FILE holding one reason, with the flags laid over it', async () => {
    server = await startRecordingServer();
    const file = tempFile('lunch.json', JSON.stringify(reason('LUNCH', { color: '#123456' }), null, 2));
    const prompter = scriptedPrompter([select(/^system/, 'omit'), select(/^What now/, 'send')]);
    const result = await run(options({ file, fields: { active: false } }), prompter, server.url);
    expect(result.code).toBe(0);
    expect(prompter.asked.map((a) => a.message)).toEqual([expect.stringMatching(/^system/), 'What now?']);
    expect(server.requests[0]!.body.toString()).toBe(
      '{"code":"LUNCH","reasons":[{"locale":"en","name":"Name of LUNCH"}],"color":"#123456","active":false}',
    );
  });

  it.each<[string, string, string]>([
    ['NDJSON', 'two.ndjson', ndjson([reason('A'), reason('B')])],
    ['a JSON array', 'two.json', JSON.stringify([reason('A'), reason('B')])],
  ])('refuses -f FILE holding more than one reason (%s), before any prompt', async (_name, name, content) => {
    server = await startRecordingServer();
    const file = tempFile(name, content);
    const prompter = scriptedPrompter([]);
    const result = await run(options({ file }), prompter, server.url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`error: -i prompts for one reason, and ${file} holds more than one`);
    expect(result.stderr).toMatch(/hint: send the batch without -i/);
    expect(prompter.asked).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses -f - (the answers come from the terminal)', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([]);
    const result = await run(options({ file: '-' }), prompter, server.url);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot take the reason from standard input (-f -)');
    expect(prompter.asked).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });

  it('edits a part from the menu before sending', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([
      ...everything,
      select(/^What now/, 'edit'),
      select(/^Which part/, 'code'),
      input(/^Code/, 'LONG_LUNCH'),
      select(/^What now/, 'send'),
    ]);
    const result = await run(options(), prompter, server.url);
    expect(result.code).toBe(0);
    expect(parseJson(server.requests[0]!.body.toString())).toMatchObject({ code: 'LONG_LUNCH' });
  });

  it('exits 130 with "cancelled, nothing sent" on Cancel, and sends nothing', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([...everything, select(/^What now/, 'cancel')]);
    const result = await run(options(), prompter, server.url);
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('error: cancelled, nothing sent');
    expect(result.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, Step[]]>([
    ['the code', [ctrlC('input', /^Code/)]],
    ['a name', [input(/^Code/, 'LUNCH'), input(/^Translation 1 locale/, 'en'), ctrlC('input', /^Translation 1 name/)]],
    ['active', [input(/^Code/, 'LUNCH'), ...translations, input(/^Colour/, ''), ctrlC('select', /^Active/)]],
    ['the menu', [...everything, ctrlC('select', /^What now/)]],
  ])('exits 130 with "cancelled, nothing sent" on Ctrl-C at %s, and sends nothing', async (_name, steps) => {
    server = await startRecordingServer();
    const result = await run(options(), scriptedPrompter(steps), server.url);
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('error: cancelled, nothing sent');
    expect(server.requests).toHaveLength(0);
  });

  it('with --dry-run, offers to show the request and sends nothing', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([...everything, select(/^What now/, 'send')]);
    const result = await run(options({ dryRun: true, json: true }), prompter, server.url);
    expect(result.code).toBe(0);
    expect(prompter.asked.at(-1)!.choices![0]!.name).toBe('Show the request (--dry-run: send nothing)');
    expect(parseJson(result.stdout)).toMatchObject({ method: 'PUT', body: { code: 'LUNCH', active: false } });
    expect(server.requests).toHaveLength(0);
  });

  it.each<[string, boolean]>([
    ['omit', true],
    ['true', false],
  ])('with --verbose, notes that active is left to the service only when it is (%s)', async (choice, noted) => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([
      input(/^Colour/, ''),
      select(/^Active/, choice),
      select(/^system/, 'omit'),
      select(/^What now/, 'send'),
    ]);
    const result = await run(options({ verbose: true, fields: { code: 'LUNCH', names: ['en=Lunch'] } }), prompter, server.url);
    expect(result.code).toBe(0);
    expect(result.stderr.includes('* active is not sent: the service applies its default')).toBe(noted);
  });

  it('refuses --dry-run with --curl before asking anything', async () => {
    const prompter = scriptedPrompter([]);
    const result = await run(options({ dryRun: true, curl: true }), prompter, 'http://127.0.0.1:9');
    expect(result.code).toBe(2);
    expect(prompter.asked).toHaveLength(0);
  });
});
