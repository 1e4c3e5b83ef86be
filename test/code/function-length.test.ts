import { describe, expect, it } from 'vitest';
import { functionLengthsOf, longestFunctions, type FunctionLength } from '../../scripts/function-lengths.mjs';

/**
 * No function in bot testing (src/testing/) or the commands (src/commands/) is over 60 lines
 * (docs/architecture.md, "Rules of the road"), measured by scripts/function-lengths.mjs with the
 * TypeScript parser: from a function's first line to its last, both counted. Two kinds are long by
 * nature and pass over: a command's declaration of its options (a `CommandFactory`), which reads as
 * the help it makes, and a completion script's template, which reads as the script it writes.
 */

const LIMIT = 60;
const FOLDERS = ['src/testing', 'src/commands'];

/** The completion scripts' templates: the script each shell reads, written out as one template. */
const TEMPLATES = [
  { file: 'src/commands/completion/bash.ts', name: 'bashScript' },
  { file: 'src/commands/completion/zsh.ts', name: 'zshScript' },
  { file: 'src/commands/completion/fish.ts', name: 'fishScript' },
  { file: 'src/commands/completion/powershell.ts', name: 'powershellScript' },
];

const isDeclaration = (fn: FunctionLength) => /^src\/commands\/.+\/command\.ts$/.test(fn.file) && fn.declaredAs === 'CommandFactory';
const isTemplate = (fn: FunctionLength) => TEMPLATES.some((t) => t.file === fn.file && t.name === fn.name);
const shown = (fn: FunctionLength) => `${fn.file}:${fn.line} ${fn.name}: ${fn.lines} lines`;

/** A function of `n` lines: its first line, `n - 2` statements, its last. */
const functionOf = (n: number, head = 'function f() {') =>
  [head, ...Array.from({ length: n - 2 }, (_, i) => `  void ${i};`), '}'].join('\n');

describe('the length of functions', () => {
  const functions = longestFunctions(FOLDERS);

  it(`is at most ${LIMIT} lines in src/testing/ and src/commands/, but for declarations of options and completion templates`, () => {
    const over = functions.filter((fn) => fn.lines > LIMIT && !isDeclaration(fn) && !isTemplate(fn));
    expect(over.map(shown)).toEqual([]);
  });

  it('passes over no template that is gone or renamed, and over declarations of options only in command.ts files', () => {
    for (const template of TEMPLATES) {
      expect(
        functions.find((fn) => fn.file === template.file && fn.name === template.name),
        `${template.file} ${template.name}`,
      ).toBeDefined();
    }
    const declarations = functions.filter((fn) => fn.declaredAs === 'CommandFactory');
    expect(declarations.length).toBeGreaterThan(0);
    expect(declarations.filter((fn) => !isDeclaration(fn)).map(shown)).toEqual([]);
  });

  it.each([
    ['a function declaration', 'function f() {', 'f'],
    ['an arrow function given to a const', 'const f = () => {', 'f'],
    ['a function typed as a command declaration', 'const f: CommandFactory = (inv) => {', 'f'],
  ])('counts %s from its first line to its last, at the limit and one line past it', (_, head, name) => {
    for (const n of [LIMIT, LIMIT + 1]) {
      const [fn] = functionLengthsOf('a.ts', functionOf(n, head));
      expect(fn).toMatchObject({ name, line: 1, lines: n });
    }
  });

  it('counts a method and a function inside another each on its own, and names the type a function is declared as', () => {
    const text = [
      'class A {',
      '  m() {',
      '    const g = () => {',
      '      return 1;',
      '    };',
      '  }',
      '}',
      'const h: CommandFactory = () => 2;',
    ].join('\n');
    expect(functionLengthsOf('a.ts', text).map(({ name, line, lines, declaredAs }) => [name, line, lines, declaredAs])).toEqual([
      ['m', 2, 5, undefined],
      ['g', 3, 3, undefined],
      ['h', 8, 1, 'CommandFactory'],
    ]);
  });
});
