// Types of mutation/modules.mjs, for the tests written in TypeScript.
import type { Module } from './ledger.mjs';

export const modules: Record<string, Module>;
