// The types of scripts/function-lengths.mjs, for test/code/function-length.test.ts.

export declare const root: string;

export interface FunctionLength {
  /** The path from the repository's root, with forward slashes. */
  file: string;
  /** The function's name: its own, the variable or property it is given to, or `(anonymous)`. */
  name: string;
  /** Where it starts (1-based). */
  line: number;
  /** How many lines it spans. */
  lines: number;
  /** The type annotation of the variable it is given to (`CommandFactory`), if any. */
  declaredAs: string | undefined;
}

export declare function sourceFiles(folder: string): string[];
export declare function functionLengths(file: string): FunctionLength[];
export declare function functionLengthsOf(file: string, text: string): FunctionLength[];
export declare function longestFunctions(folders: readonly string[]): FunctionLength[];
