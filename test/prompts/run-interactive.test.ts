import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGreet } from '../../src/commands/greet/run.js';
import type { GreetOptions } from '../../src/commands/greet/run.js';
import { runReply } from '../../src/commands/reply/run.js';
import type { ReplyOptions } from '../../src/commands/reply/run.js';
import type { Context } from '../../src/context.js';
import { parseJson } from '../../src/payload/json.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-server.js';
import { baseEnv, runWithTerminal, type RunResult } from '../helpers/run.js';
import { checkbox, confirm, ctrlC, input, scriptedPrompter, select, type Step } from './scripted.js';

/**
 * `core greet -i` and `core reply -i` run end to end in-process, with a scripted prompter in place
 * of the terminal and a recording loopback server in place of the service.
 */

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs `fn` with a terminal on standard input, against `url`. */
function run(fn: (ctx: Context) => Promise<number>, url: string, cwd = mkdtempSync(join(tmpdir(), 'core-i-'))): Promise<RunResult> {
  return runWithTerminal(fn, baseEnv({ CORE_BASE_URL: url, CORE_TENANT: 'acme', CORE_TOKEN: 'tok-interactive-1234' }), cwd);
}

const greetOptions = (extra: Partial<GreetOptions> = {}): GreetOptions => ({
  interactive: true,
  dryRun: false,
  curl: false,
  json: false,
  verbose: false,
  retry: false,
  global: {},
  fields: {},
  ...extra,
});

const composeTwoButtons: Step[] = [
  select(/^Text: how/, 'line'),
  input(/^Text/, 'Hello! How can we help?'),
  select(/^Greet which client/, 'coreClientId'),
  input(/^coreClientId/, '9223372036854775807'),
  checkbox(/^Add to the greeting/, 'quickReplies'),
  select(/^Button 1 type/, 'TEXT'),
  input(/^Button 1 text/, 'Track my order'),
  confirm(/^Set shown_text/, false),
  confirm(/^Add another button/, true),
  select(/^Button 2 type/, 'CONTACT'),
  input(/^Button 2 text/, 'Call me back'),
  confirm(/^Set shown_text/, false),
  confirm(/^Add another button/, false),
];

describe('core greet -i', () => {
  it('sends the composed greeting, every digit of the id kept', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([...composeTwoButtons, select(/^What now/, 'send')]);
    const result = await run((ctx) => runGreet(greetOptions(), { ...ctx, prompter: () => prompter }), server.url);
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.url).toBe('/api/v1/chatbot/greet');
    expect(server.requests[0]!.body.toString()).toBe(
      '{"text":"Hello! How can we help?","coreClientId":9223372036854775807,"quickReplies":[{"type":"TEXT","text":"Track my order"},{"type":"CONTACT","text":"Call me back"}]}',
    );
    expect(result.stdout).toContain('200 OK');
  });

  it('asks only for what the flags left out', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([
      select(/^Greet which/, 'coreClientId'),
      input(/^coreClientId/, '77'),
      checkbox(/^Add to/),
      select(/^What now/, 'send'),
    ]);
    const result = await run(
      (ctx) =>
        runGreet(greetOptions({ fields: { text: 'Hi', quickReplies: [{ type: 'TEXT', text: 'Yes' }] } }), {
          ...ctx,
          prompter: () => prompter,
        }),
      server.url,
    );
    expect(result.code).toBe(0);
    expect(parseJson(server.requests[0]!.body.toString())).toEqual({
      text: 'Hi',
      coreClientId: 77n,
      quickReplies: [{ type: 'TEXT', text: 'Yes' }],
    });
  });

  it.each<[string, Step[]]>([
    ['a prompt', [select(/^Text: how/, 'line'), ctrlC('input', /^Text/)]],
    ['the review menu', [...composeTwoButtons, ctrlC('select', /^What now/)]],
  ])('exits 130 with "cancelled, nothing sent" on Ctrl-C at %s, and sends nothing', async (_name, steps) => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter(steps);
    const result = await run((ctx) => runGreet(greetOptions(), { ...ctx, prompter: () => prompter }), server.url);
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('error: cancelled, nothing sent');
    expect(server.requests).toHaveLength(0);
  });

  it('exits 130 and sends nothing when the user cancels in the menu', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([...composeTwoButtons, select(/^What now/, 'cancel')]);
    const result = await run((ctx) => runGreet(greetOptions(), { ...ctx, prompter: () => prompter }), server.url);
    expect(result.code).toBe(130);
    expect(server.requests).toHaveLength(0);
  });

  it('with --save and --dry-run, offers to save, writes the file and sends nothing', async () => {
    server = await startRecordingServer();
    const cwd = mkdtempSync(join(tmpdir(), 'core-i-'));
    const prompter = scriptedPrompter([...composeTwoButtons, select(/^What now/, 'send')]);
    const result = await run(
      (ctx) => runGreet(greetOptions({ dryRun: true, save: 'welcome.json' }), { ...ctx, prompter: () => prompter }),
      server.url,
      cwd,
    );
    expect(result.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    const menu = prompter.asked.find((a) => a.message === 'What now?')!;
    expect(menu.choices![0]!.name).toBe('Save it to welcome.json (--dry-run: send nothing)');
    expect(parseJson(readFileSync(join(cwd, 'welcome.json'), 'utf8'))).toMatchObject({ coreClientId: 9223372036854775807n });
  });

  it('refuses --dry-run with --curl before asking anything', async () => {
    const prompter = scriptedPrompter([]);
    const result = await run(
      (ctx) => runGreet(greetOptions({ dryRun: true, curl: true }), { ...ctx, prompter: () => prompter }),
      'http://127.0.0.1:9',
    );
    expect(result.code).toBe(2);
    expect(prompter.asked).toHaveLength(0);
  });
});

describe('core reply -i', () => {
  const replyOptions = (extra: Partial<ReplyOptions> = {}): ReplyOptions => ({
    interactive: true,
    dryRun: false,
    curl: false,
    json: true,
    verbose: false,
    email: false,
    global: {},
    fields: {},
    ...extra,
  });

  it('composes the reply after the flags and sends it with its answerId', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([
      select(/^Address the reply by/, 'coreClientId'),
      input(/^coreClientId/, '9223372036854775807'),
      checkbox(/^Add to the reply/, 'code'),
      select(/^Code/, 'SWITCH_TO_HUMAN'),
      input(/^userIds/, ''),
      input(/^skillIds/, '12'),
      input(/^unitIds/, ''),
      select(/^What now/, 'send'),
    ]);
    const result = await run(
      (ctx) =>
        runReply(replyOptions({ fields: { text: 'Passing you to a person.', answerId: 'ans-1' } }), { ...ctx, prompter: () => prompter }),
      server.url,
    );
    expect(result.code).toBe(0);
    expect(server.requests[0]!.body.toString()).toBe(
      '{"text":"Passing you to a person.","answerId":"ans-1","coreClientId":9223372036854775807,"code":"SWITCH_TO_HUMAN","skillIds":[12]}',
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, answerId: 'ans-1' });
  });

  it('exits 130 and sends nothing on Ctrl-C', async () => {
    server = await startRecordingServer();
    const prompter = scriptedPrompter([ctrlC('select', /^Text: how/)]);
    const result = await run((ctx) => runReply(replyOptions(), { ...ctx, prompter: () => prompter }), server.url);
    expect(result.code).toBe(130);
    expect(server.requests).toHaveLength(0);
  });
});
