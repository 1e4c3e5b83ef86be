// The ledger of equivalent mutants (mutation/equivalents/<module>.json, CONTRIBUTING.md "Mutation testing"):
// which mutants a module has, the key that names one of them, and which mutants each entry of the ledger names.
//
// A mutant is named by its file, its mutator, the text it replaces, the text it puts in its place and where it is:
// the function it is in (its `scope`, such as `Masker.add`, or the top-level declaration it is part of, such as
// `replySchema`), and, when that function holds more than one mutant with the same four, its `occurrence` there
// (1 for the first in the source). Line and column numbers are not part of the key: they move with every edit above
// the mutant, while the function and the texts change only with the code the mutant is on.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { Instrumenter } from '@stryker-mutator/instrumenter';
import ts from 'typescript';

/** The kinds of equivalent mutant the ledger accepts, each with what it means (CONTRIBUTING.md lists them too). */
export const KINDS = {
  equivalent: 'no caller can see the change: the same results, output and errors for every input',
  performance: 'only speed or memory change (a cache, a shortcut, a buffer size): measured in bench/, not by a test',
  'v8-sort': "the order a comparison gives ties, which V8's sort never asks about (it asks only whether a result is negative)",
  'windows-only': 'code for Windows, which CI never runs (its tests run on Debian)',
  'other-node': 'code for Node releases other than those CI runs (20 and 24)',
};

const ENTRY_FIELDS = ['file', 'scope', 'mutator', 'original', 'replacement', 'occurrence', 'kind', 'reason'];

const silent = {
  isTraceEnabled: () => false,
  isDebugEnabled: () => false,
  isInfoEnabled: () => false,
  trace() {},
  debug() {},
  info() {},
  warn(...args) {
    console.warn(...args);
  },
  error(...args) {
    console.error(...args);
  },
};

/**
 * The files of the project a list of globs names (mutation/modules.mjs): `**` for any folders, `*` for any part of
 * a name, and a glob that starts with `!` takes files away. Paths are relative to `root`, with `/`.
 */
export function filesMatching(root, globs) {
  const kept = new Set();
  for (const glob of globs) {
    const negated = glob.startsWith('!');
    const path = negated ? glob.slice(1) : glob;
    const pattern = patternOf(path);
    for (const file of filesUnder(root, path)) {
      if (!pattern.test(file)) continue;
      if (negated) kept.delete(file);
      else kept.add(file);
    }
  }
  return [...kept].sort();
}

/** The files under the folder a glob starts with (its parts before the first with a `*`). */
function filesUnder(root, glob) {
  const parts = glob.split('/');
  const fixed = parts
    .slice(
      0,
      parts.findIndex((part) => part.includes('*')),
    )
    .join('/');
  if (!parts.some((part) => part.includes('*'))) return [glob];
  try {
    return readdirSync(join(root, fixed), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) =>
        relative(root, join(entry.parentPath ?? entry.path, entry.name))
          .split(sep)
          .join('/'),
      );
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

function patternOf(glob) {
  const source = glob
    .split('/')
    .map((part) =>
      part === '**'
        ? '(?:[^/]+/)*'
        : `${part
            .split('*')
            .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]*')}/`,
    )
    .join('');
  return new RegExp(`^${source.slice(0, -1)}$`);
}

/**
 * Every mutant Stryker makes of the given files, as its instrumenter makes them (no test is run): for each, the
 * file, mutator, replacement and location (lines and columns counted from 1, as in Stryker's JSON report).
 * `sources` maps a file's path (relative to the project, with `/`) to its text.
 */
export async function mutantsOf(sources) {
  const instrumenter = new Instrumenter(silent);
  // The options stryker.config.mjs gives the mutator (none: every mutator, nothing excluded).
  const { mutants } = await instrumenter.instrument(
    [...sources].map(([name, content]) => ({ name, content, mutate: true })),
    { plugins: null, excludedMutations: [], ignorers: [] },
  );
  return mutants.map((mutant) => ({
    file: mutant.fileName,
    mutator: mutant.mutatorName,
    replacement: mutant.replacement,
    location: {
      start: { line: mutant.location.start.line + 1, column: mutant.location.start.column + 1 },
      end: { line: mutant.location.end.line + 1, column: mutant.location.end.column + 1 },
    },
    ...(mutant.status ? { status: mutant.status } : {}),
  }));
}

/**
 * Each mutant of one file with its key: the text it replaces (`original`, each line's indentation taken away),
 * the function or top-level declaration it is in (`scope`) and its `occurrence` among the mutants of that scope
 * with the same mutator, original and replacement (1 for the first in the source).
 * `mutants` are those of `file`, with locations counted from 1 (mutantsOf, or Stryker's JSON report).
 */
export function keyed(file, source, mutants) {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const described = mutants
    .map((mutant) => {
      const start = sourceFile.getPositionOfLineAndCharacter(mutant.location.start.line - 1, mutant.location.start.column - 1);
      const end = sourceFile.getPositionOfLineAndCharacter(mutant.location.end.line - 1, mutant.location.end.column - 1);
      return { ...mutant, file, start, original: dedent(source.slice(start, end)), scope: scopeOf(sourceFile, start, end) };
    })
    .sort((a, b) => a.start - b.start);
  const seen = new Map();
  for (const mutant of described) {
    const key = JSON.stringify([mutant.scope, mutant.mutator, mutant.original, mutant.replacement]);
    mutant.occurrence = (seen.get(key) ?? 0) + 1;
    seen.set(key, mutant.occurrence);
  }
  for (const mutant of described) {
    mutant.occurrences = seen.get(JSON.stringify([mutant.scope, mutant.mutator, mutant.original, mutant.replacement]));
    delete mutant.start;
  }
  return described;
}

function dedent(text) {
  return text
    .split('\n')
    .map((line, index) => (index === 0 ? line : line.trimStart()))
    .join('\n');
}

/** The names of the functions, methods, classes and top-level declarations around a range, outermost first. */
function scopeOf(sourceFile, start, end) {
  const names = [];
  let node = sourceFile;
  for (;;) {
    const name = nameOf(node);
    if (name !== undefined) names.push(name);
    const child = node.getChildren(sourceFile).find((inner) => inner.getStart(sourceFile) <= start && end <= inner.getEnd());
    if (!child) break;
    node = child;
  }
  return names.join('.');
}

function nameOf(node) {
  if (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isClassExpression(node) || ts.isFunctionExpression(node)) {
    return node.name?.text;
  }
  if (ts.isMethodDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node) || ts.isPropertyDeclaration(node)) {
    return textOf(node.name);
  }
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) {
    const statement = node.parent.parent;
    const topLevel = ts.isVariableStatement(statement) && ts.isSourceFile(statement.parent);
    return topLevel || isFunction(node.initializer) ? node.name.text : undefined;
  }
  if (ts.isPropertyAssignment(node) && isFunction(node.initializer)) return textOf(node.name);
  return undefined;
}

function isFunction(node) {
  return node !== undefined && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

function textOf(name) {
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name) ? name.text : name.getText();
}

/** Whether an entry of the ledger names the mutant (an entry without `occurrence` names every one with its key). */
export function entryNames(entry, mutant) {
  return (
    entry.file === mutant.file &&
    entry.scope === mutant.scope &&
    entry.mutator === mutant.mutator &&
    entry.original === mutant.original &&
    entry.replacement === mutant.replacement &&
    (entry.occurrence === undefined || entry.occurrence === mutant.occurrence)
  );
}

/** The ledger's entry for a mutant, as it is written in mutation/equivalents/<module>.json (key fields only). */
export function entryFor(mutant) {
  const { file, scope, mutator, original, replacement } = mutant;
  return { file, scope, mutator, original, replacement, ...(mutant.occurrences > 1 ? { occurrence: mutant.occurrence } : {}) };
}

/** How an entry is named in a message: its module, its place in the file (counted from 1) and its key. */
export function labelOf(module, index, entry) {
  const occurrence = entry.occurrence === undefined ? '' : ` (occurrence ${entry.occurrence})`;
  const original = entry.original === undefined ? '' : entry.original.split('\n')[0];
  return `${module}#${index + 1} ${entry.file} ${entry.scope || '(top level)'} ${entry.mutator}: ${original} -> ${entry.replacement}${occurrence}`;
}

/**
 * The problems of a module's ledger against its mutants (keyed): an entry malformed (a field missing or unknown, an
 * unknown kind), naming no mutant (stale: the code changed or went), or naming more than one (ambiguous: add its
 * `occurrence`), or two entries naming the same mutant. An empty list when every entry names exactly one mutant.
 */
export function ledgerProblems(module, entries, mutants) {
  const problems = [];
  const claimed = new Map();
  entries.forEach((entry, index) => {
    const label = labelOf(module, index, entry);
    const unknown = Object.keys(entry).filter((field) => !ENTRY_FIELDS.includes(field));
    const missing = ENTRY_FIELDS.filter((field) => field !== 'occurrence' && typeof entry[field] !== 'string');
    if (unknown.length > 0 || missing.length > 0) {
      const parts = [
        ...(missing.length > 0 ? [`no ${missing.join(', ')}`] : []),
        ...(unknown.length > 0 ? [`unknown ${unknown.join(', ')}`] : []),
      ];
      problems.push(`${label}: malformed (${parts.join('; ')})`);
      return;
    }
    if (!(entry.kind in KINDS)) problems.push(`${label}: unknown kind "${entry.kind}" (one of ${Object.keys(KINDS).join(', ')})`);
    if (entry.reason.trim() === '') problems.push(`${label}: no reason`);
    if (entry.occurrence !== undefined && !(Number.isInteger(entry.occurrence) && entry.occurrence >= 1)) {
      problems.push(`${label}: occurrence must be a whole number from 1`);
      return;
    }
    const matched = mutants.filter((mutant) => entryNames(entry, mutant));
    if (matched.length === 0) problems.push(`${label}: stale, names no mutant (its code changed or is gone)`);
    if (matched.length > 1) {
      const where = matched.map((mutant) => `${mutant.location.start.line}:${mutant.location.start.column}`).join(', ');
      problems.push(`${label}: ambiguous, names ${matched.length} mutants (at ${where}): give its occurrence`);
    }
    if (matched.length === 1) {
      const other = claimed.get(matched[0]);
      if (other !== undefined) problems.push(`${label}: names the same mutant as ${module}#${other + 1}`);
      else claimed.set(matched[0], index);
    }
  });
  return problems;
}

/** The mutants of a module (mutation/modules.mjs), keyed, made by Stryker's instrumenter from the files as they are. */
export async function moduleMutants(root, module) {
  const files = filesMatching(root, module.mutate);
  const sources = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]));
  const mutants = await mutantsOf(sources);
  return files.flatMap((file) =>
    keyed(
      file,
      sources.get(file),
      mutants.filter((mutant) => mutant.file === file),
    ),
  );
}

/** A module's ledger: mutation/equivalents/<module>.json, or no entry when there is none. */
export function ledgerOf(root, name) {
  const file = join(root, 'mutation', 'equivalents', `${name}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}
