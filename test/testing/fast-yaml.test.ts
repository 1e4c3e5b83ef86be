import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Path } from '../../src/payload/messages.js';
import { readFast } from '../../src/testing/fast-yaml.js';

/**
 * The fast reader of test files gives the value the `yaml` library gives (YAML 1.2's core schema,
 * integers as bigint) and the same line for every mapping and sequence, or declines the file.
 */

function library(text: string) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { intAsBigInt: true, uniqueKeys: true, lineCounter: lines, prettyErrors: false });
  const collections: [Path, number][] = [];
  const walk = (node: unknown, path: Path): void => {
    if (isMap(node)) {
      collections.push([path, lines.linePos(node.range![0]).line]);
      for (const pair of node.items) walk(pair.value, [...path, String(isScalar(pair.key) ? pair.key.value : pair.key)]);
    } else if (isSeq(node)) {
      collections.push([path, lines.linePos(node.range![0]).line]);
      node.items.forEach((item, index) => walk(item, [...path, index]));
    }
  };
  walk(doc.contents, []);
  return { value: doc.errors.length === 0 ? doc.toJS() : undefined, collections };
}

const conversations = (steps: string) => `name: a suite\nconversations:\n${steps}`;

const files: [string, string][] = [
  ['a one-conversation file', 'name: echo\nchannel: WEB\nsteps:\n  - customer: Hi\n  - bot:\n      text: Hello\n'],
  [
    'flow steps',
    conversations('  - name: c1\n    steps: [{customer: hi}, {bot: {text: echo}}]\n  - name: c2\n    steps: [{customer: hi}]\n'),
  ],
  [
    'comments and blank lines before values',
    conversations(
      '  # first\n\n  - # the one\n    name: c1\n    steps:\n\n      # a step\n      - customer: hi\n      -   bot:\n            text: x\n',
    ),
  ],
  ['a comment after a key', 'name: x # the name\nsteps: # the steps\n  - customer: hi # a greeting\n'],
  ['block scalars', 'steps:\n  - customer: |\n      two\n      lines\n  - bot:\n      text: >-\n        folded\n        text\n'],
  [
    'examples and capture',
    'steps:\n  - customer: order ${item}\n  - bot: {text: /Order (\\d+)/}\n    capture: {ORDER: /(\\d+)/}\nexamples:\n  - {item: 1}\n  - {item: two}\n',
  ],
  ['a document start', '---\nname: x\nsteps:\n  - customer: hi\n'],
  ['CRLF line ends', 'name: x\r\nsteps:\r\n  - customer: hi\r\n  - bot: {text: y}\r\n'],
];

describe('the fast reader of test files', () => {
  const examples = join(import.meta.dirname, '../../docs/examples/bot/tests');
  const shipped = readdirSync(examples).map((name): [string, string] => [name, readFileSync(join(examples, name), 'utf8')]);

  it.each([...files, ...shipped])('%s: the value and every collection line are the library’s', async (_, text) => {
    const fast = await readFast(text);
    expect(fast).toBeDefined();
    const expected = library(text);
    expect(fast!.value).toEqual(expected.value);
    expect(expected.collections.length).toBeGreaterThan(0);
    for (const [path, line] of expected.collections) expect([path, fast!.lineOf(path)]).toEqual([path, line]);
  });

  it.each([
    '1',
    '+12',
    '007',
    '-0',
    '12345678901234567890',
    '0x1F',
    '0o17',
    '0b101',
    '1_000',
    '1.5',
    '+.5',
    '0.',
    '1e3',
    '1E-2',
    '.inf',
    '-.Inf',
    '.NaN',
    '.nAn',
    'yes',
    'No',
    'on',
    'true',
    'True',
    'tRue',
    'FALSE',
    '~',
    'null',
    'NULL',
    'nULL',
    '',
    '2026-01-01',
    '12:30',
    '"007"',
    "'true'",
    '!!str 12',
  ])('the scalar %j reads as the library reads it', async (scalar) => {
    const text = `k: ${scalar}\n`;
    const fast = await readFast(text);
    expect(fast).toBeDefined();
    expect(fast!.value).toEqual(library(text).value);
  });

  it('reads a pattern with a star', async () => {
    expect((await readFast('a: /^Order (.*)$/\nb: "/^You said: (.*)$/"\n'))?.value).toEqual({
      a: '/^Order (.*)$/',
      b: '/^You said: (.*)$/',
    });
  });

  it.each([
    ['an anchor and an alias', 'a: &x {b: 1}\nc: *x\n'],
    ['an alias in a flow collection', 'a: [1]\nb: [&x 2, *x]\n'],
    ['an alias after a quoted key', '{"a": &x 1, "b":*x}\n'],
    ['a directive', '%YAML 1.1\n---\na: yes\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a syntax error', 'a: [1, 2\n'],
    ['a tab where indentation goes', 'a:\n\t- b\n'],
  ])('declines %s, for the library to read and report', async (_, text) => {
    expect(await readFast(text)).toBeUndefined();
  });
});
