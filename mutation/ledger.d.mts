// Types of mutation/ledger.mjs, for the tests written in TypeScript (test/mutation/ledger.test.ts).

export interface Position {
  line: number;
  column: number;
}

export interface Mutant {
  file: string;
  mutator: string;
  replacement: string;
  location: { start: Position; end: Position };
  status?: string;
}

export interface KeyedMutant extends Mutant {
  original: string;
  scope: string;
  occurrence: number;
  occurrences: number;
}

export interface Entry {
  file: string;
  scope: string;
  mutator: string;
  original: string;
  replacement: string;
  occurrence?: number;
  kind: string;
  reason: string;
}

export interface Module {
  mutate: string[];
  tests: string[];
}

export const KINDS: Record<string, string>;
export function filesMatching(root: string, globs: string[]): string[];
export function mutantsOf(sources: Map<string, string>): Promise<Mutant[]>;
export function keyed(file: string, source: string, mutants: Mutant[]): KeyedMutant[];
export function entryNames(entry: Entry, mutant: KeyedMutant): boolean;
export function entryFor(mutant: KeyedMutant): Omit<Entry, 'kind' | 'reason'>;
export function labelOf(module: string, index: number, entry: Entry): string;
export function ledgerProblems(module: string, entries: Entry[], mutants: KeyedMutant[]): string[];
export function moduleMutants(root: string, module: Module): Promise<KeyedMutant[]>;
export function ledgerOf(root: string, name: string): Entry[];
