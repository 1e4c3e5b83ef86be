import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dryRunBody } from '../helpers/dry-run.js';
import { baseEnv, runInProcess } from '../helpers/run.js';

/**
 * Text from files (`--text-file`, `--markdown-file`, `-` for standard input) and payload files that
 * name their JSON Schema with `$schema` for editors (docs/payloads.md, "Payload files").
 */

const folder = mkdtempSync(join(tmpdir(), 'core-text-files-'));
const write = (name: string, content: string | Buffer) => {
  writeFileSync(join(folder, name), content);
  return join(folder, name);
};
const multiLine = write('multi-line.txt', 'Your order has shipped.\n\nTrack it here: https://example.com/t/1\n');
const crlf = write('crlf.txt', 'Line one\r\nLine two\r\n\r\n');
const markdown = write('answer.md', '# Shipped\n\nTrack it [here](https://example.com/t/1).\n');
const latin1 = write('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));

const commands = [
  { name: 'reply', words: ['reply'], address: ['--core-client-id', '42', '--answer-id', 'a-1'] },
  { name: 'greet', words: ['greet'], address: ['--core-client-id', '42'] },
];

describe.each(commands)('$name --text-file', ({ words, address }) => {
  it.each([
    [
      'keeps the lines of a file and drops the line ending at its end',
      [multiLine],
      'Your order has shipped.\n\nTrack it here: https://example.com/t/1',
    ],
    ['drops every CRLF line ending at the end, and keeps those inside', [crlf], 'Line one\r\nLine two'],
  ])('%s', async (_name, [path], text) => {
    const body = await dryRunBody(words, [...address, '--text-file', path!]);
    expect(body.text).toBe(text);
  });

  it('reads the text from standard input with -', async () => {
    const body = await dryRunBody(words, [...address, '--text-file', '-'], { stdin: 'Hello from a pipe\n' });
    expect(body.text).toBe('Hello from a pipe');
  });

  it.each([
    ['-t and --text-file together', ['-t', 'Hi', '--text-file', multiLine], /cannot be used with option '-t, --text <text>'/],
    ['a file that does not exist', ['--text-file', join(folder, 'nope.txt')], /--text-file: file not found: .*nope\.txt/],
    ['a folder', ['--text-file', folder], /--text-file: .* is a folder, not a text file/],
    ['a file that is not UTF-8', ['--text-file', latin1], /latin1\.txt is not valid UTF-8 text/],
    ['-f - and --text-file - together', ['-f', '-', '--text-file', '-'], /-f - and --text-file - both read standard input/],
  ])('refuses %s with exit 2 and sends nothing', async (_name, args, message) => {
    const result = await runInProcess([...words, ...address, ...args, '--dry-run'], { env: baseEnv(), stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('refuses --text-file - when standard input is a terminal', async () => {
    const result = await runInProcess([...words, ...address, '--text-file', '-', '--dry-run'], { env: baseEnv(), stdinIsTTY: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--text-file - reads the text from standard input, but standard input is a terminal');
  });
});

describe('reply --markdown-file', () => {
  it('sends the Markdown as formattedText and its plain-text form as text', async () => {
    const body = await dryRunBody(['reply'], ['--core-client-id', '42', '--markdown-file', markdown]);
    expect(body.formattedText).toBe('# Shipped\n\nTrack it [here](https://example.com/t/1).');
    expect(typeof body.text).toBe('string');
    expect(body.text).toContain('Shipped');
  });

  it('refuses --markdown and --markdown-file together', async () => {
    const result = await runInProcess(['reply', '--core-client-id', '42', '--markdown', '*x*', '--markdown-file', markdown], {
      env: baseEnv(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot be used with option '--markdown <text>'/);
  });
});

describe('a payload file that names its JSON Schema with $schema', () => {
  const schema = 'https://unpkg.com/core-cli/docs/schemas/reply.schema.json';
  it.each([
    ['reply (JSON)', ['reply'], write('reply.json', JSON.stringify({ $schema: schema, coreClientId: 42, text: 'Hi', answerId: 'a-1' }))],
    ['reply (YAML)', ['reply'], write('reply.yaml', `$schema: ${schema}\ncoreClientId: 42\ntext: Hi\nanswerId: a-1\n`)],
    ['greet', ['greet'], write('greeting.json', JSON.stringify({ $schema: schema, coreClientId: 42, text: 'Hi' }))],
    [
      'reply, the key not a string',
      ['reply'],
      write('reply-number.json', JSON.stringify({ $schema: 5, coreClientId: 42, text: 'Hi', answerId: 'a-1' })),
    ],
    [
      'reason update (one reason)',
      ['reason', 'update'],
      write('reason.json', JSON.stringify({ $schema: schema, code: 'LUNCH', reasons: [{ locale: 'en', name: 'Lunch' }] })),
    ],
  ])('%s: accepted, and the key is not sent', async (_name, words, path) => {
    const body = await dryRunBody(words, ['-f', path]);
    expect(Object.keys(body)).not.toContain('$schema');
    expect(body.text ?? body.code).toBeDefined();
  });

  it('reason update -f: dropped from each reason of an NDJSON file before it is checked', async () => {
    const lines = ['LUNCH', 'BREAK'].map((code) => JSON.stringify({ $schema: schema, code, reasons: [{ locale: 'en', name: code }] }));
    const path = write('reasons.ndjson', `${lines.join('\n')}\n`);
    const result = await runInProcess(['reason', 'update', '-f', path, '--curl'], {
      env: baseEnv({ CORE_BASE_URL: 'http://127.0.0.1:9', CORE_TENANT: 'acme', CORE_TOKEN: 't-0123456789' }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^curl /gm)).toHaveLength(2);
    expect(result.stdout).not.toContain('$schema');
  });

  it("is allowed by the JSON Schemas editors read, and absent from the API's own description (OpenAPI)", async () => {
    const { jsonSchemaOf } = await import('../../src/schema/json-schema.js');
    const { openApiDocument } = await import('../../scripts/docs/openapi.js');
    for (const kind of ['reply', 'greet', 'reason'] as const) {
      const properties = jsonSchemaOf(kind).properties as Record<string, unknown>;
      // Any value: core drops the key unread, so the schema refuses no value core takes.
      expect(properties.$schema).not.toHaveProperty('type');
      expect(properties.$schema).toMatchObject({ description: expect.stringContaining('whatever its value') });
    }
    const document = openApiDocument({ version: '0.0.0' }) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    for (const name of ['BotAnswer', 'Greeting', 'InactivityReason']) {
      expect(Object.keys(document.components.schemas[name]!.properties)).not.toContain('$schema');
    }
  });
});
