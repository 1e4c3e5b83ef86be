import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PayloadError, UsageError } from '../../src/errors.js';
import { MAX_PAYLOAD_BYTES } from '../../src/input/files.js';
import { listFiles, loadTests, type PlannedFile } from '../../src/testing/load.js';

/**
 * The test-file loader of `core test` (docs/testing-bots.md, "The file format"): the files a command
 * line names, and each file read, checked and planned, in-process against files in a new folder.
 */

/** Writes the files into a new folder (removed after the test) and returns it. */
function folder(files: Record<string, string | Buffer> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'core-load-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  // Written in reverse name order, so that a listing in the order of creation is not the name order.
  for (const name of Object.keys(files).sort().reverse()) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), files[name]!);
  }
  return root;
}

/** The error a promise is rejected with. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

/** The problems of loading one file: `path message` lines. */
async function problemsOf(name: string, text: string | Buffer): Promise<string[]> {
  const error = await rejection(loadTests([name], folder({ [name]: text })));
  expect(error).toBeInstanceOf(PayloadError);
  return (error as PayloadError).problems.map((p) => `${p.path}: ${p.message}`);
}

async function loadOne(name: string, text: string): Promise<PlannedFile> {
  const [file, ...rest] = await loadTests([name], folder({ [name]: text }));
  expect(rest).toEqual([]);
  return file!;
}

const HINT = 'name YAML or JSON test files, or a folder of them';

describe('the files a command line names', () => {
  it('gives a file as it is named, relative to the working folder when it is inside it, and as a full path when not', async () => {
    const root = folder({ 'a.yaml': '', 'sub/b.yaml': '' });
    expect(await listFiles(['a.yaml', join(root, 'sub', 'b.yaml')], root)).toEqual(['a.yaml', join('sub', 'b.yaml')]);
    expect(await listFiles(['../a.yaml', 'b.yaml'], join(root, 'sub'))).toEqual([join(root, 'a.yaml'), 'b.yaml']);
  });

  // Name order is the same on every system: JavaScript's, by UTF-16 code units (a system lists a folder in its own
  // order: by bytes, U+FF5A before U+1F600; by case-insensitive names; or unsorted).
  it(
    'gives for a folder its .yaml, .yml and .json files (any case) and those of its subfolders, in name order, ' +
      'without a *.schema.json nor any other file',
    async () => {
      const root = folder({
        'suite/a.json': '',
        'suite/B.YAML': '',
        'suite/c.Yml': '',
        'suite/d.yaml.bak': '',
        'suite/e.md': '',
        'suite/f.yaml': '',
        'suite/g/h.yaml': '',
        'suite/g/i.json': '',
        'suite/j.schema.json': '',
        'suite/K.SCHEMA.JSON': '',
        'suite/l.schema.json.yaml': '',
        'suite/m.xyaml': '',
        'suite/n.yml': '',
        'suite/o.jsonl': '',
        'suite/p.json': '',
        'suite/\u{ff5a}.yaml': '',
        'suite/\u{1f600}.yaml': '',
      });
      expect(await listFiles(['suite'], root)).toEqual(
        [
          'B.YAML',
          'a.json',
          'c.Yml',
          'f.yaml',
          'g/h.yaml',
          'g/i.json',
          'l.schema.json.yaml',
          'n.yml',
          'p.json',
          '\u{1f600}.yaml',
          '\u{ff5a}.yaml',
        ].map((name) => join('suite', name)),
      );
    },
  );

  it('gives each file once, where it was first named', async () => {
    const root = folder({ 'suite/a.yaml': '', 'suite/b.yaml': '' });
    expect(await listFiles(['suite/b.yaml', 'suite', './suite/a.yaml'], root)).toEqual([join('suite', 'b.yaml'), join('suite', 'a.yaml')]);
  });

  it.each([
    ['an empty folder', { 'empty/.keep/x.txt': '' }, 'empty'],
    ['a folder of other files', { 'notes/read-me.md': '', 'notes/x.schema.json': '' }, 'notes'],
  ])('refuses %s', async (_, files, name) => {
    const error = await rejection(listFiles([name], folder(files)));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe(`${name} holds no .yaml, .yml or .json file`);
  });

  it('refuses a file that is not there, saying what to name', async () => {
    const error = await rejection(listFiles(['a.yaml', 'missing.yaml'], folder({ 'a.yaml': '' })));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ message: 'test file not found: missing.yaml', hint: HINT });
  });

  it('refuses a path it cannot read, with the reason', async () => {
    const error = await rejection(listFiles(['a.yaml/b.yaml'], folder({ 'a.yaml': '' })));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ message: 'cannot read a.yaml/b.yaml (ENOTDIR)', hint: HINT });
  });
});

const steps = [
  '# A comment before the mapping',
  'steps:',
  '  - customer: Where is my order?',
  '  - bot:',
  '      text: /shipped/',
  '    within: 1500ms',
  '    capture: {order: /order (\\d+)/, day: /on (\\w+)/}',
  '  - press: Track it',
  '  - bot: {}',
  '  - bot: none',
  '  - bot: none',
  '    within: 500ms',
  '',
].join('\n');

const plannedSteps = [
  { kind: 'customer', text: 'Where is my order?', index: 0, line: 3 },
  {
    kind: 'bot',
    expect: { text: '/shipped/' },
    withinMs: 1500,
    capture: [
      ['order', '/order (\\d+)/'],
      ['day', '/on (\\w+)/'],
    ],
    handover: null,
    index: 1,
    line: 4,
  },
  { kind: 'press', label: 'Track it', index: 2, line: 8 },
  { kind: 'bot', expect: {}, withinMs: null, capture: [], handover: null, index: 3, line: 9 },
  { kind: 'none', withinMs: 2000, index: 4, line: 10 },
  { kind: 'none', withinMs: 500, index: 5, line: 11 },
];

describe('a file of one conversation', () => {
  it('plans each step with its line, and the conversation named after the file, on WEB, as a new client', async () => {
    expect(await loadOne('order-status.yaml', steps)).toEqual({
      file: 'order-status.yaml',
      name: 'order-status',
      conversations: [
        {
          file: 'order-status.yaml',
          index: 0,
          ordinal: 0,
          name: 'order-status',
          row: null,
          values: new Map(),
          line: 2,
          channel: 'WEB',
          client: undefined,
          steps: plannedSteps,
        },
      ],
    });
  });

  it('gives the same plan, lines included, when the file holds an alias (read by the library that resolves it)', async () => {
    const aliased = steps
      .replace('  - press: Track it', '  - press: &label Track it')
      .replace('  - bot: {}', '  - bot: {}\n  - press: *label');
    const file = await loadOne('order-status.yml', aliased);
    const [conversation] = file.conversations;
    expect(conversation!.line).toBe(2);
    expect(conversation!.steps.slice(0, 5)).toEqual([
      ...plannedSteps.slice(0, 4),
      { kind: 'press', label: 'Track it', index: 4, line: 10 },
    ]);
  });

  it('keeps every digit of an identifier in a file read by the library that resolves aliases', async () => {
    const file = await loadOne(
      'big-id.yaml',
      'client: {coreClientId: 9007199254740993}\nsteps:\n  - customer: &hi Hi\n  - customer: *hi\n',
    );
    expect(file.conversations[0]!.client).toEqual({ coreClientId: 9007199254740993n });
    expect(file.conversations[0]!.steps.map((step) => step.kind === 'customer' && step.text)).toEqual(['Hi', 'Hi']);
  });

  it('reads a .json file as JSON, with the lines of its steps', async () => {
    const json =
      '{\n  "channel": "IM",\n  "client": {"coreClientId": 42},\n  "steps": [\n    {"customer": "Hi"},\n    {"bot": {"text": "Hello"}, "within": "3s"}\n  ]\n}\n';
    const file = await loadOne('Greeting.Test.JSON', json);
    expect(file.name).toBe('Greeting.Test');
    expect(file.conversations[0]).toMatchObject({
      name: 'Greeting.Test',
      line: 1,
      channel: 'IM',
      client: { coreClientId: 42n },
      steps: [
        { kind: 'customer', text: 'Hi', index: 0, line: 5 },
        { kind: 'bot', expect: { text: 'Hello' }, withinMs: 3000, capture: [], handover: null, index: 1, line: 6 },
      ],
    });
  });

  it('takes the name the file gives, as a template ($${ is a literal ${), for the conversation; the suite keeps the file name', async () => {
    const file = await loadOne('costs.yaml', 'name: cost $${price}\nchannel: EMAIL\nclient: {clientId: alice}\nsteps:\n  - customer: Hi\n');
    expect(file.name).toBe('costs');
    expect(file.conversations[0]).toMatchObject({ name: 'cost ${price}', channel: 'EMAIL', client: { clientId: 'alice' } });
  });

  it.each([['.yaml'], ['.YML'], ['.json']])('names a conversation after its file without the %s ending', async (ending) => {
    const file = await loadOne(`x.json.yaml.d${ending}`, '{"steps": [{"customer": "Hi"}]}');
    expect([file.name, file.conversations[0]!.name]).toEqual(['x.json.yaml.d', 'x.json.yaml.d']);
  });
});

describe('a file of several conversations', () => {
  const text = [
    'name: the shop',
    'channel: IM',
    'client: {coreClientId: 7}',
    'conversations:',
    '  - name: first',
    '    steps:',
    '      - customer: Hi',
    '  - name: second',
    '    channel: EMAIL',
    '    client: {clientId: bob}',
    '    steps:',
    '      - customer: Hello',
    '      - bot: {}',
    '',
  ].join('\n');

  it("plans each conversation with its own line, name and steps; the file's channel and client are their defaults", async () => {
    const file = await loadOne('shop.yaml', text);
    expect(file.name).toBe('the shop');
    expect(file.conversations).toEqual([
      {
        file: 'shop.yaml',
        index: 0,
        ordinal: 0,
        name: 'first',
        row: null,
        values: new Map(),
        line: 5,
        channel: 'IM',
        client: { coreClientId: 7n },
        steps: [{ kind: 'customer', text: 'Hi', index: 0, line: 7 }],
      },
      {
        file: 'shop.yaml',
        index: 1,
        ordinal: 1,
        name: 'second',
        row: null,
        values: new Map(),
        line: 8,
        channel: 'EMAIL',
        client: { clientId: 'bob' },
        steps: [
          { kind: 'customer', text: 'Hello', index: 0, line: 12 },
          { kind: 'bot', expect: {}, withinMs: null, capture: [], handover: null, index: 1, line: 13 },
        ],
      },
    ]);
  });

  it.each([
    ['yaml', 'shop.yaml', text.replace('channel: IM', 'channel: im').replace('channel: EMAIL', 'channel: Email')],
    [
      'JSON',
      'shop.json',
      '{"channel": "iM", "conversations": [{"name": "a", "steps": [{"customer": "Hi"}]}, {"name": "b", "channel": "email", "steps": [{"customer": "Hi"}]}]}',
    ],
  ])('plans the channels a %s file names in any case by their names', async (_, name, content) => {
    const file = await loadOne(name, content);
    expect(file.conversations.map((conversation) => conversation.channel)).toEqual(['IM', 'EMAIL']);
  });

  it('names the suite after the file when the file gives no name', async () => {
    const file = await loadOne('shop.yaml', text.replace('name: the shop\n', ''));
    expect(file.name).toBe('shop');
    expect(file.conversations.map((c) => c.name)).toEqual(['first', 'second']);
  });
});

describe('examples', () => {
  it('plays a conversation once per row, its values as text, the name filled in from the row', async () => {
    const file = await loadOne(
      'echo.yaml',
      'name: echo ${word}\nexamples:\n  - {word: alpha, n: 12}\n  - {word: beta, n: 1.5}\n  - {word: gamma, n: true}\nsteps:\n  - customer: ${word} ${n}\n',
    );
    expect(file.conversations.map((c) => [c.index, c.name, c.row, [...c.values], c.line, c.steps])).toEqual(
      (
        [
          ['echo alpha', 'alpha', '12'],
          ['echo beta', 'beta', '1.5'],
          ['echo gamma', 'gamma', 'true'],
        ] as const
      ).map(([name, word, n], row) => [
        row,
        name,
        row,
        [
          ['word', word],
          ['n', n],
        ],
        1,
        [{ kind: 'customer', text: '${word} ${n}', index: 0, line: 7 }],
      ]),
    );
  });

  it("follows a name the rows do not tell apart with the row's values, and leaves a unique one alone", async () => {
    const file = await loadOne(
      'echo.yaml',
      'name: echo ${word}\nexamples:\n  - {word: a, n: 1}\n  - {word: a, n: 2}\n  - {word: b, n: 3}\nsteps:\n  - customer: ${word} ${n}\n',
    );
    expect(file.conversations.map((c) => c.name)).toEqual(['echo a (word=a, n=1)', 'echo a (word=a, n=2)', 'echo b']);
  });

  it('names the rows of a conversation without a name after the file, each with its values', async () => {
    const file = await loadOne('echo.yaml', 'examples:\n  - {word: a}\n  - {word: b}\nsteps:\n  - customer: ${word}\n');
    expect(file.conversations.map((c) => c.name)).toEqual(['echo (word=a)', 'echo (word=b)']);
  });

  it('numbers the conversations of a file across its examples rows and conversations', async () => {
    const file = await loadOne(
      'two.yaml',
      'conversations:\n  - name: one ${w}\n    examples: [{w: a}, {w: b}]\n    steps:\n      - customer: ${w}\n  - name: two\n    steps:\n      - customer: Hi\n',
    );
    expect(file.conversations.map((c) => [c.index, c.name, c.row, c.line])).toEqual([
      [0, 'one a', 0, 2],
      [1, 'one b', 1, 2],
      [2, 'two', null, 6],
    ]);
  });
});

describe('several files', () => {
  it('numbers every conversation of the run in order, each file from 0 within itself', async () => {
    const root = folder({
      'a.yaml': 'conversations:\n  - name: x\n    steps: [customer: Hi]\n  - name: y\n    steps: [customer: Hi]\n',
      'b.yaml': 'steps: [customer: Hi]\n',
    });
    const files = await loadTests(['b.yaml', 'a.yaml'], root);
    expect(files.map((f) => f.conversations.map((c) => [f.file, c.index, c.ordinal]))).toEqual([
      [['b.yaml', 0, 0]],
      [
        ['a.yaml', 0, 1],
        ['a.yaml', 1, 2],
      ],
    ]);
  });

  it('tells apart suites of one name by their paths, after the first', async () => {
    const root = folder({
      'one/t.yaml': 'steps: [customer: Hi]\n',
      'two/t.yaml': 'steps: [customer: Hi]\n',
      'three/t.yaml': 'steps: [customer: Hi]\n',
      'named.yaml': 'name: shop\nconversations:\n  - {name: x, steps: [customer: Hi]}\n',
      'shop.yaml': 'steps: [customer: Hi]\n',
      'u.yaml': 'steps: [customer: Hi]\n',
    });
    const files = await loadTests(['one/t.yaml', 'two/t.yaml', 'three/t.yaml', 'named.yaml', 'shop.yaml', 'u.yaml'], root);
    expect(files.map((f) => f.name)).toEqual(['t', 'two/t.yaml', 'three/t.yaml', 'shop', 'shop.yaml', 'u']);
  });
});

describe('a file that cannot be read as a test, refused before anything runs', () => {
  it.each([
    ['an empty file', 'a.yaml', '', 'a.yaml: is empty'],
    ['a file of white space', 'a.yaml', ' \n\t\n', 'a.yaml: is empty'],
    ['bytes that are not UTF-8', 'a.yaml', Buffer.from([0x73, 0x74, 0xff, 0xfe, 0x0a]), 'a.yaml: is not valid UTF-8 text'],
    ['JSON that is not valid', 'a.json', '{"steps": [', expect.stringMatching(/^a\.json: not valid JSON: ./)],
    ['YAML in a .json file', 'a.json', 'steps:\n  - customer: Hi\n', expect.stringMatching(/^a\.json: not valid JSON: ./)],
    ['YAML in a .JSON file', 'A.JSON', '{steps: [{customer: Hi}]}', expect.stringMatching(/^A\.JSON: not valid JSON: ./)],
    [
      'YAML that is not valid, at its line',
      'a.yaml',
      'name: x\nsteps:\n  - customer: Hi\n  - customer: [a\n',
      'a.yaml:5: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
    ['a key given twice', 'a.yaml', 'name: x\nname: y\nsteps: [customer: Hi]\n', 'a.yaml:2: not valid YAML: Map keys must be unique'],
    [
      'aliases that expand too far',
      'a.yaml',
      'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n',
      'a.yaml: not a usable YAML file: its aliases expand too far (more than 100 copies)',
    ],
    ['a list', 'a.yaml', '- customer: Hi\n', 'a.yaml:1: must hold a mapping: name, channel and steps (see docs/testing-bots.md)'],
    ['a text', 'a.json', '"steps"', 'a.json:1: must hold a mapping: name, channel and steps (see docs/testing-bots.md)'],
  ])('refuses %s', async (_, name, text, problem) => {
    expect(await problemsOf(name, text)).toEqual([problem]);
  });

  it('refuses a file larger than a payload can be, and reads one of exactly that size', async () => {
    const head = 'steps: [customer: Hi]\n#';
    const padding = (size: number) => `${head}${'x'.repeat(size - head.length - 1)}\n`;
    expect(await problemsOf('big.yaml', padding(MAX_PAYLOAD_BYTES + 1))).toEqual([
      'big.yaml: 5.0 MB, more than a test file can be (limit 5.0 MB)',
    ]);
    expect((await loadOne('big.yaml', padding(MAX_PAYLOAD_BYTES))).conversations).toHaveLength(1);
  });
});

describe('the problems of a file, each at its line and path', () => {
  it.each([
    [
      'a misspelt field, at the line of its value',
      'name: a\nsteps:\n  - customer: Hi\n  - bot:\n      txt: Hello\n',
      ['a.yaml:5 steps[1].bot.txt: unknown field; did you mean "text"?'],
    ],
    ['a problem of the whole file, at the line of its mapping', '# tests\n\nname: x\n', ['a.yaml:3: required: steps (or conversations)']],
    [
      'a missing field, at the line of what should hold it',
      'conversations:\n  - steps:\n      - customer: Hi\n',
      ['a.yaml:2 conversations[0].name: required'],
    ],
    [
      'a key in quotes, at its own line',
      'steps:\n  - customer: Hi\n  - bot: {}\n    capture:\n      ok: /x/\n      "my ticket": /T/\n',
      ['a.yaml:6 steps[1].capture["my ticket"]: the key "my ticket" is not a name: letters, digits and _, not starting with a digit'],
    ],
    [
      'a key holding a quote, at its own line',
      'steps:\n  - customer: Hi\n  - bot: {}\n    capture:\n      ok: /x/\n      "my\\"t": /T/\n',
      ['a.yaml:6 steps[1].capture["my\\"t"]: the key "my\\"t" is not a name: letters, digits and _, not starting with a digit'],
    ],
    [
      'a step of a conversation',
      'conversations:\n  - name: x\n    steps:\n      - customer: Hi\n      - customer: ""\n',
      ['a.yaml:5 conversations[0].steps[1].customer: must not be empty'],
    ],
  ])('places %s', async (_, text, problems) => {
    expect(await problemsOf('a.yaml', text)).toEqual(problems);
  });

  it.each([
    [1, 3],
    [10, 12],
  ])('places a problem of steps[%i] at line %i', async (index, line) => {
    const text = `steps:\n${'  - customer: Hi\n'.repeat(index)}  - customer: ""\n`;
    expect(await problemsOf('a.yaml', text)).toEqual([`a.yaml:${line} steps[${index}].customer: must not be empty`]);
  });

  it('places the problems of a JSON file the document cannot place (a key given twice) at line 1', async () => {
    const json = '{\n  "name": "x",\n  "name": "x",\n  "steps": [\n    {"bot": {}}\n  ]\n}\n';
    expect(await problemsOf('a.json', json)).toEqual([
      'a.json:1 steps[0]: the first step is customer: TEXT: a conversation starts with the customer writing',
    ]);
  });

  it.each([
    [
      'a ${NAME} no step captures, with the nearest known name',
      'steps:\n  - customer: open a ticket\n  - bot: {}\n    capture: {ticket: "/(T-\\\\d+)/"}\n  - customer: status of ${tikcet}\n',
      [
        'a.yaml:5 steps[2].customer: ${tikcet} is unknown: no earlier step captures it and there are no examples; did you mean ${ticket}? (write $${ for a literal ${)',
      ],
    ],
    [
      'a name using a key no row gives',
      'name: echo ${wrd}\nexamples:\n  - {word: a}\nsteps:\n  - customer: ${word}\n',
      ['a.yaml:1 name: ${wrd} is unknown: the examples do not give it; did you mean ${word}? (write $${ for a literal ${)'],
    ],
    [
      'the names and steps of every conversation',
      'conversations:\n  - name: one ${x}\n    steps:\n      - customer: Hi\n  - name: two\n    steps:\n      - customer: Hi\n      - customer: ${y}\n',
      [
        'a.yaml:2 conversations[0].name: ${x} is unknown: there are no examples (write $${ for a literal ${)',
        'a.yaml:8 conversations[1].steps[1].customer: ${y} is unknown: no earlier step captures it and there are no examples (write $${ for a literal ${)',
      ],
    ],
  ])('places the ${NAME}s of %s', async (_, text, problems) => {
    expect(await problemsOf('a.yaml', text)).toEqual(problems);
  });

  it.each([
    [
      'a ${NAME} no step captures, with two problems the schema finds',
      'channel: FAX\nsteps:\n  - customer: ""\n  - bot: {}\n    capture: {ticket: "/(T-\\\\d+)/"}\n  - customer: status of ${tikcet}\n',
      [
        'a.yaml:1 channel: "FAX" is not a channel: use WEB, IM or EMAIL (in any case)',
        'a.yaml:3 steps[0].customer: must not be empty',
        'a.yaml:6 steps[2].customer: ${tikcet} is unknown: no earlier step captures it and there are no examples; did you mean ${ticket}? (write $${ for a literal ${)',
      ],
    ],
    [
      'a name and a row, beside a step of no known kind',
      'name: echo ${wrd}\nexamples:\n  - {word: a}\nsteps:\n  - customer: ${word}\n  - shout: hello\n',
      [
        'a.yaml:1 name: ${wrd} is unknown: the examples do not give it; did you mean ${word}? (write $${ for a literal ${)',
        'a.yaml:6 steps[1]: a step is one of customer: TEXT, press: LABEL, bot: {...}, agent: TEXT or release: true',
        'a.yaml:6 steps[1].shout: unknown field',
      ],
    ],
  ])('reports in one pass, in the order of the file, %s', async (_, text, problems) => {
    expect(await problemsOf('a.yaml', text)).toEqual(problems);
  });
});

describe('every problem of every file at once', () => {
  const fine = 'steps: [customer: Hi]\n';

  it.each([
    ['one problem of one file', { 'a.yaml': '', 'ok.yaml': fine }, 'a test file is not valid (1 problem)', ['a.yaml: is empty']],
    [
      'two problems of one file',
      { 'a.yaml': 'steps:\n  - customer: ""\n  - press: ""\n', 'ok.yaml': fine },
      'a test file is not valid (2 problems)',
      ['a.yaml:2 steps[0].customer: must not be empty', 'a.yaml:3 steps[1].press: must not be empty'],
    ],
    [
      'three problems of two files',
      { 'a.yaml': 'steps:\n  - customer: ""\n  - press: ""\n', 'b.yaml': '', 'ok.yaml': fine },
      '2 test files are not valid (3 problems)',
      ['a.yaml:2 steps[0].customer: must not be empty', 'a.yaml:3 steps[1].press: must not be empty', 'b.yaml: is empty'],
    ],
    [
      'two files whose names start alike',
      { 'one.yaml': '', 'other.yaml': '' },
      '2 test files are not valid (2 problems)',
      ['one.yaml: is empty', 'other.yaml: is empty'],
    ],
    [
      'two files whose names hold a colon',
      { 'x:1.yaml': '', 'x:2.yaml': '' },
      '2 test files are not valid (2 problems)',
      ['x:1.yaml: is empty', 'x:2.yaml: is empty'],
    ],
  ])('counts %s, with a hint', async (_, files, message, problems) => {
    const error = await rejection(loadTests(Object.keys(files).sort(), folder(files)));
    expect(error).toBeInstanceOf(PayloadError);
    expect(error).toMatchObject({
      message,
      hint: 'fix the files; core schema test prints the JSON Schema for editors, and docs/testing-bots.md describes the format',
    });
    expect((error as PayloadError).problems.map((p) => `${p.path}: ${p.message}`)).toEqual(problems);
  });
});

// An identifier written with digits that do not survive (1.9999999999999999 reads as 2) is refused as
// in a payload file (test/payload/inexact.test.ts), whichever reader reads the file, naming what was
// written (it was named by the number it reads as: "got 2").
describe('an identifier whose written digits do not survive', () => {
  const refused = (literal: string) =>
    `expected an integer from 0 to 9,223,372,036,854,775,807, got ${literal} (which reads as ${Number(literal)}: a number keeps 15 to 17 digits); write the identifier in plain digits`;

  it.each([
    ['YAML (the fast reader)', 'a.yaml', (id: string) => `client: {coreClientId: ${id}}\nsteps:\n  - customer: Hi\n`],
    [
      'YAML with an alias (the yaml library)',
      'a.yaml',
      (id: string) => `client: {coreClientId: ${id}}\nsteps:\n  - customer: &hi Hi\n  - customer: *hi\n`,
    ],
    ['JSON', 'a.json', (id: string) => `{"client": {"coreClientId": ${id}}, "steps": [{"customer": "Hi"}]}`],
  ])('is refused as the client in %s, with exit 2', async (_reader, name, text) => {
    for (const id of ['1.9999999999999999', '5001.0000000000000001']) {
      expect(await problemsOf(name, text(id))).toEqual([`${name}:1 client.coreClientId: ${refused(id)}`]);
    }
  });

  it('is refused where a bot step expects one, naming what was written', async () => {
    const problems = await problemsOf('a.yaml', 'steps:\n  - customer: Hi\n  - bot: {questionIndex: 1.9999999999999999}\n');
    expect(problems).toEqual([
      'a.yaml:3 steps[1].bot.questionIndex: expected a whole number or a pattern (/.../), got 1.9999999999999999 (which reads as 2: a number keeps 15 to 17 digits)',
    ]);
  });
});
