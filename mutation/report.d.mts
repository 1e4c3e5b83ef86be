// Types of mutation/report.mjs, for the tests written in TypeScript (test/mutation/ledger.test.ts).
import type { KeyedMutant, Position } from './ledger.mjs';

export interface ReportMutant {
  mutatorName: string;
  replacement: string;
  location: { start: Position; end: Position };
  status: string;
}

export interface Report {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

export function mutantsOfReport(report: Report, known?: KeyedMutant[]): KeyedMutant[];
export function survived(mutant: { status?: string }): boolean;
export function scoreOf(report: Report, equivalent: number): { raw: number; corrected: number; detected: number; valid: number };
