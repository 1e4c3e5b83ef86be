import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type Entry,
  entryFor,
  filesMatching,
  KINDS,
  keyed,
  type KeyedMutant,
  ledgerOf,
  ledgerProblems,
  moduleMutants,
  mutantsOf,
} from '../../mutation/ledger.mjs';
import { modules } from '../../mutation/modules.mjs';
import { mutantsOfReport } from '../../mutation/report.mjs';

/**
 * The ledger of equivalent mutants (mutation/equivalents/<module>.json; CONTRIBUTING.md, "Mutation testing"): each
 * entry names exactly one mutant of Stryker's instrumenter by file, function, mutator, original and replacement
 * (and its occurrence when the function holds the same mutant more than once), and every module's ledger does so
 * now, without a mutation run.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const SAMPLE = `const WORD = 'word';

export function pair(): string[] {
  return ['same', 'same'];
}

export class Box {
  open(a: number): boolean {
    return a > 3;
  }
}

const handlers = { check: (a: number) => a > 3 };
`;

/** The mutants of a source file named sample.ts, keyed. */
async function mutantsOfSample(source: string): Promise<KeyedMutant[]> {
  return keyed('sample.ts', source, await mutantsOf(new Map([['sample.ts', source]])));
}

/** An entry of the ledger for the sample's mutant that `pick` finds. */
function entryOf(mutants: KeyedMutant[], pick: (mutant: KeyedMutant) => boolean): Entry {
  const mutant = mutants.find(pick);
  if (!mutant) throw new Error('no such mutant in the sample');
  return { ...entryFor(mutant), kind: 'equivalent', reason: 'a reason' };
}

const isSame = (occurrence: number) => (mutant: KeyedMutant) =>
  mutant.scope === 'pair' && mutant.original === "'same'" && mutant.occurrence === occurrence;
const isGreater = (scope: string) => (mutant: KeyedMutant) =>
  mutant.scope === scope && mutant.mutator === 'EqualityOperator' && mutant.replacement === 'a >= 3';

describe('the key of a mutant', () => {
  it.each<[string, string, string, string]>([
    ['a top-level declaration by its name', 'WORD', 'StringLiteral', "'word'"],
    ['a function by its name', 'pair', 'ArrayDeclaration', "['same', 'same']"],
    ['a method by its class and name', 'Box.open', 'ConditionalExpression', 'a > 3'],
    ['a function that is the property of an object by the object and the property', 'handlers.check', 'ConditionalExpression', 'a > 3'],
  ])('names %s', async (_name, scope, mutator, original) => {
    const mutants = await mutantsOfSample(SAMPLE);
    expect(
      mutants.filter((mutant) => mutant.scope === scope && mutant.mutator === mutator && mutant.original === original),
    ).not.toHaveLength(0);
  });

  it('counts the occurrences of one mutant in one function, in the order of the source', async () => {
    const mutants = await mutantsOfSample(SAMPLE);
    const same = mutants.filter((mutant) => mutant.scope === 'pair' && mutant.original === "'same'");
    expect(same.map((mutant) => [mutant.location.start.column, mutant.occurrence, mutant.occurrences])).toEqual([
      [11, 1, 2],
      [19, 2, 2],
    ]);
    expect(entryFor(same[1]!)).toEqual({
      file: 'sample.ts',
      scope: 'pair',
      mutator: 'StringLiteral',
      original: "'same'",
      replacement: '""',
      occurrence: 2,
    });
    // A mutant alone of its kind in its function needs no occurrence.
    expect(entryFor(mutants.find(isGreater('Box.open'))!)).not.toHaveProperty('occurrence');
  });

  it('holds the text the mutant replaces without the indentation of its lines', async () => {
    const mutants = await mutantsOfSample(SAMPLE);
    expect(mutants.find((mutant) => mutant.scope === 'Box.open' && mutant.mutator === 'BlockStatement')?.original).toBe(
      '{\nreturn a > 3;\n}',
    );
  });

  it('is the same after an edit above the mutant and a change of its indentation, its line and column moved', async () => {
    const before = await mutantsOfSample(SAMPLE);
    const entries = [entryOf(before, isGreater('Box.open')), entryOf(before, isSame(2)), entryOf(before, isGreater('handlers.check'))];
    const edited = `import { x } from './x.js';\n\nexport function added(): number {\n  return x + 1;\n}\n\n${SAMPLE.replace('    return a > 3;', '        return a > 3;')}`;
    const after = await mutantsOfSample(edited);
    expect(ledgerProblems('sample', entries, after)).toEqual([]);
    expect(after.find(isGreater('Box.open'))!.location.start.line).toBe(before.find(isGreater('Box.open'))!.location.start.line + 6);
  });
});

describe('the problems of a ledger', () => {
  it('none when every entry names exactly one mutant', async () => {
    const mutants = await mutantsOfSample(SAMPLE);
    expect(ledgerProblems('sample', [entryOf(mutants, isSame(1)), entryOf(mutants, isSame(2))], mutants)).toEqual([]);
  });

  it.each<[string, (entry: Entry) => Entry, RegExp]>([
    [
      'that names no mutant: stale',
      (entry) => ({ ...entry, original: "'other'" }),
      /^sample#1 sample\.ts pair StringLiteral: 'other' -> "" \(occurrence 2\): stale/,
    ],
    ['of a mutant moved to another function: stale', (entry) => ({ ...entry, scope: 'Box.open' }), /stale, names no mutant/],
    ['of an occurrence the function does not have: stale', (entry) => ({ ...entry, occurrence: 3 }), /\(occurrence 3\): stale/],
    [
      'that names two mutants of one function: ambiguous, with where they are',
      ({ occurrence: _, ...entry }) => entry,
      /^sample#1 .*: ambiguous, names 2 mutants \(at 4:11, 4:19\): give its occurrence$/,
    ],
    ['of a kind the ledger does not know', (entry) => ({ ...entry, kind: 'harmless' }), /unknown kind "harmless"/],
    ['without a reason', (entry) => ({ ...entry, reason: ' ' }), /: no reason$/],
    ['without a kind', ({ kind: _, ...entry }) => entry as Entry, /malformed \(no kind\)/],
    ['with a field the ledger does not know', (entry) => ({ ...entry, line: 'x' }) as Entry, /malformed \(unknown line\)/],
    [
      'of an occurrence that is no whole number from 1',
      (entry) => ({ ...entry, occurrence: 0 }),
      /occurrence must be a whole number from 1/,
    ],
  ])('an entry %s', async (_name, change, problem) => {
    const mutants = await mutantsOfSample(SAMPLE);
    const problems = ledgerProblems('sample', [change(entryOf(mutants, isSame(2)))], mutants);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('two entries that name the same mutant', async () => {
    const mutants = await mutantsOfSample(SAMPLE);
    const entry = entryOf(mutants, isSame(1));
    expect(ledgerProblems('sample', [entry, { ...entry, reason: 'again' }], mutants)).toEqual([
      expect.stringMatching(/^sample#2 .*: names the same mutant as sample#1$/),
    ]);
  });
});

describe("the mutants of Stryker's report", () => {
  it("of some mutants only (a run of ranges) are keyed by their occurrence among all of the file's", async () => {
    const all = await mutantsOfSample(SAMPLE);
    const second = all.find(isSame(2))!;
    const report = {
      files: {
        'sample.ts': {
          source: SAMPLE,
          mutants: [{ mutatorName: second.mutator, replacement: second.replacement, location: second.location, status: 'Survived' }],
        },
      },
    };
    expect(mutantsOfReport(report, all).map((mutant) => [mutant.occurrence, mutant.status])).toEqual([[2, 'Survived']]);
    // Counted among the report's alone, the one mutant would be the first.
    expect(mutantsOfReport(report).map((mutant) => mutant.occurrence)).toEqual([1]);
  });
});

describe('the ledgers of mutation/equivalents/', () => {
  it('are of modules of mutation/modules.mjs, one file a module', () => {
    const files = filesMatching(root, ['mutation/equivalents/*.json']).map((file) =>
      file.slice('mutation/equivalents/'.length, -'.json'.length),
    );
    expect(files.filter((name) => !(name in modules))).toEqual([]);
  });

  it('know each kind they use', () => {
    expect(Object.keys(KINDS)).toEqual(['equivalent', 'performance', 'v8-sort', 'windows-only', 'other-node']);
  });

  it.each(Object.keys(modules))('%s: every entry names exactly one of its mutants, with a kind and a reason', async (name) => {
    const mutants = await moduleMutants(root, modules[name]!);
    expect(mutants.length).toBeGreaterThan(0);
    expect(ledgerProblems(name, ledgerOf(root, name), mutants)).toEqual([]);
  });

  it('leave report.ts out of the batch module, as its glob says', () => {
    const files = filesMatching(root, modules.batch!.mutate);
    expect(files).toContain('src/batch/source.ts');
    expect(files).not.toContain('src/batch/report.ts');
  });
});
