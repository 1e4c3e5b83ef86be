#!/usr/bin/env node
// The length of every function in src/, in lines, read with the TypeScript compiler's parser.
// test/architecture/function-length.test.ts holds the functions of src/testing/ and src/commands/
// to the limit (docs/architecture.md, "Rules of the road"); this script prints the longest ones:
//
//   node scripts/function-lengths.mjs [FOLDER or FILE...] [--top N]
//
// A function's length is the lines from its first to its last, both counted (its JSDoc left out),
// so a function nested in another counts within the outer one too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @typedef {object} FunctionLength
 * @property {string} file the path from the repository's root, with forward slashes
 * @property {string} name the function's name: its own, the variable or property it is given to, or `(anonymous)`
 * @property {number} line where it starts (1-based)
 * @property {number} lines how many lines it spans
 * @property {string | undefined} declaredAs the type annotation of the variable it is given to (`CommandFactory`), if any
 */

/** Every .ts file under `folder` (relative to the root), sorted; a file is itself. */
export function sourceFiles(folder) {
  if (statSync(join(root, folder)).isFile()) return [folder];
  const entries = readdirSync(join(root, folder), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/** The name a function goes by: its own, or that of what it is assigned to. */
function nameOf(node) {
  if (node.name !== undefined && !ts.isComputedPropertyName(node.name)) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText();
  }
  return '(anonymous)';
}

function declaredAs(node) {
  const parent = node.parent;
  return ts.isVariableDeclaration(parent) && parent.type !== undefined ? parent.type.getText() : undefined;
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node);

/** The functions of one file (a path from the root) with their lengths. */
export function functionLengths(file) {
  return functionLengthsOf(file, readFileSync(join(root, file), 'utf8'));
}

/** The functions of a TypeScript text, named `file`, with their lengths. */
export function functionLengthsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** @type {FunctionLength[]} */
  const found = [];
  const visit = (node) => {
    if (isFunction(node) && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, name: nameOf(node), line: first + 1, lines: last - first + 1, declaredAs: declaredAs(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The functions of every file under the folders, longest first. */
export function longestFunctions(folders) {
  return folders.flatMap((folder) => sourceFiles(folder).flatMap(functionLengths)).sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--top');
  const top = at === -1 ? 20 : Number(args[at + 1]);
  const folders = args.filter((arg, index) => arg !== '--top' && (at === -1 || index !== at + 1));
  for (const fn of longestFunctions(folders.length > 0 ? folders : ['src']).slice(0, top)) {
    process.stdout.write(`${String(fn.lines).padStart(5)}  ${fn.file}:${fn.line}  ${fn.name}\n`);
  }
}
