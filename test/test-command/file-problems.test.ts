import { describe, expect, it } from 'vitest';
import { loadTests } from '../../src/testing/load.js';
import { runInProcess } from '../helpers/run.js';
import { platform, testFolder } from './platform.js';

/**
 * The new keys of the file format refused before anything runs (exit 2), each problem with the
 * file, the line and the path: ${NAME}s that name nothing, examples rows that do not fit the steps,
 * a within that is not a duration, a capture that is not a pattern, and misspelt keys.
 */

async function problems(files: Record<string, string>): Promise<{ lines: string[]; code: number; requests: number }> {
  const { sb, bot, env } = await platform(() => ({ status: 200 }));
  const folder = testFolder(files);
  const result = await runInProcess(['test', ...Object.keys(files), '--sandbox', sb.url], { env, cwd: folder });
  return { lines: result.stderr.split('\n').filter((line) => line.startsWith('  ')), code: result.code, requests: bot.requests.length };
}

describe('a test file is refused before anything runs, exit 2', () => {
  it.each([
    [
      'an unknown ${NAME}, with the nearest known name',
      'steps:\n  - customer: open a ticket\n  - bot: {}\n    capture: {ticket: "/(T-\\\\d+)/"}\n  - customer: status of ${tikcet}\n',
      [
        '  a.yaml:5 steps[2].customer: ${tikcet} is unknown: no earlier step captures it and there are no examples; did you mean ${ticket}? (write $${ for a literal ${)',
      ],
    ],
    [
      'a ${NAME} used before the step that captures it',
      'steps:\n  - customer: status of ${ticket}\n  - bot: {}\n    capture: {ticket: /T-\\d+/}\n',
      [
        '  a.yaml:2 steps[0].customer: ${ticket} is unknown: no earlier step captures it and there are no examples (write $${ for a literal ${)',
      ],
    ],
    [
      'a ${NAME} in the capturing step itself',
      'steps:\n  - customer: Hi\n  - bot: {text: "${said}"}\n    capture: {said: /.*/}\n',
      [
        '  a.yaml:3 steps[1].bot.text: ${said} is unknown: no earlier step captures it and there are no examples (write $${ for a literal ${)',
      ],
    ],
    [
      'a ${ without its }',
      'steps:\n  - customer: "cost ${price"\n',
      ['  a.yaml:2 steps[0].customer: "cost ${price": ${ without its closing }; write $${ for a literal ${'],
    ],
    [
      'a ${...} that is not a name',
      'steps:\n  - customer: "cost ${1 price}"\n',
      [
        '  a.yaml:2 steps[0].customer: "cost ${1 price}": ${1 price} is not a name (letters, digits and _, not starting with a digit); write $${ for a literal ${',
      ],
    ],
    [
      'an examples key no step uses',
      'examples:\n  - {word: a, extra: 1}\nsteps:\n  - customer: ${word}\n',
      ['  a.yaml:2 examples[0].extra: ${extra} is used by no step'],
    ],
    [
      'a row without a key the steps use',
      'examples:\n  - {word: a}\n  - {other: b}\nsteps:\n  - customer: ${word} ${other}\n',
      [
        '  a.yaml:3 examples[1]: gives no word, which steps[0].customer uses as ${word}',
        '  a.yaml:2 examples[0]: gives no other, which steps[0].customer uses as ${other}',
      ],
    ],
    [
      'a name using a key no row gives',
      'name: echo ${wrd}\nexamples:\n  - {word: a}\nsteps:\n  - customer: ${word}\n',
      ['  a.yaml:1 name: ${wrd} is unknown: the examples do not give it; did you mean ${word}? (write $${ for a literal ${)'],
    ],
    [
      'examples beside conversations',
      'examples:\n  - {word: a}\nconversations:\n  - name: x\n    steps:\n      - customer: Hi\n',
      ['  a.yaml:2 examples: with conversations, each conversation gives its own examples beside its steps'],
    ],
    [
      'a within that is not a duration',
      'steps:\n  - customer: Hi\n  - bot: {}\n    within: soon\n',
      [expect.stringMatching(/^ {2}a\.yaml:4 steps\[1\]\.within: invalid duration "soon"; use a duration such as 2s or 1500ms/)],
    ],
    [
      'a capture that is not a pattern',
      'steps:\n  - customer: Hi\n  - bot: {}\n    capture: {ticket: T-1}\n',
      [
        `  a.yaml:4 steps[1].capture.ticket: expected a /pattern/ to find the value in the answer's text, such as /order (\\d+)/, got "T-1"`,
      ],
    ],
    [
      'a capture whose pattern is not valid',
      'steps:\n  - customer: Hi\n  - bot: {}\n    capture: {ticket: "/(T-/"}\n',
      [expect.stringMatching(/^ {2}a\.yaml:4 steps\[1\]\.capture\.ticket: "\/\(T-\/" is not a valid regular expression/)],
    ],
    [
      'a capture name that is not a name',
      'steps:\n  - customer: Hi\n  - bot: {}\n    capture: {"my ticket": /T/}\n',
      [expect.stringMatching(/^ {2}a\.yaml:4 steps\[1\]\.capture(\.|\["my ticket"\]).*"my ticket" is not a name/)],
    ],
    [
      'a capture beside bot: none',
      'steps:\n  - customer: Hi\n  - bot: none\n    capture: {t: /T/}\n',
      ['  a.yaml:4 steps[1].capture: only with bot: {...}: a value is captured from an answer'],
    ],
    [
      'misspelt keys: captrue, withn, exmaples',
      'exmaples:\n  - {w: a}\nsteps:\n  - customer: Hi\n  - bot: {}\n    captrue: {t: /T/}\n    withn: 1s\n',
      [
        // The line of a key's value: the list starts on the next line.
        '  a.yaml:2 exmaples: unknown field; did you mean "examples"?',
        '  a.yaml:6 steps[1].captrue: unknown field; did you mean "capture"?',
        '  a.yaml:7 steps[1].withn: unknown field; did you mean "within"?',
      ],
    ],
  ])('%s', async (_, text, expected) => {
    const result = await problems({ 'a.yaml': text });
    expect(result.lines).toEqual(expected);
    expect(result.code).toBe(2);
    expect(result.requests).toBe(0);
  });

  it('accepts $${ as a literal ${, and a ${NAME} captured by an earlier step or given by every row', async () => {
    const folder = testFolder({
      'a.yaml':
        'name: echo ${word}\nexamples:\n  - {word: a}\n  - {word: b}\nsteps:\n  - customer: "$${literal} ${word}"\n  - bot: {}\n    capture: {said: /.*/}\n  - customer: ${said}\n  - bot: none\n',
    });
    const [file] = await loadTests(['a.yaml'], folder);
    expect(file!.conversations.map((c) => [c.name, c.row, [...c.values]])).toEqual([
      ['echo a', 0, [['word', 'a']]],
      ['echo b', 1, [['word', 'b']]],
    ]);
  });
});
