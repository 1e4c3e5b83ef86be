import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
// As in test/schema/examples.test.ts: the classic zod build turns the committed JSON Schema back into a
// validator, so the examples are checked against the published schema as an editor reads it too.
import * as zodClassic from 'zod';
import { validateTestFile } from '../../src/testing/schema.js';
import { repoRoot } from '../helpers/run.js';

/** The test files the docs show: the example bot's tests, and every YAML block of a test file in the docs. */
const exampleTests = join(repoRoot, 'docs/examples/bot/tests');
const files = readdirSync(exampleTests).map((name) => [name, readFileSync(join(exampleTests, name), 'utf8')] as const);
const blocks = ['docs/testing-bots.md', 'README.md'].flatMap((doc) =>
  [...readFileSync(join(repoRoot, doc), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .filter((block) => /^ {2}- customer: /m.test(block))
    .map((block, index) => [`${doc}, test file ${index + 1}`, block] as const),
);
const published = zodClassic.fromJSONSchema(JSON.parse(readFileSync(join(repoRoot, 'docs/schemas/test.schema.json'), 'utf8')));

describe('the test files the docs show', () => {
  it('are there', () => {
    expect(files.map(([name]) => name)).toEqual(['echo-words.yaml', 'echo.yaml', 'email.yaml', 'handover.yaml']);
    expect(blocks).toHaveLength(8);
  });

  it.each([...files, ...blocks])('%s passes the rules of core test and the published JSON Schema', (_, text) => {
    const strict = parseYaml(text, { intAsBigInt: true }) as Record<string, unknown>;
    const result = validateTestFile(strict);
    expect(result.ok ? [] : result.problems).toEqual([]);
    // An editor reads integers as numbers; the published schema says integer, which both are.
    expect(published.safeParse(parseYaml(text)).error?.issues ?? []).toEqual([]);
  });

  it.each(files)('%s names the test JSON Schema for YAML editors in its first line', (name, text) => {
    const first = text.split('\n')[0]!;
    expect(first).toBe('# yaml-language-server: $schema=../../../schemas/test.schema.json');
    expect(existsSync(resolve(dirname(join(exampleTests, name)), '../../../schemas/test.schema.json'))).toBe(true);
  });
});
