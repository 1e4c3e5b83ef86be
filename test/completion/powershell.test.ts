import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { Language, Parser, type Node } from 'web-tree-sitter';
import { psQuote } from '../../src/commands/completion/powershell.js';
import { tables } from '../../src/commands/completion/shell.js';
import { acceptedOptions, flatten, namesOf, type ValueKind } from '../../src/commands/completion/tree.js';
import { TOPIC_NAMES } from '../../src/commands/help-topics.js';
import { CODES } from '../../src/payload/common.js';
import { commandTree } from '../../scripts/docs/generate.js';
import { runInProcess } from '../helpers/run.js';

/**
 * The PowerShell script of `core completion powershell`. PowerShell itself (pwsh) cannot be installed
 * here: Microsoft's package is not in Debian, and the npm package `pwsh` downloads it from GitHub at
 * install time. So the script is parsed with PowerShell's tree-sitter grammar (tree-sitter-powershell,
 * run by web-tree-sitter, both from npm), which must find no error in it, and its tables are read
 * from the parse tree: every command, subcommand, option and value of the command tree must be there,
 * as the bash, zsh and fish scripts have them. What the completer does with the tables, PowerShell
 * running it, is not tested here (docs/commands/completion.md says so).
 */

let parser: Parser;
beforeAll(async () => {
  await Parser.init();
  const wasm = createRequire(import.meta.url).resolve('tree-sitter-powershell/tree-sitter-powershell.wasm');
  parser = new Parser();
  parser.setLanguage(await Language.load(wasm));
});

async function script(): Promise<string> {
  const run = await runInProcess(['completion', 'powershell']);
  expect(run.code).toBe(0);
  expect(run.stderr).toBe('');
  return run.stdout;
}

/** Every error or missing node of a parse, with its line, for the message. */
function errors(root: Node): string[] {
  const found: string[] = [];
  const visit = (node: Node) => {
    if (node.type === 'ERROR' || node.isMissing) found.push(`line ${node.startPosition.row + 1}: ${node.text.slice(0, 80)}`);
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return found;
}

/** A single-quoted string's value (the grammar's node holds the quotes): '' inside is one quote. */
const unquote = (node: Node) => node.text.slice(1, -1).replace(/''/g, "'");

/** The hashtable assigned to `$name`: each key with the strings of its value, in order. */
function hashtable(root: Node, name: string): Map<string, string[]> {
  const assignment = root.descendantsOfType('assignment_expression').find((node) => node?.child(0)?.text === `$${name}`);
  expect(assignment, `$${name} in the script`).toBeDefined();
  const entries = new Map<string, string[]>();
  for (const entry of assignment!.descendantsOfType('hash_entry')) {
    const key = entry!.child(0)!.descendantsOfType('verbatim_string_characters')[0];
    const strings = entry!.child(entry!.childCount - 1)!.descendantsOfType('verbatim_string_characters');
    entries.set(
      key ? unquote(key) : '',
      strings.map((node) => unquote(node!)),
    );
  }
  return entries;
}

/** What the script's tables hold for a value kind: the kind's word, then any words. */
function expectedKind(value: ValueKind): string[] {
  if (value.kind === 'words') return [value.thenFile ? 'words-file' : 'words', ...value.words];
  return [value.kind];
}

describe('core completion powershell', () => {
  it('parses with no error, in ASCII alone (Windows PowerShell reads a script without a BOM in the ANSI code page)', async () => {
    const text = await script();
    const tree = parser.parse(text)!;
    expect(errors(tree.rootNode)).toEqual([]);
    expect(text).toMatch(/^[\x00-\x7f]*$/);
    expect(text).toContain('Register-ArgumentCompleter -Native -CommandName core -ScriptBlock');
  });

  it('finds the errors a broken script has, so the parse above can fail', async () => {
    const text = await script();
    const broken = [
      text.replace(/\n}\n$/, '\n'),
      text.replace('$__coreValues = @{', "$__coreValues = @{ 'x' = @('a', "),
      text.replace('foreach ($word in $words) {', 'foreach ($word in $words {'),
    ];
    for (const variant of broken) {
      expect(variant).not.toBe(text);
      expect(errors(parser.parse(variant)!.rootNode).length).toBeGreaterThan(0);
    }
  });

  it('has every command, subcommand, option and value of the command tree, as bash, zsh and fish do', async () => {
    const root = parser.parse(await script())!.rootNode;
    const subcommands = hashtable(root, '__coreSubcommands');
    const options = hashtable(root, '__coreOptions');
    const values = hashtable(root, '__coreValues');
    const args = hashtable(root, '__coreArguments');
    const { root: tree } = await commandTree();
    const table = tables(tree);

    for (const command of flatten(tree)) {
      const path = command.path.join(' ');
      if (command.subcommands.length > 0) {
        // Name and summary, a pair each.
        const names = subcommands.get(path)!.filter((_, index) => index % 2 === 0);
        expect(names, `subcommands of '${path}'`).toEqual(command.subcommands.map((sub) => sub.name));
      } else expect(subcommands.has(path)).toBe(false);
      const typed = options.get(path)!.filter((_, index) => index % 2 === 0);
      expect(typed, `options of '${path}'`).toEqual(acceptedOptions(command).flatMap(namesOf));
    }
    expect([...values.keys()].sort()).toEqual(table.values.map((entry) => `${entry.path}:${entry.option}`).sort());
    for (const entry of table.values)
      expect(values.get(`${entry.path}:${entry.option}`), `${entry.path} ${entry.option}`).toEqual(expectedKind(entry.value));
    for (const entry of table.arguments) {
      expect(args.get(`${entry.path}:${entry.index}`), `${entry.path} argument ${entry.index}`).toEqual([
        entry.variadic ? 'variadic' : 'one',
        ...expectedKind(entry.value),
      ]);
    }
  });

  it('completes the values core checks: codes, shells, topics, profiles and files', async () => {
    const root = parser.parse(await script())!.rootNode;
    const values = hashtable(root, '__coreValues');
    const args = hashtable(root, '__coreArguments');
    expect(values.get('reply:--code')).toEqual(['words', ...CODES]);
    expect(values.get('test:--reporter')![0]).toBe('words-file');
    expect(values.get(':--profile')).toEqual(['profile']);
    expect(values.get('reply:-f')).toEqual(['file']);
    expect(args.get('test:0')).toEqual(['variadic', 'file']);
    expect(args.get('config use:0')).toEqual(['one', 'profile']);
    expect(args.get('completion:0')).toEqual(['one', 'words', 'bash', 'zsh', 'fish', 'powershell']);
    expect(args.get('help:0')!.slice(2)).toEqual(expect.arrayContaining([...TOPIC_NAMES, 'doctor', 'version']));
  });

  it.each([
    ['plain', "'plain'"],
    ["it's", "'it''s'"],
    ['a ’curly’ one', "'a ’’curly’’ one'"],
  ])('quotes %s as PowerShell reads it', (text, quoted) => {
    expect(psQuote(text)).toBe(quoted);
  });
});
