import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/schema.js';
import { validateGreeting, validateReason, validateReply, type Validation } from '../../src/payload/index.js';
import { parseText } from '../../src/input/files.js';
import { jsonSchemaValidator } from '../helpers/json-schema.js';
import { repoRoot } from '../helpers/run.js';

const examples = join(repoRoot, 'docs/examples');

/** Each example, the validator the CLI applies to it, and the schema it follows. */
const CASES = [
  ['reply.json', 'reply', validateReply],
  ['reply-handover.yaml', 'reply', validateReply],
  ['greeting.json', 'greet', validateGreeting],
  ['greeting-list-picker.yaml', 'greet', validateGreeting],
  ['reason.json', 'reason', validateReason],
] as const satisfies readonly (readonly [string, string, (input: unknown) => Validation<unknown>])[];

function read(name: string): string {
  return readFileSync(join(examples, name), 'utf8');
}

/**
 * The committed JSON Schema of a kind, as a validator that gives a value's errors (plain JSON numbers,
 * as an editor sees them), so the examples are checked against the published schemas too, not only
 * against the program's own checks.
 */
function publishedSchema(kind: string) {
  return jsonSchemaValidator(JSON.parse(readFileSync(join(repoRoot, 'docs/schemas', `${kind}.schema.json`), 'utf8')));
}

/** What `-f FILE` reads: JSON or YAML, with every integer a bigint. */
async function load(name: string): Promise<unknown> {
  return parseText(read(name), name, name.endsWith('.json') ? 'json' : 'yaml');
}

/** The same file as an editor's JSON or YAML language server reads it: integers as numbers. */
function plain(name: string): unknown {
  return name.endsWith('.json') ? JSON.parse(read(name)) : parseYaml(read(name));
}

describe('the example payloads in docs/examples', () => {
  it('are all covered here', () => {
    // bot/ is the example bot, not a payload: test/e2e/example-bot.test.ts runs it against the sandbox; message.json is a
    // MESSAGE webhook, which the bot receives: test/schema/message-contract.test.ts checks it.
    const covered = new Set<string>([...CASES.map(([name]) => name), 'reasons.ndjson', 'README.md', 'bot', 'message.json']);
    expect(readdirSync(examples).filter((name) => !covered.has(name))).toEqual([]);
  });

  it.each(CASES)('%s passes the %s rules with no warning', async (name, _kind, validate) => {
    const result = validate(await load(name));
    expect(result.ok ? [] : result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
  });

  it.each(CASES)('%s passes the published %s JSON Schema', (name, kind) => {
    expect(publishedSchema(kind)(plain(name))).toEqual([]);
  });

  it('reasons.ndjson holds one valid reason a line, each code once', () => {
    const lines = read('reasons.ndjson').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    const schema = publishedSchema('reason');
    const codes = lines.map((line, index) => {
      const result = validateReason(JSON.parse(line));
      expect(result.ok ? [] : result.problems, `line ${index + 1}`).toEqual([]);
      expect(schema(JSON.parse(line)), `line ${index + 1}`).toEqual([]);
      return (JSON.parse(line) as { code: string }).code;
    });
    expect(new Set(codes).size).toBe(codes.length);
  });

  it.each(CASES.filter(([name]) => name.endsWith('.yaml')))('%s names the %s JSON Schema for YAML editors in a comment', (name, kind) => {
    const first = read(name).split('\n')[0]!;
    expect(first).toBe(`# yaml-language-server: $schema=../schemas/${kind}.schema.json`);
    expect(existsSync(resolve(examples, `../schemas/${kind}.schema.json`))).toBe(true);
  });

  it.each(CASES.filter(([name]) => name.endsWith('.json')))('%s carries no $schema key, which the API would refuse', (name) => {
    expect(Object.keys(JSON.parse(read(name)) as object)).not.toContain('$schema');
  });

  it('a $schema key in a payload is refused, which is why JSON examples are mapped in editor settings instead', () => {
    const result = validateReply({ $schema: '../schemas/reply.schema.json', text: 'Hi', coreClientId: 1n });
    expect(result.ok).toBe(false);
  });
});

describe('.corerc.example', () => {
  const path = join(repoRoot, '.corerc.example');
  const text = readFileSync(path, 'utf8');

  it('names the config JSON Schema for YAML editors on its first line', () => {
    const first = text.split('\n')[0]!;
    expect(first).toBe('# yaml-language-server: $schema=./docs/schemas/config.schema.json');
    expect(existsSync(resolve(dirname(path), 'docs/schemas/config.schema.json'))).toBe(true);
  });

  it('is a valid config file', () => {
    const result = validateConfig(parseYaml(text));
    expect(result.problems).toEqual([]);
  });

  it('passes the published config JSON Schema', () => {
    expect(publishedSchema('config')(parseYaml(text))).toEqual([]);
  });

  it('is refused by the published config JSON Schema when a key is misspelt', () => {
    const config = parseYaml(text) as { profiles: Record<string, Record<string, unknown>> };
    config.profiles.staging!.tiemout = '30s';
    expect(publishedSchema('config')(config)).not.toEqual([]);
  });
});
